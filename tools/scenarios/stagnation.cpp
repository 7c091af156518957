// bf16-stagnation: a bf16 buffer stops absorbing +1 once it reaches 256 (tt-metal PR 53386:
// bf16 embedding backward); f16 does the same at 2048.
//
// Hand arithmetic: bf16 has 8 significant bits, so the integers up to 256 are exact and the
// spacing at 256 is 2; 256 + 1 = 257 is the midpoint of 256 and 258 and ties to the even
// significand, 256. Every further +1 is the same tie: the sum stays 256. f16 (11 bits): the
// same at 2048 (spacing 2). Starting from 0, +1 a thousand times gives 256 in bf16 (exact
// 1000); 3000 times gives 2048 in f16 (exact 3000).
#include <string>

#include "scenarios.h"

namespace accucheck::scenarios {
namespace {

DenseWorkload ones(Format f, double start, std::size_t steps) {
  DenseWorkload w;
  w.format = f;
  w.elements = 1;
  w.steps = steps;
  w.initial = {start};
  w.addends.assign(steps, 1.0);
  w.family = "bf16-stagnation";
  return w;
}

}  // namespace

ScenarioResult bf16_stagnation() {
  ScenarioResult r{.name = "bf16-stagnation",
                   .title = "a bf16 buffer stops absorbing +1 at 256, f16 at 2048 (tt-metal PR 53386)",
                   .provenance = {"real: the arithmetic (bf16 and f16 buffers adding +1); the counts (1000, 100, 3000 "
                                  "steps) are chosen to show it"}};
  struct Case {
    const char* tensor;
    Format f;
    double start;
    std::size_t steps;
    std::vector<std::pair<const char*, const char*>> paths;
  };
  const std::vector<Case> cases = {
      {"bf16_from_0_x1000",
       Format::bf16,
       0,
       1000,
       {{"bf16", "naive_bf16"},
        {"kahan_bf16", "kahan_bf16"},
        {"sr_bf16", "stochastic_bf16"},
        {"f32_acc", "widened_bf16_acc_f32"},
        {"f32_master", "master_f32_copy_bf16"}}},
      {"bf16_from_256_x100", Format::bf16, 256, 100, {{"bf16", "naive_bf16"}, {"f32_acc", "widened_bf16_acc_f32"}}},
      {"f16_from_0_x3000",
       Format::f16,
       0,
       3000,
       {{"f16", "naive_f16"},
        {"kahan_f16", "kahan_f16"},
        {"sr_f16", "stochastic_f16"},
        {"f32_acc", "widened_f16_acc_f32"}}},
  };
  for (const Case& c : cases) {
    const DenseWorkload w = ones(c.f, c.start, c.steps);
    const auto exact = exact_sums(w);
    for (const auto& [path, backend] : c.paths)
      r.paths.push_back(run_path(path, c.tensor, registered(backend), w, exact, {1}, RunOptions{0, 1}));
    r.figures.push_back({std::string(c.tensor) + ".exact", c.start + static_cast<double>(c.steps), "the exact sum"});
    r.figures.push_back({std::string(c.tensor) + "." + c.paths[0].first, r.path(c.paths[0].first, c.tensor).values[0],
                         "the plain buffer's sum (hand arithmetic: 256 in bf16, 2048 in f16)"});
  }
  r.story =
      "A bf16 buffer counting +1 stops at 256 and an f16 buffer at 2048, because there +1 is exactly half the spacing "
      "and "
      "ties to even round it away; from 0 to 1000 that is a 74 % error with the bound vacuous (recursive(bf16) "
      "promises "
      "nothing past 256 addends), and even 100 steps from 256 (a 28 % error) are within what recursive(bf16) allows - "
      "accumulating in f32 (or an f32 master buffer) gives the exact counts.";
  return r;
}

}  // namespace accucheck::scenarios
