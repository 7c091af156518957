// Models of arithmetic for the model check: what a plain tree of roundings in a given precision
// computes, and Kahan's and Neumaier's loops (arithmetic.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "checking/summation_tree.h"
#include "numerics/format.h"

namespace accucheck::characterization {

// ---------------------------------------------------------------------------------------------
// Models: what a plain tree of roundings in a given precision computes, and the compensated sums.
// Round-to-nearest-even of x to p significant bits (no exponent limits; p <= 53).
double round_to_bits(double x, int p);

// RNE(a + b) to p bits, from the double sum and its exact residual (the double sum lies on the
// same side of every p-bit midpoint as a + b unless it is the midpoint itself).
double add_to_bits(double a, double b, int p);

struct Arithmetic {
  std::optional<Format> format;  // the accumulation format, when the precision is one
  int bits = 53;                 // else its significand bits (no exponent limits)
  Format storage = Format::f32;
  bool flush_inputs = false, flush_results = false;  // below the smallest normal of `flush_format`
  Format flush_format = Format::f32;
  std::optional<int> window;  // fused nodes: children truncated to this many bits below the largest
};

double flushed(double x, Format f);

// The exact sum of values rounded to the arithmetic's precision.
double round_exact(const std::vector<double>& values, const Arithmetic& a);

double add_in(double a, double b, const Arithmetic& ar);

// The tree evaluated on one column in the arithmetic.
double simulate(const SummationTree& tree, const std::vector<std::vector<std::uint32_t>>& children,
                std::span<const double> leaves, const Arithmetic& ar);

// Kahan's and Neumaier's loops in format f, as impls/common/compensated_sums.h writes them.
double op_in(double x, Format f);

double kahan_in(std::span<const double> x, Format f);

double neumaier_in(std::span<const double> x, Format f);

// The standard format with the most bits that `bits` cover (f16 for 11..23, f32 for 24..52, ...).
std::optional<Format> format_within(int bits);

std::optional<Format> format_of_bits(int bits);

}  // namespace accucheck::characterization
