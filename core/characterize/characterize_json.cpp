// characterize --json (characterize.h write_characterization; the keys: docs/characterize.md).
#include "characterize/characterize.h"

#include "checking/summation_tree.h"
#include "io/json.h"

namespace accucheck {

namespace {

// A tree as two flat fields: its bracket text and each node's parent (-1 for the root); both
// null without a tree.
void write_tree(JsonWriter& out, const char* text_key, const char* parents_key, const SummationTree* tree) {
  out.key(text_key);
  if (tree)
    out.value(tree->text());
  else
    out.null();
  out.key(parents_key);
  if (!tree) {
    out.null();
    return;
  }
  out.begin_array();
  for (auto p : tree->parents())
    out.value(p == SummationTree::kNoParent ? std::int64_t{-1} : static_cast<std::int64_t>(p));
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
    out.field("element_dependent", r.element_dependent)
        .field("data_dependent", r.data_dependent)
        .field("run_dependent", r.run_dependent);
    out.key("accumulation_bits");
    if (r.accumulation_bits)
      out.value(*r.accumulation_bits);
    else
      out.null();
    out.field("accumulation_bits_at_least", r.bits_at_least).field("accumulation_note", r.bits_note);
    out.key("fused_window_bits");
    if (r.fused_window_bits)
      out.value(*r.fused_window_bits);
    else
      out.null();
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