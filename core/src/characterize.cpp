// accucheck characterize (characterize.h): probes, the tree reveal, the model check, the derived
// bound and its relation to the stated one. The method and its costs: docs/characterize.md.
#include "accucheck/characterize.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "accucheck/check.h"
#include "accucheck/fast_exact.h"
#include "accucheck/findings.h"
#include "accucheck/hash.h"

namespace accucheck {
namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Probes: columns of n leaf values, one per element of one workload, run through the backend.

// The backend failed while being probed (its own failure, reported as that length's result).
struct ProbeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where the probe columns go: `element` unset: columns fill elements 0.. of as many calls as the
// value budget needs; set: one column per call, at that element of a buffer of `width` elements
// (the others zero), for an order that depends on the element index.
struct Placement {
  std::optional<std::size_t> element;
  std::size_t width = 1;
};

class Prober {
 public:
  using Fill = std::function<void(std::size_t column, std::span<double> leaves)>;

  Prober(const Backend& backend, WorkloadKind kind, std::size_t values_per_call, std::size_t width)
      : backend_(backend), kind_(kind), budget_(std::max<std::size_t>(values_per_call, 1)), width_(width) {}

  WorkloadKind kind() const { return kind_; }
  // Sparse probes: how row 0's pairs fall into steps (workload()); 0 unless a check asks otherwise.
  void set_sparse_layout(int layout) { sparse_layout_ = layout; }
  Format format() const { return backend_.storage; }
  std::uint64_t calls() const { return calls_; }
  // Elements per call for n leaves: every call of one length has this many (padded with zero
  // columns), since a kernel's order may depend on the buffer's width (a vector body and a tail,
  // a parallel split by size): the width asked for, else 1025 (one past a multiple of every
  // vector and block size), within the value budget.
  std::size_t batch(std::size_t n) const { return std::clamp<std::size_t>(budget_ / n, 1, width_ ? width_ : 1025); }
  // The widest buffer of the budget, up to 1025: where element dependence is looked for.
  std::size_t wide(std::size_t n) const { return std::clamp<std::size_t>(budget_ / n, 1, 1025); }

  // The results of `count` columns filled by `fill`.
  std::vector<double> run(std::size_t n, std::size_t count, const Fill& fill, const RunOptions& options = {},
                          const Placement& placement = {}) {
    std::vector<double> results(count);
    std::vector<std::vector<double>> columns;
    if (placement.element) {
      for (std::size_t c = 0; c < count; ++c) {
        std::vector<std::vector<double>> one(placement.width, std::vector<double>(n, 0.0));
        fill(c, one[*placement.element]);
        results[c] = call(n, one, options)[*placement.element];
      }
      return results;
    }
    const std::size_t per_call = batch(n);
    for (std::size_t first = 0; first < count; first += per_call) {
      const std::size_t k = std::min(per_call, count - first);
      columns.assign(per_call, std::vector<double>(n, 0.0));
      for (std::size_t c = 0; c < k; ++c) fill(first + c, columns[c]);
      const auto out = call(n, columns, options);
      std::copy(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), results.begin() + static_cast<std::ptrdiff_t>(first));
    }
    return results;
  }

  // One call with these columns at elements 0..k-1.
  std::vector<double> call(std::size_t n, const std::vector<std::vector<double>>& columns, const RunOptions& options) {
    const Workload w = workload(n, columns);
    ++calls_;
    try {
      auto results = run_backend(backend_, w, options);
      results.resize(columns.size());  // a second row's elements (sparse layout 2) are not probes
      return results;
    } catch (const BackendFailure& e) {
      throw ProbeFailure(std::string(name(e.kind)) + ": " + e.what());
    } catch (const std::exception& e) {
      throw ProbeFailure(std::string("error: ") + e.what());
    }
  }

  // The workload of the probe kind whose element c sums columns[c] (leaf 0 the initial value).
  Workload workload(std::size_t n, const std::vector<std::vector<double>>& columns) const {
    const std::size_t k = columns.size();
    const Format f = backend_.storage;
    switch (kind_) {
      case WorkloadKind::dense: {
        DenseWorkload w;
        w.format = f;
        w.elements = k;
        w.steps = n - 1;
        w.family = "characterize";
        w.initial.resize(k);
        w.addends.resize((n - 1) * k);
        for (std::size_t c = 0; c < k; ++c) {
          w.initial[c] = columns[c][0];
          for (std::size_t t = 1; t < n; ++t) w.addends[(t - 1) * k + c] = columns[c][t];
        }
        return w;
      }
      case WorkloadKind::sparse: {
        // Row 0 hit n-1 times; element d of the row is column d. Layout 0: in one step; 1: one
        // pair per step; 2: steps of 1 to 3 of its pairs, with pairs of a second row (zero
        // vectors) between them.
        SparseWorkload w;
        w.format = f;
        w.rows = sparse_layout_ == 2 ? 2 : 1;
        w.dim = k;
        w.family = "characterize";
        w.initial.assign(w.rows * k, 0.0);
        for (std::size_t c = 0; c < k; ++c) w.initial[c] = columns[c][0];
        SplitMix64 rng(n * 0x9e37u + 1);
        w.step_offsets = {0};
        std::size_t in_step = 0, step_size = 1 + rng.next() % 3;
        for (std::size_t q = 1; q < n; ++q) {
          w.row_index.push_back(0);
          for (std::size_t c = 0; c < k; ++c) w.values.push_back(columns[c][q]);
          if (sparse_layout_ == 2 && rng.next() % 2) {
            w.row_index.push_back(1);
            w.values.insert(w.values.end(), k, 0.0);
          }
          ++in_step;
          const bool step_ends = sparse_layout_ == 1 || (sparse_layout_ == 2 && in_step == step_size);
          if (step_ends && q + 1 < n) {
            w.step_offsets.push_back(w.row_index.size());
            in_step = 0;
            step_size = 1 + rng.next() % 3;
          }
        }
        w.step_offsets.push_back(w.row_index.size());
        w.steps = w.step_offsets.size() - 1;
        return w;
      }
      case WorkloadKind::product: {
        // One GEMM step with beta = 1: C (k x 1) += A (k x n-1) * B (n-1 x 1), B all ones, so that
        // element c's terms are C[c] and the products A[c][i] * 1 = column c's leaves.
        ProductWorkload w;
        w.format = f;
        w.rows = k;
        w.cols = 1;
        w.batch = n - 1;
        w.steps = 1;
        w.family = "characterize";
        w.initial.resize(k);
        w.a.resize(k * (n - 1));
        w.b.assign(n - 1, 1.0);
        for (std::size_t c = 0; c < k; ++c) {
          w.initial[c] = columns[c][0];
          for (std::size_t i = 1; i < n; ++i) w.a[c * (n - 1) + (i - 1)] = columns[c][i];
        }
        return w;
      }
    }
    throw std::logic_error("unknown workload kind");
  }

 private:
  const Backend& backend_;
  WorkloadKind kind_;
  std::size_t budget_;
  std::size_t width_;
  std::uint64_t calls_ = 0;
  int sparse_layout_ = 0;
};

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b)); }

// ---------------------------------------------------------------------------------------------
// The tree reveal.

struct CountProbe {
  double big = 0, small = 0;   // +-M at the pair, s at the counted leaves
  std::size_t capacity = 1;    // most s that one result counts exactly
};

struct Reveal {
  std::optional<SummationTree> tree;
  std::string failure;   // "" when the tree was found; else why none explains the probes
  bool all_survive = false;  // every probe counted every s: nothing was swamped (no rounding seen)
  bool clean = true;         // every result was a whole count of s
};

// Reveals the tree by the pair probes. A task asks L(p, x) = the leaves below the lowest common
// node of p and x for targets x of one pivot p, counting only the leaves of a `universe` that
// holds every such node (leaves outside it survive anyway), in chunks of at most `capacity`.
//   build(S): S is one subtree, p = min S: grouping x by L gives p's ancestors inside S (sizes
//     1 + |G_1| + ... + |G_k|) and G_k, the other children of the k-th; a group of one leaf is a
//     child, larger groups are split.
//   split(G, node of v leaves): G is one or more children of that node; with c = min G, the x
//     with L(c, x) < v form c's child (a build whose answers are already known), the rest the others.
class TreeReveal {
 public:
  TreeReveal(Prober& prober, std::size_t n, const CountProbe& probe, const RunOptions& options, const Placement& placement)
      : prober_(prober), n_(n), probe_(probe), options_(options), placement_(placement) {}

  Reveal run() {
    Reveal out;
    if (n_ == 1) {
      out.tree = TreeBuilder(1).finish(0);
      return out;
    }
    auto all = std::make_shared<std::vector<std::uint32_t>>(n_);
    for (std::uint32_t i = 0; i < n_; ++i) (*all)[i] = i;
    Task first;
    first.split = false;
    first.pivot = 0;
    first.targets.assign(all->begin() + 1, all->end());
    first.universe = all;
    first.attach_to = kRoot;
    std::vector<Task> pending{first};
    bool any_swamped = false;
    while (!pending.empty() && failure_.empty()) {
      const auto answers = ask(pending, any_swamped);
      if (!failure_.empty()) break;
      std::vector<Task> next;
      for (std::size_t t = 0; t < pending.size() && failure_.empty(); ++t) process(pending[t], answers[t], next);
      pending = std::move(next);
    }
    out.clean = clean_;
    if (!failure_.empty()) {
      out.all_survive = clean_ && !any_swamped;
      out.failure = failure_;
      return out;
    }
    out.tree = assemble();
    return out;
  }

 private:
  static constexpr std::int64_t kRoot = INT64_MIN;  // attach_to of the whole tree
  struct Task {
    bool split = false;
    std::uint32_t pivot = 0;
    std::vector<std::uint32_t> targets;
    std::shared_ptr<const std::vector<std::uint32_t>> universe;  // sorted
    std::int64_t attach_to = kRoot;  // the node whose child the result is
  };
  struct Node {
    std::vector<std::int64_t> children;  // >= 0: a leaf; < 0: node -(index + 1)
  };

  // L(pivot, x) for every task's targets, in as few calls as the batching allows.
  std::vector<std::vector<std::uint32_t>> ask(const std::vector<Task>& tasks, bool& any_swamped) {
    struct Column {
      std::size_t task, target, chunk;
    };
    std::vector<Column> columns;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      const std::size_t chunks = (tasks[t].universe->size() + probe_.capacity - 1) / probe_.capacity;
      for (std::size_t x = 0; x < tasks[t].targets.size(); ++x)
        for (std::size_t c = 0; c < chunks; ++c) columns.push_back({t, x, c});
    }
    const auto results = prober_.run(
        n_, columns.size(),
        [&](std::size_t k, std::span<double> leaves) {
          const Column& col = columns[k];
          const Task& task = tasks[col.task];
          const std::uint32_t x = task.targets[col.target];
          const auto& u = *task.universe;
          const std::size_t begin = col.chunk * probe_.capacity, end = std::min(u.size(), begin + probe_.capacity);
          for (std::size_t i = begin; i < end; ++i)
            if (u[i] != task.pivot && u[i] != x) leaves[u[i]] = probe_.small;
          leaves[task.pivot] = probe_.big;
          leaves[x] = -probe_.big;
        },
        options_, placement_);
    std::vector<std::vector<std::uint32_t>> survivors(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) survivors[t].assign(tasks[t].targets.size(), 0);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const Column& col = columns[k];
      const Task& task = tasks[col.task];
      const auto& u = *task.universe;
      const std::size_t begin = col.chunk * probe_.capacity, end = std::min(u.size(), begin + probe_.capacity);
      std::size_t counted = end - begin;
      for (std::size_t i = begin; i < end; ++i)
        if (u[i] == task.pivot || u[i] == task.targets[col.target]) --counted;
      const double r = results[k];
      const double count = r / probe_.small;
      if (!std::isfinite(r) || count < 0 || count != std::floor(count) || count * probe_.small != r || count > counted) {
        clean_ = false;
        failure_ = "a pair probe gave " + hex_float(r) + ", not a whole count of s = " + hex_float(probe_.small) +
                   " (0 to " + std::to_string(counted) + "): no tree of roundings explains it";
        return {};
      }
      if (count < counted) any_swamped = true;
      survivors[col.task][col.target] += static_cast<std::uint32_t>(count);
    }
    std::vector<std::vector<std::uint32_t>> lca(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
      for (std::size_t x = 0; x < tasks[t].targets.size(); ++x)
        lca[t].push_back(static_cast<std::uint32_t>(tasks[t].universe->size()) - survivors[t][x]);
    return lca;
  }

  std::int64_t new_node() {
    nodes_.emplace_back();
    return -static_cast<std::int64_t>(nodes_.size());
  }
  Node& node(std::int64_t ref) { return nodes_[static_cast<std::size_t>(-ref - 1)]; }

  void attach(std::int64_t parent, std::int64_t child) {
    if (parent == kRoot) root_ = child;
    else node(parent).children.push_back(child);
  }

  void process(const Task& task, const std::vector<std::uint32_t>& lca, std::vector<Task>& next) {
    if (!task.split) {
      attach(task.attach_to, build(task.pivot, task.targets, lca, next));
      return;
    }
    // Split: c's child holds the x with L < v; the rest are the node's other children.
    const auto v = static_cast<std::uint32_t>(task.universe->size());
    std::vector<std::uint32_t> inside, inside_lca, rest;
    for (std::size_t k = 0; k < task.targets.size(); ++k) {
      if (lca[k] < 2 || lca[k] > v) {
        failure_ = "the pair probes of leaves " + std::to_string(task.pivot) + " and " + std::to_string(task.targets[k]) +
                   " disagree with the others (no single tree explains them)";
        return;
      }
      if (lca[k] < v) {
        inside.push_back(task.targets[k]);
        inside_lca.push_back(lca[k]);
      } else {
        rest.push_back(task.targets[k]);
      }
    }
    attach(task.attach_to, build(task.pivot, inside, inside_lca, next));
    if (rest.empty()) return;
    if (rest.size() == 1) {
      attach(task.attach_to, rest[0]);
      return;
    }
    Task more;
    more.split = true;
    more.pivot = rest[0];
    more.targets.assign(rest.begin() + 1, rest.end());
    more.universe = task.universe;
    more.attach_to = task.attach_to;
    next.push_back(std::move(more));
  }

  // The subtree of `pivot` and `targets` from L(pivot, x): its chain of ancestors of the pivot.
  std::int64_t build(std::uint32_t pivot, const std::vector<std::uint32_t>& targets, const std::vector<std::uint32_t>& lca,
                     std::vector<Task>& next) {
    std::map<std::uint32_t, std::vector<std::uint32_t>> groups;
    for (std::size_t k = 0; k < targets.size(); ++k) groups[lca[k]].push_back(targets[k]);
    std::int64_t current = pivot;
    auto below = std::make_shared<std::vector<std::uint32_t>>(1, pivot);
    std::uint32_t size = 1;
    for (auto& [l, group] : groups) {
      size += static_cast<std::uint32_t>(group.size());
      if (l != size) {
        failure_ = "leaf " + std::to_string(pivot) + "'s pair probes give a node of " + std::to_string(l) + " leaves where " +
                   std::to_string(size) + " are below it (no single tree explains them)";
        return current;
      }
      const std::int64_t parent = new_node();
      node(parent).children.push_back(current);
      below->insert(below->end(), group.begin(), group.end());
      if (group.size() == 1) {
        node(parent).children.push_back(group[0]);
      } else {
        Task split;
        split.split = true;
        split.pivot = group[0];
        split.targets.assign(group.begin() + 1, group.end());
        auto universe = std::make_shared<std::vector<std::uint32_t>>(*below);
        std::sort(universe->begin(), universe->end());
        split.universe = std::move(universe);
        split.attach_to = parent;
        next.push_back(std::move(split));
      }
      current = parent;
    }
    return current;
  }

  SummationTree assemble() {
    // Post-order without recursion: a node's children before it.
    TreeBuilder b(n_);
    std::map<std::int64_t, TreeBuilder::Ref> made;
    std::vector<std::pair<std::int64_t, bool>> stack{{root_, false}};
    TreeBuilder::Ref root_ref = TreeBuilder::kEmpty;
    while (!stack.empty()) {
      auto [ref, expanded] = stack.back();
      stack.pop_back();
      if (ref >= 0) continue;
      if (!expanded) {
        stack.push_back({ref, true});
        for (std::int64_t c : node(ref).children) stack.push_back({c, false});
        continue;
      }
      std::vector<TreeBuilder::Ref> kids;
      for (std::int64_t c : node(ref).children) kids.push_back(c >= 0 ? b.leaf(static_cast<std::size_t>(c)) : made.at(c));
      made[ref] = root_ref = b.fused(kids);
    }
    if (root_ >= 0) root_ref = b.leaf(static_cast<std::size_t>(root_));
    return b.finish(root_ref);
  }

  Prober& prober_;
  std::size_t n_;
  CountProbe probe_;
  RunOptions options_;
  Placement placement_;
  std::vector<Node> nodes_;
  std::int64_t root_ = 0;
  std::string failure_;
  bool clean_ = true;
};

// ---------------------------------------------------------------------------------------------
// Models: what a plain tree of roundings in a given precision computes, and the compensated sums.

// Round-to-nearest-even of x to p significant bits (no exponent limits; p <= 53).
double round_to_bits(double x, int p) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = std::ilogb(x);
  const double q = std::ldexp(x, p - 1 - e);
  return std::ldexp(std::nearbyint(q), e - p + 1);
}

// RNE(a + b) to p bits, from the double sum and its exact residual (the double sum lies on the
// same side of every p-bit midpoint as a + b unless it is the midpoint itself).
double add_to_bits(double a, double b, int p) {
  const double s = a + b;
  if (!std::isfinite(s)) return s;
  const double bv = s - a;
  const double err = (a - (s - bv)) + (b - bv);
  if (s == 0 || err == 0) return round_to_bits(s, p);
  const int e = std::ilogb(s);
  const double q = std::ldexp(s, p - 1 - e);
  if (q - std::floor(q) != 0.5) return round_to_bits(s, p);
  return std::ldexp(err > 0 ? std::ceil(q) : std::floor(q), e - p + 1);
}

struct Arithmetic {
  std::optional<Format> format;  // the accumulation format, when the precision is one
  int bits = 53;                 // else its significand bits (no exponent limits)
  Format storage = Format::f32;
  bool flush_inputs = false, flush_results = false;  // below the smallest normal of `flush_format`
  Format flush_format = Format::f32;
  std::optional<int> window;     // fused nodes: children truncated to this many bits below the largest
};

double flushed(double x, Format f) { return x != 0 && std::fabs(x) < smallest_normal(f) ? std::copysign(0.0, x) : x; }

// The exact sum of values rounded to the arithmetic's precision.
double round_exact(const std::vector<double>& values, const Arithmetic& a) {
  const ExactSum e = fast_exact_sum(values);
  if (e.special != Special::none) return e.rounded(a.format.value_or(Format::f64));
  if (a.format) return e.rounded(*a.format);
  if (e.sum == 0) return e.rounded(Format::f64);
  // p bits of the fixed-point integer, half to even.
  FixedInt magnitude = e.sum < 0 ? FixedInt(-e.sum) : e.sum;
  const long msb = static_cast<long>(mp::msb(magnitude));
  const long shift = msb + 1 - a.bits;
  if (shift > 0) {
    const FixedInt unit = FixedInt(1) << shift;
    FixedInt kept = magnitude >> shift;
    const FixedInt rest = magnitude - (kept << shift);
    const FixedInt half = unit >> 1;
    if (rest > half || (rest == half && (kept & 1) != 0)) ++kept;
    magnitude = kept << shift;
  }
  return round_fixed(e.sum < 0 ? FixedInt(-magnitude) : magnitude, Format::f64);
}

double add_in(double a, double b, const Arithmetic& ar) {
  if (!ar.format) return add_to_bits(a, b, ar.bits);
  if (*ar.format == Format::f64) return a + b;
  // a + b rounded to double, then to a format of p <= 24 bits: innocuous double rounding
  // (53 >= 2p + 2; Figueroa, SIGNUM 1995).
  return round_to_format(a + b, *ar.format);
}

// The tree evaluated on one column in the arithmetic.
double simulate(const SummationTree& tree, const std::vector<std::vector<std::uint32_t>>& children,
                std::span<const double> leaves, const Arithmetic& ar) {
  std::vector<double> value(tree.parents().size());
  for (std::size_t i = 0; i < tree.leaves(); ++i) value[i] = ar.flush_inputs ? flushed(leaves[i], ar.flush_format) : leaves[i];
  for (std::size_t k = 0; k < children.size(); ++k) {
    const auto& kids = children[k];
    double r = 0;
    if (kids.size() == 2) {
      r = add_in(value[kids[0]], value[kids[1]], ar);
    } else {
      // A fused node: its children cut to the window (when one was measured), added exactly,
      // rounded once.
      std::vector<double> v;
      for (auto c : kids) v.push_back(value[c]);
      if (ar.window) {
        double largest = 0;
        for (double x : v) largest = std::max(largest, std::fabs(x));
        if (largest > 0 && std::isfinite(largest)) {
          const int unit = std::ilogb(largest) - *ar.window + 1;
          for (double& x : v) x = std::ldexp(std::trunc(std::ldexp(x, -unit)), unit);
        }
      }
      r = round_exact(v, ar);
    }
    value[tree.leaves() + k] = ar.flush_results ? flushed(r, ar.flush_format) : r;
  }
  return round_to_format(value[tree.root()], ar.storage);
}

// Kahan's and Neumaier's loops in format f, as impls/common/compensated_sums.h writes them.
double op_in(double x, Format f) { return f == Format::f64 ? x : round_to_format(x, f); }
double kahan_in(std::span<const double> x, Format f) {
  double s = x[0], c = 0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double y = op_in(x[i] - c, f);
    const double t = op_in(s + y, f);
    c = std::isfinite(t) ? op_in(op_in(t - s, f) - y, f) : 0.0;
    s = t;
  }
  return s;
}
double neumaier_in(std::span<const double> x, Format f) {
  double s = x[0], c = 0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const double t = op_in(s + x[i], f);
    if (std::isfinite(t)) {
      if (std::fabs(s) >= std::fabs(x[i])) c = op_in(c + op_in(op_in(s - t, f) + x[i], f), f);
      else c = op_in(c + op_in(op_in(x[i] - t, f) + s, f), f);
    }
    s = t;
  }
  return std::isfinite(s) ? op_in(s + c, f) : s;
}

// The standard format with the most bits that `bits` cover (f16 for 11..23, f32 for 24..52, ...).
std::optional<Format> format_within(int bits) {
  std::optional<Format> best;
  for (Format f : all_formats)
    if (traits(f).precision <= bits && (!best || traits(f).precision > traits(*best).precision)) best = f;
  return best;
}
std::optional<Format> format_of_bits(int bits) {
  for (Format f : all_formats)
    if (traits(f).precision == bits) return f;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Random inputs for the model check: bands of exponents, stagnation, cancellation, zeros.

class Inputs {
 public:
  Inputs(Format f, std::size_t n, std::uint64_t seed) : f_(f), rng_(seed) {
    // Sums of n values stay below the overflow threshold with room for the error.
    int log_n = 0;
    while ((std::size_t{1} << log_n) < n) ++log_n;
    top_ = traits(f).emax - 2 - log_n;
    bottom_ = traits(f).emin;
  }
  void fill(std::span<double> x) {
    const int p = traits(f_).precision;
    const auto style = next() % 6;
    const int span = top_ - bottom_;
    const int low = bottom_ + static_cast<int>(next() % static_cast<std::uint64_t>(std::max(1, span)));
    const int width = static_cast<int>(next() % static_cast<std::uint64_t>(std::min(40, std::max(1, top_ - low) + 1)));
    for (std::size_t i = 0; i < x.size(); ++i) {
      switch (style) {
        case 0:  // a band of exponents, random signs
          x[i] = value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), next() & 1);
          break;
        case 1:  // same sign, one band
          x[i] = value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), false);
          break;
        case 2:  // stagnation: a large value, then increments near half its spacing
          x[i] = i == 0 ? value(std::min(top_, low + p + 2), false) : value(low, false);
          break;
        case 3:  // cancellation: +-x pairs with noise
          x[i] = (i % 2 == 1) ? -x[i - 1] : value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), next() & 1);
          if (next() % 4 == 0) x[i] = value(std::max(bottom_, low - p), next() & 1);
          break;
        case 4:  // sparse: mostly zeros
          x[i] = next() % 4 == 0 ? value(low + static_cast<int>(next() % static_cast<std::uint64_t>(width + 1)), next() & 1) : 0.0;
          break;
        default:
          x[i] = 0.0;
      }
    }
    if (style == 5) compensation_ties(x);
  }

 private:
  // M, 1, 2^-p, a tiny value and -M at random places, zeros elsewhere: S just above a tie of
  // 1 + 2^-p, which a compensation kept in p bits rounds away (Neumaier's c = 1 + 2^-p ties to 1)
  // while the exact sum rounds up, and where an addend larger than the running sum is what
  // Kahan's loop loses: the inputs that tell exact, Kahan's and Neumaier's results apart.
  void compensation_ties(std::span<double> x) {
    // Five nonzero values whatever n: M may go to the top of the range (emax - 2), which f16
    // needs (M = 2^13 is the only choice above 2^(p+1)).
    const int p = traits(f_).precision;
    const int e = std::min(traits(f_).emax - 2, p + 2 + static_cast<int>(next() % 10));
    const double values[5] = {std::ldexp(1.0, e), 1.0, std::ldexp(1.0, -p), std::ldexp(1.0, std::max(bottom_, -p - 6)), -std::ldexp(1.0, e)};
    const std::size_t n = x.size();
    if (n < 5 || e <= p) return;
    std::vector<std::size_t> place;
    while (place.size() < 5) {
      const std::size_t at = next() % n;
      if (std::find(place.begin(), place.end(), at) == place.end()) place.push_back(at);
    }
    if (next() & 1) std::sort(place.begin(), place.end());  // M first, -M last: the classic order
    const bool negative = next() & 1;
    for (std::size_t k = 0; k < 5; ++k) x[place[k]] = negative ? -values[k] : values[k];
  }

 public:

 private:
  std::uint64_t next() { return rng_.next(); }
  // A value of f with exponent e (clamped to the range) and a random significand.
  double value(int e, bool negative) {
    e = std::clamp(e, bottom_, top_);
    const int p = traits(f_).precision;
    const std::uint64_t significand = (std::uint64_t{1} << (p - 1)) | (next() & ((std::uint64_t{1} << (p - 1)) - 1));
    const double v = std::ldexp(static_cast<double>(significand), e - p + 1);
    return negative ? -v : v;
  }
  Format f_;
  SplitMix64 rng_;
  int top_, bottom_;
};

// ---------------------------------------------------------------------------------------------
// Bounds: comparing the derived with the stated, and judging probe columns against the stated.

struct Derivation {
  enum class Kind { none, correctly_rounded, kahan, neumaier, stochastic, tree, anyorder, products, fused } kind = Kind::none;
  Format format = Format::f32;       // the inner bound's format
  // fused: K, W, N when promoted (else 0), Q when the sums are truncated (else 0: to nearest)
  std::size_t fused_addends = 0, fused_window = 0, fused_period = 0, fused_result_bits = 0;
  bool widen = false;                // widened(..., storage)
  std::optional<Format> ftz;         // ftz(..., F)
  std::string note;
};

std::string wrap(std::string inner, const Derivation& d, Format storage) {
  if (d.widen) inner = "widened(" + inner + "," + std::string(name(storage)) + ")";
  if (d.ftz) inner = "ftz(" + inner + "," + std::string(name(*d.ftz)) + ")";
  return inner;
}

// The expression of a derivation: a tree's depths as `shape` when one is given, else as a table.
std::string expression(const Derivation& d, Format storage, std::size_t n, const std::optional<SummationTree>& tree,
                       const std::string& shape) {
  const std::string f(name(d.format));
  switch (d.kind) {
    case Derivation::Kind::none: return "";
    case Derivation::Kind::correctly_rounded: return "correctly_rounded";
    case Derivation::Kind::kahan: return wrap("kahan(" + f + ")", d, storage);
    case Derivation::Kind::neumaier: return wrap("neumaier(" + f + ")", d, storage);
    case Derivation::Kind::stochastic: return wrap("stochastic(8," + f + ")", d, storage);
    case Derivation::Kind::anyorder: return wrap("anyorder(" + f + ")", d, storage);
    case Derivation::Kind::products: return wrap("products(" + f + ")", d, storage);
    case Derivation::Kind::fused: {
      const std::string k = std::to_string(d.fused_addends), w = std::to_string(d.fused_window);
      const std::string q = d.fused_result_bits != 0 ? std::to_string(d.fused_result_bits) + "," : "";
      if (d.fused_period != 0)
        return wrap("fused_promoted(" + k + "," + w + "," + std::to_string(d.fused_period) + "," + q + f + ")", d, storage);
      if (d.fused_result_bits != 0) return wrap("fused_truncated(" + k + "," + w + "," + q + f + ")", d, storage);
      return wrap("fused(" + k + "," + w + "," + f + ")", d, storage);
    }
    case Derivation::Kind::tree:
      if (!shape.empty()) return wrap("depths(" + shape + "," + f + ")", d, storage);
      return wrap("depths(n" + std::to_string(n) + ":" + depths_text(tree->leaf_depths()) + "," + f + ")", d, storage);
  }
  return "";
}

// Vectors of n terms the bounds are compared on: each leaf alone (a sample above 64 leaves), all
// ones, alternating signs (|S| small: the |S| terms of widened and neumaier), decreasing and
// increasing powers of two.
std::vector<std::vector<double>> comparison_vectors(std::size_t n) {
  std::vector<std::vector<double>> out;
  const std::size_t step = std::max<std::size_t>(1, n / 64);
  for (std::size_t i = 0; i < n; i += step) {
    out.emplace_back(n, 0.0);
    out.back()[i] = 1.0;
  }
  out.emplace_back(n, 1.0);
  out.emplace_back(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) out.back()[i] = i % 2 ? -1.0 : 1.0;
  out.emplace_back(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) out.back()[i] = std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(i, 60)));
  out.emplace_back(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) out.back()[n - 1 - i] = std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(i, 60)));
  return out;
}

// How the derived bound compares with the stated one at n, as functions of the terms.
std::pair<Relation, std::string> compare_bounds(const BoundExpr& derived, const BoundExpr& stated, Format storage, std::size_t n) {
  const bool derived_error = is_error_bound(derived.kind), stated_error = is_error_bound(stated.kind);
  if (!derived_error || !stated_error) {
    if (derived.kind == stated.kind && derived.count == stated.count) return {Relation::equal, "the same rounding claim"};
    if (derived.kind == BoundKind::correctly_rounded)
      return {Relation::tighter, "correct rounding is within every error bound and rounding claim a correct backend can state"};
    return {Relation::looser, "the stated bound is a rounding claim (" + to_string(stated) + "); the derived one is an error bound"};
  }
  if (to_string(derived) == to_string(stated)) return {Relation::equal, "the same expression"};
  bool somewhere_below = false, somewhere_above = false;
  std::string where;
  for (const auto& v : comparison_vectors(n)) {
    const ExactSum e = fast_exact_sum(v);
    const double d = check_error_bound(derived, storage, e, FixedInt(0), v).bound;
    const double s = check_error_bound(stated, storage, e, FixedInt(0), v).bound;
    if (d < s) somewhere_below = true;
    if (d > s && !somewhere_above) {
      somewhere_above = true;
      char text[160];
      std::snprintf(text, sizeof text, "%.6g > %.6g", d, s);
      where = text;
    }
  }
  if (somewhere_above)
    return {Relation::looser, "the derived bound exceeds the stated one on some inputs of " + std::to_string(n) + " terms (" + where + ")"};
  if (somewhere_below) return {Relation::tighter, "at most the stated bound on every compared input of " + std::to_string(n) + " terms, below it on some"};
  return {Relation::equal, "the same value on every compared input of " + std::to_string(n) + " terms"};
}

// ---------------------------------------------------------------------------------------------
// One length.

// A probe workload judged against the stated bound: its elements' columns and, when the probe
// already ran it, the backend's results (judged in-process first; only a violation runs again).
struct Witness {
  std::vector<std::vector<double>> columns;
  std::vector<double> results;  // empty: not run yet
  std::string what;
  std::size_t width = 0;        // the buffer it ran in (0: the length's probe width)
};

// What one length's probes established, before the backend-level choice of a model.
struct Facts {
  Reveal revealed;
  CountProbe revealed_with;               // the magnitudes that revealed the tree
  std::string reveal_note;                // which magnitudes revealed it, or why none did
  std::set<std::string> matching;         // models that gave the backend's bits on every random input
  std::string tree_mismatch;              // how the revealed tree's model failed
  bool rounding_blocked = false;          // the rounding probes gave neither neighbour
  std::string results_vary;               // how the random inputs' results differed between runs ("" if not)
  std::vector<Witness> witnesses;         // judged against the stated bound
};

class LengthProbe {
 public:
  LengthProbe(Prober& prober, std::size_t n, const CharacterizeOptions& options, std::optional<std::pair<int, bool>> hint_bits)
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
        n_, columns.size(), [&](std::size_t c, std::span<double> x) { std::copy(columns[c].begin(), columns[c].end(), x.begin()); },
        options, placement_);
  }

  void remember(Facts& facts, const std::vector<double>& column, std::string what, std::optional<double> result = std::nullopt) {
    facts.witnesses.push_back({{column}, result ? std::vector<double>{*result} : std::vector<double>{}, std::move(what)});
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
        if (!subnormal_units_) note = "sums of subnormal units are not exact (flushed?): counting in the smallest normal";
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
    for (std::size_t k = 1; k <= o_.repeats; ++k) v.push_back({threads ? static_cast<unsigned>(1 + (k - 1) % 4) : 0u, k});
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
          r.order_note += "runs differ: the pair probe (0, " + std::to_string(targets[c]) + ") gave " + hex_float(reference[c]) +
                          ", then " + hex_float(again[c]) + " with " + std::to_string(options.threads) + " threads and order seed " +
                          std::to_string(options.order_seed) + "; ";
        }
    }

    // Element dependence: one pair probe in every element of a wide buffer, in one call.
    const std::size_t wide = prober_.wide(n_);
    if (wide > 1 && !r.run_dependent) {
      const std::vector<std::vector<double>> same(wide, pair_columns.back());
      const auto results = prober_.call(n_, same, RunOptions{});
      facts.witnesses.push_back({same, results, "one pair probe in each of " + std::to_string(wide) + " elements", wide});
      for (std::size_t j = 1; j < wide && !r.element_dependent; ++j)
        if (!same_bits(results[j], results[0])) {
          r.element_dependent = true;
          r.order_note += "the same pair probe gives " + hex_float(results[0]) + " in element 0 and " + hex_float(results[j]) +
                          " in element " + std::to_string(j) + " of " + std::to_string(wide) + "; ";
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
    facts.revealed = TreeReveal(prober_, n_, probe, RunOptions{}, placement_).run();
    facts.revealed_with = probe;
    facts.reveal_note = facts.revealed.tree ? "" : facts.revealed.failure;
    if (!facts.revealed.tree && !facts.revealed.all_survive && std::ilogb(middle.big) - std::ilogb(middle.small) > t().precision + 14) {
      Reveal second = TreeReveal(prober_, n_, middle, RunOptions{}, placement_).run();
      if (second.tree) {
        facts.reveal_note = "revealed with M = " + hex_float(middle.big) + ", s = " + hex_float(middle.small) + " (at M = " +
                            hex_float(probe.big) + ": " + facts.revealed.failure + ")";
        facts.revealed = std::move(second);
        facts.revealed_with = middle;
      }
    }
    if (facts.revealed.tree && r.element_dependent) {
      // Element j's own tree, probed at its place in the wide buffer.
      const Reveal other = TreeReveal(prober_, n_, probe, RunOptions{}, Placement{element_seen_, wide_}).run();
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
      if (arranged.accumulation_bits && (!r.accumulation_bits || *arranged.accumulation_bits < *r.accumulation_bits ||
                                         (*arranged.accumulation_bits == *r.accumulation_bits && !arranged.bits_at_least))) {
        r.accumulation_bits = arranged.accumulation_bits;
        r.bits_at_least = arranged.bits_at_least;
        r.bits_note = arranged.bits_note;
      }
    }
    if (!r.accumulation_bits && hint_bits_) {
      r.accumulation_bits = hint_bits_->first;
      r.bits_at_least = hint_bits_->second;
      r.bits_note += (r.bits_note.empty() ? "" : "; ") + std::string("taken from a longer length (not observable at this n)");
    }

    // Rounding mode, at the first pair's node (needs a later leaf).
    if (tree && r.accumulation_bits && !r.bits_at_least) measure_rounding(r, facts, *tree);
    else r.rounding = "unobservable";

    special_value_columns(facts);
    model_check(r, facts);
    // (Not under stochastic rounding: M + s rounds up now and then at the smaller magnitudes.)
    if (tree && !r.run_dependent && !r.element_dependent && r.rounding != "stochastic") data_recheck(r, *tree, facts.revealed_with);
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
      per_node += (per_node.empty() ? "" : ", ") + std::string("node of ") + std::to_string(sizes[id]) + " leaves: " +
                  (at_least ? ">= " : "") + std::to_string(bits);
      if (least < 0 || bits < least) {
        least = bits;
        least_at_least = at_least;
      }
    }
    if (!fused.empty()) {
      const std::size_t k = fused.front();
      bool at_least = false;
      const int window = increment_bits(facts, smallest[kids[k][0]], smallest[kids[k][1]], smallest[kids[k][2]], at_least);
      if (!at_least) r.fused_window_bits = window;
      per_node += (per_node.empty() ? "" : ", ") + std::string("inside a fused node of ") + std::to_string(kids[k].size()) +
                  " children: " + (at_least ? ">= " : "") + std::to_string(window);
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
          remember(facts, columns[m - 1], "X, X 2^-" + std::to_string(m) + " and -X: the increment does not come back", results[m - 1]);
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
        const int bits = increment_bits(facts, place[p[0]], place[p[1]], place[p[2]], this_at_least, RunOptions{0, run});
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
          if (results[i] == sign * spacing) ++up[i];
          else if (results[i] != 0)
            disturbed = "X + " + svg_number(fractions[i % 3]) + " of its spacing, then -X, gave " + hex_float(results[i]) +
                        " (neither 0 nor one spacing) with order seed " + std::to_string(options.order_seed);
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
    facts.witnesses.push_back({columns, run_columns(columns), "X plus a quarter, a half and three quarters of its spacing, then -X"});
    auto all = [&](std::size_t i) { return up[i] == total; };
    auto none = [&](std::size_t i) { return up[i] == 0; };
    bool varied = false;
    for (std::size_t i = 0; i < up.size(); ++i) varied = varied || (!all(i) && !none(i));
    char note[200];
    std::snprintf(note, sizeof note, "away from X in %zu, %zu and %zu of %zu runs at 1/4, 1/2 and 3/4 of its spacing", up[0], up[1],
                  up[2], total);
    r.rounding_note = note;
    if (varied) r.rounding = "stochastic";
    else if (none(0) && none(1) && all(2) && none(3) && none(4) && all(5)) r.rounding = "nearest-even";
    else if (none(0) && all(1) && all(2) && none(3) && all(4) && all(5)) r.rounding = "nearest-away";
    else if (none(0) && none(1) && none(2) && none(3) && none(4) && none(5)) r.rounding = "toward-zero";
    else if (all(0) && all(1) && all(2) && none(3) && none(4) && none(5)) r.rounding = "upward";
    else if (none(0) && none(1) && none(2) && all(3) && all(4) && all(5)) r.rounding = "downward";
    else r.rounding = "unknown";
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
    for (auto* c : {&with_nan, &with_inf, &negative_zeros, &both}) remember(facts, *c, "special values");  // run when judged
  }

  // Results compared as models see them: bit for bit, except that +0 and -0 are the same sum (a
  // backend that starts from +0 is still that tree; the special values are judged separately).
  static bool model_agrees(double model, double backend) { return (model == 0 && backend == 0) || same_bits(model, backend); }

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
    facts.witnesses.push_back({columns, results, "random inputs (a buffer of " + std::to_string(columns.size()) + " elements)"});
    for (const auto& options : variations(true)) {
      const auto again = run_columns(columns, options);
      for (std::size_t c = 0; c < again.size() && facts.results_vary.empty(); ++c)
        if (!same_bits(again[c], results[c]))
          facts.results_vary = "runs differ: a random input gave " + hex_float(results[c]) + ", then " + hex_float(again[c]) + " with " +
                               std::to_string(options.threads) + " threads and order seed " + std::to_string(options.order_seed);
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
          std::vector<std::vector<double>> buffer(columns.begin() + static_cast<std::ptrdiff_t>(first),
                                                  columns.begin() + static_cast<std::ptrdiff_t>(std::min(columns.size(), first + w)));
          buffer.resize(w, std::vector<double>(n_, 0.0));
          const auto narrow = prober_.call(n_, buffer, RunOptions{});
          for (std::size_t c = 0; c < w && first + c < sample; ++c)
            if (!model_agrees(results[first + c], narrow[c])) {
              r.element_dependent = true;
              r.order_note += "the order depends on the buffer's width: a random input gives " + hex_float(results[first + c]) +
                              " in a buffer of " + std::to_string(prober_.batch(n_)) + " elements and " + hex_float(narrow[c]) +
                              " in one of " + std::to_string(w) + "; ";
              facts.witnesses.push_back({buffer, narrow, "random inputs in a buffer of " + std::to_string(w) + " elements", w});
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
      facts.tree_mismatch = "the revealed tree in " + std::to_string(bits) + "-bit arithmetic differs from the backend on " +
                            std::to_string(mismatches.size()) + " of " + std::to_string(columns.size()) + " random inputs";
      if (r.run_dependent || r.element_dependent || !facts.results_vary.empty()) continue;
      // Element or data? The first few mismatching inputs, each alone in element 0.
      for (std::size_t k = 0; k < std::min<std::size_t>(4, mismatches.size()) && !r.element_dependent; ++k) {
        const std::size_t c = mismatches[k];
        if (c == 0) continue;
        const double alone = prober_.call(n_, {columns[c]}, RunOptions{})[0];
        if (model_agrees(compute(columns[c]), alone)) {
          r.element_dependent = true;
          r.order_note += "a random input gives the tree's result alone but not as element " + std::to_string(c) + " of " +
                          std::to_string(columns.size()) + "; ";
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
        r.order_note += "at M = " + hex_float(big) + " with the signs exchanged the pair (" + std::to_string(pairs[c].first) + ", " +
                        std::to_string(pairs[c].second) + ") gives " + hex_float(results[c]) + " where the tree says " +
                        std::to_string(expected[c]) + " units; ";
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

// The witness path: X at the deepest leaf and, at each node above it, X 2^-p at the smallest leaf
// of another child (a tie that rounds back to X): error d X 2^-p, the most a tree of depth d loses.
std::vector<double> deepest_path_witness(const SummationTree& tree, int bits, Format storage) {
  const auto depths = tree.leaf_depths();
  const auto deepest = static_cast<std::uint32_t>(std::max_element(depths.begin(), depths.end()) - depths.begin());
  const auto kids = tree.children();
  const auto smallest = tree.smallest_leaves();
  const int e = std::min(traits(storage).emax - 2, std::max(traits(storage).emax / 2, traits(storage).precision + 2));
  std::vector<double> x(tree.leaves(), 0.0);
  x[deepest] = std::ldexp(1.0, e);
  const double tie = std::ldexp(1.0, e - bits);
  if (tie < smallest_subnormal(storage)) return x;
  std::uint32_t below = deepest;
  for (std::uint32_t v = tree.parent(deepest); v != SummationTree::kNoParent; below = v, v = tree.parent(v))
    for (std::uint32_t c : kids[v - tree.leaves()])
      if (c != below) {
        x[smallest[c]] = tie;
        break;
      }
  return x;
}

// The backend-level choice: the first model that gave the backend's bits at every length that was
// checked (a left-to-right chain of two leaves is also Kahan's loop and correctly rounded).
std::string common_model(const std::vector<Facts>& facts, const std::vector<LengthCharacterization>& lengths) {
  for (const char* model : {"tree", "exact", "kahan", "neumaier"}) {
    bool everywhere = true, anywhere = false;
    for (std::size_t k = 0; k < facts.size(); ++k) {
      if (lengths[k].order == "failed") continue;
      anywhere = true;
      everywhere = everywhere && facts[k].matching.count(model) > 0;
    }
    if (anywhere && everywhere) return model;
  }
  return "";
}

constexpr std::size_t kMaxFusedAddends = 64;  // bound_text.cpp: fused(K,W,F) with 1 <= K <= 64

// The tensor-core chains of impls/cpu/fused_window.cpp over n leaves: the accumulator and the next K
// addends in one fused node (period 0); or each chunk of `period` addends in such nodes from a zero
// start (no leaf), the chunk's sum then added to the accumulator (promotion).
SummationTree fused_chain_tree(std::size_t n, std::size_t addends, std::size_t period) {
  TreeBuilder b(n);
  auto chain = [&](TreeBuilder::Ref start, std::size_t first, std::size_t end) {
    TreeBuilder::Ref c = start;
    for (std::size_t i = first; i < end; i += addends) {
      std::vector<TreeBuilder::Ref> children{c};
      for (std::size_t j = i; j < std::min(end, i + addends); ++j) children.push_back(b.leaf(j));
      c = b.fused(children);
    }
    return c;
  };
  if (period == 0) return b.finish(chain(b.leaf(0), 1, n));
  TreeBuilder::Ref accumulator = b.leaf(0);
  for (std::size_t chunk = 1; chunk < n; chunk += period)
    accumulator = b.add(accumulator, chain(TreeBuilder::kEmpty, chunk, std::min(n, chunk + period)));
  return b.finish(accumulator);
}

// Where every length's order is one tree, a fused node's window was measured (the same W wherever
// it was), and one fused chain of K addends per node (promoted every N, or not) gives every probed
// tree, each length's derivation is fused(K,W,F) or fused_promoted(K,W,N,F) with F the storage
// (docs/bounds.md): a length shorter than K + 1 is that chain cut short, one node. The window
// explains what the precision probes see where a fused node has two children (W bits, rounding
// toward zero, subnormal inputs cut beside larger ones); any other precision, rounding or flushed
// result rules the chain out. K and N are the smallest that fit: N may be larger beyond the
// longest probed length.
void derive_fused_chains(std::vector<LengthCharacterization>& lengths, std::vector<Derivation>& derivations, Format storage) {
  std::optional<int> window;
  std::size_t arity = 0, longest = 0;
  for (const auto& r : lengths) {
    if (r.order != "tree" || !r.tree || r.flushes_subnormal_results) return;
    arity = std::max(arity, r.max_arity);
    longest = std::max(longest, r.n);
    if (r.fused_window_bits) {
      if (window && *window != *r.fused_window_bits) return;
      window = r.fused_window_bits;
    }
  }
  if (!window || arity < 3) return;
  const int precision = traits(storage).precision;
  bool nearest = false;  // a length saw the sums rounded to nearest even at the storage's precision
  for (const auto& r : lengths) {
    const bool at_window = r.accumulation_bits == window;
    if (r.accumulation_bits && !at_window && *r.accumulation_bits != precision) return;
    if (r.rounding != "nearest-even" && r.rounding != "unobservable" && r.rounding != "toward-zero") return;
    nearest = nearest || (r.rounding == "nearest-even" && r.accumulation_bits == precision);
  }
  auto fits = [&](std::size_t addends, std::size_t period) {
    for (const auto& r : lengths)
      if (fused_chain_tree(r.n, addends, period) != *r.tree) return false;
    return true;
  };
  std::optional<std::pair<std::size_t, std::size_t>> found;
  if (fits(arity - 1, 0)) found = std::pair{arity - 1, std::size_t{0}};
  for (std::size_t addends : {arity - 1, arity})
    for (std::size_t period = addends; !found && period < longest + addends; period += addends)
      if (fits(addends, period)) found = std::pair{addends, period};
  // Where no length saw the sums rounded to nearest, how they are rounded is unknown (a sum of
  // window-aligned operands often needs no rounding at all): the derivation assumes the coarsest
  // rounding the bit-accurate models show, toward zero to min(W, p) bits (Hopper's FP8: 14 of a
  // 14-bit window). A promoted chain's additions to the accumulator must show rounding to nearest
  // (they are what fused_promoted's L u term bounds); that says nothing of its chunks' fused sums,
  // whose rounding the probes cannot tell from the window's cut (a cut toward zero shows either
  // way): they are assumed cut to min(W, p) bits, fused_promoted(K,W,N,Q,F).
  if (!found || (found->second != 0 && !nearest)) return;
  // The fused kinds state K <= 64 (tensor cores add at most 32 terms): a node of more addends, such
  // as a binned sum's one node over every term, is described but not bounded here.
  if (found->first > kMaxFusedAddends) {
    for (Derivation& d : derivations)
      d.note += std::string(d.note.empty() ? "" : "; ") + "one fused node of " + std::to_string(found->first) + " addends cut to a " + std::to_string(*window) +
                        "-bit window: more addends per node than fused(K,W,F) states (K <= " + std::to_string(kMaxFusedAddends) +
                        ")";
    return;
  }
  const bool promoted = found->second != 0;
  const std::size_t result_bits = promoted || !nearest ? static_cast<std::size_t>(std::min(*window, precision)) : 0;
  for (Derivation& d : derivations) {
    d = Derivation{};
    d.kind = Derivation::Kind::fused;
    d.format = storage;
    d.fused_addends = found->first;
    d.fused_window = static_cast<std::size_t>(*window);
    d.fused_period = found->second;
    d.fused_result_bits = result_bits;
    d.note = "one fused chain: " + std::to_string(found->first) + " addends" + (found->second ? "" : " and the accumulator") +
             " per node, cut to a " + std::to_string(*window) + "-bit window" +
             (found->second ? ", restarted from zero every " + std::to_string(found->second) +
                                  " addends and added to the accumulator (the smallest such period the probed lengths show)"
                            : "") +
             (result_bits == 0 ? ""
              : promoted ? "; the chunks' fused sums' rounding cannot be told from the window's cut: assumed toward zero to " +
                               std::to_string(result_bits) + " bits"
                         : "; the sums' rounding was not seen: assumed toward zero to " + std::to_string(result_bits) + " bits");
  }
}

// The order class, the observed determinism and the derivation of one length, given the model
// chosen for the backend (or this length's own first match).
Derivation classify(LengthCharacterization& r, const Facts& facts, const std::string& backend_model, bool stochastic,
                    WorkloadKind kind, Format storage) {
  Derivation d;
  std::string model = backend_model;
  if (model.empty())
    for (const char* m : {"tree", "exact", "kahan", "neumaier"})
      if (facts.matching.count(m)) {
        model = m;
        break;
      }
  const std::optional<SummationTree>& tree = facts.revealed.tree;
  const bool tree_model = model == "tree" && tree;
  r.model_verified = tree_model;
  if (model == "kahan" || model == "neumaier") r.compensated = model;
  // Results that differ between runs while the pair probes did not: the order, unless
  // stochastic rounding explains them.
  if (!facts.results_vary.empty() && !stochastic && !r.run_dependent) {
    r.run_dependent = true;
    r.order_note += facts.results_vary + "; ";
  }
  if (r.order == "failed") {
  } else if (r.element_dependent) r.order = "element-dependent";
  else if (r.run_dependent) r.order = "run-dependent";
  else if (model == "exact") r.order = "exact";
  else if (!r.compensated.empty() || !tree || r.data_dependent) r.order = "data-dependent";
  else r.order = "tree";  // one tree at every magnitude; its model may still fail (more than additions)
  // The tree is shown where it is the order (of every run, or of one run or element when verified).
  if (tree && (r.order == "tree" || tree_model)) {
    r.tree = tree;
    r.max_arity = tree->max_arity();
  }
  if (r.order == "data-dependent") {
    if (!r.compensated.empty())
      r.order_note += "compensated: the results are " + r.compensated + "'s loop in " + std::string(name(storage)) +
                      " on every input, not a tree of roundings; ";
    else if (!facts.tree_mismatch.empty() && r.data_dependent) r.order_note += facts.tree_mismatch + "; ";
    else if (!facts.reveal_note.empty()) r.order_note += facts.reveal_note + "; ";
  } else if (!facts.reveal_note.empty() && tree) {
    r.order_note += facts.reveal_note + "; ";
  }
  if (r.order == "tree" && !tree_model && !facts.tree_mismatch.empty()) r.order_note += facts.tree_mismatch + "; ";
  if (!r.order_note.empty()) r.order_note.resize(r.order_note.size() - 2);
  r.determinism = std::string(name(r.run_dependent || stochastic   ? Determinism::run_to_run_nondeterministic
                                   : r.order == "exact"            ? Determinism::order_independent
                                                                   : Determinism::bitwise_deterministic));
  if (r.order == "failed") return d;

  const int bits = r.accumulation_bits.value_or(traits(storage).precision);
  const auto acc = format_within(bits);
  d.format = acc.value_or(storage);
  d.widen = traits(d.format).precision > traits(storage).precision;
  if (r.flushes_subnormal_inputs || r.flushes_subnormal_results) d.ftz = traits(d.format).emin > traits(storage).emin ? d.format : storage;
  if (model == "exact") {
    d.kind = Derivation::Kind::correctly_rounded;
    d.note = "every input came back correctly rounded: no rounding is observable before the final one";
    if (r.accumulation_bits && r.bits_at_least)
      d.note += "; the running sum keeps at least " + std::to_string(*r.accumulation_bits) + " bits, more than " + std::string(name(storage)) +
                " inputs can show";
    return d;
  }
  if (!r.compensated.empty()) {
    d.kind = r.compensated == "kahan" ? Derivation::Kind::kahan : Derivation::Kind::neumaier;
    d.format = storage;
    d.widen = false;
    d.note = "the results are " + r.compensated + "'s loop in " + std::string(name(storage)) + " on every input";
    return d;
  }
  if (stochastic) {
    if (r.tree && shape_tree({TreeShape::Kind::sequential, 0}, r.n) == *r.tree) {
      d.kind = Derivation::Kind::stochastic;
      d.note = "stochastic rounding in a left-to-right chain (the probes' tree)";
    } else {
      d.note = "stochastic rounding in a tree other than a left-to-right chain: no bound kind states it";
    }
    return d;
  }
  if (!acc) {
    d.note = "fewer than 8 accumulation bits";
    return d;
  }
  const bool order_varies = r.run_dependent || r.data_dependent || r.element_dependent;
  if (r.rounding != "nearest-even" && r.rounding != "unobservable" && !(facts.rounding_blocked && order_varies)) {
    d.note = "rounding " + r.rounding + " (" + r.rounding_note + "): the bounds of this language assume round to nearest";
    return d;
  }
  if (kind == WorkloadKind::product) {
    d.kind = Derivation::Kind::products;
    d.note = "a product workload: products(F) holds for every tree of FMAs and additions (docs/bounds.md)";
    return d;
  }
  if (r.order == "tree" && !tree_model) {
    d.note = facts.tree_mismatch + ", while the order stays the same at other magnitudes: the backend does more than a tree of "
             "roundings (no bound derived)";
    return d;
  }
  if (r.max_arity > 2 && r.fused_window_bits) {
    d.note = "fused nodes of " + std::to_string(r.max_arity) + " children that cut their children to a " +
             std::to_string(*r.fused_window_bits) + "-bit window before adding them: no bound kind of this language states them";
    return d;
  }
  if (tree_model && r.order == "tree") {
    if (r.max_arity > 2) {
      d.note = "fused nodes of " + std::to_string(r.max_arity) + " children: each adds them exactly and rounds once";
    }
    d.kind = Derivation::Kind::tree;
    if (!format_of_bits(bits)) d.note += (d.note.empty() ? "" : "; ") + std::to_string(bits) + " accumulation bits, stated with " + std::string(name(d.format));
    return d;
  }
  if ((order_varies || !tree) && facts.revealed.clean && r.accumulation_bits && !r.bits_at_least) {
    d.kind = Derivation::Kind::anyorder;
    const char* what = r.run_dependent ? "runs" : r.element_dependent ? "elements" : "inputs";
    d.note = tree_model ? std::string("a tree of roundings whose shape differs between ") + what + ": any order"
                        : std::string("every pair probe was a whole count (a tree per probe), but the order differs between ") + what +
                              ": any order, assuming each is summed by some tree of " + std::string(name(d.format)) + " roundings";
    return d;
  }
  d.note = !facts.tree_mismatch.empty()
               ? facts.tree_mismatch + ", while the order stays the same at other magnitudes: the backend does more than a tree of "
                 "roundings (no bound derived)"
               : "no tree, exact sum or compensated loop explains the results";
  return d;
}

}  // namespace

std::string_view name(Relation r) {
  switch (r) {
    case Relation::equal: return "equal";
    case Relation::tighter: return "tighter";
    case Relation::looser: return "looser";
    case Relation::contradicted: return "contradicted";
    case Relation::undetermined: return "undetermined";
  }
  return "?";
}

const std::vector<std::size_t>& default_characterize_lengths() {
  static const std::vector<std::size_t> lengths{2, 3, 5, 8, 9, 16, 17, 32, 33, 64, 65, 100, 256, 257, 1024, 1025, 4096};
  return lengths;
}

Backend with_bound(const Backend& backend, const std::string& bound) {
  Backend copy = backend;
  std::string error;
  auto parsed = parse_bound(bound, &error);
  if (!parsed) throw std::invalid_argument(error);
  copy.bound = std::move(*parsed);
  return copy;
}

namespace {

// The first witness (the structure's own first) whose columns violate the stated bound: judged
// in-process on the results the probes already have, confirmed by running it again through the
// finding pipeline, minimized, written as a case file when a directory is given.
bool contradicting_witness(const Backend& backend, const Prober& prober, LengthCharacterization& r, const std::vector<Witness>& witnesses,
                           const CharacterizeOptions& options) {
  const bool with_terms = bound_needs_terms(backend.bound);
  for (const auto& w : witnesses) {
    const std::size_t width = w.width ? w.width : prober.batch(r.n);
    // The columns as they ran: one call's worth around the first that violates, padded to the width.
    std::vector<std::vector<double>> columns = w.columns;
    if (!w.results.empty()) {
      std::optional<std::size_t> violating;
      for (std::size_t c = 0; c < w.columns.size() && c < w.results.size() && !violating; ++c) {
        const ExactSum exact = fast_exact_sum(w.columns[c]);
        if (is_violation(judge(backend.bound, backend.storage, exact, w.results[c],
                               with_terms ? std::span<const double>(w.columns[c]) : std::span<const double>())
                             .verdict))
          violating = c;
      }
      if (!violating) continue;
      const std::size_t first = w.columns.size() == 1 ? *violating : *violating / width * width;
      columns.assign(w.columns.begin() + static_cast<std::ptrdiff_t>(first),
                     w.columns.begin() + static_cast<std::ptrdiff_t>(std::min(w.columns.size(), first + width)));
      columns.resize(width, std::vector<double>(r.n, 0.0));
    }
    const Workload workload = prober.workload(r.n, columns);
    Judgement j;
    try {
      FindingPolicy policy;
      policy.further_properties = false;
      j = find_violations(backend, workload, exact_sums(workload), policy);
    } catch (const std::exception&) {
      continue;  // the time is up (PluginDeadlineReached) and the like: not a witness
    }
    if (!j.violated()) continue;
    const Finding& finding = j.findings.front();
    std::string detail = w.what + ": " + finding.label;
    if (!j.outcome.failure.empty()) {
      detail += " (" + j.outcome.failure + ")";
    } else if (!j.outcome.elements.empty()) {
      const ElementVerdict& v = j.outcome.elements[j.outcome.worst_element];
      char text[240];
      std::snprintf(text, sizeof text, " at element %zu (computed %s, exact %s, error %.6g, bound %.6g)", j.outcome.worst_element,
                    hex_float(v.computed).c_str(), hex_float(v.exact).c_str(), v.error, v.bound);
      detail += text;
    }
    r.relation = Relation::contradicted;
    r.relation_reason = "a witness built from the revealed structure violates the stated bound: " + detail;
    if (!options.findings_dir.empty()) {
      const Workload minimal = minimize_finding(backend, workload, finding, 500);
      r.witness = write_finding(options.findings_dir, backend, finding, minimal, Provenance{options.found_by, std::nullopt});
    }
    return true;
  }
  return false;
}

}  // namespace

BackendCharacterization characterize(const Backend& backend, const CharacterizeOptions& options) {
  BackendCharacterization out;
  out.backend = backend.name;
  out.origin = backend.origin;
  out.stated_bound = backend.bound_text();
  out.stated_determinism = std::string(name(backend.determinism));
  out.storage = backend.storage;
  out.accumulation = backend.accumulation;
  const auto start = Clock::now();

  WorkloadKind kind = WorkloadKind::dense;
  if (options.kind) kind = *options.kind;
  else if (!backend.supports(WorkloadKind::dense)) kind = backend.supports(WorkloadKind::sparse) ? WorkloadKind::sparse : WorkloadKind::product;
  if (!backend.supports(kind)) throw std::invalid_argument(backend.name + " does not run " + std::string(name(kind)) + " workloads");
  // The probes' leaves are values FP8 cannot hold (ties, ulps of FP32, the window's edges).
  if (backend.fp8_inputs_only)
    throw std::invalid_argument(backend.name + " takes FP8 inputs only, which cannot hold characterize's probes; its chain is " +
                                "that of a dense model, characterized as one (e.g. tc_h100_fp8_f32)");
  // Its inputs lose bits before the chain: a bound derived from the chain alone would omit that.
  if (backend.normal_inputs_only)
    throw std::invalid_argument(backend.name + " truncates its inputs, which the probes' leaves (FP32 ulps, ties) do not pass " +
                                "through; its chain is that of a dense model, characterized as one (e.g. tc_a100_tf32_f32)");
  out.kind = kind;
  Prober prober(backend, kind, options.values_per_call, options.width);

  // Ascending, with n = 2 last: it takes the precision of the lengths that show it. Default
  // lengths stop where the projected time would pass the budget.
  const bool explicit_lengths = !options.lengths.empty();
  std::vector<std::size_t> lengths = explicit_lengths ? options.lengths : default_characterize_lengths();
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  std::erase_if(lengths, [](std::size_t n) { return n < 2; });
  if (!lengths.empty() && lengths.front() == 2 && lengths.size() > 1) std::rotate(lengths.begin(), lengths.begin() + 1, lengths.end());

  std::vector<Facts> facts;
  std::optional<std::pair<int, bool>> hint_bits;
  double last_seconds = 0;
  std::size_t last_n = 0;
  for (std::size_t n : lengths) {
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    if (!explicit_lengths && last_n && n > last_n) {
      // Probing grows about as n^2 log n (pairs of leaves, each a column of n values).
      const double growth = std::pow(static_cast<double>(n) / static_cast<double>(last_n), 2.2);
      if (spent + last_seconds * growth > options.seconds_budget) {
        for (std::size_t m : lengths)
          if (m >= n) out.skipped.push_back(m);
        std::erase_if(out.skipped, [](std::size_t m) { return m == 2; });
        break;
      }
    }
    LengthProbe probe(prober, n, options, hint_bits);
    LengthCharacterization r;
    Facts f;
    probe.run(r, f);
    if (r.accumulation_bits && r.bits_note.find("taken from") == std::string::npos) {
      if (!hint_bits || r.bits_at_least) hint_bits = std::pair{*r.accumulation_bits, r.bits_at_least};
    }
    if (n > 2) {
      last_seconds = r.seconds;
      last_n = n;
    }
    out.lengths.push_back(std::move(r));
    facts.push_back(std::move(f));
  }

  const std::string model = common_model(facts, out.lengths);
  bool stochastic = false;
  for (const auto& r : out.lengths) stochastic = stochastic || r.rounding == "stochastic";
  std::vector<Derivation> derivations;
  for (std::size_t k = 0; k < out.lengths.size(); ++k)
    derivations.push_back(classify(out.lengths[k], facts[k], model, stochastic, kind, backend.storage));
  derive_fused_chains(out.lengths, derivations, backend.storage);

  // One shape for every length whose tree is the order, when one fits them all.
  static const std::vector<TreeShape> candidates = [] {
    std::vector<TreeShape> c{{TreeShape::Kind::sequential, 0}, {TreeShape::Kind::numpy, 0}};
    for (std::uint64_t l : {2, 4, 8, 16, 32, 64}) c.push_back({TreeShape::Kind::lanes, l});
    for (std::uint64_t b : {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}) c.push_back({TreeShape::Kind::blocked, b});
    c.push_back({TreeShape::Kind::numpy_buffered, 8192});
    c.push_back({TreeShape::Kind::cuda_block, 32, 1, 1});
    c.push_back({TreeShape::Kind::cuda_block, 256, 4, 1024});
    return c;
  }();
  std::vector<TreeShape> fitting = candidates;
  bool any_tree = false;
  for (std::size_t k = 0; k < out.lengths.size(); ++k) {
    const auto& r = out.lengths[k];
    if (derivations[k].kind != Derivation::Kind::tree) continue;
    any_tree = true;
    std::erase_if(fitting, [&](const TreeShape& s) { return shape_tree(s, r.n) != r.tree; });
  }
  const std::string common_shape = any_tree && !fitting.empty() ? shape_text(fitting.front()) : "";

  for (std::size_t k = 0; k < out.lengths.size(); ++k) {
    auto& r = out.lengths[k];
    const Derivation& d = derivations[k];
    // The shape it is at this length: the one common to all lengths when it fits here (lanes:8
    // and numpy build the same tree at n = 40), else the first that does.
    if (r.tree && !common_shape.empty() && shape_tree(fitting.front(), r.n) == r.tree) r.shape = common_shape;
    else if (r.tree)
      for (const auto& s : candidates)
        if (shape_tree(s, r.n) == r.tree) {
          r.shape = shape_text(s);
          break;
        }
    if (r.order == "failed") {
      r.relation = Relation::undetermined;
      r.relation_reason = "the backend failed while being probed: " + r.failure;
      continue;
    }
    const std::string here = expression(d, backend.storage, r.n, r.tree, "");
    r.derived_bound = expression(d, backend.storage, r.n, r.tree, common_shape);
    r.derived_note = d.note;

    // Contradictions first: a determinism the backend does not have, then a witness.
    if (backend.determinism != Determinism::run_to_run_nondeterministic && r.determinism == name(Determinism::run_to_run_nondeterministic)) {
      r.relation = Relation::contradicted;
      r.relation_reason = "stated " + out.stated_determinism + ", but " + (r.order_note.empty() ? "the runs differ" : r.order_note);
      continue;
    }
    std::vector<Witness> witnesses;
    if (r.tree && r.accumulation_bits && !r.bits_at_least)
      witnesses.push_back({{deepest_path_witness(*r.tree, *r.accumulation_bits, backend.storage)},
                           {},
                           "X at the deepest leaf and X 2^-" + std::to_string(*r.accumulation_bits) + " beside it at every node above"});
    witnesses.insert(witnesses.end(), facts[k].witnesses.begin(), facts[k].witnesses.end());
    if (contradicting_witness(backend, prober, r, witnesses, options)) continue;
    if (backend.determinism == Determinism::order_independent && r.order != "exact" && r.tree && r.accumulation_bits &&
        !r.bits_at_least) {
      r.relation = Relation::contradicted;
      r.relation_reason = "stated order-independent, but the result depends on the order of the leaves: a tree of roundings in " +
                          std::to_string(*r.accumulation_bits) + " bits";
      continue;
    }
    if (here.empty()) {
      r.relation = Relation::undetermined;
      r.relation_reason = "no bound derived: " + d.note;
      continue;
    }
    auto [relation, reason] = compare_bounds(*parse_bound(here), backend.bound, backend.storage, r.n);
    r.relation = relation;
    r.relation_reason = reason;
  }

  // The whole backend: contradicted if any length is, else looser, else undetermined, else
  // equal if all are, else tighter; the first length's reason that decided it.
  auto rank = [](Relation x) {
    switch (x) {
      case Relation::contradicted: return 4;
      case Relation::looser: return 3;
      case Relation::undetermined: return 2;
      case Relation::tighter: return 1;
      case Relation::equal: return 0;
    }
    return 0;
  };
  out.relation = Relation::equal;
  for (const auto& r : out.lengths)
    if (rank(r.relation) > rank(out.relation)) {
      out.relation = r.relation;
      out.relation_reason = "n = " + std::to_string(r.n) + ": " + r.relation_reason;
    }
  if (out.lengths.empty()) {
    out.relation = Relation::undetermined;
    out.relation_reason = "no length was probed";
  }
  // One expression valid at every probed length: the same text everywhere, or tree tables of
  // the same wrapping merged into one depths(...).
  std::set<std::string> expressions;
  bool all_derived = !out.lengths.empty();
  for (const auto& r : out.lengths) {
    all_derived = all_derived && !r.derived_bound.empty();
    expressions.insert(r.derived_bound);
  }
  bool only_trees_and_any_order = all_derived;
  std::optional<Derivation> any_order;
  for (std::size_t k = 0; k < out.lengths.size(); ++k) {
    const auto kind_k = derivations[k].kind;
    only_trees_and_any_order = only_trees_and_any_order && (kind_k == Derivation::Kind::tree || kind_k == Derivation::Kind::anyorder);
    if (kind_k == Derivation::Kind::anyorder) any_order = derivations[k];
  }
  if (all_derived && expressions.size() == 1) {
    out.derived_bound = *expressions.begin();
  } else if (only_trees_and_any_order && any_order) {
    // Some lengths any order, others one tree: any order holds for every tree in that arithmetic.
    const std::string text = expression(*any_order, backend.storage, 0, std::nullopt, "");
    bool same_arithmetic = true;
    for (const auto& d : derivations)
      same_arithmetic = same_arithmetic && d.format == any_order->format && d.widen == any_order->widen && d.ftz == any_order->ftz;
    if (same_arithmetic) out.derived_bound = text;
  } else if (all_derived) {
    std::string merged, shell;
    bool mergeable = true;
    for (std::size_t k = 0; k < out.lengths.size() && mergeable; ++k) {
      const auto& r = out.lengths[k];
      if (derivations[k].kind != Derivation::Kind::tree) {
        mergeable = false;
        break;
      }
      const std::string this_shell = expression(derivations[k], backend.storage, r.n, r.tree, "@");
      if (shell.empty()) shell = this_shell;
      mergeable = shell == this_shell;
      merged += (merged.empty() ? "" : ",") + ("n" + std::to_string(r.n) + ":" + depths_text(r.tree->leaf_depths()));
    }
    if (mergeable && !shell.empty()) {
      const auto at = shell.find('@');
      out.derived_bound = shell.substr(0, at) + merged + shell.substr(at + 1);
    }
  }
  if (!out.derived_bound.empty() && !parse_bound(out.derived_bound)) out.derived_bound.clear();
  for (const auto& r : out.lengths) out.calls += r.calls;
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(out.lengths.begin(), out.lengths.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
  return out;
}

namespace {

// A tree as two flat fields: its bracket text and each node's parent (-1 for the root); both
// null without a tree.
void write_tree(JsonWriter& out, const char* text_key, const char* parents_key, const SummationTree* tree) {
  out.key(text_key);
  if (tree) out.value(tree->text());
  else out.null();
  out.key(parents_key);
  if (!tree) {
    out.null();
    return;
  }
  out.begin_array();
  for (auto p : tree->parents()) out.value(p == SummationTree::kNoParent ? std::int64_t{-1} : static_cast<std::int64_t>(p));
  out.end_array();
}

}  // namespace

void write_characterization(JsonWriter& out, const BackendCharacterization& c) {
  out.begin_object()
      .field("backend", c.backend)
      .field("origin", c.origin)
      .field("storage", name(c.storage))
      .field("accumulation", name(c.accumulation))
      .field("workload", name(c.kind))
      .field("stated_bound", c.stated_bound)
      .field("stated_determinism", c.stated_determinism)
      .field("derived_bound", c.derived_bound)
      .field("relation", name(c.relation))
      .field("relation_reason", c.relation_reason)
      .field("calls", c.calls)
      .field("seconds", c.seconds);
  out.key("skipped_lengths").begin_array();
  for (std::size_t n : c.skipped) out.value(static_cast<std::uint64_t>(n));
  out.end_array();
  out.key("lengths").begin_array();
  for (const auto& r : c.lengths) {
    out.begin_object()
        .field("n", static_cast<std::uint64_t>(r.n))
        .field("stated_bound", c.stated_bound)
        .field("derived_bound", r.derived_bound)
        .field("derived_note", r.derived_note)
        .field("relation", name(r.relation))
        .field("relation_reason", r.relation_reason)
        .field("order_class", r.order)
        .field("order_note", r.order_note);
    // Trees are written flat, never as nested arrays (a chain of n leaves nests n - 1 deep, past
    // what JSON readers accept: Python's json stops at 1,000): `order` is the bracket text the
    // table shows, `order_parents` the parent of each node (docs/characterize.md).
    write_tree(out, "order", "order_parents", r.tree ? &*r.tree : nullptr);
    out.field("shape", r.shape).field("max_arity", static_cast<std::uint64_t>(r.max_arity));
    out.key("leaf_depths");
    if (r.tree) {
      out.begin_array();
      for (auto d : r.tree->leaf_depths()) out.value(static_cast<std::uint64_t>(d));
      out.end_array();
    } else {
      out.null();
    }
    out.key("other_elements").begin_array();
    for (const auto& [element, tree] : r.other_elements) {
      out.begin_object().field("element", static_cast<std::uint64_t>(element));
      write_tree(out, "order", "order_parents", &tree);
      out.end_object();
    }
    out.end_array();
    out.field("element_dependent", r.element_dependent).field("data_dependent", r.data_dependent).field("run_dependent", r.run_dependent);
    out.key("accumulation_bits");
    if (r.accumulation_bits) out.value(*r.accumulation_bits);
    else out.null();
    out.field("accumulation_bits_at_least", r.bits_at_least).field("accumulation_note", r.bits_note);
    out.key("fused_window_bits");
    if (r.fused_window_bits) out.value(*r.fused_window_bits);
    else out.null();
    out.field("compensated", r.compensated)
        .field("flushes_subnormal_inputs", r.flushes_subnormal_inputs)
        .field("flushes_subnormal_results", r.flushes_subnormal_results)
        .field("rounding", r.rounding)
        .field("rounding_note", r.rounding_note)
        .field("determinism", r.determinism)
        .field("model_verified", r.model_verified)
        .field("model_inputs", static_cast<std::uint64_t>(r.model_inputs))
        .field("witness", r.witness)
        .field("failure", r.failure)
        .field("calls", r.calls)
        .field("seconds", r.seconds)
        .end_object();
  }
  out.end_array();
  out.end_object();
}

}  // namespace accucheck
