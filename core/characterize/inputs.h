// Random inputs for the model check: bands of exponents, stagnation, cancellation, zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "numerics/format.h"
#include "numerics/hash.h"

namespace accucheck::characterization {

class Inputs {
 public:
  Inputs(Format f, std::size_t n, std::uint64_t seed) : f_(f), rng_(seed) {
    // Sums of n values stay below the overflow threshold with room for the error.
    int log_n = 0;
    while ((std::size_t{1} << log_n) < n) ++log_n;
    top_ = traits(f).emax - 2 - log_n;
    bottom_ = traits(f).emin;
  }
  void fill(std::span<double> x) {
    const int p = traits(f_).precision;
    const auto style = next() % 6;
    const int span = top_ - bottom_;
    const int low = bottom_ + static_cast<int>(next() % static_cast<std::uint64_t>(std::max(1, span)));
    const int width = static_cast<int>(next() % static_cast<std::uint64_t>(std::min(40, std::max(1, top_ - low) + 1)));
    for (std::size_t i = 0; i < x.size(); ++i) {
      switch (style) {
        case 0:  // a band of exponents, random signs
          x[i] = value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), next() & 1);
          break;
        case 1:  // same sign, one band
          x[i] = value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), false);
          break;
        case 2:  // stagnation: a large value, then increments near half its spacing
          x[i] = i == 0 ? value(std::min(top_, low + p + 2), false) : value(low, false);
          break;
        case 3:  // cancellation: +-x pairs with noise
          x[i] = (i % 2 == 1)
                     ? -x[i - 1]
                     : value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), next() & 1);
          if (next() % 4 == 0) x[i] = value(std::max(bottom_, low - p), next() & 1);
          break;
        case 4:  // sparse: mostly zeros
          x[i] = next() % 4 == 0
                     ? value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), next() & 1)
                     : 0.0;
          break;
        default: x[i] = 0.0;
      }
    }
    if (style == 5) compensation_ties(x);
  }

 private:
  // M, 1, 2^-p, a tiny value and -M at random places, zeros elsewhere: S just above a tie of
  // 1 + 2^-p, which a compensation kept in p bits rounds away (Neumaier's c = 1 + 2^-p ties to 1)
  // while the exact sum rounds up, and where an addend larger than the running sum is what
  // Kahan's loop loses: the inputs that tell exact, Kahan's and Neumaier's results apart.
  void compensation_ties(std::span<double> x) {
    // Five nonzero values whatever n: M may go to the top of the range (emax - 2), which f16
    // needs (M = 2^13 is the only choice above 2^(p+1)).
    const int p = traits(f_).precision;
    const int e = std::min(traits(f_).emax - 2, p + 2 + static_cast<int>(next() % 10));
    const double values[5] = {std::ldexp(1.0, e), 1.0, std::ldexp(1.0, -p), std::ldexp(1.0, std::max(bottom_, -p - 6)),
                              -std::ldexp(1.0, e)};
    const std::size_t n = x.size();
    if (n < 5 || e <= p) return;
    std::vector<std::size_t> place;
    while (place.size() < 5) {
      const std::size_t at = next() % n;
      if (std::find(place.begin(), place.end(), at) == place.end()) place.push_back(at);
    }
    if (next() & 1) std::sort(place.begin(), place.end());  // M first, -M last: the classic order
    const bool negative = next() & 1;
    for (std::size_t k = 0; k < 5; ++k) x[place[k]] = negative ? -values[k] : values[k];
  }

 public:
 private:
  std::uint64_t next() { return rng_.next(); }
  // A value of f with exponent e (clamped to the range) and a random significand.
  double value(int e, bool negative) {
    e = std::clamp(e, bottom_, top_);
    const int p = traits(f_).precision;
    const std::uint64_t significand = (std::uint64_t{1} << (p - 1)) | (next() & ((std::uint64_t{1} << (p - 1)) - 1));
    const double v = std::ldexp(static_cast<double>(significand), e - p + 1);
    return negative ? -v : v;
  }
  Format f_;
  SplitMix64 rng_;
  int top_, bottom_;
};

}  // namespace accucheck::characterization
