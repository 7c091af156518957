#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "campaign_output.h"

namespace accucheck::cli::svg {
namespace {

std::string escape(std::string_view text) { return xml_escape(text); }

std::string tick_label(double v) {
  if (v == 0) return "0";
  const double e = std::log10(std::fabs(v));
  if (std::fabs(e - std::round(e)) < 1e-9 && (e < -2 || e > 3)) return "1e" + fmt("%.0f", e);
  return fmt("%g", v);
}

}  // namespace

std::string fmt(const char* format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

Plot::Plot(double width, double height, Axis x, Axis y, std::string title)
    : width_(width), height_(height), x_(std::move(x)), y_(std::move(y)), title_(std::move(title)) {
  if (!(x_.hi > x_.lo)) x_.hi = x_.lo * 10 + 1;
  if (!(y_.hi > y_.lo)) y_.hi = y_.lo * 10 + 1;
}

double Plot::px(double x) const { return kLeft + fraction(x, x_) * (width_ - kLeft - kRight); }
double Plot::py(double y) const { return height_ - kBottom - fraction(y, y_) * (height_ - kTop - kBottom); }

void Plot::circle(double x, double y, const char* color, bool hollow, const std::string& title) {
  circle_px(px(x), py(y), color, hollow, title);
}

void Plot::circle_px(double x_px, double y_px, const char* color, bool hollow, const std::string& title) {
  body_ += "<circle cx=\"" + fmt("%.1f", x_px) + "\" cy=\"" + fmt("%.1f", y_px) + "\" r=\"2.6\" " +
           (hollow ? std::string("fill=\"none\" stroke=\"") + color + "\"" : std::string("fill=\"") + color + "\"");
  body_ += title.empty() ? "/>" : "><title>" + escape(title) + "</title></circle>";
}

void Plot::polyline(const std::vector<std::pair<double, double>>& points, const char* color, const char* dash) {
  if (points.empty()) return;
  body_ += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"1.6\"";
  if (*dash) body_ += " stroke-dasharray=\"" + std::string(dash) + "\"";
  body_ += " points=\"";
  for (const auto& [x, y] : points) body_ += fmt("%.1f", px(x)) + "," + fmt("%.1f", py(y)) + " ";
  body_ += "\"/>";
}

void Plot::text(double x_px, double y_px, const std::string& s, const char* anchor, const char* color) {
  body_ += "<text x=\"" + fmt("%.1f", x_px) + "\" y=\"" + fmt("%.1f", y_px) + "\" text-anchor=\"" + anchor +
           "\" fill=\"" + color + "\">" + escape(s) + "</text>";
}

std::string Plot::svg() const {
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width_) + "\" height=\"" +
                  fmt("%.0f", height_) + "\" viewBox=\"0 0 " + fmt("%.0f", width_) + " " + fmt("%.0f", height_) +
                  "\" font-family=\"sans-serif\" font-size=\"11\">";
  s += "<title>" + escape(title_) + "</title>";
  s += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#fff\"/>";
  const double x0 = kLeft, x1 = width_ - kRight, y0 = kTop, y1 = height_ - kBottom;
  for (double t : ticks(x_)) {
    const double p = px(t);
    s += "<line x1=\"" + fmt("%.1f", p) + "\" y1=\"" + fmt("%.1f", y0) + "\" x2=\"" + fmt("%.1f", p) + "\" y2=\"" +
         fmt("%.1f", y1) + "\" stroke=\"#e4e4e4\"/>";
    s += "<text x=\"" + fmt("%.1f", p) + "\" y=\"" + fmt("%.1f", y1 + 14) + "\" text-anchor=\"middle\">" +
         tick_label(t) + "</text>";
  }
  for (double t : y_.ticks ? ticks(y_) : std::vector<double>{}) {
    const double p = py(t);
    s += "<line x1=\"" + fmt("%.1f", x0) + "\" y1=\"" + fmt("%.1f", p) + "\" x2=\"" + fmt("%.1f", x1) + "\" y2=\"" +
         fmt("%.1f", p) + "\" stroke=\"#e4e4e4\"/>";
    s += "<text x=\"" + fmt("%.1f", x0 - 4) + "\" y=\"" + fmt("%.1f", p + 4) + "\" text-anchor=\"end\">" +
         tick_label(t) + "</text>";
  }
  s += "<rect x=\"" + fmt("%.1f", x0) + "\" y=\"" + fmt("%.1f", y0) + "\" width=\"" + fmt("%.1f", x1 - x0) +
       "\" height=\"" + fmt("%.1f", y1 - y0) + "\" fill=\"none\" stroke=\"#888\"/>";
  s += body_;
  s += "<text x=\"" + fmt("%.1f", (x0 + x1) / 2) + "\" y=\"" + fmt("%.1f", height_ - 8) + "\" text-anchor=\"middle\">" +
       escape(x_.label) + "</text>";
  s += "<text transform=\"translate(13," + fmt("%.1f", (y0 + y1) / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
       escape(y_.label) + "</text>";
  s += "<text x=\"" + fmt("%.1f", x0) + "\" y=\"16\" font-weight=\"bold\">" + escape(title_) + "</text>";
  return s + "</svg>";
}

double Plot::fraction(double v, const Axis& a) {
  double t;
  if (a.log)
    t = (std::log10(std::max(v, a.lo)) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
  else
    t = (v - a.lo) / (a.hi - a.lo);
  return std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
}

std::vector<double> Plot::ticks(const Axis& a) {
  std::vector<double> t;
  if (a.log) {
    const int first = static_cast<int>(std::ceil(std::log10(a.lo) - 1e-9));
    const int last = static_cast<int>(std::floor(std::log10(a.hi) + 1e-9));
    const int step = std::max(1, (last - first + 7) / 8);
    for (int e = first; e <= last; e += step) t.push_back(std::pow(10.0, e));
  } else {
    const double raw = (a.hi - a.lo) / 6;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    for (double v = std::ceil(a.lo / step) * step; v <= a.hi + step * 1e-9; v += step) t.push_back(v);
  }
  return t;
}

}  // namespace accucheck::cli::svg
