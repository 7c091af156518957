// An invertible choice encoding of workloads, after Hypothesis: every workload within the limits
// can be written as choices (ChoiceWriter) that decode (ChoiceStream) back to the same workload,
// value for value and bit for bit (a NaN's payload excepted), and a lexicographically smaller
// choice sequence is a simpler workload (fewer elements and steps, simpler floats), so that
// shrinking bytes shrinks the workload. Fuzzer bytes, RapidCheck values and case files are three
// views of one thing: the fuzzers' "explicit" mode is this encoding (fuzzers/common/fuzz_input.h).
//
// A value of format f (precision p, k exponent bits, bias b):
//   choice 0, then n (p bits), then the sign: the integer +-n, n < 2^p (0 is the simplest float,
//   then 1, 2, ...; -0 is 0 with the sign);
//   choice 1, then the exponent's rank (k bits), the mantissa with its bits reversed (p-1 bits),
//   the sign: biased exponents in the order b, b+1, ..., 2^k-1 (infinity and NaN), b-1, ..., 0
//   (subnormals), so magnitudes near 1 come first; reversed mantissa bits make short binary
//   fractions small choices.
// Shapes come first (elements - 1, steps, ...: each bounded by the limits), then the values in
// the workload's own order (workload.h), then the memory layout of a dense or sparse workload
// (element_major, gap, padding, buffer_gap; table_padding, value_padding), all zero choices
// being the contiguous layout, which an exhausted stream therefore gives (shapes.h encode_layout).
// With EncodingLimits::max_patched_elements, a dense workload ends with one more choice: 1 (of
// 0..15) widens it, D' then comes (raw; or 2^k + o, or m * unit + o with the units of shapes.h,
// o in -1..1: boundary sizes in a few random bytes), then where its columns go (ascending raw
// positions, or all at the tail), every other column +0 in every step. A wide buffer with a few
// non-trivial columns is thus some twenty bytes (the encoder writes the raw forms).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "checking/choice.h"
#include "checking/families.h"
#include "checking/workload.h"

namespace accucheck {

// The encoding's bounds: generation's (a workload generated within GenerationLimits encodes
// within the same limits), and its own compact form of wide dense buffers.
struct EncodingLimits : GenerationLimits {
  // The compact wide buffers: a dense workload of up to
  // max_patched_elements elements (and max_patched_values values) whose non-trivial columns fit
  // the ordinary D is its narrow part plus a few choices placing it among +0 columns. 0: off
  // (the fuzzers turn it on: their D is 4, and a wide D would otherwise take megabytes).
  std::size_t max_patched_elements = 0;
  std::size_t max_patched_values = std::size_t{1} << 20;
};

void encode_value(ChoiceWriter& out, double x, Format f);  // x must be a value of f
double decode_value(ChoiceStream& s, Format f);

// The bounds every size is drawn with (so encoder and decoder agree): from a kind's
// EncodingLimits (steps: the larger of max_steps and max_long_steps; pairs: of max_pairs and
// max_row_hits; D, a table's rows and dim, a product's columns and batch: the larger of the
// ordinary and the boundary shapes' max_wide_* while max_wide_values > 0, and a size drawn
// after one that is past its ordinary limit is held to max_wide_values values in all).
// Throws std::invalid_argument naming the size when w does not fit the limits.
void encode_workload(ChoiceWriter& out, const Workload& w, const EncodingLimits& limits);
// The workload of `kind` in format f the choices describe (the family is "explicit"). Never
// fails: every choice sequence is a workload within the limits.
Workload decode_workload(ChoiceStream& s, WorkloadKind kind, Format f, const EncodingLimits& limits);

// The compact wide buffers' form of a dense workload: its non-trivial columns (not all +0 in
// every step; column 0 when none is), in order, and where they are. split_patched gives it when
// the encoding under l writes w that way (D past the ordinary limit, within
// patched_elements_limit, the non-trivial columns within the ordinary D), else nullopt;
// place_patched puts the columns back among +0 ones.
struct PatchedDense {
  DenseWorkload narrow;
  std::size_t elements = 0;     // D of the wide buffer
  std::vector<std::size_t> at;  // narrow column i is column at[i], ascending
};
std::size_t patched_elements_limit(const EncodingLimits& l, std::size_t steps);
std::optional<PatchedDense> split_patched(const DenseWorkload& w, const EncodingLimits& l);
DenseWorkload place_patched(const PatchedDense& p);

// The limits that hold every workload a case file may hold (case_file.h's cap of 2^28 values):
// for encoding any case file.
EncodingLimits unbounded_limits();

}  // namespace accucheck
