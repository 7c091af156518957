// Blocked summation with b = 64: each block of 64 addends summed in order, then the block
// sums in order (Higham 2002, sec. 4.2; the shape of chunked CPU reductions).
#include "common/per_element.h"

namespace accucheck::impls {
namespace {

constexpr std::size_t kBlock = 64;

struct BlockedSum {
  template <class T>
  T operator()(std::span<const T> x) const {
    T total{};
    for (std::size_t start = 0; start < x.size(); start += kBlock) {
      const std::size_t end = std::min(x.size(), start + kBlock);
      T block = x[start];
      for (std::size_t i = start + 1; i < end; ++i) block = block + x[i];
      total = start == 0 ? block : total + block;
    }
    return total;
  }
};

ACCUCHECK_REGISTER_BACKEND(per_format<BlockedSum>("blocked64", "tree(blocked:64,{F})",
                                                  Determinism::bitwise_deterministic,
                                                  "blocks of 64 summed in order, then the block sums in order",
                                                  every_format));

}  // namespace
}  // namespace accucheck::impls
