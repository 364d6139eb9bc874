#include "services/explore/bidding.hpp"

#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>

namespace limbic::explore {
namespace {

constexpr double kUnreached = std::numeric_limits<double>::infinity();

struct DijkstraEntry {
  double g;
  int node;
  bool operator>(const DijkstraEntry& o) const { return g != o.g ? g > o.g : node > o.node; }
};

int TileCount(const CoarseGraph& graph) {
  const int n = graph.tiles_x * graph.tiles_y;
  if (graph.tiles_x < 0 || graph.tiles_y < 0 || graph.centres.size() != static_cast<size_t>(n) ||
      graph.multipliers.size() != static_cast<size_t>(n)) {
    throw std::invalid_argument("coarse graph: centres and multipliers must be one per tile");
  }
  return n;
}

}  // namespace

std::vector<double> CoarseCosts(const CoarseGraph& graph, int from) {
  const int n = TileCount(graph);
  std::vector<double> g(n, kUnreached);
  if (from < 0 || from >= n) return g;
  std::vector<bool> closed(n, false);
  std::priority_queue<DijkstraEntry, std::vector<DijkstraEntry>, std::greater<DijkstraEntry>> open;
  g[from] = 0.0;
  open.push({0.0, from});
  while (!open.empty()) {
    const DijkstraEntry e = open.top();
    open.pop();
    if (closed[e.node]) continue;
    closed[e.node] = true;
    const int tx = e.node % graph.tiles_x, ty = e.node / graph.tiles_x;
    int neighbours[4];
    int count = 0;  // the order of Partition::Neighbours
    if (tx + 1 < graph.tiles_x) neighbours[count++] = e.node + 1;
    if (tx > 0) neighbours[count++] = e.node - 1;
    if (ty + 1 < graph.tiles_y) neighbours[count++] = e.node + graph.tiles_x;
    if (ty > 0) neighbours[count++] = e.node - graph.tiles_x;
    for (int k = 0; k < count; ++k) {
      const int m = neighbours[k];
      if (closed[m] || !(graph.multipliers[m] > 0)) continue;
      const double step = (graph.centres[m] - graph.centres[e.node]).norm() * graph.multipliers[m];
      if (g[e.node] + step < g[m]) {
        g[m] = g[e.node] + step;
        open.push({g[m], m});
      }
    }
  }
  return g;
}

int TileAt(const BidCall& call, const Vec2& position) {
  const geometry::Cell c = call.grid.CellOf(position);
  if (!call.grid.Contains(c) || call.tile_cells < 1) return -1;
  const int tile = (c.iy / call.tile_cells) * call.graph.tiles_x + c.ix / call.tile_cells;
  return tile < call.graph.tiles_x * call.graph.tiles_y ? tile : -1;
}

std::optional<Bid> RobotBidder::Answer(const BidCall& call, const std::optional<Vec2>& position) {
  TileCount(call.graph);  // throws for a malformed call
  if (!Unanswered(call.caller, call.round) || !position) return std::nullopt;
  const int from = TileAt(call, *position);
  if (from < 0) return std::nullopt;
  caller_ = call.caller;
  last_round_ = call.round;
  return Bid{call.round, from, CoarseCosts(call.graph, from)};
}

BidRound::BidRound(int robots) : bids_(robots), invited_(robots, false) {
  if (robots < 1) throw std::invalid_argument("bid round: no robots");
  counters_.missing_by_robot.assign(robots, 0);
}

void BidRound::Open(int64_t round, std::vector<bool> invited, int tiles, int64_t deadline_tick) {
  if (round <= round_) throw std::invalid_argument("bid round: rounds must increase");
  if (invited.size() != bids_.size()) throw std::invalid_argument("bid round: one invitation flag per robot");
  if (tiles < 1) throw std::invalid_argument("bid round: no tiles");
  round_ = round;
  invited_ = std::move(invited);
  tiles_ = tiles;
  deadline_tick_ = deadline_tick;
  open_ = true;
  for (auto& b : bids_) b.reset();
  ++counters_.rounds;
}

bool BidRound::Offer(int robot, const Bid& bid, int64_t tick) {
  if (robot < 0 || robot >= static_cast<int>(bids_.size()) || !open_ || bid.round != round_ || !invited_[robot] ||
      bids_[robot]) {
    ++counters_.stale;
    return false;
  }
  if (tick > deadline_tick_) {
    ++counters_.late;
    return false;
  }
  bool good = bid.costs.size() == static_cast<size_t>(tiles_);
  for (size_t i = 0; good && i < bid.costs.size(); ++i) good = bid.costs[i] >= 0;  // NaN fails; +∞ is "cannot"
  if (!good) {
    ++counters_.malformed;
    return false;
  }
  bids_[robot] = bid.costs;
  ++counters_.received;
  return true;
}

bool BidRound::Complete(int64_t tick) const {
  if (!open_) return false;
  if (tick > deadline_tick_) return true;
  for (size_t r = 0; r < bids_.size(); ++r) {
    if (invited_[r] && !bids_[r]) return false;
  }
  return true;
}

std::vector<std::optional<std::vector<double>>> BidRound::Close() {
  std::vector<std::optional<std::vector<double>>> out(bids_.size());
  if (!open_) return out;
  for (size_t r = 0; r < bids_.size(); ++r) {
    if (invited_[r] && !bids_[r]) {
      ++counters_.missing;
      ++counters_.missing_by_robot[r];
    }
    out[r] = std::move(bids_[r]);
    bids_[r].reset();
  }
  open_ = false;
  return out;
}

}  // namespace limbic::explore
