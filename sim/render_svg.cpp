#include "sim/render_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/markup/escape.hpp"

namespace limbic::sim {
namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

const char* FillFor(const WorldObject& o) {
  switch (o.property) {
    case ObjectProperty::kLimitedVisibility:
      return "#2ca02c";  // green: invisible to the IR sensors
    case ObjectProperty::kFloor:
      return "#8c564b";
    case ObjectProperty::kMoveable:
      return "#9467bd";
    case ObjectProperty::kDynamic:
      return "#17becf";
    case ObjectProperty::kStatic:
      break;
  }
  return o.kind == ObjectKind::kWall ? "#222222" : "#5a6b7d";
}

}  // namespace

std::string RenderSvg(const Environment& env, const SvgOptions& opt) {
  const double s = opt.pixels_per_metre;
  const double m = opt.margin_px;
  const double title_h = opt.title.empty() ? 0.0 : 24.0;
  const double legend_h = opt.legend ? 56.0 : 0.0;
  const double map_w = env.width * s, map_h = env.height * s;
  const double total_w = map_w + 2 * m;
  const double total_h = map_h + 2 * m + title_h + legend_h;
  // World (x, y) with y up → SVG pixels with y down.
  auto px = [&](double x) { return m + x * s; };
  auto py = [&](double y) { return m + title_h + (env.height - y) * s; };

  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Num(total_w) << "\" height=\"" << Num(total_h)
      << "\" viewBox=\"0 0 " << Num(total_w) << " " << Num(total_h) << "\" font-family=\"sans-serif\">\n";
  out << "<rect x=\"0\" y=\"0\" width=\"" << Num(total_w) << "\" height=\"" << Num(total_h) << "\" fill=\"white\"/>\n";
  if (!opt.title.empty()) {
    out << "<text x=\"" << Num(m) << "\" y=\"" << Num(m + 12) << "\" font-size=\"15\">" << markup::Escape(opt.title)
        << "</text>\n";
  }

  for (const OccupancyOverlay& occ : opt.occupancy) {
    out << "<g id=\"occupancy\" stroke=\"none\">\n";
    const double r = occ.grid.resolution;
    for (int i = 0; i < occ.grid.CellCount() && i < static_cast<int>(occ.probability.size()); ++i) {
      const double p = std::clamp(occ.probability[i], 0.0, 1.0);
      if (p < occ.min_value) continue;
      const int grey = static_cast<int>(std::lround(255.0 * (1.0 - p)));
      const geometry::Cell c = occ.grid.CellOfIndex(i);
      const double x0 = occ.grid.origin.x() + c.ix * r, y1 = occ.grid.origin.y() + (c.iy + 1) * r;
      out << "<rect x=\"" << Num(px(x0)) << "\" y=\"" << Num(py(y1)) << "\" width=\"" << Num(r * s) << "\" height=\""
          << Num(r * s) << "\" fill=\"rgb(" << grey << "," << grey << "," << grey << ")\"/>\n";
    }
    out << "</g>\n";
  }

  if (opt.block_grid) {
    out << "<g id=\"blocks\" stroke=\"#dddddd\" stroke-width=\"0.6\">\n";
    for (int i = 0; i <= env.blocks_x; ++i) {
      const double x = px(i * env.block_size);
      out << "<line x1=\"" << Num(x) << "\" y1=\"" << Num(py(0)) << "\" x2=\"" << Num(x) << "\" y2=\""
          << Num(py(env.height)) << "\"/>\n";
    }
    for (int j = 0; j <= env.blocks_y; ++j) {
      const double y = py(j * env.block_size);
      out << "<line x1=\"" << Num(px(0)) << "\" y1=\"" << Num(y) << "\" x2=\"" << Num(px(env.width)) << "\" y2=\""
          << Num(y) << "\"/>\n";
    }
    out << "</g>\n";
  }

  out << "<g id=\"objects\">\n";
  for (const WorldObject& o : env.objects) {
    out << "<polygon data-property=\"" << ObjectPropertyName(o.property) << "\" fill=\"" << FillFor(o)
        << "\" points=\"";
    for (const geometry::Vec2& v : o.vertices) out << Num(px(v.x())) << "," << Num(py(v.y())) << " ";
    out << "\"/>\n";
  }
  out << "</g>\n";

  for (const TrajectoryOverlay& t : opt.trajectories) {
    if (t.poses.empty()) continue;
    out << "<g id=\"trajectory\" stroke=\"" << t.colour
        << "\" fill=\"none\">\n<polyline stroke-width=\"1.5\" points=\"";
    for (const geometry::Pose2& p : t.poses) out << Num(px(p.x)) << "," << Num(py(p.y)) << " ";
    out << "\"/>\n";
    const int every = std::max(1, t.arrow_every);
    for (size_t i = 0; i < t.poses.size(); i += every) {
      const geometry::Pose2& p = t.poses[i];
      const double len = 0.5;  // m
      const geometry::Vec2 tip = p.Position() + len * geometry::UnitVector(p.theta);
      const geometry::Vec2 l = tip - 0.18 * geometry::UnitVector(p.theta - 0.45);
      const geometry::Vec2 r = tip - 0.18 * geometry::UnitVector(p.theta + 0.45);
      out << "<polyline stroke-width=\"1.5\" points=\"" << Num(px(p.x)) << "," << Num(py(p.y)) << " "
          << Num(px(tip.x())) << "," << Num(py(tip.y())) << " " << Num(px(l.x())) << "," << Num(py(l.y())) << " "
          << Num(px(tip.x())) << "," << Num(py(tip.y())) << " " << Num(px(r.x())) << "," << Num(py(r.y())) << "\"/>\n";
    }
    if (t.end_marker) {
      const geometry::Pose2& e = t.poses.back();
      const double h = 0.3 * s;  // half a cross of 0.6 m
      out << "<path id=\"trajectory-end\" stroke-width=\"3\" d=\"M" << Num(px(e.x) - h) << "," << Num(py(e.y) - h)
          << "l" << Num(2 * h) << "," << Num(2 * h) << "M" << Num(px(e.x) - h) << "," << Num(py(e.y) + h) << "l"
          << Num(2 * h) << "," << Num(-2 * h) << "\"/>\n";
    }
    out << "</g>\n";
  }

  out << "<g id=\"markers\" stroke=\"black\" stroke-width=\"1\">\n";
  for (const geometry::Vec2& h : env.human_starts) {
    out << "<circle cx=\"" << Num(px(h.x())) << "\" cy=\"" << Num(py(h.y())) << "\" r=\"" << Num(env.human_radius * s)
        << "\" fill=\"cyan\"/>\n";
  }
  if (opt.bodies.empty()) {
    const double robot_r = robot::RobotDescription{}.body.circumscribed_radius() * s;
    out << "<circle cx=\"" << Num(px(env.start.x())) << "\" cy=\"" << Num(py(env.start.y())) << "\" r=\""
        << Num(robot_r) << "\" fill=\"red\"/>\n";
    out << "<circle cx=\"" << Num(px(env.goal.x())) << "\" cy=\"" << Num(py(env.goal.y())) << "\" r=\"" << Num(robot_r)
        << "\" fill=\"yellow\"/>\n";
  }
  out << "</g>\n";
  if (!opt.bodies.empty()) {
    out << "<g id=\"bodies\" stroke=\"black\" stroke-width=\"1\">\n";
    for (const BodyOverlay& b : opt.bodies) {
      if (b.goal) {
        out << "<circle class=\"goal\" cx=\"" << Num(px(b.goal->x())) << "\" cy=\"" << Num(py(b.goal->y())) << "\" r=\""
            << Num(b.body.circumscribed_radius() * s) << "\" fill=\"yellow\"/>\n";
      }
      out << "<polygon class=\"body\" fill=\"" << b.colour << "\" fill-opacity=\"0.8\" points=\"";
      for (const geometry::Vec2& v : b.body.OutlineInWorld(b.pose))
        out << Num(px(v.x())) << "," << Num(py(v.y())) << " ";
      out << "\"/>\n";
      const geometry::Vec2 nose = b.pose.ToWorld(b.body.OutlinePointAt(0.0));
      out << "<line x1=\"" << Num(px(b.pose.x)) << "\" y1=\"" << Num(py(b.pose.y)) << "\" x2=\"" << Num(px(nose.x()))
          << "\" y2=\"" << Num(py(nose.y())) << "\" stroke-width=\"2\"/>\n";
      if (!b.label.empty()) {
        out << "<text x=\"" << Num(px(b.pose.x) + b.body.circumscribed_radius() * s + 3) << "\" y=\""
            << Num(py(b.pose.y) + 4) << "\" font-size=\"11\" stroke=\"none\">" << markup::Escape(b.label)
            << "</text>\n";
      }
    }
    out << "</g>\n";
  }

  const double base = m + title_h + map_h;
  if (opt.scale_bar) {
    // 2 m bar (one block) under the map's lower-left corner.
    const double y = base + 12;
    out << "<g id=\"scale\" stroke=\"black\" stroke-width=\"2\">\n<line x1=\"" << Num(px(0)) << "\" y1=\"" << Num(y)
        << "\" x2=\"" << Num(px(env.block_size)) << "\" y2=\"" << Num(y) << "\"/>\n";
    for (double x : {0.0, env.block_size}) {
      out << "<line x1=\"" << Num(px(x)) << "\" y1=\"" << Num(y - 4) << "\" x2=\"" << Num(px(x)) << "\" y2=\""
          << Num(y + 4) << "\"/>\n";
    }
    out << "<text x=\"" << Num(px(env.block_size) + 6) << "\" y=\"" << Num(y + 4)
        << "\" font-size=\"11\" stroke=\"none\">" << Num(env.block_size) << " m</text>\n</g>\n";
  }
  if (opt.legend) {
    struct Item {
      const char* label;
      const char* fill;
      bool circle;
    };
    const Item items[] = {
        {"wall", "#222222", false},    {"obstacle", "#5a6b7d", false}, {"undetectable", "#2ca02c", false},
        {"human start", "cyan", true}, {"start", "red", true},         {"goal", "yellow", true}};
    bool has_undetectable = false;
    for (const WorldObject& o : env.objects) has_undetectable |= o.property == ObjectProperty::kLimitedVisibility;
    double x = px(0);
    const double y = base + 36;
    out << "<g id=\"legend\" font-size=\"11\">\n";
    for (const Item& it : items) {
      const std::string label = it.label;
      if ((label == "undetectable" && !has_undetectable) || (label == "human start" && env.human_starts.empty())) {
        continue;
      }
      if (it.circle) {
        out << "<circle cx=\"" << Num(x + 6) << "\" cy=\"" << Num(y) << "\" r=\"6\" fill=\"" << it.fill
            << "\" stroke=\"black\"/>\n";
      } else {
        out << "<rect x=\"" << Num(x) << "\" y=\"" << Num(y - 6) << "\" width=\"12\" height=\"12\" fill=\"" << it.fill
            << "\"/>\n";
      }
      out << "<text x=\"" << Num(x + 16) << "\" y=\"" << Num(y + 4) << "\">" << it.label << "</text>\n";
      x += 16 + 7.0 * std::string(it.label).size() + 18;
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace limbic::sim
