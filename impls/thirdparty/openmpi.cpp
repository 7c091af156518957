// The real MPI_Allreduce (Debian's Open MPI, openmpi-bin): mpi_allreduce_npP_[ALGORITHM_]F runs
// `mpirun -np P --oversubscribe accucheck_mpi_worker DIR` (mpi_worker.cpp) once, at its first
// workload, and keeps the world for the next ones (a world costs about a second to start).
// Element j's n terms are dealt to the P ranks in contiguous shares (rank r: terms [r n / P,
// (r+1) n / P)), each rank sums its share in order in F (the gradient it accumulated itself),
// then MPI_Allreduce with MPI_SUM sums the P partial gradients; for n = P each rank holds one term
// and the result is the library's reduction alone (what characterize reveals).
//
// Bound tree(ranks:P,F): each share a chain of at most ceil(n/P) terms, then any tree over the
// min(n, P) shares that hold a term (the MPI standard fixes no order; an empty share is -0,
// whose addition is exact): (ceil(n/P) - 1) + (min(n, P) - 1) roundings (docs/bounds.md,
// "All-reduce over ranks": heights compose). Determinism: Open MPI's coll/tuned picks the
// algorithm by P and the message size, and each is a fixed order: bitwise-deterministic for one
// build and machine (claimed, checked by the determinism property).
//
// The ALGORITHM variants force coll/tuned's choice (coll_tuned_use_dynamic_rules 1,
// coll_tuned_allreduce_algorithm N): their bits must equal the allreduce_mpi_* order models' on
// the per-rank sums (impls/tests/openmpi_test.cpp). Each rank reads its share from its own fifo
// in a blocking read (an idle world costs no CPU); rank 0 answers through a third. A world that dies, hangs past its
// time-out or answers wrongly is this backend's failure (BackendFailure); the next workload starts a new one.
// Environment: ACCUCHECK_MPIRUN and ACCUCHECK_MPI_WORKER override the paths found at build time; as root, Open MPI's
// OMPI_ALLOW_RUN_AS_ROOT variables are set for the world.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "common/per_element.h"

extern char** environ;

namespace accucheck::impls {
namespace {

std::string setting(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}

// Open MPI's collectives wait by spinning. Unpinned, a world's P ranks spread over every core
// while they reduce, and with `check --jobs N` they took the cores the other jobs judge on (and
// two worlds reducing at once slowed each other down three times over, so one request ran per
// machine): two jobs ran 1.15x one job (measured 2026-12-08, docs/performance.md; 2.57x since). So each process runs
// its worlds on one CPU of its own, its home, with mpi_yield_when_idle set (P spinning ranks on one core take turns): a
// process claims the first CPU whose claim file in /tmp no other process holds locked (the kernel drops the lock when
// the process ends), else shares one by its pid. Its harness thread waits, blocked, while its world reduces, so a job
// and its worlds use about one core. Processes that share a home reduce one at a time (an advisory lock per CPU, held
// for one request).
struct Home {
  int cpu = -1;  // -1: this process's CPUs could not be read; the worlds run unpinned
  std::string request_lock;
};

const Home& home() {
  static std::mutex lock;
  static pid_t owner = 0;
  static Home chosen;
  static int claim = -1;
  std::lock_guard<std::mutex> guard(lock);
  if (owner == getpid()) return chosen;
  if (claim >= 0) close(claim);  // a forked copy's: the parent keeps its own claim
  owner = getpid();
  claim = -1;
  chosen = Home{-1, "/tmp/accucheck-mpi.lock"};
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return chosen;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  if (cpus.empty()) return chosen;
  chosen.cpu = cpus[static_cast<std::size_t>(getpid()) % cpus.size()];
  for (int c : cpus) {
    const std::string path = "/tmp/accucheck-mpi-home.cpu" + std::to_string(c);
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
      claim = fd;
      chosen.cpu = c;
      break;
    }
    if (fd >= 0) close(fd);
  }
  chosen.request_lock = "/tmp/accucheck-mpi.cpu" + std::to_string(chosen.cpu) + ".lock";
  return chosen;
}

// One request at a time per home CPU: an advisory lock on a file in /tmp, held for one request
// (released by the kernel if this process dies).
class RequestLock {
 public:
  explicit RequestLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~RequestLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }
  RequestLock(const RequestLock&) = delete;
  RequestLock& operator=(const RequestLock&) = delete;

 private:
  int fd_;
};

// One running world: the mpirun process (its own process group), the two fifos, its output log.
class MpiWorld {
 public:
  MpiWorld(int ranks, int algorithm) : ranks_(ranks), algorithm_(algorithm) {}
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;
  ~MpiWorld() { stop(/*graceful=*/true); }

  // Sends one request, returns the D results; throws BackendFailure (and stops the world) when
  // the world cannot start, dies, or does not answer within the time-out.
  std::vector<double> reduce(const DenseWorkload& w, std::uint64_t format_code) {
    std::lock_guard<std::mutex> lock(mutex_);
    const RequestLock one_collective_per_cpu(home().request_lock);
    if (owner_ != getpid()) forget();  // a forked copy of this process: the world is the parent's
    if (pid_ <= 0) {
      try {
        stop(/*graceful=*/false);  // what a failed start left: fifos, their directory
        start();
      } catch (const BackendFailure&) {
        stop(/*graceful=*/false);
        throw;
      }
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout(w);
    try {
      // Rank r's share, terms [r n / P, (r + 1) n / P), term-major as the workload holds them:
      // term 0 is the initial values, term i the addends of step i - 1. A rank reads all of its
      // request before the collective, so the requests can go one rank after the other.
      const std::size_t n = w.steps + 1, ranks = static_cast<std::size_t>(ranks_);
      for (std::size_t r = 0; r < ranks; ++r) {
        const std::size_t begin = n * r / ranks, end = n * (r + 1) / ranks;
        const std::uint64_t header[4] = {w.elements, end - begin, format_code, 0};
        send(request_fds_[r], header, sizeof header, deadline);
        if (begin == end) continue;
        if (begin == 0) send(request_fds_[r], w.initial.data(), w.elements * sizeof(double), deadline);
        const std::size_t first_step = begin == 0 ? 0 : begin - 1, last_step = end - 1;  // steps [first, last)
        if (last_step > first_step)
          send(request_fds_[r], w.addends.data() + first_step * w.elements,
               (last_step - first_step) * w.elements * sizeof(double), deadline);
      }
      std::vector<double> result(w.elements);
      receive(result.data(), result.size() * sizeof(double), deadline);
      return result;
    } catch (const BackendFailure&) {
      stop(/*graceful=*/false);
      throw;
    }
  }

 private:
  static std::chrono::milliseconds timeout(const DenseWorkload& w) {
    // A first world starts in about a second on an idle machine; oversubscribed and under load,
    // allow far more. Large buffers add their transfer.
    return std::chrono::milliseconds(60000 + static_cast<long long>((w.steps + 1) * w.elements / 1000));
  }

  void start() {
    const std::string mpirun = setting("ACCUCHECK_MPIRUN", ACCUCHECK_MPIRUN);
    const std::string worker = setting("ACCUCHECK_MPI_WORKER", ACCUCHECK_MPI_WORKER);
    char dir_template[] = "/tmp/accucheck-mpi-XXXXXX";
    if (!mkdtemp(dir_template))
      throw BackendFailure(std::string("cannot make a directory for the MPI world: ") + std::strerror(errno));
    dir_ = dir_template;
    log_ = dir_ + "/mpirun.log";
    // O_RDWR on a fifo does not wait for the other end (Linux); holding each request fifo's only
    // writer means the ranks read end-of-file, and stop, when this process ends.
    auto fifo = [&](const std::string& name) {
      const std::string path = dir_ + "/" + name;
      if (mkfifo(path.c_str(), 0600) != 0) fail("cannot make the fifo " + path + ": " + std::strerror(errno));
      const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0) fail("cannot open the fifo " + path + ": " + std::strerror(errno));
      return fd;
    };
    for (int r = 0; r < ranks_; ++r) request_fds_.push_back(fifo("rank" + std::to_string(r)));
    response_fd_ = fifo("responses");

    std::vector<std::string> args{
        mpirun, "-np", std::to_string(ranks_), "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle",
        "1"};
    if (algorithm_ > 0)
      args.insert(args.end(), {"--mca", "coll_tuned_use_dynamic_rules", "1", "--mca", "coll_tuned_allreduce_algorithm",
                               std::to_string(algorithm_)});
    args.insert(args.end(), {worker, dir_});
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e) environment.emplace_back(*e);
    if (geteuid() == 0)
      environment.insert(environment.end(), {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"});
    // Open MPI's own allocations are not the harness's to check (a sanitized build's worker).
    environment.emplace_back("ASAN_OPTIONS=detect_leaks=0:" + setting("ASAN_OPTIONS", ""));
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    // The world on this process's home CPU: mpirun and its ranks (--bind-to none) inherit the
    // spawning thread's affinity, set for the spawn alone.
    cpu_set_t saved, one;
    bool pinned = false;
    if (home().cpu >= 0 && pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0) {
      CPU_ZERO(&one);
      CPU_SET(home().cpu, &one);
      pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    }
    const int error = posix_spawn(&pid_, mpirun.c_str(), &actions, &attributes, argv.data(), envp.data());
    if (pinned) pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) {
      pid_ = -1;
      fail("cannot start " + mpirun + ": " + std::strerror(error) + " (apt-get install openmpi-bin)");
    }
  }

  // The world's exit, if it has ended (and then it is reaped).
  bool ended(std::string& how) {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, WNOHANG) != pid_) return false;
    how = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                              : "exit status " + std::to_string(WEXITSTATUS(status));
    pid_ = -1;
    return true;
  }

  void wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      pollfd p{fd, events, 0};
      if (poll(&p, 1, 100) > 0) return;
      std::string how;
      if (ended(how)) fail("the MPI world ended (" + how + ")", FailureKind::crash);
      if (std::chrono::steady_clock::now() > deadline)
        fail("the MPI world did not answer in time", FailureKind::timeout);
    }
  }
  void send(int fd, const void* data, std::size_t bytes, std::chrono::steady_clock::time_point deadline) {
    const auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
      wait_for(fd, POLLOUT, deadline);
      const ssize_t written = write(fd, p, bytes);
      if (written < 0 && errno != EAGAIN && errno != EINTR)
        fail(std::string("writing to the MPI world: ") + std::strerror(errno));
      if (written > 0) {
        p += written;
        bytes -= static_cast<std::size_t>(written);
      }
    }
  }
  void receive(void* data, std::size_t bytes, std::chrono::steady_clock::time_point deadline) {
    auto* p = static_cast<char*>(data);
    while (bytes > 0) {
      wait_for(response_fd_, POLLIN, deadline);
      const ssize_t got = read(response_fd_, p, bytes);
      if (got < 0 && errno != EAGAIN && errno != EINTR)
        fail(std::string("reading from the MPI world: ") + std::strerror(errno));
      if (got > 0) {
        p += got;
        bytes -= static_cast<std::size_t>(got);
      }
    }
  }

  [[noreturn]] void fail(const std::string& what, FailureKind kind = FailureKind::error) {
    std::string tail;
    if (!log_.empty()) {
      std::ifstream in(log_);
      std::stringstream text;
      text << in.rdbuf();
      tail = text.str();
      if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
    }
    throw BackendFailure(
        "mpirun -np " + std::to_string(ranks_) + ": " + what + (tail.empty() ? "" : "; its output: " + tail), kind);
  }

  void stop(bool graceful) {
    for (int fd : request_fds_) close(fd);  // end of file: a healthy world stops by itself
    request_fds_.clear();
    if (pid_ > 0) {
      std::string how;
      for (int i = 0; graceful && i < 50 && !ended(how); ++i) usleep(20000);
      if (pid_ > 0) {
        kill(-pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
      }
    }
    if (response_fd_ >= 0) close(response_fd_);
    response_fd_ = -1;
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
      dir_.clear();
    }
    log_.clear();
  }

  // Drops the world without touching it (it belongs to the process this one was forked from).
  void forget() {
    for (int fd : request_fds_) close(fd);
    request_fds_.clear();
    if (response_fd_ >= 0) close(response_fd_);
    response_fd_ = -1;
    pid_ = -1;
    dir_.clear();
    log_.clear();
    owner_ = getpid();
  }

  const int ranks_, algorithm_;
  std::mutex mutex_;
  pid_t owner_ = getpid();
  pid_t pid_ = -1;
  std::vector<int> request_fds_;  // one per rank
  int response_fd_ = -1;
  std::string dir_, log_;
};

// Open MPI 4.1 coll/tuned's allreduce algorithm numbers (coll_tuned_allreduce_decision.c).
struct Algorithm {
  const char* name;  // "" for the library's own choice
  int number;
};
constexpr Algorithm kAlgorithms[] = {
    {"", 0}, {"basic_linear_", 1}, {"recursive_doubling_", 3}, {"ring_", 4}, {"rabenseifner_", 6}};

DenseRun mpi_run(int ranks, int algorithm, std::uint64_t format_code) {
  auto world = std::make_shared<MpiWorld>(ranks, algorithm);
  return [world, format_code](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const std::vector<double> sums = world->reduce(w, format_code);
    std::copy(sums.begin(), sums.end(), result.begin());
  };
}

template <class T>
Backend mpi_backend(int ranks, const Algorithm& algorithm) {
  constexpr Format f = storage_format_v<T>;
  const std::string name =
      "mpi_allreduce_np" + std::to_string(ranks) + "_" + algorithm.name + std::string(accucheck::name(f));
  const std::string bound = "tree(ranks:" + std::to_string(ranks) + "," + std::string(accucheck::name(f)) + ")";
  const std::string how = algorithm.number == 0 ? "the algorithm Open MPI's coll/tuned picks"
                                                : "coll/tuned forced to algorithm " + std::to_string(algorithm.number);
  return dense_backend(name, f, f, bound, Determinism::bitwise_deterministic,
                       "the real MPI_Allreduce (Open MPI, mpirun -np " + std::to_string(ranks) +
                           "): each rank sums its share of the terms in order, then MPI_SUM, " + how,
                       mpi_run(ranks, algorithm.number,
                               f == Format::f64   ? 0
                               : f == Format::f32 ? 1
                                                  : 2));
}

// The library's own choice on 4 ranks in the three formats; each forced algorithm in f32; and the
// library's choice on 2, 8 and 16 ranks (its decision changes with P).
std::vector<Backend> mpi_backends() {
  std::vector<Backend> backends = {mpi_backend<double>(4, kAlgorithms[0]), mpi_backend<float>(4, kAlgorithms[0]),
                                   mpi_backend<BFloat16>(4, kAlgorithms[0])};
  for (std::size_t a = 1; a < std::size(kAlgorithms); ++a) backends.push_back(mpi_backend<float>(4, kAlgorithms[a]));
  for (int ranks : {2, 8, 16}) backends.push_back(mpi_backend<float>(ranks, kAlgorithms[0]));
  return backends;
}
ACCUCHECK_REGISTER_BACKEND(mpi_backends());

}  // namespace
}  // namespace accucheck::impls
