// One length's probes (length_probe.h). Long: one class whose probes share the length's state
// (the prober, the placement, what earlier probes found); each probe is a method.
#include "characterize/length_probe.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "characterize/arithmetic.h"
#include "characterize/inputs.h"
#include "checking/judge.h"
#include "numerics/fast_exact.h"
#include "numerics/hash.h"

namespace accucheck::characterization {

namespace {

class LengthProbe {
 public:
  LengthProbe(Prober& prober, std::size_t n, const CharacterizeOptions& options,
              std::optional<std::pair<int, bool>> hint_bits)
      : prober_(prober), n_(n), o_(options), hint_bits_(hint_bits), f_(prober.format()) {}

  // Fills what the probes show into r and facts; a ProbeFailure (the backend's own) ends it.
  void run(LengthCharacterization& r, Facts& facts) {
    r.n = n_;
    const auto start = Clock::now();
    const auto calls_before = prober_.calls();
    try {
      probe(r, facts);
    } catch (const ProbeFailure& e) {
      r.order = "failed";
      r.failure = e.what();
    }
    r.calls = prober_.calls() - calls_before;
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }

 private:
  const FormatTraits& t() const { return traits(f_); }

  std::vector<double> run_columns(const std::vector<std::vector<double>>& columns, const RunOptions& options = {}) {
    return prober_.run(
        n_, columns.size(),
        [&](std::size_t c, std::span<double> x) { std::copy(columns[c].begin(), columns[c].end(), x.begin()); },
        options, placement_);
  }

  void remember(Facts& facts, const std::vector<double>& column, std::string what,
                std::optional<double> result = std::nullopt) {
    facts.witnesses.push_back(
        {{column}, result ? std::vector<double>{*result} : std::vector<double>{}, std::move(what)});
  }

  // An exponent for X in the precision and rounding probes: well inside the range, so that a
  // backend that scales its inputs (loss scaling) does not overflow, with room below for 2^-m.
  int middle_exponent() const { return std::min(t().emax - 2, std::max(t().emax / 2, t().precision + 2)); }

  // The unit s and how many of them one result counts exactly: subnormal s when subnormals
  // survive addition (the widest ratio to M), else the smallest normal.
  CountProbe calibrate(std::string& note) {
    CountProbe probe;
    probe.big = std::ldexp(1.0, t().emax - 1);
    const std::size_t most = std::min<std::size_t>(n_, std::size_t{1} << t().precision);
    std::vector<std::size_t> counts;
    for (std::size_t k = 1; k < most; k *= 2) counts.push_back(k);
    counts.push_back(most);
    for (double unit : {smallest_subnormal(f_), smallest_normal(f_)}) {
      std::vector<std::vector<double>> columns;
      for (std::size_t k : counts) {
        columns.emplace_back(n_, 0.0);
        std::fill(columns.back().begin(), columns.back().begin() + static_cast<std::ptrdiff_t>(k), unit);
      }
      const auto results = run_columns(columns);
      std::size_t capacity = 0;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        if (results[c] != static_cast<double>(counts[c]) * unit) break;
        capacity = counts[c];
      }
      if (capacity >= std::min<std::size_t>(2, n_)) {
        probe.small = unit;
        probe.capacity = capacity;
        subnormal_units_ = unit == smallest_subnormal(f_);
        if (!subnormal_units_)
          note = "sums of subnormal units are not exact (flushed?): counting in the smallest normal";
        return probe;
      }
    }
    probe.small = smallest_normal(f_);
    probe.capacity = 1;
    note = "sums of equal small units are not exact: counting one at a time";
    return probe;
  }

  // Runs that should give the same bits: other thread counts and order seeds (`threads`: false
  // keeps the backend's default thread count, for probes whose tree must stay the same).
  std::vector<RunOptions> variations(bool threads) const {
    std::vector<RunOptions> v;
    for (std::size_t k = 1; k <= o_.repeats; ++k)
      v.push_back({threads ? static_cast<unsigned>(1 + (k - 1) % 4) : 0u, k});
    return v;
  }

  void probe(LengthCharacterization& r, Facts& facts) {
    std::string calibration_note;
    const CountProbe probe = calibrate(calibration_note);
    if (!calibration_note.empty()) r.order_note += calibration_note + "; ";

    // Run dependence, early: pair probes under other thread counts and order seeds.
    std::vector<std::vector<double>> pair_columns;
    std::vector<std::size_t> targets;
    for (std::size_t x = 1; x < n_ && pair_columns.size() < 32; x += std::max<std::size_t>(1, n_ / 32)) {
      targets.push_back(x);
      pair_columns.emplace_back(n_, 0.0);
      auto& col = pair_columns.back();
      for (std::size_t i = 0; i < std::min(n_, probe.capacity + 2); ++i) col[i] = probe.small;
      col[0] = probe.big;
      col[x] = -probe.big;
    }
    const auto reference = run_columns(pair_columns);
    for (const auto& options : variations(true)) {
      const auto again = run_columns(pair_columns, options);
      for (std::size_t c = 0; c < again.size() && !r.run_dependent; ++c)
        if (!same_bits(again[c], reference[c])) {
          r.run_dependent = true;
          r.order_note += "runs differ: the pair probe (0, " + std::to_string(targets[c]) + ") gave " +
                          hex_float(reference[c]) + ", then " + hex_float(again[c]) + " with " +
                          std::to_string(options.threads) + " threads and order seed " +
                          std::to_string(options.order_seed) + "; ";
        }
    }

    // Element dependence: one pair probe in every element of a wide buffer, in one call.
    const std::size_t wide = prober_.wide(n_);
    if (wide > 1 && !r.run_dependent) {
      const std::vector<std::vector<double>> same(wide, pair_columns.back());
      const auto results = prober_.call(n_, same, RunOptions{});
      facts.witnesses.push_back(
          {same, results, "one pair probe in each of " + std::to_string(wide) + " elements", wide});
      for (std::size_t j = 1; j < wide && !r.element_dependent; ++j)
        if (!same_bits(results[j], results[0])) {
          r.element_dependent = true;
          r.order_note += "the same pair probe gives " + hex_float(results[0]) + " in element 0 and " +
                          hex_float(results[j]) + " in element " + std::to_string(j) + " of " + std::to_string(wide) +
                          "; ";
          element_seen_ = j;
          wide_ = wide;
          placement_ = Placement{0, wide};  // then one probe per call, in element 0 of a buffer as wide
        }
    }

    // The tree: first with the widest ratio of M to s, then with both well inside the range (a
    // backend that scales its inputs overflows or rounds at the edges of the range).
    CountProbe middle = probe;
    middle.big = std::ldexp(1.0, t().emax / 2);
    if (probe.small < std::ldexp(1.0, t().emin / 2)) middle.small = std::ldexp(1.0, t().emin / 2);
    facts.revealed = reveal_tree(prober_, n_, probe, RunOptions{}, placement_);
    facts.revealed_with = probe;
    facts.reveal_note = facts.revealed.tree ? "" : facts.revealed.failure;
    if (!facts.revealed.tree && !facts.revealed.all_survive &&
        std::ilogb(middle.big) - std::ilogb(middle.small) > t().precision + 14) {
      Reveal second = reveal_tree(prober_, n_, middle, RunOptions{}, placement_);
      if (second.tree) {
        facts.reveal_note = "revealed with M = " + hex_float(middle.big) + ", s = " + hex_float(middle.small) +
                            " (at M = " + hex_float(probe.big) + ": " + facts.revealed.failure + ")";
        facts.revealed = std::move(second);
        facts.revealed_with = middle;
      }
    }
    if (facts.revealed.tree && r.element_dependent) {
      // Element j's own tree, probed at its place in the wide buffer.
      const Reveal other = reveal_tree(prober_, n_, probe, RunOptions{}, Placement{element_seen_, wide_});
      if (other.tree) r.other_elements.emplace_back(element_seen_, *other.tree);
    }
    const std::optional<SummationTree>& tree = facts.revealed.tree;

    // Flushing, at the first pair that meets (leaves 0 and 1 without a tree).
    std::uint32_t a = 0, b = 1;
    if (tree) first_pair(*tree, a, b);
    probe_flushing(r, facts, a, b);

    // Precision: X + d at a node, -X after it; without a tree at leaves 0, 1 and n-1 in every arrangement.
    // Where the order varies (between runs or elements) the tree's nodes say little: the six
    // arrangements too, and the least of all (every probe fails at m >= p; one that adds the
    // increment to X first fails at p).
    if (tree) measure_precision(r, facts, *tree);
    if (!tree || r.run_dependent || r.element_dependent) {
      LengthCharacterization arranged;
      measure_precision_without_tree(arranged, facts, r.run_dependent ? 4 : 1);
      if (arranged.accumulation_bits &&
          (!r.accumulation_bits || *arranged.accumulation_bits < *r.accumulation_bits ||
           (*arranged.accumulation_bits == *r.accumulation_bits && !arranged.bits_at_least))) {
        r.accumulation_bits = arranged.accumulation_bits;
        r.bits_at_least = arranged.bits_at_least;
        r.bits_note = arranged.bits_note;
      }
    }
    if (!r.accumulation_bits && hint_bits_) {
      r.accumulation_bits = hint_bits_->first;
      r.bits_at_least = hint_bits_->second;
      r.bits_note +=
          (r.bits_note.empty() ? "" : "; ") + std::string("taken from a longer length (not observable at this n)");
    }

    // Rounding mode, at the first pair's node (needs a later leaf).
    if (tree && r.accumulation_bits && !r.bits_at_least)
      measure_rounding(r, facts, *tree);
    else
      r.rounding = "unobservable";

    special_value_columns(facts);
    model_check(r, facts);
    // (Not under stochastic rounding: M + s rounds up now and then at the smaller magnitudes.)
    if (tree && !r.run_dependent && !r.element_dependent && r.rounding != "stochastic")
      data_recheck(r, *tree, facts.revealed_with);
  }

  // The flush probes' pair: the smallest leaves of the two children of the first binary node
  // (values there reach it unchanged, every other leaf being zero); a fused node would cut a
  // subnormal to its window rather than flush it.
  static void first_pair(const SummationTree& tree, std::uint32_t& a, std::uint32_t& b) {
    const auto smallest = tree.smallest_leaves();
    for (const auto& k : tree.children())
      if (k.size() == 2) {
        a = smallest[k[0]];
        b = smallest[k[1]];
        return;
      }
  }

  void probe_flushing(LengthCharacterization& r, Facts& facts, std::uint32_t a, std::uint32_t b) {
    const double mn = smallest_normal(f_), sub = smallest_subnormal(f_);
    std::vector<double> result_col(n_, 0.0), input_col(n_, 0.0);
    result_col[a] = 1.5 * mn;  // 0.5 mn after the node: a subnormal result
    result_col[b] = -mn;
    input_col[a] = mn;  // mn + sub: a normal result of a subnormal input
    input_col[b] = sub;
    const auto out = run_columns({result_col, input_col});
    r.flushes_subnormal_results = out[0] == 0;
    r.flushes_subnormal_inputs = out[1] == mn;
    flushing_ = r.flushes_subnormal_results || r.flushes_subnormal_inputs;
    remember(facts, result_col, "a subnormal result: 1.5 and -1 times the smallest normal", out[0]);
    remember(facts, input_col, "the smallest subnormal added to the smallest normal", out[1]);
  }

  // Precision at up to three binary nodes that have a later leaf: X at a leaf of one child,
  // X 2^-m at a leaf of the other, -X at the smallest leaf outside the node; m = 1, 2, ... until
  // the increment does not come back. A fused node (more than two children) gets -X inside it
  // too: its alignment window, where children are cut before they are added.
  void measure_precision(LengthCharacterization& r, Facts& facts, const SummationTree& tree) {
    const auto kids = tree.children();
    const auto smallest = tree.smallest_leaves();
    const auto sizes = tree.subtree_sizes();
    std::vector<std::size_t> binary, fused;  // internal nodes that are not the root (the last)
    for (std::size_t k = 0; k + 1 < kids.size(); ++k) (kids[k].size() == 2 ? binary : fused).push_back(k);
    if (kids.back().size() > 2) fused.push_back(kids.size() - 1);  // a fused root: its window is measurable inside it
    std::vector<std::size_t> chosen;
    if (!binary.empty()) chosen = {binary.front(), binary[binary.size() / 2], binary.back()};
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    int least = -1;
    bool least_at_least = false;
    std::string per_node;
    for (std::size_t k : chosen) {
      const auto id = static_cast<std::uint32_t>(tree.leaves() + k);
      const auto inside = tree.leaves_below(id);
      std::uint32_t out = 0;
      while (out < tree.leaves() && inside[out]) ++out;
      if (out == tree.leaves()) continue;
      bool at_least = false;
      const int bits = increment_bits(facts, smallest[kids[k][0]], smallest[kids[k][1]], out, at_least);
      per_node += (per_node.empty() ? "" : ", ") + std::string("node of ") + std::to_string(sizes[id]) +
                  " leaves: " + (at_least ? ">= " : "") + std::to_string(bits);
      if (least < 0 || bits < least) {
        least = bits;
        least_at_least = at_least;
      }
    }
    if (!fused.empty()) {
      const std::size_t k = fused.front();
      bool at_least = false;
      const int window =
          increment_bits(facts, smallest[kids[k][0]], smallest[kids[k][1]], smallest[kids[k][2]], at_least);
      if (!at_least) r.fused_window_bits = window;
      per_node += (per_node.empty() ? "" : ", ") + std::string("inside a fused node of ") +
                  std::to_string(kids[k].size()) + " children: " + (at_least ? ">= " : "") + std::to_string(window);
    }
    r.bits_note = per_node;
    if (least < 0) {
      if (kids.size() < 2) r.bits_note = "n = 2: only the rounding into the output format is visible";
      return;
    }
    r.accumulation_bits = least;
    r.bits_at_least = least_at_least;
  }

  // X is well inside the range, and 4 when even X 2^-1 does not come back there (an accumulator
  // narrower than the storage overflows on large X).
  int increment_bits(Facts& facts, std::uint32_t x, std::uint32_t d, std::uint32_t out, bool& at_least,
                     const RunOptions& options = {}) {
    for (const int e : {middle_exponent(), 2}) {
      const int lowest = subnormal_units_ && !flushing_ ? t().emin - t().precision + 1 : t().emin;
      const int most = std::min(e - lowest, 240);
      std::vector<std::vector<double>> columns;
      for (int m = 1; m <= most; ++m) {
        columns.emplace_back(n_, 0.0);
        columns.back()[x] = std::ldexp(1.0, e);
        columns.back()[d] = std::ldexp(1.0, e - m);
        columns.back()[out] = -std::ldexp(1.0, e);
      }
      const auto results = run_columns(columns, options);
      for (int m = 1; m <= most; ++m)
        if (results[m - 1] != std::ldexp(1.0, e - m)) {
          remember(facts, columns[m - 1], "X, X 2^-" + std::to_string(m) + " and -X: the increment does not come back",
                   results[m - 1]);
          if (m == 1 && e != 2) break;  // not even half of X: try a small X
          at_least = false;
          return m;
        }
      if (results[0] == std::ldexp(1.0, e - 1)) {
        at_least = true;
        return most;
      }
    }
    at_least = false;
    return 1;
  }

  // Without a tree: X, X 2^-m and -X at leaves 0, 1 and n-1 in all six arrangements (in every
  // tree one of them adds the increment to X before -X).
  // With `runs` > 1, each arrangement again under other order seeds: an order drawn per run
  // meets the increment and X first in some run.
  void measure_precision_without_tree(LengthCharacterization& r, Facts& facts, std::size_t runs = 1) {
    if (n_ < 3) return;
    const std::uint32_t place[3] = {0, 1, static_cast<std::uint32_t>(n_ - 1)};
    const int arrangement[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int least = -1;
    bool at_least = true;
    for (std::size_t run = 0; run < runs; ++run)
      for (const auto& p : arrangement) {
        bool this_at_least = false;
        const int bits =
            increment_bits(facts, place[p[0]], place[p[1]], place[p[2]], this_at_least, RunOptions{0, run});
        if (least < 0 || bits < least) {
          least = bits;
          at_least = this_at_least;
        }
      }
    r.accumulation_bits = least;
    r.bits_at_least = at_least;
    r.bits_note = "no single tree: the least over the six arrangements of X, X 2^-m and -X at leaves 0, 1 and n-1";
  }

  // X + d at the first pair's node, -X after it, d a quarter, a half and three quarters of the
  // spacing of X, both signs, repeated under other order seeds: which way each rounds.
  void measure_rounding(LengthCharacterization& r, Facts& facts, const SummationTree& tree) {
    const int p = *r.accumulation_bits;
    // The first binary node that has a later leaf: X and the increment at the smallest leaves of
    // its two children (they reach it unchanged: every other leaf is zero), -X outside it.
    const auto kids = tree.children();
    const auto smallest = tree.smallest_leaves();
    std::optional<std::size_t> node_index;
    for (std::size_t k = 0; k + 1 < kids.size() && !node_index; ++k)
      if (kids[k].size() == 2) node_index = k;
    if (!node_index) {
      r.rounding = "unobservable";
      r.rounding_note = "no binary node below the root";
      return;
    }
    const auto node = static_cast<std::uint32_t>(tree.leaves() + *node_index);
    const std::uint32_t a = smallest[kids[*node_index][0]], b = smallest[kids[*node_index][1]];
    const auto inside = tree.leaves_below(node);
    std::uint32_t out = 0;
    while (out < tree.leaves() && inside[out]) ++out;
    const int e = std::min(t().emax - 2, t().emin + p + 10);
    const double X = std::ldexp(1.0, e), spacing = std::ldexp(1.0, e - p + 1);
    if (spacing / 4 < smallest_normal(f_)) {
      r.rounding = "unobservable";
      r.rounding_note = "a quarter of the spacing is below the normal range of " + std::string(name(f_));
      return;
    }
    const double fractions[3] = {0.25, 0.5, 0.75};
    std::vector<std::vector<double>> columns;
    for (double sign : {1.0, -1.0})
      for (double q : fractions) {
        columns.emplace_back(n_, 0.0);
        columns.back()[a] = sign * X;
        columns.back()[b] = sign * q * spacing;
        columns.back()[out] = -sign * X;
      }
    // Repeated under other order seeds (stochastic rounding draws from them); when another run
    // changes the order itself (X meets -X first), plain repeats of the default run instead.
    std::vector<std::size_t> up(columns.size(), 0);  // column i came back as one spacing (away from X), not 0
    std::size_t total = 0;
    std::string disturbed;
    for (bool vary : {true, false}) {
      std::vector<RunOptions> runs{RunOptions{}};
      for (const auto& v : variations(false)) runs.push_back(vary ? v : RunOptions{});
      std::fill(up.begin(), up.end(), 0);
      total = 0;
      disturbed.clear();
      for (const auto& options : runs) {
        const auto results = run_columns(columns, options);
        for (std::size_t i = 0; i < columns.size() && disturbed.empty(); ++i) {
          const double sign = i < 3 ? 1.0 : -1.0;
          if (results[i] == sign * spacing)
            ++up[i];
          else if (results[i] != 0)
            disturbed = "X + " + svg_number(fractions[i % 3]) + " of its spacing, then -X, gave " +
                        hex_float(results[i]) + " (neither 0 nor one spacing) with order seed " +
                        std::to_string(options.order_seed);
        }
        if (!disturbed.empty()) break;
        ++total;
      }
      if (disturbed.empty()) break;
    }
    if (!disturbed.empty()) {
      r.rounding = "unknown";
      r.rounding_note = disturbed;
      facts.rounding_blocked = true;
      return;
    }
    facts.witnesses.push_back(
        {columns, run_columns(columns), "X plus a quarter, a half and three quarters of its spacing, then -X"});
    auto all = [&](std::size_t i) { return up[i] == total; };
    auto none = [&](std::size_t i) { return up[i] == 0; };
    bool varied = false;
    for (std::size_t i = 0; i < up.size(); ++i) varied = varied || (!all(i) && !none(i));
    char note[200];
    std::snprintf(note, sizeof note, "away from X in %zu, %zu and %zu of %zu runs at 1/4, 1/2 and 3/4 of its spacing",
                  up[0], up[1], up[2], total);
    r.rounding_note = note;
    if (varied)
      r.rounding = "stochastic";
    else if (none(0) && none(1) && all(2) && none(3) && none(4) && all(5))
      r.rounding = "nearest-even";
    else if (none(0) && all(1) && all(2) && none(3) && all(4) && all(5))
      r.rounding = "nearest-away";
    else if (none(0) && none(1) && none(2) && none(3) && none(4) && none(5))
      r.rounding = "toward-zero";
    else if (all(0) && all(1) && all(2) && none(3) && none(4) && none(5))
      r.rounding = "upward";
    else if (none(0) && none(1) && none(2) && all(3) && all(4) && all(5))
      r.rounding = "downward";
    else
      r.rounding = "unknown";
  }

  static std::string svg_number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
  }

  void special_value_columns(Facts& facts) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    std::vector<double> with_nan(n_, 1.0), with_inf(n_, 1.0), both(n_, 1.0), negative_zeros(n_, -0.0);
    with_nan[n_ / 2] = nan;
    with_inf[n_ - 1] = inf;
    both[0] = inf;
    both[n_ - 1] = -inf;
    for (auto* c : {&with_nan, &with_inf, &negative_zeros, &both})
      remember(facts, *c, "special values");  // run when judged
  }

  // Results compared as models see them: bit for bit, except that +0 and -0 are the same sum (a
  // backend that starts from +0 is still that tree; the special values are judged separately).
  static bool model_agrees(double model, double backend) {
    return (model == 0 && backend == 0) || same_bits(model, backend);
  }

  // Which models give the backend's bits on random inputs: the revealed tree in the measured
  // precision, the exact sum, Kahan's and Neumaier's loops in the storage format. The batch runs
  // again under other runs (run dependence); a tree that fails on some inputs is asked whether
  // they fail alone too (else the element is what differs).
  void model_check(LengthCharacterization& r, Facts& facts) {
    Inputs inputs(f_, n_, o_.seed ^ (n_ * kSplitMix64Gamma));
    std::vector<std::vector<double>> columns(o_.model_columns, std::vector<double>(n_));
    for (auto& c : columns) inputs.fill(c);
    for (const auto& w : facts.witnesses)
      for (const auto& c : w.columns)
        if (std::all_of(c.begin(), c.end(), [](double x) { return std::isfinite(x); })) columns.push_back(c);
    const auto results = run_columns(columns);
    r.model_inputs = columns.size();
    // In one buffer when they fit one call: then it is also the wide buffer an element-dependent
    // bug shows in.
    facts.witnesses.push_back(
        {columns, results, "random inputs (a buffer of " + std::to_string(columns.size()) + " elements)"});
    for (const auto& options : variations(true)) {
      const auto again = run_columns(columns, options);
      for (std::size_t c = 0; c < again.size() && facts.results_vary.empty(); ++c)
        if (!same_bits(again[c], results[c]))
          facts.results_vary = "runs differ: a random input gave " + hex_float(results[c]) + ", then " +
                               hex_float(again[c]) + " with " + std::to_string(options.threads) +
                               " threads and order seed " + std::to_string(options.order_seed);
    }
    // Other buffer widths: the first inputs again in buffers of 1, 2, 3, ... elements. A library
    // may take another path for a narrow buffer (NumPy reduces a (n, 1) array pairwise and a
    // (n, D) one row by row); deterministic results that change with the width are element
    // dependence.
    if (facts.results_vary.empty() && !r.run_dependent && !r.element_dependent) {
      const std::size_t sample = std::min<std::size_t>(16, columns.size());
      for (std::size_t w : {1, 2, 3, 5, 8, 16, 17, 64, 100}) {
        if (w >= prober_.batch(n_) || r.element_dependent) continue;
        for (std::size_t first = 0; first < sample && !r.element_dependent; first += w) {
          std::vector<std::vector<double>> buffer(
              columns.begin() + static_cast<std::ptrdiff_t>(first),
              columns.begin() + static_cast<std::ptrdiff_t>(std::min(columns.size(), first + w)));
          buffer.resize(w, std::vector<double>(n_, 0.0));
          const auto narrow = prober_.call(n_, buffer, RunOptions{});
          for (std::size_t c = 0; c < w && first + c < sample; ++c)
            if (!model_agrees(results[first + c], narrow[c])) {
              r.element_dependent = true;
              r.order_note += "the order depends on the buffer's width: a random input gives " +
                              hex_float(results[first + c]) + " in a buffer of " + std::to_string(prober_.batch(n_)) +
                              " elements and " + hex_float(narrow[c]) + " in one of " + std::to_string(w) + "; ";
              facts.witnesses.push_back(
                  {buffer, narrow, "random inputs in a buffer of " + std::to_string(w) + " elements", w});
              break;
            }
        }
      }
    }
    const int bits = r.accumulation_bits.value_or(t().precision);
    Arithmetic ar;
    ar.format = format_of_bits(bits);
    ar.bits = std::min(bits, 53);
    ar.storage = f_;
    ar.flush_inputs = r.flushes_subnormal_inputs;
    ar.flush_results = r.flushes_subnormal_results;
    ar.flush_format = ar.format && traits(*ar.format).emin > t().emin ? *ar.format : f_;
    ar.window = r.fused_window_bits;
    std::vector<std::pair<std::string, std::function<double(std::span<const double>)>>> models;
    std::vector<std::vector<std::uint32_t>> kids;
    const std::optional<SummationTree>& tree = facts.revealed.tree;
    if (tree) {
      kids = tree->children();
      models.emplace_back("tree", [&](std::span<const double> x) { return simulate(*tree, kids, x, ar); });
    }
    models.emplace_back("exact", [&](std::span<const double> x) { return fast_exact_sum(x).rounded(f_); });
    models.emplace_back("kahan", [&](std::span<const double> x) { return kahan_in(x, f_); });
    models.emplace_back("neumaier", [&](std::span<const double> x) { return neumaier_in(x, f_); });
    // Sparse: the same inputs with the pairs split into steps otherwise (one pair per step; a
    // few per step, another row's between them): a tree that holds in one layout only is no order
    // of the backend's.
    std::vector<std::vector<double>> other_layouts;
    if (prober_.kind() == WorkloadKind::sparse)
      for (int layout : {1, 2}) {
        prober_.set_sparse_layout(layout);
        other_layouts.push_back(run_columns(columns));
        prober_.set_sparse_layout(0);
      }
    for (const auto& [model, compute] : models) {
      std::vector<std::size_t> mismatches;
      std::string layout_mismatch;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const double expected = compute(columns[c]);
        if (!model_agrees(expected, results[c])) mismatches.push_back(c);
        for (std::size_t l = 0; l < other_layouts.size() && layout_mismatch.empty(); ++l)
          if (!model_agrees(expected, other_layouts[l][c]))
            layout_mismatch = l == 0 ? "one pair per step" : "a few pairs per step with another row's between them";
      }
      if (mismatches.empty() && layout_mismatch.empty()) {
        facts.matching.insert(model);
        continue;
      }
      if (mismatches.empty()) {
        if (model == "tree") {
          r.data_dependent = true;
          r.order_note += "the order is that tree with all pairs in one step, but not with " + layout_mismatch + "; ";
        }
        continue;
      }
      if (model != "tree") continue;
      facts.tree_mismatch = "the revealed tree in " + std::to_string(bits) +
                            "-bit arithmetic differs from the backend on " + std::to_string(mismatches.size()) +
                            " of " + std::to_string(columns.size()) + " random inputs";
      if (r.run_dependent || r.element_dependent || !facts.results_vary.empty()) continue;
      // Element or data? The first few mismatching inputs, each alone in element 0.
      for (std::size_t k = 0; k < std::min<std::size_t>(4, mismatches.size()) && !r.element_dependent; ++k) {
        const std::size_t c = mismatches[k];
        if (c == 0) continue;
        const double alone = prober_.call(n_, {columns[c]}, RunOptions{})[0];
        if (model_agrees(compute(columns[c]), alone)) {
          r.element_dependent = true;
          r.order_note += "a random input gives the tree's result alone but not as element " + std::to_string(c) +
                          " of " + std::to_string(columns.size()) + "; ";
        }
      }
    }
  }

  // The pair probes again at other magnitudes with the signs exchanged and negative units: the
  // tree predicts every count.
  void data_recheck(LengthCharacterization& r, const SummationTree& tree, const CountProbe& probe) {
    if (n_ < 3) return;
    const int bits = r.accumulation_bits.value_or(t().precision);
    const auto depth = tree.node_depths();
    int log_n = 0;
    while ((std::size_t{1} << log_n) < n_) ++log_n;
    // M / s must swamp n units kept in `bits` bits: 2^(bits + log n + 2) at least.
    const int big_e = t().emax - 1, small_e = std::ilogb(probe.small);
    const int room = big_e - small_e - (bits + log_n + 2);
    if (room < 2) return;
    const double big = std::ldexp(1.0, big_e - room / 2);
    double small = std::ldexp(probe.small, room / 4);
    if (probe.small < smallest_normal(f_) && small >= smallest_normal(f_)) small = probe.small;
    SplitMix64 rng(o_.seed ^ 0xc0ffeeULL ^ n_);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (int k = 0; k < 24; ++k) {
      const auto i = static_cast<std::uint32_t>(rng.next() % n_), j = static_cast<std::uint32_t>(rng.next() % n_);
      if (i != j) pairs.emplace_back(i, j);
    }
    std::vector<std::vector<double>> columns;
    std::vector<std::size_t> expected;
    for (auto [i, j] : pairs) {
      const auto below = tree.leaves_below(tree.lowest_common(i, j, depth));
      columns.emplace_back(n_, 0.0);
      std::size_t counted = 0, survivors = 0;
      for (std::uint32_t k = 0; k < n_ && counted < probe.capacity; ++k) {
        if (k == i || k == j) continue;
        columns.back()[k] = -small;
        ++counted;
        if (!below[k]) ++survivors;
      }
      columns.back()[i] = -big;
      columns.back()[j] = big;
      expected.push_back(survivors);
    }
    const auto results = run_columns(columns);
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (results[c] != -static_cast<double>(expected[c]) * small) {
        r.data_dependent = true;
        r.order_note += "at M = " + hex_float(big) + " with the signs exchanged the pair (" +
                        std::to_string(pairs[c].first) + ", " + std::to_string(pairs[c].second) + ") gives " +
                        hex_float(results[c]) + " where the tree says " + std::to_string(expected[c]) + " units; ";
        return;
      }
  }

  Prober& prober_;
  std::size_t n_;
  const CharacterizeOptions& o_;
  std::optional<std::pair<int, bool>> hint_bits_;
  Format f_;
  Placement placement_;
  std::size_t element_seen_ = 0, wide_ = 1;
  bool subnormal_units_ = false, flushing_ = false;
};

}  // namespace

void probe_length(Prober& prober, std::size_t n, const CharacterizeOptions& options,
                  std::optional<std::pair<int, bool>> hint_bits, LengthCharacterization& r, Facts& facts) {
  LengthProbe(prober, n, options, hint_bits).run(r, facts);
}

}  // namespace accucheck::characterization
