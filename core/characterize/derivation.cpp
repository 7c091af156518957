// Deriving the bound (derivation.h).
#include "characterize/derivation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "characterize/arithmetic.h"
#include "numerics/fast_exact.h"

namespace accucheck::characterization {

std::string wrap(std::string inner, const Derivation& d, Format storage) {
  if (d.widen) inner = "widened(" + inner + "," + std::string(name(storage)) + ")";
  if (d.ftz) inner = "ftz(" + inner + "," + std::string(name(*d.ftz)) + ")";
  return inner;
}

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
        return wrap("fused_promoted(" + k + "," + w + "," + std::to_string(d.fused_period) + "," + q + f + ")", d,
                    storage);
      if (d.fused_result_bits != 0) return wrap("fused_truncated(" + k + "," + w + "," + q + f + ")", d, storage);
      return wrap("fused(" + k + "," + w + "," + f + ")", d, storage);
    }
    case Derivation::Kind::tree:
      if (!shape.empty()) return wrap("depths(" + shape + "," + f + ")", d, storage);
      return wrap("depths(n" + std::to_string(n) + ":" + depths_text(tree->leaf_depths()) + "," + f + ")", d, storage);
  }
  return "";
}

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
  for (std::size_t i = 0; i < n; ++i)
    out.back()[n - 1 - i] = std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(i, 60)));
  return out;
}

std::pair<Relation, std::string> compare_bounds(const BoundExpr& derived, const BoundExpr& stated, Format storage,
                                                std::size_t n) {
  const bool derived_error = is_error_bound(derived.kind), stated_error = is_error_bound(stated.kind);
  if (!derived_error || !stated_error) {
    if (derived.kind == stated.kind && derived.count == stated.count)
      return {Relation::equal, "the same rounding claim"};
    if (derived.kind == BoundKind::correctly_rounded)
      return {Relation::tighter,
              "correct rounding is within every error bound and rounding claim a correct backend can state"};
    return {Relation::looser,
            "the stated bound is a rounding claim (" + to_string(stated) + "); the derived one is an error bound"};
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
    return {Relation::looser, "the derived bound exceeds the stated one on some inputs of " + std::to_string(n) +
                                  " terms (" + where + ")"};
  if (somewhere_below)
    return {Relation::tighter,
            "at most the stated bound on every compared input of " + std::to_string(n) + " terms, below it on some"};
  return {Relation::equal, "the same value on every compared input of " + std::to_string(n) + " terms"};
}

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

void derive_fused_chains(std::vector<LengthCharacterization>& lengths, std::vector<Derivation>& derivations,
                         Format storage) {
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
      d.note +=
          std::string(d.note.empty() ? "" : "; ") + "one fused node of " + std::to_string(found->first) +
          " addends cut to a " + std::to_string(*window) +
          "-bit window: more addends per node than fused(K,W,F) states (K <= " + std::to_string(kMaxFusedAddends) + ")";
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
    d.note =
        "one fused chain: " + std::to_string(found->first) + " addends" +
        (found->second ? "" : " and the accumulator") + " per node, cut to a " + std::to_string(*window) +
        "-bit window" +
        (found->second ? ", restarted from zero every " + std::to_string(found->second) +
                             " addends and added to the accumulator (the smallest such period the probed lengths show)"
                       : "") +
        (result_bits == 0 ? ""
         : promoted
             ? "; the chunks' fused sums' rounding cannot be told from the window's cut: assumed toward zero to " +
                   std::to_string(result_bits) + " bits"
             : "; the sums' rounding was not seen: assumed toward zero to " + std::to_string(result_bits) + " bits");
  }
}

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
  } else if (r.element_dependent)
    r.order = "element-dependent";
  else if (r.run_dependent)
    r.order = "run-dependent";
  else if (model == "exact")
    r.order = "exact";
  else if (!r.compensated.empty() || !tree || r.data_dependent)
    r.order = "data-dependent";
  else
    r.order = "tree";  // one tree at every magnitude; its model may still fail (more than additions)
  // The tree is shown where it is the order (of every run, or of one run or element when verified).
  if (tree && (r.order == "tree" || tree_model)) {
    r.tree = tree;
    r.max_arity = tree->max_arity();
  }
  if (r.order == "data-dependent") {
    if (!r.compensated.empty())
      r.order_note += "compensated: the results are " + r.compensated + "'s loop in " + std::string(name(storage)) +
                      " on every input, not a tree of roundings; ";
    else if (!facts.tree_mismatch.empty() && r.data_dependent)
      r.order_note += facts.tree_mismatch + "; ";
    else if (!facts.reveal_note.empty())
      r.order_note += facts.reveal_note + "; ";
  } else if (!facts.reveal_note.empty() && tree) {
    r.order_note += facts.reveal_note + "; ";
  }
  if (r.order == "tree" && !tree_model && !facts.tree_mismatch.empty()) r.order_note += facts.tree_mismatch + "; ";
  if (!r.order_note.empty()) r.order_note.resize(r.order_note.size() - 2);
  r.determinism = std::string(name(r.run_dependent || stochastic ? Determinism::run_to_run_nondeterministic
                                   : r.order == "exact"          ? Determinism::order_independent
                                                                 : Determinism::bitwise_deterministic));
  if (r.order == "failed") return d;

  const int bits = r.accumulation_bits.value_or(traits(storage).precision);
  const auto acc = format_within(bits);
  d.format = acc.value_or(storage);
  d.widen = traits(d.format).precision > traits(storage).precision;
  if (r.flushes_subnormal_inputs || r.flushes_subnormal_results)
    d.ftz = traits(d.format).emin > traits(storage).emin ? d.format : storage;
  if (model == "exact") {
    d.kind = Derivation::Kind::correctly_rounded;
    d.note = "every input came back correctly rounded: no rounding is observable before the final one";
    if (r.accumulation_bits && r.bits_at_least)
      d.note += "; the running sum keeps at least " + std::to_string(*r.accumulation_bits) + " bits, more than " +
                std::string(name(storage)) + " inputs can show";
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
    d.note =
        "rounding " + r.rounding + " (" + r.rounding_note + "): the bounds of this language assume round to nearest";
    return d;
  }
  if (kind == WorkloadKind::product) {
    d.kind = Derivation::Kind::products;
    d.note = "a product workload: products(F) holds for every tree of FMAs and additions (docs/bounds.md)";
    return d;
  }
  if (r.order == "tree" && !tree_model) {
    d.note = facts.tree_mismatch +
             ", while the order stays the same at other magnitudes: the backend does more than a tree of "
             "roundings (no bound derived)";
    return d;
  }
  if (r.max_arity > 2 && r.fused_window_bits) {
    d.note = "fused nodes of " + std::to_string(r.max_arity) + " children that cut their children to a " +
             std::to_string(*r.fused_window_bits) +
             "-bit window before adding them: no bound kind of this language states them";
    return d;
  }
  if (tree_model && r.order == "tree") {
    if (r.max_arity > 2) {
      d.note = "fused nodes of " + std::to_string(r.max_arity) + " children: each adds them exactly and rounds once";
    }
    d.kind = Derivation::Kind::tree;
    if (!format_of_bits(bits))
      d.note += (d.note.empty() ? "" : "; ") + std::to_string(bits) + " accumulation bits, stated with " +
                std::string(name(d.format));
    return d;
  }
  if ((order_varies || !tree) && facts.revealed.clean && r.accumulation_bits && !r.bits_at_least) {
    d.kind = Derivation::Kind::anyorder;
    const char* what = r.run_dependent ? "runs" : r.element_dependent ? "elements" : "inputs";
    d.note =
        tree_model
            ? std::string("a tree of roundings whose shape differs between ") + what + ": any order"
            : std::string("every pair probe was a whole count (a tree per probe), but the order differs between ") +
                  what + ": any order, assuming each is summed by some tree of " + std::string(name(d.format)) +
                  " roundings";
    return d;
  }
  d.note = !facts.tree_mismatch.empty()
               ? facts.tree_mismatch +
                     ", while the order stays the same at other magnitudes: the backend does more than a tree of "
                     "roundings (no bound derived)"
               : "no tree, exact sum or compensated loop explains the results";
  return d;
}

}  // namespace accucheck::characterization
