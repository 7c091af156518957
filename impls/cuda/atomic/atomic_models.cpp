// CPU order models of the CUDA atomicAdd scatter kernels (atomic.cu): the buffer starts
// at its value, then every step's addend of an element arrives by atomicAdd in whatever order
// the hardware serializes the updates. The model applies them in an order drawn from
// RunOptions::order_seed mixed with a hash of the workload's values: a fixed seed replays
// exactly, and generators and fuzzers reach other orders through the seed or the values. Each
// element is a sequential sum from its initial value in some order, within anyorder(F).
//
// atomicAdd on f32 in global memory (atom.add.f32 / red.add.f32 without .noftz) flushes subnormal
// inputs and results to zero of the same sign (PTX ISA, atom and red); the f64, f16x2 and bf16x2
// forms (.noftz) keep subnormals. The
// f32 model flushes likewise and states ftz(anyorder(f32),f32). The GPU test checks the flush on
// the hardware with one addend per element, where the order cannot matter.
#include <cstring>
#include <numeric>

#include "common/per_element.h"
#include "cuda/tree/tree_models.h"
#include "numerics/hash.h"

namespace accucheck::impls {
namespace {

std::uint64_t workload_hash(const DenseWorkload& w) {
  std::uint64_t h = kFnv1aOffsetBasis;
  auto see = [&h](double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    h = splitmix64(h ^ bits);
  };
  for (double x : w.initial) see(x);
  for (double x : w.addends) see(x);
  return h;
}

template <class T, class Add>
DenseRun atomic_run(Add add) {
  return [add](const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
    const std::uint64_t key = splitmix64(options.order_seed ^ workload_hash(w));
    std::vector<std::size_t> order(w.steps);
    for (std::size_t j = 0; j < w.elements; ++j) {
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::uint64_t state = splitmix64(key ^ (0xa70311cULL + j));
      for (std::size_t i = order.size(); i > 1; --i) {  // Fisher-Yates
        state = splitmix64(state);
        const auto k = static_cast<std::size_t>((static_cast<unsigned __int128>(state) * i) >> 64);
        std::swap(order[i - 1], order[k]);
      }
      T acc = from_value<T>(w.initial[j]);
      for (std::size_t t : order) acc = add(acc, from_value<T>(w.addends[t * w.elements + j]));
      result[j] = to_value(acc);
    }
  };
}

std::string summary(const char* what) {
  return std::string("CPU order model of cuda_atomic_") + what +
         ": atomicAdd of every step's addend onto the buffer, in an order drawn from RunOptions::order_seed and the "
         "workload";
}

constexpr auto any_run = Determinism::run_to_run_nondeterministic;
ACCUCHECK_REGISTER_BACKEND(dense_backend("cuda_model_atomic_f32", Format::f32, Format::f32, "ftz(anyorder(f32),f32)",
                                         any_run, summary("f32"), atomic_run<float>(cuda_models::FtzAdd{})));
ACCUCHECK_REGISTER_BACKEND(dense_backend("cuda_model_atomic_f64", Format::f64, Format::f64, "anyorder(f64)", any_run,
                                         summary("f64"), atomic_run<double>(cuda_models::PlainAdd{})));
ACCUCHECK_REGISTER_BACKEND(dense_backend("cuda_model_atomic_f16x2", Format::f16, Format::f16, "anyorder(f16)", any_run,
                                         summary("f16x2"), atomic_run<Half>(cuda_models::PlainAdd{})));
ACCUCHECK_REGISTER_BACKEND(dense_backend("cuda_model_atomic_bf16x2", Format::bf16, Format::bf16, "anyorder(bf16)",
                                         any_run, summary("bf16x2"), atomic_run<BFloat16>(cuda_models::PlainAdd{})));

}  // namespace
}  // namespace accucheck::impls
