// The fast exact accumulator: the same ExactSum as BoostExactAccumulator (exact.h) at about the
// speed of a plain floating-point sum, after Neal's small and large superaccumulators (the design
// and why each step is exact: docs/architecture.md, "The fast exact accumulator").
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
  static constexpr int kLimbs = 35;                     // 2240 bits, the width of FixedInt
  static constexpr int kChunks = 4096;                  // sign + 11 exponent bits
  static constexpr int kChunkCapacity = 4096;           // addends per chunk between flushes
  static constexpr int kCells = 68;                     // 32-bit digits of the direct path (2098 + carries)
  static constexpr std::uint32_t kCellCapacity = 2047;  // addends between folds of the cells
  static constexpr std::uint64_t kDirectLimit = 1024;   // addends summed directly before the large path

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

  std::uint64_t pos_[kLimbs];        // sum of the positive finite addends, in units of 2^-1074
  std::uint64_t neg_[kLimbs];        // sum of |x| over the negative finite addends
  std::uint64_t cells_[2][kCells];   // direct path: [0] positive, [1] negative; digit i weighs 2^(32 i)
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
