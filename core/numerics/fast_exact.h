// The fast exact accumulator: the same ExactSum as BoostExactAccumulator (exact.h), at about
// the speed of a plain floating-point sum.
//
// Design (after Radford Neal, "Fast exact summation using small and large superaccumulators",
// arXiv 1505.05571, 2015):
//
//  * Two unsigned long accumulators P and N of 35 64-bit limbs (the fixed-point grid of
//    exact.h, unit 2^-1074) hold the exact sums of the positive and of the negative finite
//    addends. S = P - N and A = P + N fall out of them at the end, which is why A costs
//    nothing extra. 35 limbs hold n * 2^2098 for n < 2^142: P and N never overflow.
//  * Short sums (the fuzzers sum ~64 addends per element) take the direct path, Neal's small
//    superaccumulator: carry-save cells of 32-bit digits in 64-bit words, one set for the
//    positive and one for the negative addends. An addend's 53-bit integer significand,
//    shifted to its place, is split over two cells with two plain additions (no carries).
//    A cell gains less than 2^53 per addend, so 2047 addends always fit; the cells are folded
//    into P/N (carries propagated) every 2047 addends and at the end.
//  * Long sums (more than kDirectLimit addends) use the large superaccumulator: 4096 chunks
//    indexed by the top 12 bits of the double (sign and biased exponent). A chunk adds the
//    raw 64-bit patterns of its addends and a count says how many it holds; since every
//    pattern in a chunk has the same top 12 bits, the sum of the 52-bit mantissas is
//    chunk - count * (index << 52) (mod 2^64), exact while count <= 4096
//    (4096 * (2^52 - 1) < 2^64). When a chunk's count runs out (the carry headroom of Neal's
//    scheme) it is flushed into P/N with its implicit bits (count * 2^52 for a normal
//    exponent) and starts again. result() flushes only the chunks in use (a list kept on first
//    use), so finishing costs O(chunks used), not O(4096). Per addend this path costs one
//    table load-add-store, one counter load-decrement-store, a predictable branch and a
//    compare-and-move for max |x|; the tables (40 KiB) are kept per thread for reuse.
//  * NaN and infinity patterns (exponent 0x7ff) never go into a chunk: their counter stays
//    "unused" so they always take the slow path, which records the special-value flags.
//  * max |x| over the finite addends: max of (bits << 1) + 2^53 (mod 2^64), monotone in |x|
//    for finite x and below 2^53 for NaN and infinities. "Every addend is -0": the maximum is
//    that of a zero, no NaN or infinity was seen, and no positive zero was: the direct path
//    ANDs the bit patterns (the sign survives only if all are negative), the large path ANDs
//    the patterns that open or refill chunk 0 (positive zeros and subnormals) into the same
//    word.
//
// Exact for any number of addends below 2^64 (the count is 64-bit). Cross-checked against
// BoostExactAccumulator and MPFR's mpfr_sum in core/numerics/fast_exact_test.cpp.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <span>

#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck {

class FastExactAccumulator {
 public:
  static constexpr int kLimbs = 35;                 // 2240 bits, the width of FixedInt
  static constexpr int kChunks = 4096;              // sign + 11 exponent bits
  static constexpr int kChunkCapacity = 4096;       // addends per chunk between flushes
  static constexpr int kCells = 68;                 // 32-bit digits of the direct path (2098 + carries)
  static constexpr std::uint32_t kCellCapacity = 2047;  // addends between folds of the cells
  static constexpr std::uint64_t kDirectLimit = 1024;  // addends summed directly before the large path

  // direct_limit: addends summed straight into the long accumulators before switching to the
  // chunk tables (the tests and benchmarks pass 0 or UINT64_MAX to force one path).
  explicit FastExactAccumulator(std::uint64_t direct_limit = kDirectLimit);
  ~FastExactAccumulator();
  FastExactAccumulator(FastExactAccumulator&&) noexcept;
  FastExactAccumulator& operator=(FastExactAccumulator&&) noexcept;
  FastExactAccumulator(const FastExactAccumulator&) = delete;
  FastExactAccumulator& operator=(const FastExactAccumulator&) = delete;

  void add(double x) { add(std::span<const double>(&x, 1)); }
  void add(std::span<const double> xs);

  // The exact summary, equal field for field to BoostExactAccumulator's for the same addends.
  // The accumulator stays usable: more addends may follow.
  ExactSum result();
  // RNE(S) in f with the zero-sign and special-value rules of ExactSum::rounded, computed from
  // the limbs directly (no FixedInt). Also leaves the accumulator usable.
  double rounded(Format f);

  std::uint64_t count() const { return count_; }
  void reset();

 private:
  struct Large;  // the chunk tables, allocated on the first long sum

  void add_direct(const double* x, std::size_t n);
  void add_large(const double* x, std::size_t n);
  void enter_large();
  void fold_cells();
  static std::unique_ptr<Large>* spare_large();
  void slow_chunk(unsigned index, std::uint64_t bits);
  void flush_touched();
  void add_special(std::uint64_t bits);
  Special special() const;
  bool all_negative_zero() const;
  double max_abs() const;
  int limb_bound() const;

  std::uint64_t pos_[kLimbs];  // sum of the positive finite addends, in units of 2^-1074
  std::uint64_t neg_[kLimbs];  // sum of |x| over the negative finite addends
  std::uint64_t cells_[2][kCells];  // direct path: [0] positive, [1] negative; digit i weighs 2^(32 i)
  std::uint32_t cells_pending_ = 0;  // addends in the cells since the last fold
  std::uint64_t count_ = 0;
  std::uint64_t max_key_ = 0;                   // see "max |x|" above
  std::uint64_t sign_and_ = ~std::uint64_t{0};  // see "every addend is -0" above
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  std::unique_ptr<Large> large_;
  bool large_active_ = false;
  std::uint64_t direct_limit_;
};

// The exact summary of a list of addends, through FastExactAccumulator.
ExactSum fast_exact_sum(std::span<const double> addends);

// The first `size` (1..kLimbs) little-endian limbs (the rest zero) into `target`, with the sign.
void set_fixed(FixedInt& target, const std::uint64_t* limbs, int size, bool negative);
// words[0..count) shifted up by bit_offset bits (the bits beyond 2240 dropped) into `target`.
void set_fixed_shifted(FixedInt& target, const std::uint64_t* words, int count, int bit_offset, bool negative);

// RNE of the exact fixed-point magnitude held in `limbs` (little-endian, units of 2^-1074)
// into f, with overflow to overflow_value (+infinity; NaN for e4m3); 0 for a zero magnitude.
// With `inexact`, also whether the result differs from the exact value (overflow included).
double round_limbs(const std::uint64_t* limbs, int count, Format f, bool* inexact = nullptr);

// round_fixed (exact.h) through round_limbs on the FixedInt's limbs: the same result (checked
// in fast_exact_test), without the FixedInt shifts and copies.
double round_fixed_fast(const FixedInt& value, Format f, bool* inexact = nullptr);

// RNE into f64 of |x - S| for a finite double x and an exact fixed-point S, on the limbs:
// round_fixed_fast(abs(to_fixed(x) - S), f64) without the FixedInt arithmetic (checked equal in
// fast_exact_test). 0 exactly when x == S. `inexact` as for round_limbs.
double nearest_abs_difference(double x, const FixedInt& s, bool* inexact = nullptr);

}  // namespace accucheck
