// A small SVG toolkit for the report's plots: linear or log axes with ticks, points, lines and
// text in data or pixel coordinates, written as one <svg> element (text escaped for XML).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace accucheck::cli::svg {

// printf of one number ("%.1f"), for coordinates and labels.
std::string fmt(const char* format, double v);

struct Axis {
  double lo = 1, hi = 10;
  bool log = true;
  std::string label;
  bool ticks = true;
};

class Plot {
 public:
  static constexpr double kLeft = 62, kRight = 14, kTop = 28, kBottom = 44;

  Plot(double width, double height, Axis x, Axis y, std::string title);

  // Data coordinates to pixels (values outside the axis are clamped to its ends).
  double px(double x) const;
  double py(double y) const;

  void circle(double x, double y, const char* color, bool hollow, const std::string& title = "");
  void circle_px(double x_px, double y_px, const char* color, bool hollow, const std::string& title = "");
  void polyline(const std::vector<std::pair<double, double>>& points, const char* color, const char* dash = "");
  void text(double x_px, double y_px, const std::string& s, const char* anchor = "start", const char* color = "#333");
  void raw(const std::string& s) { body_ += s; }

  // The plot: frame, grid, tick labels, axis labels, title, then what was drawn.
  std::string svg() const;

 private:
  static double fraction(double v, const Axis& a);
  static std::vector<double> ticks(const Axis& a);

  double width_, height_;
  Axis x_, y_;
  std::string title_;
  std::string body_;
};

}  // namespace accucheck::cli::svg
