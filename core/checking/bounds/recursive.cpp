// The summation-order family: recursive (left to right), anyorder (any parenthesization), tree
// (a tree of known height h(n), tree_shapes.cpp) and depths (per-leaf depths of one exact order),
// each with its parse, print and formula (docs/bounds.md "Bound expressions", "Tree heights",
// "Per-leaf bounds").
#include <algorithm>
#include <array>
#include <cctype>
#include <memory>

#include "checking/bounds/kind.h"
#include "checking/summation_tree.h"

namespace accucheck {
namespace bounds {
namespace {

// depths(PROFILE, ..., F): at most one shape with a fixed order, and tables nN:DEPTHS whose N
// depths (summation_tree.h depths_text) are those of a tree over N leaves.
bool to_depth_profile(const Node& node, DepthProfile& out, std::string& error) {
  if (node.arguments.size() < 2) {
    error = "'depths' takes one or more profiles (a shape, or nN:DEPTHS) and a format";
    return false;
  }
  for (std::size_t k = 0; k + 1 < node.arguments.size(); ++k) {
    const Node& a = node.arguments[k];
    const std::string& h = a.head;
    if (h.size() > 1 && h[0] == 'n' && std::isdigit(static_cast<unsigned char>(h[1]))) {
      const auto colon = h.find(':');
      std::uint64_t n = 0;
      if (colon == std::string::npos || !parse_unsigned(std::string_view(h).substr(1, colon - 1), n) || n == 0) {
        error = "depths profile '" + h + "' must be nN:DEPTHS";
        return false;
      }
      std::string why;
      auto depths = parse_depths_text(h.substr(colon + 1), &why);
      if (!depths) {
        error = "depths profile n" + std::to_string(n) + ": " + why;
        return false;
      }
      if (depths->size() != n) {
        error = "depths profile n" + std::to_string(n) + " lists " + std::to_string(depths->size()) + " leaves";
        return false;
      }
      for (const auto& [m, d] : out.tables)
        if (m == n) {
          error = "depths profile n" + std::to_string(n) + " given twice";
          return false;
        }
      out.tables.emplace_back(n, std::move(*depths));
      continue;
    }
    TreeShape shape;
    if (!to_shape(a, shape, error)) return false;
    if (!shape_has_fixed_order(shape)) {
      error =
          "depths needs a shape with one fixed order (sequential, numpy, blocked:B, lanes:L with L a power of two, "
          "numpy_buffered:B, cuda_block:T:I:G), not '" +
          h + "'";
      return false;
    }
    if (out.shape) {
      error = "depths takes at most one shape";
      return false;
    }
    out.shape = shape;
  }
  std::sort(out.tables.begin(), out.tables.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return true;
}

// sum_i gamma(d_i) |x_i| (every d_i with gamma defined): per term in intervals; grouped by depth
// with exact sums of |x| in rationals, the same value computed exactly.
template <class Num, class Gamma>
Num leaf_weighted_sum(const std::vector<std::uint32_t>& depth, std::span<const double> terms, const Gamma& gamma) {
  const std::uint32_t h = *std::max_element(depth.begin(), depth.end());
  if constexpr (std::is_same_v<Num, Interval>) {
    std::vector<std::optional<Interval>> weight(h + 1);
    Interval total = Interval::exact(0);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (terms[i] == 0) continue;
      auto& w = weight[depth[i]];
      if (!w) w = *gamma(depth[i]);
      total = total + *w * Interval::exact(std::fabs(terms[i]));
    }
    return total;
  } else {
    std::vector<FixedInt> abs_by_depth(h + 1);
    for (std::size_t i = 0; i < terms.size(); ++i) abs_by_depth[depth[i]] += to_fixed(std::fabs(terms[i]));
    Num total = 0;
    for (std::uint32_t d = 0; d <= h; ++d)
      if (abs_by_depth[d] != 0) total += *gamma(d) * Ops<Num>::fixed(abs_by_depth[d]);
    return total;
  }
}

// recursive(F): (n-1) u A (Rump, BIT 52 (2012)).
constexpr auto recursive = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  const Units<Num> units(b, q);
  return Ops<Num>::integer(units.k) * units.u * q.abs_sum;
};

// anyorder(F): (n-1)u/(1+(n-1)u) A when n-1 <= 1/(2u), else (n-1) u A.
constexpr auto anyorder = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  return Units<Num>(b, q).anyorder();
};

// tree(SHAPE,F): min(h u A (h <= u^(-1/2) - 1) or gamma_h A, anyorder), h = tree_height.
constexpr auto tree = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const std::uint64_t h = tree_height(b.shape, units.n);
  std::optional<Num> tree;
  if (h + 1 <= floor_sqrt_power_of_two(units.p))
    tree = O::integer(h) * units.u * q.abs_sum;
  else if (auto g = units.gamma(h))
    tree = *g * q.abs_sum;
  const Num any = units.anyorder();
  return tree ? minimum(*tree, any) : any;
};

constexpr auto depths = []<class Num>(const BoundExpr& b, const Quantities<Num>& q) -> std::optional<Num> {
  using O = Ops<Num>;
  const Units<Num> units(b, q);
  const std::uint64_t n = units.n;
  const Num& u = units.u;
  auto gamma = [&](std::uint64_t h) { return units.gamma(h); };
  // min(per-leaf gamma, the tree bound of height h = max d_i, anyorder): each holds for a
  // tree whose leaf i passes d_i roundings (docs/bounds.md "Per-leaf bounds"); an n the
  // profile does not cover is some tree, for which anyorder holds.
  Num best = units.anyorder();
  const std::vector<std::uint32_t>* depth = b.depths->at(n);
  if (!depth || depth->empty()) return best;
  const std::uint64_t h = *std::max_element(depth->begin(), depth->end());
  if (h + 1 <= floor_sqrt_power_of_two(units.p))
    best = minimum(best, O::integer(h) * u * q.abs_sum);
  else if (auto g = gamma(h))
    best = minimum(best, *g * q.abs_sum);
  // The per-leaf sum needs gamma_d (d u < 1) only for the leaves that hold a nonzero term.
  if (q.terms.size() == n) {
    std::uint64_t deepest_nonzero = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (q.terms[i] != 0) deepest_nonzero = std::max<std::uint64_t>(deepest_nonzero, (*depth)[i]);
    if (deepest_nonzero < units.two_to_p) best = minimum(best, leaf_weighted_sum<Num>(*depth, q.terms, gamma));
  }
  return best;
};

bool parse_tree(const Node& node, BoundExpr& bound, std::string& error) {
  return expect_arguments(node, 2, error) && to_shape(node.arguments[0], bound.shape, error) &&
         to_format(node.arguments[1], bound.format, error);
}
std::string print_tree(const BoundExpr& bound) {
  return call_text(bound, {shape_text(bound.shape), format_text(bound)});
}

bool parse_depths(const Node& node, BoundExpr& bound, std::string& error) {
  auto profile = std::make_shared<DepthProfile>();
  if (!to_depth_profile(node, *profile, error) || !to_format(node.arguments.back(), bound.format, error)) return false;
  bound.depths = std::move(profile);
  return true;
}
std::string print_depths(const BoundExpr& bound) {
  std::string text = to_string(bound.kind) + "(";
  if (bound.depths->shape) text += shape_text(*bound.depths->shape) + ",";
  for (const auto& [n, depths] : bound.depths->tables)
    text += "n" + std::to_string(n) + ":" + depths_text(depths) + ",";
  return text + format_text(bound) + ")";
}

bool always(const BoundExpr&) { return true; }

}  // namespace

extern constexpr BoundKindSpec recursive_spec =
    bound_kind(BoundKind::recursive, "recursive", "recursive(f32)", "Rump, BIT 52 (2012); AN23 sec. 4.6.2",
               parse_format_argument, print_format_argument, recursive);

extern constexpr BoundKindSpec anyorder_spec =
    bound_kind(BoundKind::anyorder, "anyorder", "anyorder(f16)", "AN23 eq. (4.11); Lange & Rump (2019), AN23 Thm 4.5",
               parse_format_argument, print_format_argument, anyorder);

extern constexpr BoundKindSpec tree_spec =
    bound_kind(BoundKind::tree, "tree", "tree(blocked:64,f32)",
               "Lange & Rump (2019), AN23 Thm 4.4; Higham (2002) sec. 4.2", parse_tree, print_tree, tree);

// depths(PROFILE,...,F): it needs the terms for the per-leaf sum (without them, the looser
// min(tree bound, anyorder)).
extern constexpr BoundKindSpec depths_spec = bound_kind(
    BoundKind::depths, "depths", "depths(sequential,n3:1.2x2,f32)",
    "Higham (2002) sec. 4.2 per-leaf gamma_{d_i}; Lange & Rump (2019), AN23 Thm 4.4 and 4.5 (docs/bounds.md)",
    parse_depths, print_depths, depths, {.needs_terms = always});

}  // namespace bounds

const std::vector<std::uint32_t>* DepthProfile::at(std::uint64_t n) const {
  const auto table =
      std::lower_bound(tables.begin(), tables.end(), n, [](const auto& t, std::uint64_t m) { return t.first < m; });
  if (table != tables.end() && table->first == n) return &table->second;
  if (!shape) return nullptr;
  // A campaign judges many elements of one length: the last few (shape, n) are kept per thread,
  // in slots replaced in turn (a pointer returned stays valid until 8 other lengths were asked).
  struct Cached {
    TreeShape shape;
    std::uint64_t n = 0;
    std::vector<std::uint32_t> depths;
  };
  thread_local std::array<Cached, 8> cache;
  thread_local std::size_t next_slot = 0;
  for (const auto& c : cache)
    if (c.n == n && c.shape == *shape) return &c.depths;
  const auto tree = shape_tree(*shape, n);
  if (!tree) return nullptr;
  Cached& slot = cache[next_slot];
  next_slot = (next_slot + 1) % cache.size();
  slot = {*shape, n, tree->leaf_depths()};
  return &slot.depths;
}

}  // namespace accucheck
