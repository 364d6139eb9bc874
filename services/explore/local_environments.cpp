#include "services/explore/local_environments.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace limbic::explore {

double EnvironmentSide(const ExplorerProfile& profile, double resolution, int lanes) {
  if (!(profile.sensing_range > 0) || !(profile.processing_cells > 0) || !(resolution > 0) || lanes < 1) {
    throw std::invalid_argument("explore: sensing range, processing budget, resolution and lanes must be positive (" +
                                profile.robot + ")");
  }
  const double by_sensing = lanes * 2.0 * profile.sensing_range;
  const double by_processing = resolution * std::sqrt(profile.processing_cells);
  return std::max(resolution, std::min(by_sensing, by_processing));
}

Partition::Partition(const GridSpec& grid, int tile_cells) : grid_(grid), tile_cells_(tile_cells) {
  if (grid.width < 1 || grid.height < 1) throw std::invalid_argument("explore: partition of an empty grid");
  if (tile_cells < 1) throw std::invalid_argument("explore: tiles must be at least one cell a side");
  tiles_x_ = (grid.width + tile_cells - 1) / tile_cells;
  tiles_y_ = (grid.height + tile_cells - 1) / tile_cells;
  for (int ty = 0; ty < tiles_y_; ++ty) {
    for (int tx = 0; tx < tiles_x_; ++tx) {
      Tile t;
      t.id = static_cast<int>(tiles_.size());
      t.tx = tx;
      t.ty = ty;
      t.x0 = tx * tile_cells;
      t.y0 = ty * tile_cells;
      t.x1 = std::min(grid.width, t.x0 + tile_cells);
      t.y1 = std::min(grid.height, t.y0 + tile_cells);
      t.centre = grid.origin + Vec2(0.5 * (t.x0 + t.x1), 0.5 * (t.y0 + t.y1)) * grid.resolution;
      tiles_.push_back(t);
    }
  }
}

Partition Partition::ForTeam(const GridSpec& grid, std::span<const ExplorerProfile> team, int lanes) {
  if (team.empty()) throw std::invalid_argument("explore: a partition needs at least one explorer");
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& p : team) smallest = std::min(smallest, EnvironmentSide(p, grid.resolution, lanes));
  return Partition(grid, std::max(1, static_cast<int>(std::ceil(smallest / grid.resolution - 1e-9))));
}

int Partition::TileOf(const Cell& c) const {
  if (!grid_.Contains(c)) return -1;
  return (c.iy / tile_cells_) * tiles_x_ + c.ix / tile_cells_;
}

std::vector<int> Partition::Neighbours(int id) const {
  const Tile& t = tile(id);
  std::vector<int> out;
  if (t.tx + 1 < tiles_x_) out.push_back(id + 1);
  if (t.tx > 0) out.push_back(id - 1);
  if (t.ty + 1 < tiles_y_) out.push_back(id + tiles_x_);
  if (t.ty > 0) out.push_back(id - tiles_x_);
  return out;
}

BlockShape Partition::ShapeFor(const ExplorerProfile& profile, int lanes) const {
  const double side = EnvironmentSide(profile, grid_.resolution, lanes);
  const double tile_side = tile_cells_ * grid_.resolution;
  const int n = std::max(1, static_cast<int>(std::lround(side * side / (tile_side * tile_side))));
  BlockShape s;
  s.bx = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)) - 1e-9));
  s.by = std::max(1, static_cast<int>(std::lround(static_cast<double>(n) / s.bx)));
  s.bx = std::min(s.bx, tiles_x_);
  s.by = std::min(s.by, tiles_y_);
  return s;
}

std::vector<int> Partition::BlockOf(int id, const BlockShape& shape) const {
  const Tile& t = tile(id);
  const int bx0 = (t.tx / shape.bx) * shape.bx;
  const int by0 = (t.ty / shape.by) * shape.by;
  std::vector<int> out;
  for (int ty = by0; ty < std::min(tiles_y_, by0 + shape.by); ++ty) {
    for (int tx = bx0; tx < std::min(tiles_x_, bx0 + shape.bx); ++tx) out.push_back(ty * tiles_x_ + tx);
  }
  return out;
}

mapper::GridMaps MergeMaps(std::span<const mapper::GridMaps* const> maps) {
  if (maps.empty() || maps[0] == nullptr) throw std::invalid_argument("explore: no maps to merge");
  mapper::GridMaps merged = *maps[0];
  for (size_t k = 1; k < maps.size(); ++k) {
    if (maps[k] == nullptr || !(maps[k]->spec == merged.spec)) {
      throw std::invalid_argument("explore: maps to merge cover different grids");
    }
    const mapper::GridMaps& m = *maps[k];
    for (int i = 0; i < merged.CellCount(); ++i) {
      if (m.p_e[i] > merged.p_e[i]) {
        merged.p_e[i] = m.p_e[i];
        merged.p_o[i] = m.p_o[i];
      }
      merged.danger[i] = std::max(merged.danger[i], m.danger[i]);
    }
  }
  return merged;
}

namespace {
bool Explored(const mapper::GridMaps& m, int i, const KnowledgeOptions& o) { return m.p_e[i] >= o.explored_threshold; }
bool KnownObstacle(const mapper::GridMaps& m, int i, const KnowledgeOptions& o) {
  return Explored(m, i, o) && m.p_o[i] >= o.occupied_threshold;
}
}  // namespace

double ExploredFraction(const Tile& tile, const mapper::GridMaps& maps, const KnowledgeOptions& options) {
  int open = 0, explored = 0;
  for (int y = tile.y0; y < tile.y1; ++y) {
    for (int x = tile.x0; x < tile.x1; ++x) {
      const int i = maps.spec.Index({x, y});
      if (KnownObstacle(maps, i, options)) continue;
      ++open;
      explored += Explored(maps, i, options) ? 1 : 0;
    }
  }
  return open == 0 ? 1.0 : static_cast<double>(explored) / open;
}

double Coverage(const mapper::GridMaps& maps, const std::vector<bool>& free_mask, const KnowledgeOptions& options) {
  if (static_cast<int>(free_mask.size()) != maps.CellCount()) {
    throw std::invalid_argument("explore: free-cell mask of " + std::to_string(free_mask.size()) +
                                " cells for a map of " + std::to_string(maps.CellCount()));
  }
  int free = 0, explored = 0;
  for (int i = 0; i < maps.CellCount(); ++i) {
    if (!free_mask[i]) continue;
    ++free;
    explored += Explored(maps, i, options) ? 1 : 0;
  }
  return free == 0 ? 0.0 : static_cast<double>(explored) / free;
}

}  // namespace limbic::explore
