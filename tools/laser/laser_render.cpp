#include "tools/laser/laser_render.hpp"

#include <cmath>
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
  if (layers.field) {
    svg << "<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"5\" refY=\"3\" markerWidth=\"4\" "
           "markerHeight=\"4\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\" fill=\"#555\"/></marker></defs>\n";
  }
  svg << "<rect x=\"0\" y=\"0\" width=\"" << w.width << "\" height=\"" << w.height
      << "\" fill=\"white\" stroke=\"black\" stroke-width=\"2\"/>\n";
  if (w.surroundings) {
    for (const std::vector<Vec2>& outline : w.surroundings->Outlines()) {
      svg << "<polygon fill=\"#777\" points=\"";
      for (const Vec2& p : outline) svg << p.x << "," << w.height - p.y << " ";
      svg << "\"/>\n";
    }
  }
  for (const Circle& c : w.obstacles) {
    svg << "<circle cx=\"" << c.cx << "\" cy=\"" << w.height - c.cy << "\" r=\"" << c.r << "\" fill=\"#777\"/>\n";
  }
  if (const VectorField* f = layers.field) {
    const double h = w.height, c = f->cell_cm;
    for (int j = 0; j < f->ny; ++j) {
      for (int i = 0; i < f->nx; ++i) {
        if (!f->minimum[f->Index(i, j)]) continue;
        const Vec2 p = f->Centre(i, j);
        svg << "<rect x=\"" << p.x - c / 2 << "\" y=\"" << h - p.y - c / 2 << "\" width=\"" << c << "\" height=\"" << c
            << "\" fill=\"red\" fill-opacity=\"0.55\"/>\n";
      }
    }
    const double len = 0.8 * 2.0 * c;  // arrows on every second cell
    for (int j = 0; j < f->ny; j += 2) {
      for (int i = 0; i < f->nx; i += 2) {
        const double heading = f->heading_deg[f->Index(i, j)];
        if (std::isnan(heading)) continue;
        const Vec2 p = f->Centre(i, j), u = UnitVector(heading);
        const Vec2 a = p - (0.5 * len) * u, b = p + (0.5 * len) * u;
        svg << "<line x1=\"" << a.x << "\" y1=\"" << h - a.y << "\" x2=\"" << b.x << "\" y2=\"" << h - b.y
            << "\" stroke=\"#555\" stroke-width=\"1\" marker-end=\"url(#arrow)\"/>\n";
      }
    }
  }
  Polyline(svg, layers.optimal_path, w.height, "magenta", 2.0);
  Polyline(svg, layers.trajectory, w.height, "blue", 2.0);
  if (layers.map) {
    const double h = w.height;
    const auto& nodes = layers.map->nodes();
    for (const TopoNode& n : nodes) {
      for (const NodeLink& l : n.links) {
        if (l.to < n.id) continue;  // each link once
        const Vec2 b = nodes[l.to].rel;
        svg << "<line x1=\"" << n.rel.x << "\" y1=\"" << h - n.rel.y << "\" x2=\"" << b.x << "\" y2=\"" << h - b.y
            << "\" stroke=\"orange\" stroke-width=\"2\"/>\n";
      }
    }
    for (const TopoNode& n : nodes) {
      for (int k = 0; k < 8; ++k) {
        if (!n.exits[k].filled) continue;
        const Vec2 g = n.ExitPosition(k);
        const bool usable = n.ExitUsable(k, 10.0);
        svg << "<line x1=\"" << n.rel.x << "\" y1=\"" << h - n.rel.y << "\" x2=\"" << g.x << "\" y2=\"" << h - g.y
            << "\" stroke=\"" << (usable ? "green" : "#bbb") << "\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>\n";
      }
      // The node's smallest vector, centred on its middle.
      const Vec2 half = 0.5 * n.length_cm * UnitVector(n.bearing_deg);
      const Vec2 a = n.rel - half, b = n.rel + half;
      svg << "<line x1=\"" << a.x << "\" y1=\"" << h - a.y << "\" x2=\"" << b.x << "\" y2=\"" << h - b.y
          << "\" stroke=\"darkred\" stroke-width=\"1.5\"/>\n";
      svg << "<circle cx=\"" << n.rel.x << "\" cy=\"" << h - n.rel.y << "\" r=\"5\" fill=\""
          << (n.id == layers.map->current() ? "magenta" : "darkred") << "\"><title>node " << n.id << ": " << n.length_cm
          << " cm at " << n.bearing_deg << " deg, " << n.links.size() << " links, " << n.n
          << " samples</title></circle>\n";
    }
  }
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
