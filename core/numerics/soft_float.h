// Arithmetic in every storage format, for backends written once as templates.
//
// f64 and f32 use the hardware (SSE: every operation rounded to its type). f16 and bf16 are
// SoftFloat: the exact operands are combined in double and rounded once into the format. For
// + - * this is correctly rounded: a sum or product of two f16 values is exact in double, and
// for bf16 double rounding through 53 bits is innocuous since 53 >= 2*8+2 (Figueroa, SIGNUM
// Newsletter 30(3), 1995). fma rounds the double result to odd first (Boldo & Melquiond, IEEE
// TC 57(4), 2008), which makes the second rounding correct.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "numerics/format.h"

namespace accucheck {

template <Format F>
class SoftFloat {
 public:
  static constexpr Format format = F;
  SoftFloat() = default;
  // Rounds any double into the format (round to nearest even).
  explicit SoftFloat(double value) : value_(round_to_small_format<F>(value)) {}
  explicit operator double() const { return value_; }
  double value() const { return value_; }

  friend SoftFloat operator+(SoftFloat a, SoftFloat b) { return SoftFloat(a.value_ + b.value_); }
  friend SoftFloat operator-(SoftFloat a, SoftFloat b) { return SoftFloat(a.value_ - b.value_); }
  friend SoftFloat operator*(SoftFloat a, SoftFloat b) { return SoftFloat(a.value_ * b.value_); }
  SoftFloat operator-() const { return from_exact(-value_); }
  SoftFloat& operator+=(SoftFloat b) { return *this = *this + b; }
  SoftFloat& operator-=(SoftFloat b) { return *this = *this - b; }
  friend bool operator==(SoftFloat a, SoftFloat b) { return a.value_ == b.value_; }
  friend auto operator<=>(SoftFloat a, SoftFloat b) { return a.value_ <=> b.value_; }

  static SoftFloat from_exact(double v) {
    SoftFloat s;
    s.value_ = v;
    return s;
  }

 private:
  double value_ = 0.0;
};

using Half = SoftFloat<Format::f16>;
using BFloat16 = SoftFloat<Format::bf16>;

// The type that stores a value of format F: double, float, Half or BFloat16 (FP8 values have no
// storage type of their own: they are stored in a wider format).
template <Format F>
requires(F == Format::f64 || F == Format::f32 || F == Format::f16 || F == Format::bf16) using storage_t =
    std::conditional_t<F == Format::f64, double, std::conditional_t<F == Format::f32, float, SoftFloat<F>>>;

template <class T>
inline constexpr Format storage_format_v = T::format;
template <>
inline constexpr Format storage_format_v<double> = Format::f64;
template <>
inline constexpr Format storage_format_v<float> = Format::f32;

// Conversions between the harness's doubles and a storage type. from_value rounds to nearest
// (exact for a value of the format).
template <class T>
T from_value(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(v);
  else
    return T(v);
}
template <class T>
double to_value(T x) {
  return static_cast<double>(x);
}

inline double fma_round_to_odd(double a, double b, double c) {
  // Round toward zero, then set the last bit if anything was lost: round-to-odd.
  std::fenv_t saved;
  std::feholdexcept(&saved);
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile double r = std::fma(a, b, c);
  const bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetenv(&saved);
  double result = r;
  if (inexact && std::isfinite(result)) {
    auto bits = std::bit_cast<std::uint64_t>(result);
    bits |= 1;
    result = std::bit_cast<double>(bits);
  }
  return result;
}

// Fused multiply-add rounded once into the storage format.
template <class T>
T fused_multiply_add(T a, T b, T c) {
  if constexpr (std::is_same_v<T, double>)
    return std::fma(a, b, c);
  else if constexpr (std::is_same_v<T, float>)
    return std::fmaf(a, b, c);
  else
    return T(fma_round_to_odd(to_value(a), to_value(b), to_value(c)));
}

}  // namespace accucheck
