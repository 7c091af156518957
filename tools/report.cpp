#include "report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "campaign_output.h"
#include "cli.h"
#include "io/json.h"
#include "io/results.h"
#include "numerics/number_parse.h"
#include "svg_plot.h"

namespace accucheck::cli {
namespace {

// ---- plots --------------------------------------------------------------------------------------

using svg::Axis;
using svg::fmt;
using svg::Plot;

std::string escape(std::string_view text) { return xml_escape(text); }

constexpr const char* kOk = "#1f77b4";
constexpr const char* kWeak = "#9a9a9a";
constexpr const char* kBad = "#d62728";
constexpr const char* kBoundLine = "#e07b00";

const char* format_color(std::string_view storage) {
  if (storage == "f64") return "#1f77b4";
  if (storage == "f32") return "#2ca02c";
  if (storage == "f16") return "#ff7f0e";
  if (storage == "bf16") return "#9467bd";
  return "#555";
}

const char* verdict_color(const ReportSample& s) {
  if (s.violation) return kBad;
  if (s.verdict != "ok") return kWeak;
  return kOk;
}

std::string sample_title(const ReportSample& s) {
  return s.family + ": n " + fmt("%.0f", s.n) + ", error " + fmt("%.4g", s.error) + ", bound " + fmt("%.4g", s.bound) +
         ", ratio " + fmt("%.4g", s.ratio) + ", kappa " + fmt("%.4g", s.kappa) + ", " + s.verdict;
}

// Error relative to sum |x| against n, with the stated bound (relative to the same sum) as a line.
std::string error_vs_n_plot(const ReportBackend& b) {
  double max_n = 1, y_min = INFINITY, y_max = 0;
  std::size_t used = 0, zero = 0;
  for (const auto& s : b.samples) {
    if (!(s.abs_sum > 0) || !std::isfinite(s.abs_sum) || !std::isfinite(s.error)) continue;
    max_n = std::max(max_n, s.n);
    const double rel = s.error / s.abs_sum, bound_rel = s.bound / s.abs_sum;
    for (double v : {rel, bound_rel})
      if (v > 0 && std::isfinite(v)) {
        y_min = std::min(y_min, v);
        y_max = std::max(y_max, v);
      }
  }
  if (!std::isfinite(y_min)) {
    y_min = std::ldexp(1.0, -b.precision - 2);
    y_max = 1;
  }
  // Errors far below the unit roundoff (exact cancellations, tiny residues) are drawn at the
  // bottom edge rather than stretching the axis over dozens of decades.
  y_min = std::max(y_min, std::ldexp(1.0, -b.precision) * 1e-5);
  y_max = std::max(y_max, y_min * 10);
  Axis x{1, std::max(10.0, max_n * 1.6), true, "n (addends per element, the initial value included)"};
  Axis y{std::pow(10.0, std::floor(std::log10(y_min)) - 1), std::pow(10.0, std::ceil(std::log10(y_max)) + 0.3), true,
         "|error| / sum|x|"};
  Plot plot(520, 330, x, y, "error vs number of addends");
  std::map<double, double> envelope;  // n -> largest bound / sum|x| seen at that n
  for (const auto& s : b.samples) {
    if (!(s.abs_sum > 0) || !std::isfinite(s.abs_sum) || !std::isfinite(s.error)) continue;
    ++used;
    const double rel = s.error / s.abs_sum;
    const double n = std::max(1.0, s.n);
    if (rel > 0)
      plot.circle(n, std::max(rel, y.lo), verdict_color(s), rel < y.lo, s.violation ? sample_title(s) : "");
    else {
      ++zero;
      plot.circle(n, y.lo, s.violation ? kBad : kWeak, true);
    }
    const double bound_rel = s.bound / s.abs_sum;
    if (std::isfinite(bound_rel) && bound_rel > 0) envelope[n] = std::max(envelope[n], bound_rel);
  }
  std::vector<std::pair<double, double>> line(envelope.begin(), envelope.end());
  plot.polyline(line, kBoundLine, "5,3");
  std::string legend =
      line.empty() ? "no error bound line: " + b.bound + " is a rounding claim" : "dashed: stated bound " + b.bound;
  plot.text(Plot::kLeft + 6, Plot::kTop + 14, legend, "start", line.empty() ? "#333" : kBoundLine);
  plot.text(Plot::kLeft + 6, Plot::kTop + 28,
            std::to_string(used) + " sampled elements" + (zero ? ", " + std::to_string(zero) + " exact" : "") +
                " (hollow: error 0 or below the axis)");
  return plot.svg();
}

// Bits lost (log2 of the relative error in units of the storage format's unit roundoff) against
// the condition number kappa = sum|x| / |sum x|.
std::string bits_lost_plot(const ReportBackend& b) {
  const double u = std::ldexp(1.0, -std::max(1, b.precision));
  double max_kappa = 10, max_bits = b.precision;
  std::size_t skipped = 0;
  struct Point {
    double kappa, bits;
    const ReportSample* sample;
  };
  std::vector<Point> points;
  for (const auto& s : b.samples) {
    if (!std::isfinite(s.kappa) || !(s.kappa >= 1) || !(std::fabs(s.exact) > 0) || !std::isfinite(s.exact) ||
        !std::isfinite(s.error)) {
      ++skipped;
      continue;
    }
    const double rel = s.error / std::fabs(s.exact);
    const double bits = s.error > 0 ? std::max(0.0, std::log2(rel / u)) : 0.0;
    points.push_back({s.kappa, bits, &s});
    max_kappa = std::max(max_kappa, s.kappa);
    max_bits = std::max(max_bits, bits);
  }
  // kappa beyond 1e40 (near-exact cancellation) is drawn at the right edge.
  max_kappa = std::min(max_kappa, 1e40);
  Axis x{1, std::pow(10.0, std::ceil(std::log10(max_kappa)) + 0.2), true, "condition number kappa = sum|x| / |sum x|"};
  Axis y{0, std::ceil(max_bits + 1), false, "bits lost: log2(relative error / u)"};
  Plot plot(520, 330, x, y, "bits lost vs condition number");
  std::vector<std::pair<double, double>> reference;
  for (double k = 1; k <= x.hi * 1.0001; k *= 1.5) reference.push_back({k, std::min(y.hi, std::log2(k))});
  plot.polyline(reference, "#888", "2,3");
  plot.polyline({{1, static_cast<double>(b.precision)}, {x.hi, static_cast<double>(b.precision)}}, kBad, "1,3");
  for (const auto& p : points)
    plot.circle(p.kappa, p.bits, verdict_color(*p.sample), false, p.sample->violation ? sample_title(*p.sample) : "");
  plot.text(Plot::kLeft + 6, Plot::kTop + 14,
            "dotted grey: log2(kappa); dotted red: all " + std::to_string(b.precision) + " bits of " + b.storage);
  if (skipped)
    plot.text(Plot::kLeft + 6, Plot::kTop + 28,
              std::to_string(skipped) + " samples with sum 0 or non-finite values not shown");
  return plot.svg();
}

// error/bound of every sample, one row per generator family, coloured by storage format.
std::string family_plot(const ReportData& data, const std::vector<std::string>& families) {
  double max_ratio = 2, min_ratio = INFINITY;
  for (const auto& b : data.backends)
    for (const auto& s : b.samples)
      if (std::isfinite(s.ratio) && s.ratio > 0) {
        max_ratio = std::max(max_ratio, s.ratio);
        min_ratio = std::min(min_ratio, s.ratio);
      }
  if (!std::isfinite(min_ratio)) min_ratio = 1e-3;
  const double row = 24;
  const double height = Plot::kTop + Plot::kBottom + row * std::max<std::size_t>(1, families.size());
  Axis x{std::max(1e-12, std::pow(10.0, std::floor(std::log10(min_ratio)))),
         std::pow(10.0, std::ceil(std::log10(max_ratio * 1.5))), true, "error / stated bound (above 1: violated)"};
  Axis y{0, static_cast<double>(std::max<std::size_t>(1, families.size())), false, "", false};
  const double left = 150;
  // The family names need a wider left margin than the plot class gives: draw into a group
  // shifted right.
  const double width = 1000;
  Plot plot(width - left + Plot::kLeft, height, x, y, "error/bound by generator family");
  std::size_t index = 0;
  for (std::size_t f = 0; f < families.size(); ++f) {
    const double centre = Plot::kTop + row * (static_cast<double>(f) + 0.5);
    for (const auto& b : data.backends)
      for (const auto& s : b.samples) {
        if (s.family != families[f] || std::isnan(s.ratio)) continue;
        const double jitter = (static_cast<double>((index++ * 2654435761u) % 1000) / 1000.0 - 0.5) * (row - 8);
        const bool zero = !(s.ratio > 0);
        plot.circle_px(plot.px(zero ? x.lo : s.ratio), centre + jitter, s.violation ? kBad : format_color(b.storage),
                       zero, s.violation ? b.name + " " + sample_title(s) : "");
      }
  }
  plot.raw("<line x1=\"" + fmt("%.1f", plot.px(1)) + "\" y1=\"" + fmt("%.1f", Plot::kTop) + "\" x2=\"" +
           fmt("%.1f", plot.px(1)) + "\" y2=\"" + fmt("%.1f", height - Plot::kBottom) + "\" stroke=\"" + kBad +
           "\" stroke-width=\"1.5\"/>");
  std::string svg = plot.svg();
  // Family labels in the left margin: re-wrap the plot in an outer SVG with room for them.
  std::string labels;
  for (std::size_t f = 0; f < families.size(); ++f)
    labels += "<text x=\"" + fmt("%.1f", left - 6) + "\" y=\"" +
              fmt("%.1f", Plot::kTop + row * (static_cast<double>(f) + 0.5) + 4) + "\" text-anchor=\"end\">" +
              escape(families[f]) + "</text>";
  std::string legend;
  double lx = left + Plot::kLeft;
  for (const char* f : {"f64", "f32", "f16", "bf16"}) {
    legend += "<circle cx=\"" + fmt("%.1f", lx) + "\" cy=\"" + fmt("%.1f", height - 6) + "\" r=\"3\" fill=\"" +
              format_color(f) + "\"/>";
    legend += "<text x=\"" + fmt("%.1f", lx + 6) + "\" y=\"" + fmt("%.1f", height - 2) + "\">" + f + "</text>";
    lx += 50;
  }
  legend +=
      "<circle cx=\"" + fmt("%.1f", lx) + "\" cy=\"" + fmt("%.1f", height - 6) + "\" r=\"3\" fill=\"" + kBad + "\"/>";
  legend += "<text x=\"" + fmt("%.1f", lx + 6) + "\" y=\"" + fmt("%.1f", height - 2) + "\">violation</text>";
  legend += "<text x=\"" + fmt("%.1f", lx + 80) + "\" y=\"" + fmt("%.1f", height - 2) +
            "\">hollow at the left: error 0</text>";
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width) + "\" height=\"" +
         fmt("%.0f", height + 12) + "\" font-family=\"sans-serif\" font-size=\"11\"><g transform=\"translate(" +
         fmt("%.0f", left - Plot::kLeft) + ",0)\">" + svg + "</g>" + labels + "<g transform=\"translate(0,10)\">" +
         legend + "</g></svg>";
}

const char* ratio_cell_colour(double ratio) {
  if (ratio > 1) return "#f4a6a6";
  if (ratio >= 0.5) return "#ffe08a";
  if (ratio > 0) return "#d8f0d0";
  return "#eeeeee";
}

std::string heatmap(const ReportData& data, const std::vector<std::string>& families) {
  std::string h = "<table class=\"heat\"><tr><th>backend</th>";
  for (const auto& f : families) h += "<th>" + escape(f) + "</th>";
  h += "</tr>";
  for (const auto& b : data.backends) {
    h += "<tr><td>" + escape(b.name) + "</td>";
    for (const auto& f : families) {
      double worst = -1;
      bool violated = false;
      for (const auto& s : b.samples)
        if (s.family == f) {
          if (std::isfinite(s.ratio))
            worst = std::max(worst, s.ratio);
          else
            worst = std::max(worst, 0.0);
          violated = violated || s.violation;
        }
      if (worst < 0)
        h += "<td></td>";
      else
        h += "<td style=\"background:" + std::string(violated ? "#f4a6a6" : ratio_cell_colour(worst)) + "\">" +
             (violated ? "&#10007; " : "") + fmt("%.3g", worst) + "</td>";
    }
    h += "</tr>";
  }
  return h + "</table>";
}

std::string anchor(const std::string& name) {
  std::string a = "b-";
  for (char c : name) a += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return a;
}

std::string violation_text(const ReportBackend& b) {
  std::string t;
  for (const auto& [verdict, count] : b.violations)
    t += (t.empty() ? "" : ", ") + verdict + " " + std::to_string(count);
  return t.empty() ? "0" : t;
}

}  // namespace

void add_results(ReportData& data, std::string_view json_text, const std::string& source) {
  try {
    add_results(data, results_from_json(json_text, source), source);
  } catch (const ResultsError& e) {
    throw UsageError(e.what());
  }
}

void add_results(ReportData& data, const CampaignResults& results, const std::string& source) {
  ReportInput input;
  input.source = source;
  input.tool = results.tool;
  input.seed = results.seed;
  input.cases = results.cases_per_stream;
  input.seconds = results.seconds;
  input.violations = results.violation_count();
  for (const BackendResults& r : results.backends) {
    ReportBackend b;
    b.name = r.name;
    b.storage = std::string(name(r.storage));
    b.precision = traits(r.storage).precision;
    b.bound = r.bound;
    b.cases = r.cases;
    b.max_ratio = r.max_ratio;
    b.device = r.device;
    b.accumulation = r.accumulation;
    b.determinism = r.determinism;
    b.origin = r.origin;
    b.addends = r.addends;
    b.determinism_checks = r.determinism_checks;
    b.max_ulps = r.max_ulps;
    b.seconds_to_ratio_0_9 = r.seconds_to_ratio_0_9;
    b.seconds_to_ratio_0_99 = r.seconds_to_ratio_0_99;
    b.worst_case = r.worst_case;
    for (const auto& [verdict, count] : r.violations) b.violations[std::string(name(verdict))] += count;
    b.findings = r.findings;
    b.failures = r.failures;
    for (const ResultSample& rs : r.samples) {
      ReportSample s;
      s.family = rs.family;
      s.n = static_cast<double>(rs.n);
      s.error = rs.error;
      s.bound = rs.bound;
      s.ratio = rs.ratio;
      s.kappa = rs.kappa;
      s.exact = rs.exact;
      s.abs_sum = rs.abs_sum;
      s.verdict = std::string(name(rs.verdict));
      s.violation = is_violation(rs.verdict);
      b.samples.push_back(std::move(s));
    }
    // Merge with a backend of the same name from an earlier input.
    auto same = std::find_if(data.backends.begin(), data.backends.end(),
                             [&](const ReportBackend& o) { return o.name == b.name; });
    if (same == data.backends.end()) {
      data.backends.push_back(std::move(b));
      continue;
    }
    same->cases += b.cases;
    same->addends += b.addends;
    same->determinism_checks += b.determinism_checks;
    same->max_ratio = std::max(same->max_ratio, b.max_ratio);
    same->max_ulps = std::max(same->max_ulps, b.max_ulps);
    if (!same->seconds_to_ratio_0_9) same->seconds_to_ratio_0_9 = b.seconds_to_ratio_0_9;
    if (!same->seconds_to_ratio_0_99) same->seconds_to_ratio_0_99 = b.seconds_to_ratio_0_99;
    if (same->worst_case.empty()) same->worst_case = b.worst_case;
    for (const auto& [verdict, count] : b.violations) same->violations[verdict] += count;
    same->findings.insert(same->findings.end(), b.findings.begin(), b.findings.end());
    same->failures.insert(same->failures.end(), b.failures.begin(), b.failures.end());
    same->samples.insert(same->samples.end(), b.samples.begin(), b.samples.end());
  }
  data.inputs.push_back(input);
}

std::string render_report(const ReportData& data) {
  std::set<std::string> family_set;
  std::size_t total_violations = 0;
  for (const auto& b : data.backends) {
    for (const auto& s : b.samples) family_set.insert(s.family);
    for (const auto& [verdict, count] : b.violations) total_violations += count;
  }
  const std::vector<std::string> families(family_set.begin(), family_set.end());

  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>accucheck report</title>\n<style>\n";
  h += "body{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}h1{margin-bottom:4px}"
       "table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ccc;padding:3px "
       "7px;text-align:left}"
       "th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}tr.bad td{background:#fde2e2}"
       ".heat td{text-align:right;font-size:11px}.heat th{font-size:11px}.heat td:first-child{text-align:left}"
       ".backend{border-top:1px solid #ddd;padding-top:8px;margin-top:16px}.plots{display:flex;flex-wrap:wrap;gap:12px}"
       ".meta{color:#555;font-size:13px}code{background:#f5f5f5;padding:1px 4px}.ok{color:#2a7a2a}.bad{color:#c00}\n";
  h += "</style></head><body>\n<h1>accucheck report</h1>\n";
  h += "<p class=\"meta\">" + std::to_string(data.backends.size()) + " backends from " +
       std::to_string(data.inputs.size()) + " result file(s): ";
  for (std::size_t i = 0; i < data.inputs.size(); ++i) {
    const auto& in = data.inputs[i];
    h += (i ? "; " : "") + std::string("<code>") + escape(in.source) + "</code> (" + escape(in.tool) + ", seed " +
         std::to_string(in.seed) + ", " + std::to_string(in.cases) + " cases" +
         (in.tool == "accucheck check" ? " per stream" : "") + ", " + fmt("%.1f", in.seconds) + " s)";
  }
  h += ".</p>\n<p>" +
       (total_violations ? "<b class=\"bad\">" + std::to_string(total_violations) + " violations</b>"
                         : std::string("<b class=\"ok\">no violations</b>")) +
       ": every sampled element was judged against the bound its backend states (BOUNDS.md), evaluated rigorously on "
       "that "
       "element's addends.</p>\n";

  h += "<h2>Summary</h2>\n<table><tr><th>backend</th><th>storage</th><th>acc</th><th>stated "
       "bound</th><th>determinism</th>"
       "<th>cases</th><th>violations</th><th>max err/bound</th><th>max ulps</th><th>origin</th></tr>\n";
  for (const auto& b : data.backends) {
    h += std::string(b.violations.empty() ? "<tr>" : "<tr class=\"bad\">") + "<td><a href=\"#" + anchor(b.name) +
         "\">" + escape(b.name) + "</a></td><td>" + escape(b.storage) + "</td><td>" + escape(b.accumulation) +
         "</td><td><code>" + escape(b.bound) + "</code></td><td>" + escape(b.determinism) +
         (b.determinism_checks ? " (checked " + std::to_string(b.determinism_checks) + "x)" : "") +
         "</td><td class=\"num\">" + std::to_string(b.cases) + "</td><td>" + escape(violation_text(b)) +
         "</td><td class=\"num\">" + fmt("%.4g", b.max_ratio) + "</td><td class=\"num\">" + ulps_text(b.max_ulps) +
         "</td><td>" +
         escape(origin_kind(b.origin) == "built-in" ? std::string("built-in")
                                                    : std::string(origin_kind(b.origin)) + " " + b.origin) +
         "</td></tr>\n";
  }
  h += "</table>\n";
  // --maximize: how fast the climb reached the bound, and the worst cases.
  const bool climbed = std::any_of(data.backends.begin(), data.backends.end(), [](const ReportBackend& b) {
    return b.seconds_to_ratio_0_9 || !b.worst_case.empty();
  });
  if (climbed) {
    auto seconds = [](const std::optional<double>& s) { return s ? fmt("%.1f", *s) : std::string("not reached"); };
    h += "<h2>Climbing toward the bound (--maximize)</h2>\n<table><tr><th>backend</th><th>max err/bound</th>"
         "<th>seconds to 0.9</th><th>seconds to 0.99</th><th>worst case</th></tr>\n";
    for (const auto& b : data.backends)
      h += "<tr><td>" + escape(b.name) + "</td><td class=\"num\">" + fmt("%.4g", b.max_ratio) +
           "</td><td class=\"num\">" + seconds(b.seconds_to_ratio_0_9) + "</td><td class=\"num\">" +
           seconds(b.seconds_to_ratio_0_99) + "</td><td>" +
           (b.worst_case.empty() ? std::string() : "<code>accucheck replay " + escape(b.worst_case) + "</code>") +
           "</td></tr>\n";
    h += "</table>\n";
  }
  bool any_findings = false;
  for (const auto& b : data.backends) any_findings = any_findings || !b.findings.empty() || !b.failures.empty();
  if (any_findings) {
    h += "<h2>Findings</h2>\n<ul>\n";
    for (const auto& b : data.backends) {
      const std::string plugin = replay_options(b.name, b.origin, b.bound);
      for (const auto& f : b.findings)
        h += "<li><b>" + escape(b.name) + "</b>: <code>accucheck replay " + escape(f + plugin) + "</code></li>\n";
      for (const auto& f : b.failures) h += "<li><b>" + escape(b.name) + "</b> failed: " + escape(f) + "</li>\n";
    }
    h += "</ul>\n";
  }

  h += "<h2>Error/bound by generator family</h2>\n<p class=\"meta\">Every sampled element of every backend: its error "
       "divided "
       "by its stated bound (log scale; the red line is 1, the bound itself). Adversarial families should push the "
       "ratio toward 1; "
       "a point right of the line is a violation. Points at the left edge (hollow) have error 0; rounding claims "
       "(correctly_rounded, faithful, ulps) are checked against RNE/RD/RU of the sum, not by a ratio.</p>\n";
  h += family_plot(data, families) + "\n";
  h += "<p class=\"meta\">Largest error/bound per backend and family (&#10007;: a violation in that family).</p>\n"
       "<div style=\"overflow-x:auto\">" +
       heatmap(data, families) + "</div>\n";

  h += "<h2>Per backend</h2>\n<p class=\"meta\">Left: |error| / sum|x| against the number of addends n (log-log), each "
       "point one "
       "sampled element (red: violation, grey: bound vacuous or precondition not met); the dashed line is the stated "
       "bound over "
       "the same sum|x| (its largest value at each n). Right: bits lost, log2(|error| / |S| / u) with u the storage "
       "format's "
       "unit roundoff, against the condition number kappa.</p>\n";
  for (const auto& b : data.backends) {
    h += "<section class=\"backend\" id=\"" + anchor(b.name) + "\"><h3>" + escape(b.name) +
         "</h3>\n<p class=\"meta\">" + escape(b.storage) + " storage, " + escape(b.accumulation) +
         " accumulation, stated bound <code>" + escape(b.bound) + "</code>, " + escape(b.determinism) + "; " +
         std::to_string(b.cases) + " cases, " + std::to_string(b.samples.size()) +
         " sampled elements, violations: " + escape(violation_text(b)) + "</p>\n<div class=\"plots\">" +
         error_vs_n_plot(b) + bits_lost_plot(b) + "</div></section>\n";
  }
  h += "<p class=\"meta\">Generated by accucheck report. Self-contained: no scripts, no external "
       "resources.</p>\n</body></html>\n";
  return h;
}

}  // namespace accucheck::cli
