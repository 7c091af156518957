// Stochastic rounding to bf16 (and f16): a bf16 buffer, acc = SR(acc + g) in step order, with
// ideal SR (impls/common/stochastic_round.h: exact probabilities, E[result] = exact sum).
// The random words come from a counter-based generator keyed by (RunOptions::order_seed,
// element, step), so one seed is one reproducible run and independent seeds are independent
// runs (what the statistical tests in properties/stochastic_test.cpp draw).
//
// Bound stochastic(8,F): Connolly, Higham & Mary (2021) Thm 4.6 for recursive summation,
// gamma~_{n-1}(lambda) A with probability at least 1 - 2 exp(-lambda^2/2). lambda = 8 puts that
// failure probability at 2 exp(-32) = 2.5e-14 per element and run, so a single run (the
// property suite, the fuzzers, a CLI campaign) essentially never exceeds the bound; the price
// is a bound that is vacuous beyond about 120 addends in bf16 (docs/bounds.md, "Stochastic
// rounding"). Class run-to-run-nondeterministic: real SR hardware draws fresh bits every run.
#include "common/counter_rng.h"
#include "common/per_element.h"
#include "common/stochastic_round.h"

namespace accucheck::impls {
namespace {

template <Format F>
void stochastic_run(const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    double acc = w.initial[j];
    for (std::size_t t = 0; t < w.steps; ++t) {
      CounterStream random(options.order_seed, j, t);
      auto next = [&] { return random.next(); };
      acc = stochastic_add(acc, w.addend(t, j), F, next);
    }
    result[j] = acc;
  }
}

template <Format F>
Backend stochastic() {
  return dense_backend(with_format("stochastic_{F}", F), F, F, with_format("stochastic(8,{F})", F),
                       Determinism::run_to_run_nondeterministic,
                       "acc = SR(acc + g) in step order, ideal stochastic rounding, counter-based random bits",
                       &stochastic_run<F>);
}

ACCUCHECK_REGISTER_BACKEND(stochastic<Format::bf16>());
ACCUCHECK_REGISTER_BACKEND(stochastic<Format::f16>());

}  // namespace
}  // namespace accucheck::impls
