#include "services/mapper/world_raster.hpp"

namespace limbic::mapper {
namespace {

bool PointInPolygon(const geometry::Vec2& p, std::span<const geometry::Vec2> poly) {
  bool inside = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const auto& a = poly[i];
    const auto& b = poly[j];
    if ((a.y() > p.y()) != (b.y() > p.y()) && p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x()) {
      inside = !inside;
    }
  }
  return inside;
}

}  // namespace

bool PolygonOverlapsCell(const geometry::GridSpec& spec, const geometry::Cell& cell,
                         std::span<const geometry::Vec2> polygon) {
  if (polygon.size() < 3) return false;
  const double x0 = spec.origin.x() + cell.ix * spec.resolution;
  const double y0 = spec.origin.y() + cell.iy * spec.resolution;
  for (const auto& v : polygon) {
    if (v.x() >= x0 && v.x() < x0 + spec.resolution && v.y() >= y0 && v.y() < y0 + spec.resolution) return true;
  }
  constexpr int kSamples = 5;
  for (int i = 0; i < kSamples; ++i) {
    for (int j = 0; j < kSamples; ++j) {
      const geometry::Vec2 p{x0 + (i + 0.5) * spec.resolution / kSamples, y0 + (j + 0.5) * spec.resolution / kSamples};
      if (PointInPolygon(p, polygon)) return true;
    }
  }
  return false;
}

GridMaps KnownMap(const geometry::GridSpec& spec, std::span<const KnownPolygon> polygons, bool include_undetectable) {
  GridMaps maps = AllFreeMap(spec);
  for (const auto& polygon : polygons) {
    if (!polygon.detectable && !include_undetectable) continue;
    for (int iy = 0; iy < spec.height; ++iy) {
      for (int ix = 0; ix < spec.width; ++ix) {
        if (PolygonOverlapsCell(spec, {ix, iy}, polygon.vertices)) maps.p_o[spec.Index({ix, iy})] = 1.0;
      }
    }
  }
  return maps;
}

GridMaps AllFreeMap(const geometry::GridSpec& spec) {
  GridMaps maps = GridMaps::Initial(spec, 0.0);
  std::fill(maps.p_e.begin(), maps.p_e.end(), 1.0);
  return maps;
}

}  // namespace limbic::mapper
