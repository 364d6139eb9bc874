#pragma once
// Implementation of TraverseCells (template, so it lives in a header).
#include <limits>

namespace limbic::geometry {

template <typename Visit>
void TraverseCells(const GridSpec& grid, const Vec2& a, const Vec2& b, Visit&& visit) {
  Cell cell = grid.CellOf(a);
  const Cell last = grid.CellOf(b);
  const Vec2 d = b - a;
  const int step_x = d.x() > 0 ? 1 : (d.x() < 0 ? -1 : 0);
  const int step_y = d.y() > 0 ? 1 : (d.y() < 0 ? -1 : 0);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double r = grid.resolution;
  auto boundary = [&](double p, double o, int c, int step) { return o + (c + (step > 0 ? 1 : 0)) * r - p; };
  double t_max_x = step_x != 0 ? boundary(a.x(), grid.origin.x(), cell.ix, step_x) / d.x() : kInf;
  double t_max_y = step_y != 0 ? boundary(a.y(), grid.origin.y(), cell.iy, step_y) / d.y() : kInf;
  const double t_delta_x = step_x != 0 ? r / std::abs(d.x()) : kInf;
  const double t_delta_y = step_y != 0 ? r / std::abs(d.y()) : kInf;
  // Bounded by the Manhattan cell distance, so a degenerate input cannot loop forever.
  int remaining = std::abs(last.ix - cell.ix) + std::abs(last.iy - cell.iy) + 1;
  while (remaining-- > 0) {
    if (grid.Contains(cell)) visit(cell);
    if (cell == last) break;
    if (t_max_x < t_max_y) {
      cell.ix += step_x;
      t_max_x += t_delta_x;
    } else {
      cell.iy += step_y;
      t_max_y += t_delta_y;
    }
  }
}

}  // namespace limbic::geometry
