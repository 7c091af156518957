// Generator families: adversarial gradient workloads, each a pure function of a choice
// stream. The same families feed RapidCheck properties, libFuzzer targets and the CLI.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "accucheck/choice.h"
#include "accucheck/workload.h"

namespace accucheck {

struct GenerationLimits {
  std::size_t max_elements = 4;       // D
  std::size_t max_steps = 64;         // T for ordinary families
  std::size_t max_long_steps = 10000; // T for long chains and stagnation (10^4 in CI, 10^6 at night)
};

struct Family {
  std::string_view name;
  std::string_view summary;
  bool adversarial;  // false for the uniform baseline, which is there to be compared against
  // Fills workload.{elements, steps, initial, addends} for the given format.
  void (*fill)(ChoiceStream&, Format, const GenerationLimits&, DenseWorkload&);
};

const std::vector<Family>& families();
const Family* find_family(std::string_view name);

// The order variants applied to each element's addends after a family made them.
enum class Order { as_generated, ascending_magnitude, descending_magnitude, alternating_signs, shuffled };
std::string_view name(Order o);
void reorder(DenseWorkload& w, Order order, ChoiceStream& s);

// One workload: the family (drawn among the adversarial ones when `family` is null), then an
// order variant drawn from the stream. workload.family records "family" or "family/order".
DenseWorkload generate_dense(ChoiceStream& s, Format f, const GenerationLimits& limits,
                             const Family* family = nullptr);

}  // namespace accucheck
