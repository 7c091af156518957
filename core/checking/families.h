// Generator families: adversarial gradient workloads, each a pure function of a choice
// stream. The same families feed RapidCheck properties, libFuzzer targets and the CLI.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "checking/choice.h"
#include "checking/workload.h"

namespace accucheck {

struct GenerationLimits {
  std::size_t max_elements = 4;        // D
  std::size_t max_steps = 64;          // T for ordinary families
  std::size_t max_long_steps = 10000;  // T for long chains and stagnation (10^4 in CI, 10^6 at night)
  std::size_t max_batch = 32;          // K of product workloads
  std::size_t max_product_steps =
      4;  // T of gemm_accumulation (4: the fuzzers' inputs; 32 to compare 16 and 32 micro-batches)
  std::size_t max_product_rows = 4;  // C's rows and columns in an explicit (encoded) product workload
  std::size_t max_product_cols = 8;
  std::size_t max_table_rows = 64;  // V of sparse workloads
  std::size_t max_dim = 8;          // dim of sparse workloads
  std::size_t max_pairs = 256;      // (row, vector) pairs of a sparse workload, over all steps
  // Pairs of embedding_hot_row's long pair lists (a quarter of its cases when this exceeds
  // max_pairs; bulk values from a sub-seed), capped by max_long_steps: one row hit up to that
  // many times. 0 (off) in CI, in campaigns and in the fuzzers, whose raw sparse layout holds at
  // most max_pairs pairs; nothing sets it yet.
  std::size_t max_row_hits = 0;
  // Nonzero: every dense family whose length is free (all but near_cancelling and
  // overflow_partials, whose shape is the point) makes exactly this many steps, for
  // measurements at a fixed n (`accucheck compare`).
  std::size_t fixed_steps = 0;
  // Not empty: those families draw their step count among these instead (characterize's
  // campaign at the lengths it probed).
  std::vector<std::size_t> step_choices;
  // Boundary shapes (shapes.h): one generated case in wide_one_in is widened to a size kernels
  // split at, the family's columns at the boundaries: a dense D up to max_wide_elements, a
  // sparse table up to max_wide_rows rows of max_wide_dim, a product's K and N up to
  // max_wide_batch and max_wide_cols, at most max_wide_values values in all (the scale itself
  // drawn, small ones likelier). max_wide_values = 0: never. A wide case costs some 40 ordinary
  // ones on average, hence 1 in 32 in campaigns (docs/detection.md: what it costs check).
  std::size_t wide_one_in = 32;
  std::size_t wide_scale_draws = 2;  // 1: every scale 2^k up to the limits equally likely (the property suite)
  std::size_t max_wide_elements = std::size_t{1} << 17;
  std::size_t max_wide_rows = std::size_t{1} << 20;
  std::size_t max_wide_dim = 1024;
  std::size_t max_wide_batch = 4096;
  std::size_t max_wide_cols = 1024;
  std::size_t max_wide_values = std::size_t{1} << 20;
  // One dense or sparse case in layout_one_in gets a non-contiguous memory layout (workload.h:
  // transposed, sliced, padded), drawn last; only backends that accept strides see it. 0: never.
  std::size_t layout_one_in = 4;
  // The choice encoding's compact wide buffers (workload_encoding.h): a dense workload of up to
  // max_patched_elements elements (and max_patched_values values) whose non-trivial columns fit
  // the ordinary D is its narrow part plus a few choices placing it among +0 columns. 0: off
  // (the fuzzers turn it on: their D is 4, and a wide D would otherwise take megabytes).
  std::size_t max_patched_elements = 0;
  std::size_t max_patched_values = std::size_t{1} << 20;
};

struct Family {
  std::string_view name;
  std::string_view summary;
  bool adversarial;  // false for the uniform baseline, which is there to be compared against
  WorkloadKind kind;
  // Fills the workload (of the family's kind) for the given format; format already set.
  void (*fill)(ChoiceStream&, Format, const GenerationLimits&, Workload&);
};

const std::vector<Family>& families();
const Family* find_family(std::string_view name);
// The adversarial families of one workload kind.
std::vector<const Family*> families_of(WorkloadKind kind);
// The special-value family of a workload kind (special_values, gemm_special_values,
// embedding_special_values).
const Family* special_values_family(WorkloadKind kind);

// The order variants applied to each element's addends after a family made them.
enum class Order { as_generated, ascending_magnitude, descending_magnitude, alternating_signs, shuffled };
std::string_view name(Order o);
void reorder(DenseWorkload& w, Order order, ChoiceStream& s);

// One workload of `kind`: the family (drawn among that kind's adversarial ones when `family`
// is null), then, for dense workloads, an order variant drawn from the stream. The workload's
// family records "family" or "family/order", then "/wide" when it was widened (shapes.h).
Workload generate(ChoiceStream& s, Format f, const GenerationLimits& limits, WorkloadKind kind,
                  const Family* family = nullptr);
inline DenseWorkload generate_dense(ChoiceStream& s, Format f, const GenerationLimits& limits,
                                    const Family* family = nullptr) {
  return std::get<DenseWorkload>(generate(s, f, limits, WorkloadKind::dense, family));
}

}  // namespace accucheck
