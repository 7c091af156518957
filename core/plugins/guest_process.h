// A process that runs a guest's code for accucheck (internal to core's plugins layer): the plugin
// worker (plugin_worker.cpp, forked, serving C plugins) and the Python worker (python_worker.cpp,
// forked then exec'd into the user's interpreter). What both need to contain a guest lives here:
// the fork with stdin at /dev/null and stdout/stderr in a pipe this process reads, death with the
// parent, a socket for the protocol, a memfd for the arrays, waiting for an answer with a time-out
// and the campaign's deadline, and saying in words how the process died.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "checking/backend.h"

namespace accucheck::guest {

inline constexpr std::size_t kCapturedBytes = 4096;

// A guest's output during one load or call: the first kCapturedBytes, and how much in all.
struct Capture {
  std::string head;
  std::size_t total = 0;
  void add(const char* p, std::size_t n);
  std::string summary() const;  // output_summary of it, "" if nothing was written
};

// Bytes a program wrote, for a one-line message: printable ASCII kept, everything else escaped
// (\n, \t, \xNN), at most `limit` characters, then "... (N bytes in all)".
std::string output_summary(const std::string& bytes, std::size_t total_bytes, std::size_t limit = 300);
// "; it wrote to its output: '...'" or "".
std::string output_suffix(const std::string& summary);
std::string seconds_text(double seconds);

// The address space (bytes) of this process, and a soft RLIMIT_AS at `ceiling` (the hard one kept).
std::uint64_t address_space_bytes();
void limit_address_space(std::uint64_t ceiling);
void unlimit_address_space();

bool send_all(int fd, const void* data, std::size_t n);
bool receive_all(int fd, void* data, std::size_t n);

// Written by a forked guest's crash handler: errno when its code died (ENOMEM: an allocation
// failed, e.g. at the memory limit). A page shared with the parent, made before the fork.
struct CrashNote {
  std::atomic<int> signal_errno;
};
// In a forked (not exec'd) guest: crashes end it with their signal whatever handlers the parent
// installed (sanitizers, libFuzzer), after noting errno in `note`; SIGINT and SIGTERM ignored (the
// campaign stops after its case and then ends the guest).
void prepare_forked_guest(CrashNote* note);

class GuestProcess {
 public:
  enum class End { answered, died, timed_out, deadline };

  GuestProcess() = default;
  GuestProcess(const GuestProcess&) = delete;
  GuestProcess& operator=(const GuestProcess&) = delete;
  ~GuestProcess() { stop(true); }

  bool running() const { return pid_ > 0; }
  CrashNote* crash_note() const { return note_; }

  // Forks. The child, with stdin at /dev/null, stdout and stderr the pipe this process reads, and
  // killed when this process dies, runs child(socket, memfd), which never returns. `guest` names
  // the kind in messages ("plugin worker"). Throws BackendFailure starting with `what`.
  void launch(const std::string& what, const char* guest, std::uint64_t memory_limit,
              const std::function<void(int socket, int memfd)>& child);

  // Sends `request` (nothing when empty) and waits until the socket is readable, then calls
  // receive(socket) (false: the answer was malformed or cut short, End::died), reading the guest's
  // output meanwhile, until `timeout_seconds` pass or, when `deadline_applies`, the campaign's
  // deadline (plugin_loader.h).
  End exchange(const std::string& request, double timeout_seconds, bool deadline_applies,
               const std::function<bool(int socket)>& receive, Capture& capture);

  // After End::died: why, in words (reaps the process); `after_exit` follows an exit's status.
  // `kind`, when given, receives crash or exit.
  std::string death_text(const std::string& after_exit = "", FailureKind* kind = nullptr);

  // Maps at least `total` bytes of the shared region and returns its base.
  unsigned char* region(std::size_t total, const std::string& what);

  // Ends the guest: closing its socket ends a well-behaved one; `kill_it` sends SIGKILL first.
  void stop(bool kill_it);

  // After a call's exchange ended without an answer (`end` is not answered): throws that call's
  // BackendFailure (it crashed, exited or timed out; the guest is stopped) or PluginDeadlineReached.
  // `output` is output_suffix of what it wrote; `started`, when the call began.
  [[noreturn]] void fail_call(End end, const std::string& what, double timeout_seconds,
                              std::chrono::steady_clock::time_point started, const std::string& output);

 private:
  [[noreturn]] static void fail(const std::string& what, const char* doing);
  int reap();
  bool drain(Capture& capture);  // what it wrote so far; false at end of file

  pid_t pid_ = -1;
  int socket_ = -1, memfd_ = -1, output_ = -1;
  unsigned char* base_ = nullptr;
  std::size_t mapped_ = 0;
  std::uint64_t memory_limit_ = 0;
  CrashNote* note_ = nullptr;
};

// PluginIsolation::fork_per_call: the guest ends (guest.stop(false)) when the call's scope does,
// whatever happens in it, if `active`.
template <class Guest>
struct StopAtEndOfCall {
  Guest& guest;
  bool active;
  ~StopAtEndOfCall() {
    if (active) guest.stop(false);
  }
};

}  // namespace accucheck::guest
