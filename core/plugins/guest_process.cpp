#include "plugins/guest_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>

#include "plugins/plugin_loader.h"

namespace accucheck::guest {
namespace {

using Clock = std::chrono::steady_clock;

CrashNote* g_crash_note = nullptr;  // in a forked guest: its page

extern "C" void note_crash(int sig) {
  const int saved = errno;
  if (g_crash_note) g_crash_note->signal_errno.store(saved);
  raise(sig);  // SA_RESETHAND: the default action now, so the parent sees the signal
}

std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* description = strsignal(sig);
  std::string text = abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
  if (description) text += std::string(" (") + description + ")";
  return text;
}

std::string bytes_text(std::uint64_t bytes) {
  char text[48];
  if (bytes >= (1ull << 30))
    std::snprintf(text, sizeof text, "%.3g GiB", static_cast<double>(bytes) / (1ull << 30));
  else
    std::snprintf(text, sizeof text, "%.3g MiB", static_cast<double>(bytes) / (1ull << 20));
  return text;
}

}  // namespace

void Capture::add(const char* p, std::size_t n) {
  total += n;
  if (head.size() < kCapturedBytes) head.append(p, std::min(n, kCapturedBytes - head.size()));
}

std::string Capture::summary() const { return total ? output_summary(head, total) : ""; }

std::string output_summary(const std::string& bytes, std::size_t total_bytes, std::size_t limit) {
  std::string text = "'";
  std::size_t shown = 0;
  for (; shown < bytes.size() && text.size() < limit; ++shown) {
    const unsigned char c = static_cast<unsigned char>(bytes[shown]);
    if (c == '\n')
      text += "\\n";
    else if (c == '\t')
      text += "\\t";
    else if (c == '\\')
      text += "\\\\";
    else if (c == '\'')
      text += "\\'";
    else if (c >= 0x20 && c < 0x7f)
      text += static_cast<char>(c);
    else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      text += escaped;
    }
  }
  text += "'";
  if (shown < total_bytes) text += "... (" + std::to_string(total_bytes) + " bytes in all)";
  return text;
}

std::string output_suffix(const std::string& summary) {
  return summary.empty() ? "" : "; it wrote to its output: " + summary;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

std::uint64_t address_space_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long pages = 0;
  const int read = std::fscanf(f, "%llu", &pages);
  std::fclose(f);
  return read == 1 ? pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

void limit_address_space(std::uint64_t ceiling) {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? ceiling : std::min<rlim_t>(ceiling, limit.rlim_max);
  setrlimit(RLIMIT_AS, &limit);
}

void unlimit_address_space() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_AS, &limit);
}

bool send_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool receive_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

void prepare_forked_guest(CrashNote* note) {
  g_crash_note = note;
  struct sigaction action {};
  action.sa_handler = note_crash;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) {
    sigaction(sig, &action, nullptr);
    sigaddset(&set, sig);
  }
  std::signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  // Ctrl-C reaches the whole process group: the campaign stops after its case (campaign.h) and
  // then ends this guest; dying of it here would be a backend failure nobody caused.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
}

void GuestProcess::launch(const std::string& what, const char* guest, std::uint64_t memory_limit,
                          const std::function<void(int socket, int memfd)>& child) {
  memory_limit_ = memory_limit;
  memfd_ = memfd_create("accucheck-guest-call", MFD_CLOEXEC);
  if (memfd_ < 0) fail(what, "cannot create the shared region");
  void* note = mmap(nullptr, sizeof(CrashNote), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (note == MAP_FAILED) fail(what, "cannot map the crash note");
  note_ = new (note) CrashNote{};
  int sockets[2], output[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) fail(what, "cannot create a socket pair");
  if (pipe2(output, O_CLOEXEC) != 0) {
    close(sockets[0]);
    close(sockets[1]);
    fail(what, "cannot create the output pipe");
  }
  std::fflush(nullptr);  // no buffered output duplicated into the guest
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {sockets[0], sockets[1], output[0], output[1]}) close(fd);
    fail(what, (std::string("cannot fork a ") + guest).c_str());
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
    close(sockets[0]);
    close(output[0]);
    const int null_input = open("/dev/null", O_RDONLY);
    if (null_input >= 0) dup2(null_input, STDIN_FILENO);
    dup2(output[1], STDOUT_FILENO);
    dup2(output[1], STDERR_FILENO);
    close(output[1]);
    child(sockets[1], memfd_);
    _exit(127);  // not reached: the child function never returns
  }
  close(sockets[1]);
  close(output[1]);
  socket_ = sockets[0];
  output_ = output[0];
  fcntl(output_, F_SETFL, fcntl(output_, F_GETFL) | O_NONBLOCK);
  pid_ = pid;
}

void GuestProcess::stop(bool kill_it) {
  if (base_) munmap(base_, mapped_);
  base_ = nullptr;
  mapped_ = 0;
  for (int* fd : {&memfd_, &socket_, &output_}) {
    if (*fd >= 0) close(*fd);  // the guest reads end of file and exits
    *fd = -1;
  }
  if (pid_ > 0) {
    if (kill_it) kill(pid_, SIGKILL);
    reap();
  }
  if (note_) munmap(note_, sizeof(CrashNote));
  note_ = nullptr;
}

unsigned char* GuestProcess::region(std::size_t total, const std::string& what) {
  if (total > mapped_) {
    const std::size_t size = std::max(total, 2 * mapped_);
    if (ftruncate(memfd_, static_cast<off_t>(size)) != 0) fail(what, "cannot grow the shared region");
    if (base_) munmap(base_, mapped_);
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
    if (p == MAP_FAILED) {
      base_ = nullptr;
      mapped_ = 0;
      fail(what, "cannot map the shared region");
    }
    base_ = static_cast<unsigned char*>(p);
    mapped_ = size;
  }
  return base_;
}

GuestProcess::End GuestProcess::exchange(const std::string& request, double timeout_seconds, bool deadline_applies,
                                         const std::function<bool(int socket)>& receive, Capture& capture) {
  if (!request.empty() && !send_all(socket_, request.data(), request.size())) {
    drain(capture);
    return End::died;
  }
  auto limit =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  End on_expiry = End::timed_out;
  if (deadline_applies)
    if (const auto deadline = plugin_call_deadline(); deadline && *deadline < limit) {
      limit = *deadline;
      on_expiry = End::deadline;
    }
  pollfd fds[2] = {{socket_, POLLIN, 0}, {output_, POLLIN, 0}};
  for (;;) {
    const auto left = std::chrono::duration<double, std::milli>(limit - Clock::now()).count();
    if (left <= 0) return on_expiry;
    const int ready = poll(fds, 2, static_cast<int>(std::min(std::ceil(left), 2.0e9)));
    if (ready < 0 && errno != EINTR) return End::died;
    if (ready <= 0) continue;
    if (fds[1].revents && !drain(capture)) fds[1].fd = -1;  // the guest closed its output
    if (fds[0].revents) {
      const bool ok = receive(socket_);
      drain(capture);  // everything it wrote before answering (or dying)
      return ok ? End::answered : End::died;
    }
  }
}

std::string GuestProcess::death_text(const std::string& after_exit, FailureKind* kind) {
  const int status = reap();
  std::string text;
  FailureKind how = FailureKind::crash;
  if (status >= 0 && WIFSIGNALED(status))
    text = "crashed with " + signal_text(WTERMSIG(status));
  else if (status >= 0 && WIFEXITED(status)) {
    text = "exited the process (status " + std::to_string(WEXITSTATUS(status)) + ")" + after_exit;
    how = FailureKind::exit;
  } else
    text = "ended without answering (the worker is gone)";
  if (kind) *kind = how;
  if (note_ && note_->signal_errno.load() == ENOMEM)
    text = "ran out of memory and " + text +
           (memory_limit_ ? " (a worker may grow by at most " + bytes_text(memory_limit_) +
                                ": ACCUCHECK_PLUGIN_MEMORY sets the limit)"
                          : "");
  stop(false);
  return text;
}

void GuestProcess::fail_call(End end, const std::string& what, double timeout_seconds, Clock::time_point started,
                             const std::string& output) {
  if (end == End::died) {
    FailureKind kind;
    const std::string why = death_text(" instead of returning", &kind);
    throw BackendFailure(what + " " + why + output, kind);
  }
  stop(true);
  if (end == End::deadline)
    throw PluginDeadlineReached{what, std::chrono::duration<double>(Clock::now() - started).count()};
  throw BackendFailure(what + " timed out after " + seconds_text(timeout_seconds) +
                           " s (killed; ACCUCHECK_PLUGIN_TIMEOUT sets the limit)" + output,
                       FailureKind::timeout);
}

void GuestProcess::fail(const std::string& what, const char* doing) {
  throw BackendFailure(what + ": " + doing + ": " + std::strerror(errno));
}

int GuestProcess::reap() {
  int status = -1;
  if (pid_ > 0) {
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  }
  pid_ = -1;
  return status;
}

bool GuestProcess::drain(Capture& capture) {
  if (output_ < 0) return false;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(output_, buffer, sizeof buffer);
    if (n > 0) {
      capture.add(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

}  // namespace accucheck::guest
