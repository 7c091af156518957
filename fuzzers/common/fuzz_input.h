// The byte layout of the workload fuzz targets (fuzz_dense, fuzz_maxerr, fuzz_sparse).
//
// An input is a choice stream (choice.h: each draw reads as many big-endian bytes as its bound
// needs; past the end every draw is 0). Its first draws form a small header:
//
//   byte 0          format       draw(3):  0 f64, 1 f32, 2 f16, 3 bf16
//   byte 1          mode         draw(F):  0 raw, i = the i-th adversarial family of the kind
//                                          (families_of(kind), registration order)
//
// Family mode (mode >= 1): the rest of the stream feeds that generator family (families.h),
// exactly as RapidCheck and `accucheck check` use it, with the limits below.
//
// Raw mode (mode 0): the values are fixed-width slots holding the raw bit pattern of the
// format (8 bytes f64, 4 f32, 2 f16/bf16, big-endian), so that a float-aware mutator (and
// libFuzzer's own byte mutations and dictionaries) act on floats directly:
//
//   dense:  byte 2 elements-1 (draw(D-1)), byte 3 steps (draw(T)), then D initial values and
//           T*D addends, step-major (DenseWorkload's layout).
//   sparse: byte 2 rows-1, byte 3 dim-1, byte 4 steps-1, bytes 5-6 pairs (draw(P)), then
//           rows*dim initial values, then per pair: one row byte (draw(rows-1)) and dim values;
//           pair q belongs to step t when pairs*t/steps <= q < pairs*(t+1)/steps.
//   product (GEMM with beta = 1): byte 2 rows-1, byte 3 cols-1, byte 4 batch-1, byte 5
//           steps-1, then C (rows*cols), A (steps*rows*batch), B (steps*batch*cols) in
//           ProductWorkload's layout.
//
// Product workloads have no f64 (their products would not be exact in the oracle): their
// format byte is draw(2) over f32, f16, bf16.
//
// The all-zero input is the simplest workload: f64, raw, one element, one addend +0.
// encode_raw(decode(x)) decodes to the same workload (NaN payloads become the format's
// default quiet NaN), which is how the custom mutator edits family-mode inputs: decode,
// mutate the workload, re-encode in raw mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "accucheck/choice.h"
#include "accucheck/families.h"
#include "accucheck/workload.h"

namespace accucheck::fuzz {

// Limits of the dense targets: at most 4 elements of at most 64 addends (the initial value
// counted), the size at which fuzz_dense's speed is measured (docs/performance.md).
GenerationLimits dense_limits();
// Limits of fuzz_sparse: tables up to 64 rows x 8, up to 16 steps and 256 pairs.
GenerationLimits sparse_limits();
// Limits of fuzz_product: C up to 4 x 8, batch up to 32, up to 4 steps (129 terms).
GenerationLimits product_limits();
struct ProductShapeLimits {
  std::size_t rows = 4, cols = 8, batch = 32, steps = 4;
};
GenerationLimits limits_for(WorkloadKind kind);

struct DecodedInput {
  Workload workload;
  bool raw = false;       // raw mode (else family mode)
  std::size_t consumed;   // bytes the decoder read (may exceed the input: zeros past the end)
};

// Decodes one input of `kind` (dense, sparse or product). Never fails: every byte string is a workload.
// `stream` is left after the workload, so a target can draw more (e.g. permutations).
DecodedInput decode_input(ByteChoiceStream& stream, WorkloadKind kind);
inline DecodedInput decode_input(std::span<const std::uint8_t> bytes, WorkloadKind kind) {
  ByteChoiceStream s(bytes);
  return decode_input(s, kind);
}

// The raw-mode encoding of a workload (sizes clamped to the kind's limits).
std::vector<std::uint8_t> encode_raw(const Workload& w);

// Writes draws as ByteChoiceStream reads them (the inverse of ByteChoiceStream::draw for a
// value <= bound).
class ChoiceWriter {
 public:
  void put(std::uint64_t value, std::uint64_t bound);
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

// The header's format choice for f in inputs of `kind`.
std::uint64_t format_choice(Format f, WorkloadKind kind);

// Byte width of one raw value slot of f.
int slot_bytes(Format f);
std::uint64_t slot_mask(Format f);

}  // namespace accucheck::fuzz
