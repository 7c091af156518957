// The byte layout of the workload fuzz targets (fuzz_dense, fuzz_maxerr, fuzz_sparse,
// fuzz_product).
//
// An input is a choice stream (choice.h: each draw reads as many big-endian bytes as its bound
// needs; past the end every draw is 0). Its first draws form a small header:
//
//   byte 0          format       draw(3):  0 f64, 1 f32, 2 f16, 3 bf16 (product: draw(2) over
//                                          f32, f16, bf16: its products must be exact in the oracle)
//   byte 1          mode         draw(F):  0 explicit, i = the i-th adversarial family of the
//                                          kind (families_of(kind), registration order)
//
// Family mode (mode >= 1): the rest of the stream feeds that generator family (families.h),
// exactly as RapidCheck and `accucheck check` use it, with the limits below.
//
// Explicit mode (mode 0): the rest is the workload itself in core's invertible encoding
// (workload_encoding.h: shape, then every value, simpler floats as smaller choices), so every
// workload within the limits is an input (encode_input) that decodes back to it exactly, and
// shrinking the bytes shrinks the workload. The custom mutator edits inputs that way: decode,
// mutate the workload, re-encode.
//
// An input that is a case file (docs/case-format.md: JSON starting with '{') of the target's
// kind is that case's workload, whatever its size: corpora/<target>/regressions hold case files,
// replayed by ctest and by libFuzzer alike.
//
// The all-zero input is the simplest workload: f64, explicit, one element, no steps, +0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "checking/choice.h"
#include "checking/families.h"
#include "checking/workload.h"
#include "io/workload_encoding.h"

namespace accucheck::fuzz {

// Limits of the dense targets: at most 4 elements of at most 64 addends (the initial value
// counted), the size at which fuzz_dense's speed is measured (docs/performance.md); and wide
// buffers up to 2^17 elements (2^16 values: every selected backend runs each input) whose
// non-trivial columns are at most 4, in a few bytes (workload_encoding.h's compact wide
// buffers): the element-boundary shapes.
EncodingLimits dense_limits();
// Limits of fuzz_sparse: tables up to 64 rows x 8, up to 16 steps and 256 pairs.
EncodingLimits sparse_limits();
// Limits of fuzz_product: C up to 4 x 8, batch up to 32, up to 4 steps (129 terms).
EncodingLimits product_limits();
EncodingLimits limits_for(WorkloadKind kind);

struct DecodedInput {
  Workload workload;
  bool raw = false;      // explicit mode or a case file (else family mode)
  std::size_t consumed;  // bytes the decoder read (may exceed the input: zeros past the end)
};

// Decodes one input of `kind` (dense, sparse or product). Never fails: every byte string is a
// workload. `stream` is left after the workload, so a target can draw more (e.g. permutations).
DecodedInput decode_input(ByteChoiceStream& stream, WorkloadKind kind);
// The same from the whole input, which may also be a case file of the kind.
DecodedInput decode_input(std::span<const std::uint8_t> bytes, WorkloadKind kind);

// The explicit-mode input of a workload (sizes cut to the kind's limits first).
std::vector<std::uint8_t> encode_input(const Workload& w);

// w's layout padding cut to what the encoding draws for its (limited) shape: a mutation that
// changes T or dim may leave more (workload.h layout_padding_limit).
void fit_layout(Workload& w, const EncodingLimits& l);

// The header's format choice for f in inputs of `kind`.
std::uint64_t format_choice(Format f, WorkloadKind kind);

}  // namespace accucheck::fuzz
