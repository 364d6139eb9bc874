#include "tools/laser/laser_render.hpp"

#include <sstream>

#include "common/markup/escape.hpp"

namespace limbic::laser {
namespace {

void Polyline(std::ostringstream& svg, const std::vector<Vec2>& points, double height, const char* colour,
              double width) {
  if (points.size() < 2) return;
  svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"" << width << "\" points=\"";
  for (const Vec2& p : points) svg << p.x << "," << height - p.y << " ";
  svg << "\"/>\n";
}

}  // namespace

std::string RenderWorldSvg(const World& w, const RenderLayers& layers) {
  const double title_h = layers.title.empty() ? 0.0 : 24.0;
  std::ostringstream svg;
  svg.precision(5);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w.width << "\" height=\"" << w.height + title_h
      << "\" viewBox=\"0 " << -title_h << " " << w.width << " " << w.height + title_h << "\">\n";
  if (!layers.title.empty()) {
    svg << "<text x=\"4\" y=\"-7\" font-family=\"sans-serif\" font-size=\"14\">" << markup::Escape(layers.title)
        << "</text>\n";
  }
  svg << "<rect x=\"0\" y=\"0\" width=\"" << w.width << "\" height=\"" << w.height
      << "\" fill=\"white\" stroke=\"black\" stroke-width=\"2\"/>\n";
  for (const Circle& c : w.obstacles) {
    svg << "<circle cx=\"" << c.cx << "\" cy=\"" << w.height - c.cy << "\" r=\"" << c.r << "\" fill=\"#777\"/>\n";
  }
  Polyline(svg, layers.optimal_path, w.height, "magenta", 2.0);
  Polyline(svg, layers.trajectory, w.height, "blue", 2.0);
  if (layers.show_scan) {
    const auto& u = BeamUnitVectors();
    for (int a = 0; a < kBeams; ++a) {
      if (layers.scan[a] >= kMaxRangeCm) continue;
      const Vec2 p = layers.scan_origin + static_cast<double>(layers.scan[a]) * u[a];
      svg << "<circle cx=\"" << p.x << "\" cy=\"" << w.height - p.y << "\" r=\"1.5\" fill=\"red\"/>\n";
    }
  }
  svg << "<circle cx=\"" << w.start.x << "\" cy=\"" << w.height - w.start.y
      << "\" r=\"15\" fill=\"none\" stroke=\"green\" stroke-width=\"2\"/>\n";
  svg << "<rect x=\"" << w.goal.x - 8 << "\" y=\"" << w.height - w.goal.y - 8
      << "\" width=\"16\" height=\"16\" fill=\"none\" stroke=\"red\" stroke-width=\"2\"/>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace limbic::laser
