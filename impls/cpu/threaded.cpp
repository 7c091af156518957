// Threaded accumulation: the steps are split into contiguous chunks (options.threads, default
// 4), run by a persistent pool of std::threads and by the calling thread; every chunk is summed
// in order for all elements, and the partial sums are added into the result in the order the
// chunks finish. That order varies from run to run, so only the any-order bound is promised
// (class run-to-run-nondeterministic). The pool's threads are started once, on first use
// (creating threads per run cost more than the summation on fuzz-sized workloads). Jobs below
// kWakeThreshold addends do not wake the workers: the caller takes every chunk long before a
// sleeping worker could, so waking them only cost two system calls per worker.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

constexpr unsigned kDefaultThreads = 4;
constexpr std::size_t kWakeThreshold = 4096;  // addends

// Runs chunk(0..count-1) on the pool's workers and the calling thread; returns when all are
// done. Any number of callers may use it at once (each job is independent).
class ChunkPool {
 public:
  static ChunkPool& instance() {
    // Never destroyed: the workers wait on it until the process exits.
    static ChunkPool* pool = new ChunkPool(kDefaultThreads - 1);
    return *pool;
  }

  // `wake`: whether the job is worth waking sleeping workers for (a worker that is awake
  // anyway may still take a chunk).
  void run(std::size_t count, const std::function<void(std::size_t)>& chunk, bool wake) {
    Job job{chunk, count};
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(&job);
    }
    for (std::size_t k = 1; wake && k < count && k <= workers_; ++k) work_ready_.notify_one();
    job.work();  // the caller takes chunks too
    std::unique_lock lock(mutex_);
    remove(&job);  // no worker can pick it up from now on
    job_idle_.wait(lock, [&] { return job.workers == 0; });
  }

 private:
  struct Job {
    const std::function<void(std::size_t)>& chunk;
    std::size_t count;
    std::atomic<std::size_t> next{0};
    unsigned workers = 0;  // workers inside work(), guarded by the pool's mutex
    void work() {
      for (std::size_t k = next.fetch_add(1); k < count; k = next.fetch_add(1)) chunk(k);
    }
  };

  explicit ChunkPool(unsigned workers) : workers_(workers) {
    for (unsigned i = 0; i < workers; ++i) std::thread([this] { serve(); }).detach();
  }

  void remove(Job* job) {
    const auto at = std::find(queue_.begin(), queue_.end(), job);
    if (at != queue_.end()) queue_.erase(at);
  }

  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [&] { return !queue_.empty(); });
      Job* job = queue_.front();
      ++job->workers;
      lock.unlock();
      job->work();
      lock.lock();
      remove(job);  // every chunk is taken
      if (--job->workers == 0) job_idle_.notify_all();
    }
  }

  const unsigned workers_;
  std::mutex mutex_;
  std::condition_variable work_ready_, job_idle_;
  std::deque<Job*> queue_;
};

template <class T>
void threaded_run(const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
  const std::size_t n = w.steps + 1;  // addends per element, the initial value first
  const unsigned threads = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(options.threads ? options.threads : kDefaultThreads, n)));
  auto addend = [&](std::size_t i, std::size_t j) {
    return i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j];
  };

  std::vector<T> total(w.elements);
  std::vector<bool> started(w.elements, false);
  std::mutex combine;
  const std::function<void(std::size_t)> chunk = [&](std::size_t k) {
    const std::size_t begin = n * k / threads, end = n * (k + 1) / threads;
    if (begin == end) return;
    std::vector<T> partial(w.elements);
    for (std::size_t j = 0; j < w.elements; ++j) {
      T acc = from_value<T>(addend(begin, j));
      for (std::size_t i = begin + 1; i < end; ++i) acc = acc + from_value<T>(addend(i, j));
      partial[j] = acc;
    }
    std::lock_guard lock(combine);  // completion order decides the combination order
    for (std::size_t j = 0; j < w.elements; ++j) {
      total[j] = started[j] ? total[j] + partial[j] : partial[j];
      started[j] = true;
    }
  };
  ChunkPool::instance().run(threads, chunk, n * w.elements >= kWakeThreshold);
  for (std::size_t j = 0; j < w.elements; ++j) result[j] = to_value(total[j]);
}

template <class T>
Backend threaded(Format f) {
  return dense_backend(
      with_format("threaded_{F}", f), f, f, with_format("anyorder({F})", f), Determinism::run_to_run_nondeterministic,
      "chunks of steps on a persistent std::thread pool, partial sums combined in completion order", &threaded_run<T>);
}

ACCUCHECK_REGISTER_BACKEND(threaded<double>(Format::f64));
ACCUCHECK_REGISTER_BACKEND(threaded<float>(Format::f32));
ACCUCHECK_REGISTER_BACKEND(threaded<Half>(Format::f16));
ACCUCHECK_REGISTER_BACKEND(threaded<BFloat16>(Format::bf16));

}  // namespace
}  // namespace accucheck::impls
