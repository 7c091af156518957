// Floats that find bugs: one decoder per format, modelled on Hypothesis's float strategy.
//
// - special values first: +-0, smallest and largest subnormal, smallest normal, largest
//   finite, +-1, powers of two and their neighbours, (optionally) infinities and NaN;
// - magnitudes drawn by exponent band, not on a linear scale;
// - a lexicographic encoding in which a smaller choice is a simpler float (0, then small
//   integers, then short binary fractions near 1), so shrinking moves toward simple floats.
// RapidCheck's float generators and FuzzedDataProvider::ConsumeFloatingPoint produce no
// subnormals, infinities or NaNs: never use them for addends.
#pragma once

#include <vector>

#include "checking/choice.h"
#include "numerics/format.h"

namespace accucheck {

// The special values of f (finite ones first; +inf, -inf, NaN last when asked for).
std::vector<double> special_values(Format f, bool with_nonfinite);

// 0, then small integers, then short binary fractions at exponents near 0, outward.
double draw_simple_float(ChoiceStream& s, Format f);
// One of special_values(f, with_nonfinite), with a random sign.
double draw_special_float(ChoiceStream& s, Format f, bool with_nonfinite);
// |x| = (1 + m) 2^e with e uniform in [exponent_low, exponent_high] and m a random mantissa,
// random sign; rounded into f (so exponents below f's range give subnormals or zero).
double draw_band_float(ChoiceStream& s, Format f, int exponent_low, int exponent_high, bool positive = false);
// Any value of f: a mix of the three above and raw bit patterns.
double draw_float(ChoiceStream& s, Format f, bool with_nonfinite);

}  // namespace accucheck
