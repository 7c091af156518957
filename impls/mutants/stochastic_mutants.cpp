#include "stochastic_mutants.h"

#include <cmath>

#include "common/counter_rng.h"
#include "common/stochastic_round.h"

namespace accucheck::mutants {
namespace {

// SR that draws only 4 random bits, as hardware and software SR with a short random field do:
// the result moves away from zero with probability floor(16 p) / 16 instead of p (round toward
// zero of the probability), biased toward zero by up to 1/16 of a spacing per addition (El
// Arar, Fasi, Filip & Mikaitis, 2025). Otherwise identical to impls/cpu/stochastic.cpp.
constexpr int kRandomBits = 4;

double few_bits_add(double a, double b, Format f, impls::CounterStream& random) {
  const impls::SrSetup s = impls::sr_setup(a, b, f);
  if (s.exact) return s.value;
  const double p_away = s.c.p_is_away ? s.c.p : 1.0 - s.c.p;  // the complement is only needed to the 4 bits kept
  const double kept = std::floor(std::ldexp(p_away, kRandomBits));
  const std::uint64_t bits = random.next() >> (64 - kRandomBits);  // BUG: 4 random bits, not as many as p needs
  return static_cast<double>(bits) < kept ? s.c.away : s.c.toward_zero;
}

void few_bits_run(const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    double acc = w.initial[j];
    for (std::size_t t = 0; t < w.steps; ++t) {
      impls::CounterStream random(options.order_seed, j, t);
      acc = few_bits_add(acc, w.addend(t, j), Format::bf16, random);
    }
    result[j] = acc;
  }
}

// SR whose counter omits the step: every addition of an element draws the same random words,
// so the roundings are perfectly correlated (all up or all down together) instead of
// independent. Still unbiased, but the error grows like n instead of sqrt(n): a seeding bug of
// counter-based generators. Otherwise identical to impls/cpu/stochastic.cpp.
void shared_bits_run(const DenseWorkload& w, std::span<double> result, const RunOptions& options) {
  for (std::size_t j = 0; j < w.elements; ++j) {
    double acc = w.initial[j];
    for (std::size_t t = 0; t < w.steps; ++t) {
      impls::CounterStream random(options.order_seed, j, 0);  // BUG: the step t is not part of the counter
      auto next = [&] { return random.next(); };
      acc = impls::stochastic_add(acc, w.addend(t, j), Format::bf16, next);
    }
    result[j] = acc;
  }
}

std::vector<Mutant> make() {
  std::vector<Mutant> m;
  m.push_back(
      Mutant{dense_backend("stochastic_few_bits_bf16", Format::bf16, Format::bf16, "stochastic(8,bf16)",
                           Determinism::run_to_run_nondeterministic, "SR to bf16 with 4 random bits", &few_bits_run),
             "stochastic rounding with 4 random bits: P(away from zero) = floor(16 p)/16, biased toward zero",
             "short random fields in SR hardware and libraries (El Arar, Fasi, Filip & Mikaitis, 2025)",
             Property::stated_bound});
  m.push_back(Mutant{dense_backend("stochastic_shared_bits_bf16", Format::bf16, Format::bf16, "stochastic(8,bf16)",
                                   Determinism::run_to_run_nondeterministic,
                                   "SR to bf16, one random stream per element", &shared_bits_run),
                     "stochastic rounding whose random words repeat at every step: correlated roundings, error ~ n",
                     "a counter-based generator keyed without the step index (reused random state)",
                     Property::stated_bound});
  return m;
}

}  // namespace

const std::vector<Mutant>& stochastic_mutants() {
  static const std::vector<Mutant> mutants = make();
  return mutants;
}

}  // namespace accucheck::mutants
