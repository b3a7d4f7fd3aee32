// A small SVG writer for softhat's pictures: log-log line plots (sweeps) and
// heatmaps (attention weights). Written by hand because no Debian-packaged
// C++ library writes SVG, and the few primitives needed (rect, line,
// polyline, circle, text, groups) are a page of string formatting. Output is
// standalone SVG 1.1 (XML-escaped text, explicit width/height/viewBox, no
// external resources), so it renders in browsers, rsvg-convert and inline
// in HTML alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace softhat::plot {

std::string xml_escape(std::string_view text);

class Svg {
 public:
  Svg(double width, double height);
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none",
            double stroke_width = 0, const std::string& title = "");
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            bool dashed = false);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke, double width = 1.5,
                bool dashed = false);
  void circle(double cx, double cy, double r, const std::string& fill);
  // anchor: start | middle | end; rotate: degrees around (x, y).
  void text(double x, double y, std::string_view s, double size = 11, const std::string& anchor = "start",
            double rotate = 0, const std::string& fill = "#222", bool bold = false);
  std::string str() const;  // the whole document
  double width() const { return width_; }
  double height() const { return height_; }

 private:
  double width_, height_;
  std::string body_;
};

// A series of a line plot; points with non-positive or non-finite values are
// left out (log axes).
struct Series {
  std::string label;
  std::vector<double> x, y;
  std::string color = "#1f77b4";
  bool dashed = false;
  bool markers = true;
};

// A log-log plot with decade grid lines, axis labels and a legend.
std::string loglog_plot(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series, double width = 640, double height = 420);

// A heatmap cell colour for a weight in [0, 1] (white to dark blue).
std::string weight_colour(double w);

}  // namespace softhat::plot
