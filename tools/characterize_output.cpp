#include "characterize_output.h"

#include <algorithm>
#include <cmath>

#include "campaign_output.h"
#include "io/json.h"
#include "svg_plot.h"

namespace accucheck::cli {
namespace {

std::string bits_text(const LengthCharacterization& r) {
  if (!r.accumulation_bits) return "-";
  return (r.bits_at_least ? ">=" : "") + std::to_string(*r.accumulation_bits);
}

std::string ftz_text(const LengthCharacterization& r) {
  if (r.flushes_subnormal_inputs && r.flushes_subnormal_results) return "in+out";
  if (r.flushes_subnormal_inputs) return "in";
  if (r.flushes_subnormal_results) return "out";
  return "-";
}

std::string order_text(const LengthCharacterization& r) {
  std::string text = r.order;
  if (!r.shape.empty())
    text += " " + r.shape;
  else if (!r.compensated.empty())
    text += " " + r.compensated;
  else if (r.tree && r.order == "tree")
    text += " h=" + std::to_string(r.tree->height());
  if (r.max_arity > 2) text += " fused:" + std::to_string(r.max_arity);
  return text;
}

}  // namespace

std::string indented_tree(const SummationTree& tree) {
  const auto kids = tree.children();
  const auto sizes = tree.subtree_sizes();
  std::string out;
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{tree.root(), 0}};
  while (!stack.empty()) {
    const auto [id, depth] = stack.back();
    stack.pop_back();
    out += std::string(2 * depth + 4, ' ');
    if (id < tree.leaves()) {
      out += std::to_string(id) + "\n";
      continue;
    }
    out += "+ " + std::to_string(sizes[id]) + " leaves\n";
    const auto& k = kids[id - tree.leaves()];
    for (auto it = k.rbegin(); it != k.rend(); ++it) stack.push_back({*it, depth + 1});
  }
  return out;
}

void print_characterization(const BackendCharacterization& c, std::FILE* out) {
  std::fprintf(out, "\n%s  (stated %s, %s; %s probes, %llu calls, %.2f s)\n", c.backend.c_str(), c.stated_bound.c_str(),
               c.stated_determinism.c_str(), std::string(name(c.kind)).c_str(),
               static_cast<unsigned long long>(c.calls), c.seconds);
  std::size_t order_width = 5, bound_width = 13;
  for (const auto& r : c.lengths) {
    order_width = std::max(order_width, order_text(r).size());
    bound_width = std::max(bound_width, std::min<std::size_t>(r.derived_bound.size(), 48));
  }
  std::fprintf(out, "  %6s  %-*s  %-5s  %-12s  %-6s  %-26s  %-*s  %-12s  %7s  %7s\n", "n",
               static_cast<int>(order_width), "order", "bits", "rounding", "ftz", "determinism",
               static_cast<int>(bound_width), "derived bound", "relation", "calls", "seconds");
  for (const auto& r : c.lengths) {
    std::string bound = r.derived_bound.empty() ? "-" : r.derived_bound;
    if (bound.size() > 48) bound = bound.substr(0, 45) + "...";
    std::fprintf(out, "  %6zu  %-*s  %-5s  %-12s  %-6s  %-26s  %-*s  %-12s  %7llu  %7.2f\n", r.n,
                 static_cast<int>(order_width), order_text(r).c_str(), bits_text(r).c_str(), r.rounding.c_str(),
                 ftz_text(r).c_str(), r.determinism.c_str(), static_cast<int>(bound_width), bound.c_str(),
                 std::string(name(r.relation)).c_str(), static_cast<unsigned long long>(r.calls), r.seconds);
  }
  for (const auto& r : c.lengths)
    if (!r.failure.empty()) std::fprintf(out, "  n = %zu: the backend failed: %s\n", r.n, r.failure.c_str());
  if (!c.skipped.empty()) {
    std::string list;
    for (std::size_t n : c.skipped) list += (list.empty() ? "" : ", ") + std::to_string(n);
    std::fprintf(out, "  not probed (the projected time passes the budget; --n N asks for a length): n = %s\n",
                 list.c_str());
  }
  std::fprintf(out, "  derived bound: %s\n",
               c.derived_bound.empty() ? "(none over all lengths)" : c.derived_bound.c_str());
  std::fprintf(out, "  relation to %s: %s%s%s\n", c.stated_bound.c_str(), std::string(name(c.relation)).c_str(),
               c.relation_reason.empty() ? "" : ": ", c.relation_reason.c_str());
  // The notes that explain a class, once per distinct text.
  std::vector<std::string> seen;
  for (const auto& r : c.lengths) {
    for (const std::string* note : {&r.order_note, &r.derived_note}) {
      if (note->empty() || std::find(seen.begin(), seen.end(), *note) != seen.end()) continue;
      seen.push_back(*note);
      std::fprintf(out, "  n = %zu: %s\n", r.n, note->c_str());
    }
    if (!r.witness.empty()) std::fprintf(out, "  n = %zu witness: accucheck replay %s\n", r.n, r.witness.c_str());
  }
  // The tree of the largest length of at most 16 leaves, drawn.
  const LengthCharacterization* small = nullptr;
  for (const auto& r : c.lengths)
    if (r.tree && r.n <= 16) small = &r;
  if (small) {
    std::fprintf(out, "  order at n = %zu: %s\n", small->n, small->tree->text().c_str());
    std::fputs(indented_tree(*small->tree).c_str(), out);
  }
}

std::string characterization_json(const std::vector<BackendCharacterization>& all, std::uint64_t seed) {
  JsonWriter out;
  out.begin_object().field("tool", "accucheck characterize").field("seed", seed);
  out.key("backends").begin_array();
  for (const auto& c : all) write_characterization(out, c);
  out.end_array().end_object();
  return out.str() + "\n";
}

std::string tree_svg(const SummationTree& tree) {
  const std::size_t n = tree.leaves();
  const auto kids = tree.children();
  // Node heights from the leaves: a node sits one row above its highest child.
  std::vector<double> x(tree.parents().size()), level(tree.parents().size(), 0);
  for (std::uint32_t id = 0; id < tree.parents().size(); ++id) {
    if (id < n) {
      x[id] = static_cast<double>(id);
      continue;
    }
    const auto& k = kids[id - n];
    double sum = 0, top = 0;
    for (auto c : k) {
      sum += x[c];
      top = std::max(top, level[c]);
    }
    x[id] = sum / static_cast<double>(k.size());
    level[id] = top + 1;
  }
  const double rows = level[tree.root()] + 1;
  const double width = std::clamp(14.0 * static_cast<double>(n) + 40, 240.0, 1400.0);
  const double height = std::clamp(18.0 * rows + 40, 120.0, 900.0);
  const double dx = (width - 40) / std::max<double>(1, static_cast<double>(n) - 1),
               dy = (height - 40) / std::max(1.0, rows - 1);
  auto px = [&](std::uint32_t id) { return 20 + x[id] * dx; };
  auto py = [&](std::uint32_t id) { return height - 20 - level[id] * dy; };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg::fmt("%.0f", width) + "\" height=\"" +
                  svg::fmt("%.0f", height) + "\" role=\"img\"><title>summation tree over " + std::to_string(n) +
                  " leaves</title>\n";
  for (std::uint32_t id = n; id < tree.parents().size(); ++id)
    for (auto c : kids[id - n])
      s += "<line x1=\"" + svg::fmt("%.1f", px(id)) + "\" y1=\"" + svg::fmt("%.1f", py(id)) + "\" x2=\"" +
           svg::fmt("%.1f", px(c)) + "\" y2=\"" + svg::fmt("%.1f", py(c)) + "\" stroke=\"" +
           (kids[id - n].size() > 2 ? "#c60" : "#468") + "\" stroke-width=\"1\"/>\n";
  for (std::uint32_t id = n; id < tree.parents().size(); ++id)
    s += "<circle cx=\"" + svg::fmt("%.1f", px(id)) + "\" cy=\"" + svg::fmt("%.1f", py(id)) +
         "\" r=\"2.5\" fill=\"#246\"/>\n";
  if (n <= 64)
    for (std::uint32_t id = 0; id < n; ++id)
      s += "<text x=\"" + svg::fmt("%.1f", px(id)) + "\" y=\"" + svg::fmt("%.1f", height - 6) +
           "\" font-size=\"9\" text-anchor=\"middle\">" + std::to_string(id) + "</text>\n";
  return s + "</svg>\n";
}

namespace {

std::string depth_plot(const LengthCharacterization& r) {
  const auto depths = r.tree->leaf_depths();
  const double top = *std::max_element(depths.begin(), depths.end());
  svg::Plot plot(520, 260,
                 svg::Axis{0, std::max(1.0, static_cast<double>(r.n - 1)), false, "leaf (0: the initial value)"},
                 svg::Axis{0, std::max(1.0, top + 1), false, "depth (roundings on its path)"},
                 "leaf depth against position, n = " + std::to_string(r.n));
  std::vector<std::pair<double, double>> line;
  for (std::size_t i = 0; i < depths.size(); ++i) line.emplace_back(static_cast<double>(i), depths[i]);
  plot.polyline(line, "#246");
  if (r.n <= 300)
    for (const auto& [i, d] : line) plot.circle(i, d, "#246", false);
  return plot.svg();
}

}  // namespace

std::string characterization_html(const std::vector<BackendCharacterization>& all) {
  auto escape = [](std::string_view t) { return xml_escape(t); };
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>accucheck "
      "characterize</title>\n<style>\n"
      "body{font-family:sans-serif;margin:24px;color:#222;max-width:1500px}table{border-collapse:collapse;font-size:"
      "13px;"
      "margin:8px 0}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left}th{background:#f3f3f3}"
      "td.num{text-align:right;font-variant-numeric:tabular-nums}tr.bad td{background:#fde2e2}"
      "code{word-break:break-all}td.bound{max-width:480px}"
      ".backend{border-top:1px solid #ddd;padding-top:8px;margin-top:16px}.plots{display:flex;flex-wrap:wrap;gap:12px;"
      "align-items:flex-start}code{background:#f5f5f5;padding:1px 4px}.meta{color:#555;font-size:13px}\n"
      "</style></head><body>\n<h1>accucheck characterize</h1>\n<p class=\"meta\">" +
      std::to_string(all.size()) +
      " backend(s). For each length n: the summation tree the pair probes reveal (leaf 0 is the initial value), the "
      "bits "
      "the running sum keeps, the rounding, flush-to-zero, the determinism observed, the bound derived from that "
      "structure and its relation to the stated bound (docs/characterize.md).</p>\n";
  for (const auto& c : all) {
    h += "<div class=\"backend\"><h2>" + escape(c.backend) + "</h2>\n<p>stated <code>" + escape(c.stated_bound) +
         "</code>, " + escape(c.stated_determinism) + "; derived <code>" +
         escape(c.derived_bound.empty() ? "(none)" : c.derived_bound) + "</code>: <b>" + std::string(name(c.relation)) +
         "</b>" + (c.relation_reason.empty() ? "" : " (" + escape(c.relation_reason) + ")") + ". " +
         std::to_string(c.calls) + " calls, " + svg::fmt("%.2f", c.seconds) + " s.</p>\n";
    h += "<table><tr><th>n</th><th>order</th><th>shape</th><th>bits</th><th>rounding</th><th>flush</"
         "th><th>determinism</th>"
         "<th>derived bound</th><th>relation</th><th>calls</th><th>seconds</th></tr>\n";
    for (const auto& r : c.lengths) {
      std::string bound = r.derived_bound.empty() ? "-" : r.derived_bound;
      if (bound.size() > 120) bound = bound.substr(0, 117) + "...";
      h += std::string(r.relation == Relation::contradicted ? "<tr class=\"bad\">" : "<tr>") + "<td class=\"num\">" +
           std::to_string(r.n) + "</td><td>" + escape(r.order) +
           (r.compensated.empty() ? "" : " (" + r.compensated + ")") + "</td><td>" + escape(r.shape) +
           "</td><td class=\"num\">" + escape(bits_text(r)) + "</td><td>" + escape(r.rounding) + "</td><td>" +
           escape(ftz_text(r)) + "</td><td>" + escape(r.determinism) + "</td><td class=\"bound\"><code>" +
           escape(bound) + "</code></td><td>" + std::string(name(r.relation)) + "</td><td class=\"num\">" +
           std::to_string(r.calls) + "</td><td class=\"num\">" + svg::fmt("%.2f", r.seconds) + "</td></tr>\n";
    }
    h += "</table>\n";
    for (const auto& r : c.lengths) {
      if (!r.tree) continue;
      h += "<h3>n = " + std::to_string(r.n) + ": " + escape(r.order) +
           (r.shape.empty() ? "" : " (" + escape(r.shape) + ")") + ", height " + std::to_string(r.tree->height()) +
           "</h3>\n<div class=\"plots\">";
      if (r.n <= 256) h += tree_svg(*r.tree);
      h += depth_plot(r) + "</div>\n";
      if (!r.relation_reason.empty()) h += "<p class=\"meta\">" + escape(r.relation_reason) + "</p>\n";
    }
    h += "</div>\n";
  }
  return h + "</body></html>\n";
}

}  // namespace accucheck::cli
