// SIMD-style lanes: 8 independent partial sums (addend i goes to lane i mod 8), combined by a
// balanced tree ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)) -- what a vectorized reduction computes.
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

constexpr std::size_t kLanes = 8;

struct LaneSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    // -0 is the additive identity that keeps every sign: x + (-0) == x, also for x = +-0.
    T lane[kLanes];
    for (auto& l : lane) l = from_value<T>(-0.0);
    for (std::size_t i = 0; i < x.size(); ++i) lane[i % kLanes] = i < kLanes ? x[i] : lane[i % kLanes] + x[i];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  }
};

ACCUCHECK_REGISTER_BACKEND(per_format<LaneSum>("lanes8", "tree(lanes:8,{F})", Determinism::bitwise_deterministic,
                                               "8 interleaved partial sums, then a balanced tree over the lanes",
                                               every_format));

}  // namespace
}  // namespace accucheck::impls
