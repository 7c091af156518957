// check --jobs N: worker processes and the merge of their results (campaign_jobs.h).
#include "campaign_jobs.h"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "io/case_file.h"
#include "io/results.h"

namespace accucheck::cli {
namespace {

using Clock = std::chrono::steady_clock;

extern "C" void on_stop_signal(int) { request_campaign_stop(); }

// A worker that has not ended yet, or how it ended.
struct Worker {
  pid_t pid = -1;
  std::string results_path;
  bool running = false;
  int status = 0;  // waitpid's
};

std::string describe_end(int status) {
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
           ")";
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

// Starts `accucheck check ARGS` as a child that gets SIGTERM (a graceful stop) if this process
// dies first, so that an accucheck killed hard leaves no campaign running on.
pid_t spawn(const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const auto& a : argv) pointers.push_back(const_cast<char*>(a.c_str()));
  pointers.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("check --jobs: fork: ") + std::strerror(errno));
  if (pid == 0) {  // only async-signal-safe calls from here to exec
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    execv("/proc/self/exe", pointers.data());
    _exit(127);
  }
  return pid;
}

// The progress line of the parent: the workers' cases per stream and violations added up (each
// writes them to its progress file about once a second).
class Progress {
 public:
  Progress(bool quiet, std::optional<double> seconds, std::optional<std::uint64_t> cases,
           std::vector<std::string> files)
      : quiet_(quiet),
        seconds_(seconds),
        cases_(cases),
        files_(std::move(files)),
        tty_(isatty(fileno(stderr))),
        start_(Clock::now()),
        last_(start_) {}
  void update(std::size_t running) {
    if (quiet_) return;
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < (tty_ ? 0.2 : 5.0)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    unsigned long long cases = 0, violations = 0;
    for (const auto& file : files_) {
      unsigned long long c = 0, v = 0;
      if (std::FILE* in = std::fopen(file.c_str(), "r")) {
        if (std::fscanf(in, "%llu %llu", &c, &v) == 2) {
          cases += c;
          violations += v;
        }
        std::fclose(in);
      }
    }
    if (tty_) {
      const int width = 30;
      const double fraction = cases_ ? double(cases) / double(*cases_) : elapsed / *seconds_;
      const int filled = static_cast<int>(std::min(1.0, fraction) * width);
      std::fprintf(stderr, "\r[%s%s] %5.1f s  %llu cases/stream  %llu violations  %zu of %zu jobs running ",
                   std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), elapsed, cases,
                   violations, running, files_.size());
      open_ = true;
    } else {
      std::fprintf(stderr, "accucheck check: %.0f s, %llu cases per stream, %llu violations, %zu of %zu jobs running\n",
                   elapsed, cases, violations, running, files_.size());
    }
  }
  void end() {
    if (open_) std::fprintf(stderr, "\n");
    open_ = false;
  }

 private:
  bool quiet_;
  std::optional<double> seconds_;
  std::optional<std::uint64_t> cases_;
  std::vector<std::string> files_;
  bool tty_, open_ = false;
  Clock::time_point start_, last_;
};

// The merged worst case of a backend takes the name one process (of this shard) gives it; the
// workers' own files that lost are removed (they were this run's, written by its workers).
void settle_case_files(CampaignResults& results, const std::vector<std::string>& superseded,
                       const CampaignOptions& options) {
  std::error_code ignored;
  for (const auto& path : superseded) std::filesystem::remove(path, ignored);
  for (auto& b : results.backends) {
    if (b.worst_case.empty()) continue;
    const std::string canonical = worst_case_file(options, b.name);
    std::error_code error;
    std::filesystem::rename(b.worst_case, canonical, error);
    if (!error) b.worst_case = canonical;
  }
}

}  // namespace

std::uint64_t available_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void stop_campaign_on_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESETHAND;  // a second signal ends the process
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

JobsOutcome run_campaign_jobs(const JobsRequest& request) {
  const CampaignOptions& options = request.options;
  char pattern[] = "/tmp/accucheck-jobs-XXXXXX";
  std::string directory;
  if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp) {
    std::string custom = std::string(tmp) + "/accucheck-jobs-XXXXXX";
    if (mkdtemp(custom.data())) directory = custom;
  }
  if (directory.empty()) {
    if (!mkdtemp(pattern))
      throw std::runtime_error(std::string("check --jobs: a temporary directory: ") + std::strerror(errno));
    directory = pattern;
  }

  if (!options.quiet)
    std::fprintf(stderr, "%s, %llu jobs\n", request.start_line.c_str(), static_cast<unsigned long long>(request.jobs));
  std::vector<Worker> workers(request.jobs);
  for (std::uint64_t j = 0; j < request.jobs; ++j) {
    std::vector<std::string> argv{"accucheck", "check"};
    argv.insert(argv.end(), request.args.begin(), request.args.end());
    if (!request.seed_given) argv.insert(argv.end(), {"--seed", std::to_string(options.seed)});
    workers[j].results_path = directory + "/worker-" + std::to_string(j) + ".json";
    argv.insert(argv.end(), {"--worker", std::to_string(j) + "/" + std::to_string(request.jobs), "--worker-results",
                             workers[j].results_path});
    if (!options.quiet) argv.push_back("--quiet");
    workers[j].pid = spawn(argv);
    workers[j].running = true;
  }

  std::vector<std::string> progress_files;
  for (const auto& w : workers) progress_files.push_back(worker_progress_file(w.results_path));
  Progress progress(options.quiet, options.seconds,
                    options.cases ? std::optional<std::uint64_t>(cases_in_shard(options)) : std::nullopt,
                    progress_files);
  bool stop_sent = false, stopped_for_fail_fast = false;
  std::size_t running = workers.size();
  while (running > 0) {
    // A stop asked of this process (a SIGTERM sent to it alone, or --fail-fast's first
    // violation) is passed on; a SIGINT from the terminal reached the workers already.
    if (campaign_stop_requested() && !stop_sent) {
      for (const auto& w : workers)
        if (w.running) kill(w.pid, SIGTERM);
      stop_sent = true;
    }
    int status = 0;
    const pid_t ended = waitpid(-1, &status, WNOHANG);
    if (ended > 0) {
      for (auto& w : workers)
        if (w.pid == ended && w.running) {
          w.running = false;
          w.status = status;
          --running;
          if (options.stop_at_first_violation && WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
              !campaign_stop_requested()) {
            stopped_for_fail_fast = true;
            request_campaign_stop();
          }
        }
      continue;
    }
    if (ended < 0 && errno == ECHILD) break;
    progress.update(running);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  progress.end();

  JobsOutcome outcome;
  std::vector<CampaignResults> parts;
  std::vector<std::string> sources, problems;
  for (std::size_t j = 0; j < workers.size(); ++j) {
    const Worker& w = workers[j];
    std::string text;
    try {
      text = read_text_file(w.results_path);
      parts.push_back(results_from_json(text, w.results_path));
      sources.push_back("worker " + std::to_string(j));
    } catch (const std::exception&) {
      problems.push_back("worker " + std::to_string(j) + " of " + std::to_string(workers.size()) +
                         " ended without results (" + describe_end(w.status) +
                         "): its cases (case numbers c with c mod " + std::to_string(workers.size()) + " = " +
                         std::to_string(j) + ") are missing");
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  if (parts.empty()) {
    outcome.complete = false;
    outcome.results.tool = options.tool;
    outcome.results.seed = options.seed;
    outcome.results.notes = problems;
    return outcome;
  }
  MergedResults merged = merge_results(parts, sources, options.findings_per_class);
  settle_case_files(merged.results, merged.superseded, options);
  outcome.results = std::move(merged.results);
  for (auto& p : problems) outcome.results.notes.push_back(std::move(p));
  if (stopped_for_fail_fast)  // the other workers were stopped for it, not by a signal
    std::erase(outcome.results.notes, std::string(kStoppedBySignalNote));
  outcome.complete = problems.empty();
  return outcome;
}

}  // namespace accucheck::cli
