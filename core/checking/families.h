// Generator families: adversarial gradient workloads, each a pure function of a choice
// stream. The same families feed RapidCheck properties, libFuzzer targets and the CLI.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "checking/choice.h"
#include "checking/shapes.h"
#include "checking/workload.h"

namespace accucheck {

// The sizes the families draw within (the families' own limits; GenerationLimits adds the boundary
// shapes' and the layouts').
struct FamilyLimits {
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
};

// Everything generation draws within: the families' sizes, the boundary shapes' (shapes.h) and
// the memory layouts' (shapes.h). The choice encoding's limits extend it (workload_encoding.h).
struct GenerationLimits : FamilyLimits, ShapeLimits, LayoutLimits {};

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
