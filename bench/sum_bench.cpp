// Summation and checking throughput, per format and length, on one adversarial input per
// (format, n) shared by every method so that times compare as ratios. Times are CPU time of
// the (single) benchmark thread, which a shared machine disturbs less than wall time.
//
// Benchmark names are <method>/<format>/<n>; every benchmark sets the counter "addends" (the
// addends one iteration sums) so that bench/report.py can give ns per addend. Methods:
//   naive_ordered       acc = acc + x in order, in the storage format (what naive_<f> computes)
//   lanes               8 interleaved partial sums (vectorizable for f64/f32), then a tree
//   kahan               Kahan's compensated sum in the storage format (as kahan_<f>)
//   fast_exact          fast_exact_sum(): FastExactAccumulator + its ExactSum (S, A, n, flags)
//   exact_of_values     exact_sum_of_values(x, format): f16 through 64-bit fixed point
//                       (column_exact.h), the other formats as fast_exact
//   fast_exact_rounded  FastExactAccumulator + rounded(format) from the limbs (no ExactSum)
//   fast_exact_direct   FastExactAccumulator forced onto the direct path (no chunk tables)
//   boost_exact         boost_exact_sum(): the Boost.Multiprecision reference oracle
//   mpfr_sum            mpfr_sum of the addends (already converted to mpfr_t) at 2300 bits
//   round_fixed(_fast)  one rounding of A into the format (counter "calls", not "addends")
//   condition_number    ExactSum::condition_number() once (counter "calls")
//   to_fixed            to_fixed() of one double (counter "calls")
//   naive_backend       Registry "naive_<f>" run_dense over a D x L dense workload of the input
//   verdict             naive_backend + exact_elements + judge() per element (L = 1024 terms):
//                       what the campaign does (ExactSumRanges)
//   exact_element       exact_element for every element only: its column gathered and summed
//                       by exact_sum_of_values (L = 1024)
//   exact_elements      exact_elements over the workload: the columns side by side
//                       (column_exact.h, the CPU's widest SIMD path), exact_element for those
//                       it leaves; counter side_by_side: the fraction of columns it summed
//   exact_elements_portable  the same on the portable (SSE2) path
//   judge               judge() for every element only, exact sums precomputed (L = 1024)
//   column_sums         fast_exact_sum of every element's column, gathered beforehand: so
//                       exact_element - column_sums is the cost of gathering the strided column
//   *_short             the same with L = 64 terms per element (the fuzzers' shape)
//   zero_columns        fast_exact_sum of 4096 columns of 9 zeros (a wide buffer's trivial
//                       elements, shapes.h): its shortcut
//   zero_columns_accumulator  the same columns through FastExactAccumulator (no shortcut)
//   stream_read         a streaming read of the same bytes (XOR of the 64-bit words, 4 lanes):
//                       the memory bandwidth an exact sum cannot beat at n = 10^7
//   xsum_small, xsum_large  Neal's small and large superaccumulators (xsum.hpp of the PyPI
//                       package xsum's sdist, fetched by ci/bench.sh; built into this benchmark
//                       only, when ACCUCHECK_XSUM_DIR names it), then rounded to a double
// ACCUCHECK_BENCH_DUMP_INPUTS=DIR writes each input as DIR/<format>_<n>.f64 (raw little-endian
// doubles) before the run, so that bench/python_peers.py times math.fsum and numpy.sum on the
// same bytes.
#include <benchmark/benchmark.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/judge.h"
#include "checking/verdict.h"
#include "checking/workload.h"
#include "common/compensated_sums.h"
#include "numerics/column_exact.h"
#include "numerics/exact.h"
#include "numerics/fast_exact.h"
#include "numerics/format.h"
#include "numerics/soft_float.h"
#ifdef ACCUCHECK_BENCH_XSUM
#include "xsum.hpp"
#endif
#include <cstdio>
#include <cstdlib>

namespace accucheck {
namespace {

constexpr std::size_t kSizes[] = {100, 10'000, 1'000'000, 10'000'000};
constexpr std::size_t kBoostMax = 1'000'000;  // the oracle takes seconds per iteration beyond

// ------------------------------------------------------------------------------ the input

// Mixed magnitudes over a wide exponent range, both signs, some zeros and subnormals, and
// large values that cancel later in the sequence (what makes ordered sums lose everything).
// Every value is exact in f.
std::vector<double> make_input(Format f, std::size_t n) {
  std::mt19937_64 rng(0x5eed0000 + static_cast<std::uint64_t>(f) * 1000003 + n);
  const auto& t = traits(f);
  // Exponent band: 2^-60 .. 2^40 for the wide formats, the whole f16 range below 1.
  const int lo = f == Format::f16 ? t.emin - t.precision + 1 : -60;
  const int hi = f == Format::f16 ? 0 : 40;
  std::vector<double> xs(n);
  for (double& x : xs) {
    const std::uint64_t r = rng() % 100;
    double v;
    if (r < 4)
      v = 0.0;
    else if (r < 5)
      v = smallest_subnormal(f) * static_cast<double>(1 + rng() % 7);
    else
      v = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, lo + static_cast<int>(rng() % (hi - lo + 1)));
    if (rng() & 1) v = -v;
    x = round_to_format(v, f);
  }
  // One pair in 64 is a large value and, 1 to 256 places later, its negation (close enough
  // that the running sums of the narrow formats do not overflow).
  for (std::size_t k = 0; n > 257 && k < n / 64; ++k) {
    const std::size_t p = rng() % (n - 257), q = p + 1 + rng() % 256;
    const double big = round_to_format(
        std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, hi + 8 + static_cast<int>(rng() % 5)), f);
    xs[p] = (rng() & 1) ? big : -big;
    xs[q] = -xs[p];
  }
  return xs;
}

struct Input {
  Format format;
  std::size_t n;
  std::vector<double> values;
  std::vector<float> f32;
  std::vector<Half> f16;
  std::vector<BFloat16> bf16;
  std::vector<mpfr_t> mpfr;
  std::vector<mpfr_ptr> mpfr_ptrs;
  std::unique_ptr<DenseWorkload> long_workload, short_workload;

  ~Input() {
    for (auto& m : mpfr) mpfr_clear(m);
  }

  template <class T>
  const std::vector<T>& typed() {
    if constexpr (std::is_same_v<T, double>)
      return values;
    else {
      std::vector<T>* v;
      if constexpr (std::is_same_v<T, float>)
        v = &f32;
      else if constexpr (std::is_same_v<T, Half>)
        v = &f16;
      else
        v = &bf16;
      if (v->empty())
        for (double x : values) v->push_back(from_value<T>(x));
      return *v;
    }
  }

  const std::vector<mpfr_ptr>& mpfr_values() {
    if (mpfr.empty()) {
      mpfr = std::vector<mpfr_t>(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) {
        mpfr_init2(mpfr[i], 53);
        mpfr_set_d(mpfr[i], values[i], MPFR_RNDN);
        mpfr_ptrs.push_back(mpfr[i]);
      }
    }
    return mpfr_ptrs;
  }

  // The input as a dense workload of D elements with `terms` addends each (initial value
  // included): initial = the first D values, then step after step.
  const DenseWorkload& workload(std::size_t terms) {
    auto& slot = terms == 64 ? short_workload : long_workload;
    if (!slot) {
      terms = std::min(terms, n);
      auto w = std::make_unique<DenseWorkload>();
      w->format = format;
      w->elements = n / terms;
      w->steps = terms - 1;
      w->initial.assign(values.begin(), values.begin() + w->elements);
      w->addends.assign(values.begin() + w->elements, values.begin() + w->elements * terms);
      w->family = "bench";
      slot = std::move(w);
    }
    return *slot;
  }
};

// One input at a time (benchmarks run grouped by format and n): 10^7 values in every type
// at once would be needlessly large.
Input& input(Format f, std::size_t n) {
  static std::unique_ptr<Input> current;
  if (!current || current->format != f || current->n != n) {
    current.reset();
    current = std::make_unique<Input>();
    current->format = f;
    current->n = n;
    current->values = make_input(f, n);
  }
  return *current;
}

// ------------------------------------------------------------------------------ the sums

template <class T>
T naive_ordered(std::span<const T> x) {
  T acc = x[0];
  for (std::size_t i = 1; i < x.size(); ++i) acc = acc + x[i];
  return acc;
}

template <class T>
T lanes(std::span<const T> x) {
  constexpr std::size_t L = 8;
  T lane[L];
  for (auto& l : lane) l = from_value<T>(-0.0);
  std::size_t i = 0;
  for (; i + L <= x.size(); i += L)
    for (std::size_t l = 0; l < L; ++l) lane[l] = lane[l] + x[i + l];
  for (std::size_t l = 0; i < x.size(); ++i, ++l) lane[l] = lane[l] + x[i];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// The kahan_<f> backends' own sum.
template <class T>
T kahan(std::span<const T> x) {
  return impls::KahanSum{}(x);
}

template <class T, T (*Sum)(std::span<const T>)>
void run_typed(benchmark::State& state, Format f, std::size_t n) {
  const std::vector<T>& x = input(f, n).typed<T>();
  for (auto _ : state) {
    T r = Sum(std::span<const T>(x));
    double d = to_value(r);
    benchmark::DoNotOptimize(d);
  }
}

enum SumKind { kNaive, kLanes, kKahan };

template <class T>
void run_sum(benchmark::State& state, SumKind kind, Format f, std::size_t n) {
  switch (kind) {
    case kNaive: run_typed<T, &naive_ordered<T>>(state, f, n); break;
    case kLanes: run_typed<T, &lanes<T>>(state, f, n); break;
    case kKahan: run_typed<T, &kahan<T>>(state, f, n); break;
  }
}

void bench_sum(benchmark::State& state, SumKind kind, Format f, std::size_t n) {
  switch (f) {
    case Format::f64: run_sum<double>(state, kind, f, n); break;
    case Format::f32: run_sum<float>(state, kind, f, n); break;
    case Format::f16: run_sum<Half>(state, kind, f, n); break;
    case Format::bf16: run_sum<BFloat16>(state, kind, f, n); break;
    case Format::e4m3:
    case Format::e5m2: break;  // not benchmarked: no backend stores them
  }
  state.counters["addends"] = static_cast<double>(n);
}

// ------------------------------------------------------------------------------ exact sums

// Times sum(x) over the shared input of (f, n), counted per addend.
template <class Sum>
void time_over_input(benchmark::State& state, Format f, std::size_t n, const Sum& sum) {
  const std::vector<double>& x = input(f, n).values;
  for (auto _ : state) {
    auto result = sum(x);
    benchmark::DoNotOptimize(result);
  }
  state.counters["addends"] = static_cast<double>(n);
}

void bench_fast_exact(benchmark::State& state, Format f, std::size_t n) {
  time_over_input(state, f, n, [](const std::vector<double>& x) { return fast_exact_sum(x); });
}

void bench_exact_of_values(benchmark::State& state, Format f, std::size_t n) {
  time_over_input(state, f, n, [f](const std::vector<double>& x) { return exact_sum_of_values(x, f); });
}

void bench_fast_exact_rounded(benchmark::State& state, Format f, std::size_t n) {
  time_over_input(state, f, n, [f](const std::vector<double>& x) {
    FastExactAccumulator acc;
    acc.add(x);
    return acc.rounded(f);
  });
}

void bench_fast_exact_direct(benchmark::State& state, Format f, std::size_t n) {
  time_over_input(state, f, n, [](const std::vector<double>& x) {
    FastExactAccumulator acc(std::numeric_limits<std::uint64_t>::max());
    acc.add(x);
    return acc.result();
  });
}

void bench_boost_exact(benchmark::State& state, Format f, std::size_t n) {
  time_over_input(state, f, n, [](const std::vector<double>& x) { return boost_exact_sum(x); });
}

void bench_mpfr_sum(benchmark::State& state, Format f, std::size_t n) {
  const std::vector<mpfr_ptr>& x = input(f, n).mpfr_values();
  mpfr_t sum;
  mpfr_init2(sum, 2300);  // exact for any sum of fewer than 2^100 doubles
  for (auto _ : state) {
    mpfr_sum(sum, x.data(), x.size(), MPFR_RNDN);
    benchmark::DoNotOptimize(sum);
  }
  mpfr_clear(sum);
  state.counters["addends"] = static_cast<double>(n);
}

// The physical floor: every byte of the input read once, with no floating-point work.
void bench_stream_read(benchmark::State& state, Format f, std::size_t n) {
  const std::vector<double>& x = input(f, n).values;
  for (auto _ : state) {
    std::uint64_t lane[4] = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 4 <= x.size(); i += 4)
      for (std::size_t l = 0; l < 4; ++l) lane[l] ^= std::bit_cast<std::uint64_t>(x[i + l]);
    for (; i < x.size(); ++i) lane[0] ^= std::bit_cast<std::uint64_t>(x[i]);
    std::uint64_t r = lane[0] ^ lane[1] ^ lane[2] ^ lane[3];
    benchmark::DoNotOptimize(r);
  }
  state.counters["addends"] = static_cast<double>(n);
}

#ifdef ACCUCHECK_BENCH_XSUM
template <class Accumulator>
void bench_xsum(benchmark::State& state, Format f, std::size_t n) {
  time_over_input(state, f, n, [](const std::vector<double>& x) {
    Accumulator acc;
    acc.add(x.data(), static_cast<xsum::xsum_length>(x.size()));
    return acc.round();
  });
}
#endif

// One rounding of the exact sum into the format: exact.h's round_fixed against the limb
// rounding of fast_exact.h (what judge() could use; it calls round_fixed several times).
void bench_rounding(benchmark::State& state, bool fast, Format f, std::size_t n) {
  const ExactSum e = fast_exact_sum(input(f, n).values);
  for (auto _ : state) {
    double r = fast ? round_fixed_fast(e.abs_sum, f) : round_fixed(e.abs_sum, f);
    benchmark::DoNotOptimize(r);
  }
  state.counters["calls"] = 1;
}

// The other pieces of judge() that cost more than a few nanoseconds: the condition number
// A/|S| (a BigInt division) and to_fixed (a double into the 2240-bit fixed point).
void bench_condition_number(benchmark::State& state, Format f, std::size_t n) {
  const ExactSum e = fast_exact_sum(input(f, n).values);
  for (auto _ : state) {
    double k = e.condition_number();
    benchmark::DoNotOptimize(k);
  }
  state.counters["calls"] = 1;
}

void bench_to_fixed(benchmark::State& state, Format f, std::size_t n) {
  const double x = fast_exact_sum(input(f, n).values).rounded(f);
  for (auto _ : state) {
    FixedInt v = to_fixed(x);
    benchmark::DoNotOptimize(v);
  }
  state.counters["calls"] = 1;
}

// ------------------------------------------------------------------------------ verdicts

const Backend& naive_backend(Format f) {
  const Backend* b = Registry::global().find("naive_" + std::string(name(f)));
  if (!b) throw std::runtime_error("no naive backend for " + std::string(name(f)));
  return *b;
}

enum class VerdictPart { backend, verdict, exact, side_by_side, side_by_side_portable, judge, column_sums };

void bench_verdict(benchmark::State& state, VerdictPart part, std::size_t terms, Format f, std::size_t n) {
  const DenseWorkload& w = input(f, n).workload(terms);
  const Backend& backend = naive_backend(f);
  std::vector<double> result(w.elements);
  std::vector<ExactSum> exact;
  if (part == VerdictPart::judge) {
    backend.run_dense(w, result, RunOptions{});
    exact_elements(w, 0, w.elements, exact);
  }
  std::vector<std::vector<double>> columns;
  if (part == VerdictPart::column_sums) {
    columns.resize(w.elements);
    for (std::size_t j = 0; j < w.elements; ++j) w.column(j, columns[j]);
  }
  std::size_t violations = 0;
  for (auto _ : state) {
    switch (part) {
      case VerdictPart::backend: backend.run_dense(w, result, RunOptions{}); break;
      case VerdictPart::verdict:
        // As run_and_summarize does: the exact sums of kJudgeBlock elements at a time.
        backend.run_dense(w, result, RunOptions{});
        for (std::size_t begin = 0; begin < w.elements; begin += kJudgeBlock) {
          const std::size_t end = std::min(w.elements, begin + kJudgeBlock);
          exact_elements(w, begin, end, exact);
          for (std::size_t j = begin; j < end; ++j) {
            const ElementVerdict v = judge(backend.bound, backend.storage, exact[j - begin], result[j]);
            violations += is_violation(v.verdict);
          }
        }
        break;
      case VerdictPart::side_by_side:
      case VerdictPart::side_by_side_portable:
        for (std::size_t begin = 0; begin < w.elements; begin += kJudgeBlock) {
          exact_elements(w, begin, std::min(w.elements, begin + kJudgeBlock), exact,
                         part == VerdictPart::side_by_side ? best_simd_path() : SimdPath::portable);
          benchmark::DoNotOptimize(exact.data());
        }
        break;
      case VerdictPart::exact:
        for (std::size_t j = 0; j < w.elements; ++j) {
          ExactSum e = exact_element(w, j);
          benchmark::DoNotOptimize(e);
        }
        break;
      case VerdictPart::column_sums:
        for (const auto& column : columns) {
          ExactSum e = fast_exact_sum(column);
          benchmark::DoNotOptimize(e);
        }
        break;
      case VerdictPart::judge:
        for (std::size_t j = 0; j < w.elements; ++j) {
          const ElementVerdict v = judge(backend.bound, backend.storage, exact[j], result[j]);
          violations += is_violation(v.verdict);
        }
        break;
    }
    benchmark::DoNotOptimize(result.data());
  }
  benchmark::DoNotOptimize(violations);
  if (part == VerdictPart::side_by_side || part == VerdictPart::side_by_side_portable) {
    std::vector<ExactSum> out(w.elements);
    std::vector<std::uint8_t> summed(w.elements);
    column_exact_sums(w.initial.data(), w.addends.data(), w.elements, w.steps, w.elements, w.format, out.data(),
                      summed.data());
    // exact_elements gathers every column of a workload narrower than kMinSideBySideColumns.
    const bool side_by_side = w.elements >= kMinSideBySideColumns;
    state.counters["side_by_side"] = side_by_side ? static_cast<double>(std::count(summed.begin(), summed.end(), 1)) /
                                                        static_cast<double>(w.elements)
                                                  : 0.0;
  }
  state.counters["addends"] = static_cast<double>(w.elements * (w.steps + 1));
  state.counters["elements"] = static_cast<double>(w.elements);
}

// A wide buffer's trivial columns (shapes.h fills them with zeros): 4096 columns of 9 terms.
void bench_zero_columns(benchmark::State& state, bool shortcut) {
  const std::vector<double> column(9, 0.0);
  for (auto _ : state) {
    for (int j = 0; j < 4096; ++j) {
      if (shortcut) {
        ExactSum e = fast_exact_sum(column);
        benchmark::DoNotOptimize(e);
      } else {
        FastExactAccumulator accumulator;
        accumulator.add(column);
        ExactSum e = accumulator.result();
        benchmark::DoNotOptimize(e);
      }
    }
  }
  state.counters["addends"] = 4096.0 * 9;
}

// ------------------------------------------------------------------------------ registration

void register_all() {
  benchmark::RegisterBenchmark("zero_columns", [](benchmark::State& s) {
    bench_zero_columns(s, true);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("zero_columns_accumulator", [](benchmark::State& s) {
    bench_zero_columns(s, false);
  })->Unit(benchmark::kMicrosecond);
  for (Format f : all_formats) {
    const std::string fmt(name(f));
    for (std::size_t n : kSizes) {
      const std::string suffix = "/" + fmt + "/" + std::to_string(n);
      // Short minimum times keep the whole suite (ci/bench.sh, 3 repetitions) within minutes;
      // long sums in the SoftFloat formats run one iteration of a second or more anyway.
      auto add = [&](const std::string& method, auto fn) {
        auto* b = benchmark::RegisterBenchmark((method + suffix).c_str(), fn);
        b->Unit(benchmark::kMicrosecond)->MinTime(n >= 1'000'000 ? 0.05 : 0.1);
        return b;
      };
      add("naive_ordered", [=](benchmark::State& s) { bench_sum(s, kNaive, f, n); });
      add("lanes", [=](benchmark::State& s) { bench_sum(s, kLanes, f, n); });
      add("kahan", [=](benchmark::State& s) { bench_sum(s, kKahan, f, n); });
      add("fast_exact", [=](benchmark::State& s) { bench_fast_exact(s, f, n); });
      add("exact_of_values", [=](benchmark::State& s) { bench_exact_of_values(s, f, n); });
      add("fast_exact_rounded", [=](benchmark::State& s) { bench_fast_exact_rounded(s, f, n); });
      add("fast_exact_direct", [=](benchmark::State& s) { bench_fast_exact_direct(s, f, n); });
      if (n <= kBoostMax) add("boost_exact", [=](benchmark::State& s) { bench_boost_exact(s, f, n); });
      add("mpfr_sum", [=](benchmark::State& s) { bench_mpfr_sum(s, f, n); });
      add("stream_read", [=](benchmark::State& s) { bench_stream_read(s, f, n); });
#ifdef ACCUCHECK_BENCH_XSUM
      add("xsum_small", [=](benchmark::State& s) { bench_xsum<xsum::xsum_small>(s, f, n); });
      add("xsum_large", [=](benchmark::State& s) { bench_xsum<xsum::xsum_large>(s, f, n); });
#endif
      if (n == kSizes[0]) {
        add("round_fixed", [=](benchmark::State& s) { bench_rounding(s, false, f, n); });
        add("round_fixed_fast", [=](benchmark::State& s) { bench_rounding(s, true, f, n); });
        add("condition_number", [=](benchmark::State& s) { bench_condition_number(s, f, n); });
        add("to_fixed", [=](benchmark::State& s) { bench_to_fixed(s, f, n); });
      }
      for (std::size_t terms : {std::size_t{1024}, std::size_t{64}}) {
        const std::string tag = terms == 64 ? "_short" : "";
        add("naive_backend" + tag, [=](benchmark::State& s) { bench_verdict(s, VerdictPart::backend, terms, f, n); });
        add("verdict" + tag, [=](benchmark::State& s) { bench_verdict(s, VerdictPart::verdict, terms, f, n); });
        add("exact_element" + tag, [=](benchmark::State& s) { bench_verdict(s, VerdictPart::exact, terms, f, n); });
        add("exact_elements" + tag,
            [=](benchmark::State& s) { bench_verdict(s, VerdictPart::side_by_side, terms, f, n); });
        add("exact_elements_portable" + tag,
            [=](benchmark::State& s) { bench_verdict(s, VerdictPart::side_by_side_portable, terms, f, n); });
        add("judge" + tag, [=](benchmark::State& s) { bench_verdict(s, VerdictPart::judge, terms, f, n); });
        add("column_sums" + tag, [=](benchmark::State& s) { bench_verdict(s, VerdictPart::column_sums, terms, f, n); });
      }
    }
  }
}

// ACCUCHECK_BENCH_DUMP_INPUTS=DIR: the inputs as raw doubles, for bench/python_peers.py.
void dump_inputs(const char* directory) {
  for (Format f : all_formats)
    for (std::size_t n : kSizes) {
      const std::vector<double> x = make_input(f, n);
      const std::string path = std::string(directory) + "/" + std::string(name(f)) + "_" + std::to_string(n) + ".f64";
      std::FILE* out = std::fopen(path.c_str(), "wb");
      if (!out || std::fwrite(x.data(), sizeof(double), x.size(), out) != x.size() || std::fclose(out) != 0)
        throw std::runtime_error("cannot write " + path);
    }
}

}  // namespace
}  // namespace accucheck

int main(int argc, char** argv) {
  static_assert(std::endian::native == std::endian::little, "the dumped inputs are little-endian doubles");
  if (const char* directory = std::getenv("ACCUCHECK_BENCH_DUMP_INPUTS")) accucheck::dump_inputs(directory);
  accucheck::register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
