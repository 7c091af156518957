// Threaded accumulation: the steps are split into contiguous chunks, one std::thread each;
// every thread sums its chunk in order for all elements, and the partial sums are added into
// the result in the order the threads finish. That order varies from run to run, so only
// the any-order bound is promised (class run-to-run-nondeterministic).
#include <algorithm>
#include <mutex>
#include <thread>

#include "common/per_element.h"

namespace accucheck::impls {
namespace {

constexpr unsigned kDefaultThreads = 4;

template <class T>
void threaded_run(const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
  const std::size_t n = w.steps + 1;  // addends per element, the initial value first
  const unsigned threads = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(options.threads ? options.threads : kDefaultThreads, n)));
  auto addend = [&](std::size_t i, std::size_t j) { return i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j]; };

  std::vector<T> total(w.elements);
  std::vector<bool> started(w.elements, false);
  std::mutex combine;
  auto work = [&](std::size_t begin, std::size_t end) {
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
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < threads; ++k) {
    const std::size_t begin = n * k / threads, end = n * (k + 1) / threads;
    if (begin < end) pool.emplace_back(work, begin, end);
  }
  for (auto& t : pool) t.join();
  for (std::size_t j = 0; j < w.elements; ++j) result[j] = to_value(total[j]);
}

template <class T>
Backend threaded(Format f) {
  return dense_backend(with_format("threaded_{F}", f), f, f, with_format("anyorder({F})", f),
                       Determinism::run_to_run_nondeterministic,
                       "chunks of steps on std::thread, partial sums combined in completion order", &threaded_run<T>);
}

ACCUCHECK_REGISTER_BACKEND(threaded<double>(Format::f64));
ACCUCHECK_REGISTER_BACKEND(threaded<float>(Format::f32));
ACCUCHECK_REGISTER_BACKEND(threaded<Half>(Format::f16));
ACCUCHECK_REGISTER_BACKEND(threaded<BFloat16>(Format::bf16));

}  // namespace
}  // namespace accucheck::impls
