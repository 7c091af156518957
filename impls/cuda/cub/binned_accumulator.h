// A host model of the binned accumulator behind cub::DeviceReduce::Sum with
// cuda::execution::determinism::gpu_to_gpu (CCCL >= 3.1, cub/detail/rfa.cuh, whose functions are
// __device__ only): Demmel & Nguyen's K-fold binned summation (Demmel & Nguyen, "Parallel
// Reproducible Summation", IEEE TC 64(7), 2015; Ahrens, Nguyen & Demmel, UCB/EECS-2015-229, the
// ReproBLAS algorithms 4.5-4.8 and 6.x), with the parameters and choices CUB makes:
//   K = 3 folds; bins W = 13 bits wide for float, 40 for double;
//   bin i anchored at 0.75 * 2^(emax + p - W + 1 - i W), bin 0 at 1.5 * 2^(emax - 1) (emax =
//     numeric_limits::max_exponent); inputs for bin 0 are scaled by 2^-(p-W+1) before depositing;
//   a value's bin index from its biased exponent e: (emax + (emax - 2) - e) / W; for a subnormal
//     input CUB takes the exponent from frexpf of the value converted to float (also for double,
//     where every subnormal converts to 0 and gets index emax / W = 25: see binned_accumulator_test's
//     Cub35DeparturesOnTheirMinimalInputs);
//   each deposit ORs 1 into the last bit of the remainder before adding it to a fold (so the fold's
//     rounding never sees a tie) and renormalisation moves the fold's two bits below its leading bit
//     into the carry, keeping it in [1.5, 1.75) x 2^e of its bin;
//   the result converted by summing the carries and folds in double (float) or double with scaling
//     (double), largest first.
// A fold's content is the sum of the same per-addend parts whatever the order and grouping (each
// part is the addend's remainder rounded to the fold's fixed grid), so one sequential pass gives
// the bits every grid of threads gives: the GPU test (cuda_backends_test) checks kernel == model.
//
// Two flavours. `Binned::design` handles what CUB's code does not, as ReproBLAS does (Ahrens,
// Nguyen & Demmel's reference code: binned_dmdupdate, binned_dmddeposit, binned_dmdrenorm,
// binned_ddmconv): an empty accumulator takes its bins from the first addend, infinities and NaN
// bypass the bins, a double subnormal's bin comes from its own exponent, and the f64 conversion
// scales back up by 2^(2p-W). `Binned::cub_3_5` is CCCL 3.5.0's code as shipped, which differs
// exactly there (docs/bounds.md "CUB's deterministic reduction" lists what each difference does):
//   - an accumulator whose first maximum is 0 (or, f32, below 2^-134) is never given bins: its
//     deposits land on zero folds and the result is a few ulps of 2^-120 (f32) instead of 0;
//   - an infinite addend is deposited like a finite one: the sum is NaN;
//   - f64: frexpf of a subnormal double is taken of 0: bin 25 (2^38), the subnormals vanish;
//   - f64 with bins at index <= 3 (|x| >= 2^864): the conversion multiplies by 2^-66 twice.
// CUB renormalises every 512 (f32) / 2048 (f64) deposits; both flavours do after each one, which
// gives the same folds wherever the accumulator has bins.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace accucheck::cuda_models {

enum class Binned { design, cub_3_5 };

template <class T, Binned kFlavor = Binned::design>
class BinnedAccumulator {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  using Bits = std::conditional_t<std::is_same_v<T, float>, std::uint32_t, std::uint64_t>;

 public:
  static constexpr int kFolds = 3;
  static constexpr int kBinWidth = std::is_same_v<T, float> ? 13 : 40;
  static constexpr int kPrecision = std::numeric_limits<T>::digits;
  static constexpr int kMaxExponent = std::numeric_limits<T>::max_exponent;
  static constexpr int kMinExponent = std::numeric_limits<T>::min_exponent;
  static constexpr int kMaxIndex = (kMaxExponent - kMinExponent + kPrecision - 1) / kBinWidth - 1;

  // The bin a value of |x| needs (smaller index: larger bin).
  static int index_of(T x) {
    const int e = biased_exponent(x);
    if (e != 0) return (kMaxExponent + kExponentOffset - e) / kBinWidth;
    if (x == 0) return kMaxIndex;
    int exponent = 0;
    if constexpr (kFlavor == Binned::cub_3_5)
      (void)std::frexp(static_cast<float>(x), &exponent);  // frexpf, also for double
    else
      (void)std::frexp(x, &exponent);
    const int index = (kMaxExponent - exponent) / kBinWidth;
    return index < kMaxIndex ? index : kMaxIndex;
  }

  static T bin(int i) {
    if (i == 0) return static_cast<T>(std::ldexp(0.75, kMaxExponent));  // 1.5 * 2^(emax-1)
    const int clamped = i <= kMaxIndex ? i : kMaxIndex;
    return static_cast<T>(std::ldexp(0.75, kMaxExponent + kPrecision - kBinWidth + 1 - clamped * kBinWidth));
  }

  // x added: rebin for |x|, deposit, renormalise (CUB renormalises every `endurance` deposits;
  // the folds' values are the same either way, and renormalising each time keeps them canonical).
  void add(T x) {
    if constexpr (kFlavor == Binned::design) {
      if (!std::isfinite(x) || !std::isfinite(primary_[0])) {  // the bins are bypassed
        primary_[0] += x;
        return;
      }
      if (primary_[0] == 0) restart_folds(kFolds, index_of(x));
    }
    rebin(index_of(x));
    deposit(x);
    renormalise();
  }

  // The binned sum of another accumulator added (the block and grid combine of CUB's kernels).
  void merge(const BinnedAccumulator& other) {
    if constexpr (kFlavor == Binned::design) {
      if (other.primary_[0] == 0) return;
      if (primary_[0] == 0 || !std::isfinite(primary_[0]) || !std::isfinite(other.primary_[0])) {
        if (primary_[0] == 0)
          *this = other;
        else
          primary_[0] += other.primary_[0];
        return;
      }
    }
    const int mine = index(), theirs = other.index();
    if (theirs < mine) {
      BinnedAccumulator larger = other;
      larger.absorb(*this, mine - theirs);
      *this = larger;
    } else {
      absorb(other, theirs - mine);
    }
    renormalise();
  }

  // The value: carries and folds summed largest first, in double (then rounded once to float for
  // float; for double scaled by 2^-(2p-W) while the bins could overflow).
  T value() const {
    if constexpr (kFlavor == Binned::design) {
      if (primary_[0] == 0) return 0;
      if (!std::isfinite(primary_[0])) return primary_[0];
    }
    const int x = index();
    if constexpr (std::is_same_v<T, float>) {
      double y = 0;
      int i = 0;
      if (x == 0) {
        y += static_cast<double>(carry_[0]) * static_cast<double>(bin(0) / 6.0) * kExpansion;
        y += static_cast<double>(carry_[1]) * static_cast<double>(bin(1) / 6.0);
        y += static_cast<double>(primary_[0] - bin(0)) * kExpansion;
        i = 2;
      } else {
        y += static_cast<double>(carry_[0]) * static_cast<double>(bin(x) / 6.0);
        i = 1;
      }
      for (; i < kFolds; ++i) {
        y += static_cast<double>(carry_[i]) * static_cast<double>(bin(i + x) / 6.0);
        y += static_cast<double>(primary_[i - 1] - bin(i - 1 + x));
      }
      y += static_cast<double>(primary_[kFolds - 1] - bin(kFolds - 1 + x));
      return static_cast<float>(y);
    } else {
      return double_value(x);
    }
  }

  int index() const {
    return (kMaxExponent + kPrecision - kBinWidth + 1 + kExponentOffset - biased_exponent(primary_[0])) / kBinWidth;
  }

 private:
  static constexpr int kExponentOffset = kMaxExponent - 2;  // CUB's exp_bias
  static constexpr double kCompression = 1.0 / static_cast<double>(std::uint64_t{1} << (kPrecision - kBinWidth + 1));
  static constexpr double kExpansion = static_cast<double>(std::uint64_t{1} << (kPrecision - kBinWidth + 1));

  static int biased_exponent(T x) {
    return static_cast<int>((std::bit_cast<Bits>(x) >> (kPrecision - 1)) & Bits(2 * kMaxExponent - 1));
  }
  static T with_last_bit(T x) { return std::bit_cast<T>(static_cast<Bits>(std::bit_cast<Bits>(x) | Bits{1})); }

  // Folds 0..count-1 restart at the bins from index `needed` on, with no carry (all of them: an
  // empty accumulator's start).
  void restart_folds(int count, int needed) {
    for (int j = 0; j < kFolds && j < count; ++j) {
      primary_[j] = bin(j + needed);
      carry_[j] = 0;
    }
  }

  // Coarser bins when `needed` is a smaller index than ours: the folds move down by the shift,
  // the top ones restart at their bins with no carry.
  void rebin(int needed) {
    const int shift = index() - needed;
    if (shift <= 0) return;
    for (int i = kFolds - 1; i >= shift; --i) {
      primary_[i] = primary_[i - shift];
      carry_[i] = carry_[i - shift];
    }
    restart_folds(shift, needed);
  }

  // Each fold keeps the part of the remainder on its grid (the remainder's last bit set first, so
  // the fold's addition has no tie), the rest goes on; the last fold rounds what is left.
  void deposit(T x) {
    int first = 0;
    if (biased_exponent(primary_[0]) ==
        kMaxExponent + kExponentOffset) {  // bin 0: deposit a scaled-down copy, carry the remainder back up (x2 halves)
      const T m = primary_[0];
      const T q = with_last_bit(static_cast<T>(x * kCompression)) + m;
      primary_[0] = q;
      const T back = static_cast<T>((m - q) * (kExpansion * 0.5));
      x += back;
      x += back;
      first = 1;
    }
    for (int i = first; i < kFolds - 1; ++i) {
      const T m = primary_[i];
      const T q = with_last_bit(x) + m;
      primary_[i] = q;
      x += m - q;
    }
    primary_[kFolds - 1] += with_last_bit(x);
  }

  // Each fold's two bits below the leading one go to its carry (as a count of quarter binades
  // minus 2), leaving the pattern 10 there.
  void renormalise() {
    constexpr Bits kLow = Bits{1} << (kPrecision - 3), kHigh = Bits{1} << (kPrecision - 2);
    for (int i = 0; i < kFolds; ++i) {
      Bits bits = std::bit_cast<Bits>(primary_[i]);
      carry_[i] += static_cast<T>(static_cast<int>((bits >> (kPrecision - 3)) & 3) - 2);
      bits = static_cast<Bits>((bits & ~kLow) | kHigh);
      primary_[i] = std::bit_cast<T>(bits);
    }
  }

  // Adds `other`'s folds, whose index is `shift` >= 0 bins finer than ours: its fold i lands on our
  // fold i + shift; folds beyond our last are dropped.
  void absorb(const BinnedAccumulator& other, int shift) {
    const int theirs = other.index();
    for (int i = shift; i < kFolds; ++i) {
      primary_[i] += other.primary_[i - shift] - bin(theirs + i - shift);
      carry_[i] += other.carry_[i - shift];
    }
  }

  double double_value(int x) const {
    double y = 0;
    int i = 0;
    constexpr int kScaledLimit = (3 * kPrecision) / kBinWidth;
    if (x <= kScaledLimit) {
      const double scale = std::ldexp(0.5, 1 - (2 * kPrecision - kBinWidth));
      // CUB 3.5 "scales back up" by the factor it scaled down by, 2^-66 again.
      const double scale_up = kFlavor == Binned::cub_3_5 ? scale : std::ldexp(0.5, 1 + (2 * kPrecision - kBinWidth));
      const int scaled = std::max(std::min(kFolds, kScaledLimit - x), 0);
      if (x == 0) {
        y += carry_[0] * ((bin(0) / 6.0) * scale * kExpansion);
        y += carry_[1] * ((bin(1) / 6.0) * scale);
        y += (primary_[0] - bin(0)) * scale * kExpansion;
        i = 2;
      } else {
        y += carry_[0] * ((bin(x) / 6.0) * scale);
        i = 1;
      }
      for (; i < scaled; ++i) {
        y += carry_[i] * ((bin(i + x) / 6.0) * scale);
        y += (primary_[i - 1] - bin(i - 1 + x)) * scale;
      }
      if (i == kFolds) return (y + (primary_[kFolds - 1] - bin(kFolds - 1 + x)) * scale) * scale_up;
      if (std::isinf(y * scale_up)) return y * scale_up;
      y *= scale_up;
      for (; i < kFolds; ++i) {
        y += carry_[i] * (bin(i + x) / 6.0);
        y += primary_[i - 1] - bin(i - 1 + x);
      }
      return y + (primary_[kFolds - 1] - bin(kFolds - 1 + x));
    }
    y += carry_[0] * (bin(x) / 6.0);
    for (i = 1; i < kFolds; ++i) {
      y += carry_[i] * (bin(i + x) / 6.0);
      y += primary_[i - 1] - bin(i - 1 + x);
    }
    return y + (primary_[kFolds - 1] - bin(kFolds - 1 + x));
  }

  std::array<T, kFolds> primary_{};
  std::array<T, kFolds> carry_{};
};

// The binned sum of `values` (each converted to T) in their order: the models' per-element run.
template <class T, Binned kFlavor = Binned::design, class Values>
T binned_sum(const Values& values) {
  BinnedAccumulator<T, kFlavor> acc;
  for (const auto v : values) acc.add(static_cast<T>(v));
  return acc.value();
}

}  // namespace accucheck::cuda_models
