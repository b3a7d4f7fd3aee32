#include "plot/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace softhat::plot {

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += '?';
        else out += c;
    }
  }
  return out;
}

Svg::Svg(double width, double height) : width_(width), height_(height) {}

void Svg::rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke,
               double stroke_width, const std::string& title) {
  body_ += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}" stroke="{}" stroke-width="{:.2f}")",
                       x, y, w, h, fill, stroke, stroke_width);
  if (title.empty()) {
    body_ += "/>\n";
  } else {
    body_ += fmt::format("><title>{}</title></rect>\n", xml_escape(title));
  }
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& stroke, double width, bool dashed) {
  body_ += fmt::format(R"(<line x1="{:.2f}" y1="{:.2f}" x2="{:.2f}" y2="{:.2f}" stroke="{}" stroke-width="{:.2f}"{}/>)",
                       x1, y1, x2, y2, stroke, width, dashed ? R"( stroke-dasharray="5,4")" : "");
  body_ += '\n';
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke, double width,
                   bool dashed) {
  if (points.empty()) return;
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{:.2f},{:.2f} ", x, y);
  body_ += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{:.2f}"{}/>)", pts, stroke,
                       width, dashed ? R"( stroke-dasharray="6,4")" : "");
  body_ += '\n';
}

void Svg::circle(double cx, double cy, double r, const std::string& fill) {
  body_ += fmt::format(R"(<circle cx="{:.2f}" cy="{:.2f}" r="{:.2f}" fill="{}"/>)", cx, cy, r, fill);
  body_ += '\n';
}

void Svg::text(double x, double y, std::string_view s, double size, const std::string& anchor, double rotate,
               const std::string& fill, bool bold) {
  std::string transform;
  if (rotate != 0) transform = fmt::format(" transform=\"rotate({:.1f} {:.2f} {:.2f})\"", rotate, x, y);
  body_ += fmt::format(
      R"(<text x="{:.2f}" y="{:.2f}" font-family="DejaVu Sans, Arial, sans-serif" font-size="{:.1f}" text-anchor="{}" fill="{}"{}{}>{}</text>)",
      x, y, size, anchor, fill, bold ? R"( font-weight="bold")" : "", transform, xml_escape(s));
  body_ += '\n';
}

std::string Svg::str() const {
  return fmt::format(
             R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}">)",
             width_, height_, width_, height_) +
         "\n" + fmt::format(R"(<rect x="0" y="0" width="{:.0f}" height="{:.0f}" fill="white"/>)", width_, height_) +
         "\n" + body_ + "</svg>\n";
}

std::string weight_colour(double w) {
  if (!std::isfinite(w)) w = 0;
  w = std::clamp(w, 0.0, 1.0);
  // White (255,255,255) to dark blue (8,48,107).
  const auto mix = [&](int lo, int hi) { return static_cast<int>(std::lround(hi + (lo - hi) * w)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(8, 255), mix(48, 255), mix(107, 255));
}

std::string loglog_plot(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<Series>& series, double width, double height) {
  const double left = 70, right = 190, top = 36, bottom = 52;
  const double pw = width - left - right, ph = height - top - bottom;
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  auto usable = [](double v) { return std::isfinite(v) && v > 0; };
  for (const Series& s : series) {
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!usable(s.x[i]) || !usable(s.y[i])) continue;
      xmin = std::min(xmin, s.x[i]);
      xmax = std::max(xmax, s.x[i]);
      ymin = std::min(ymin, s.y[i]);
      ymax = std::max(ymax, s.y[i]);
    }
  }
  Svg svg(width, height);
  svg.text(width / 2, 22, title, 14, "middle", 0, "#222", true);
  if (!std::isfinite(xmin)) {
    svg.text(width / 2, height / 2, "no data", 12, "middle");
    return svg.str();
  }
  const double lx0 = std::floor(std::log10(xmin)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(xmax)));
  const double ly0 = std::floor(std::log10(ymin)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(ymax)));
  auto px = [&](double x) { return left + (std::log10(x) - lx0) / (lx1 - lx0) * pw; };
  auto py = [&](double y) { return top + ph - (std::log10(y) - ly0) / (ly1 - ly0) * ph; };
  svg.rect(left, top, pw, ph, "white", "#888", 1);
  for (double d = lx0; d <= lx1 + 1e-9; d += 1) {
    const double x = left + (d - lx0) / (lx1 - lx0) * pw;
    svg.line(x, top, x, top + ph, "#ddd", 1);
    svg.text(x, top + ph + 16, fmt::format("1e{:g}", d), 10, "middle");
  }
  for (double d = ly0; d <= ly1 + 1e-9; d += 1) {
    const double y = top + ph - (d - ly0) / (ly1 - ly0) * ph;
    svg.line(left, y, left + pw, y, "#ddd", 1);
    svg.text(left - 6, y + 4, fmt::format("1e{:g}", d), 10, "end");
  }
  svg.text(left + pw / 2, height - 12, x_label, 12, "middle");
  svg.text(18, top + ph / 2, y_label, 12, "middle", -90);
  double ly = top + 10;
  for (const Series& s : series) {
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (usable(s.x[i]) && usable(s.y[i])) pts.emplace_back(px(s.x[i]), py(s.y[i]));
    }
    svg.polyline(pts, s.color, 1.8, s.dashed);
    if (s.markers) {
      for (const auto& [x, y] : pts) svg.circle(x, y, 3, s.color);
    }
    svg.line(left + pw + 12, ly, left + pw + 36, ly, s.color, 2, s.dashed);
    svg.text(left + pw + 42, ly + 4, s.label, 11);
    ly += 18;
  }
  return svg.str();
}

}  // namespace softhat::plot
