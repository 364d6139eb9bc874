// Bids over the bus (multi-robot spec §1: "planners negotiate and allocate local environments to explorers"). The
// task manager calls for bids; each idle explorer prices every tile with the coarse tier of the two-tier A* from
// where it believes it is and answers; the manager runs the sequential single-item auction (task_manager.hpp) over
// the bids it received.
//
// What the robot prices with (our decision, README.md): the call carries the coarse tier itself — the tiles'
// centres and multipliers (1 + W_10·mean p_o of the manager's merged map, 0 where no cell is below T_o) — a few
// bytes per tile instead of a grid. The robot's own map is partial and in its own odometry frame; the merged map is
// what the manager allocates from, and with it a robot's bid from a given position is the very number the
// manager-side auction computes (same function, same inputs), so the two bidding modes award alike.
//
// Robot side: RobotBidder answers each round once, from the robot's position estimate.
// Manager side: BidRound holds one round at a time — who was invited, the deadline, the bids received — and drops
// and counts late, stale (another round) and malformed bids.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic::explore {

using geometry::GridSpec;
using geometry::Vec2;

// The coarse tier as a graph: tiles row by row (tiles_x per row), 4-adjacent; entering tile m from n costs
// |centre_m − centre_n|·multiplier_m; a multiplier of 0 means the tile cannot be entered.
struct CoarseGraph {
  int tiles_x = 0;
  int tiles_y = 0;
  std::vector<Vec2> centres;
  std::vector<double> multipliers;
};

// Dijkstra over the graph from tile `from`: the cost to every tile, +∞ where unreachable (all +∞ for a `from`
// outside the graph). Throws std::invalid_argument for a graph whose vectors do not match tiles_x·tiles_y.
std::vector<double> CoarseCosts(const CoarseGraph& graph, int from);

// A call for bids (ExploreCall).
struct BidCall {
  // The calling manager's instance (its messages' header incarnation, random per process start; 0: unknown). A
  // restarted manager numbers its rounds from 1 again: a robot answers each round of each caller once.
  uint64_t caller = 0;
  int64_t round = 0;
  int64_t deadline_tick = 0;
  GridSpec grid;
  int tile_cells = 1;
  CoarseGraph graph;
};

// The tile a position lies in (the manager's Partition::TileAt on the same grid), -1 outside the grid.
int TileAt(const BidCall& call, const Vec2& position);

struct Bid {
  int64_t round = 0;
  int from_tile = -1;
  std::vector<double> costs;  // per tile; +∞ where it cannot get there
};

// The robot's side: one bid per round, from its position estimate. Rounds are the caller's: a call from another
// manager instance (a restarted one counts from round 1 again) is answered whatever its round.
class RobotBidder {
 public:
  // The bid for `call`, or nullopt: a round of this caller already answered, no position yet, or a position outside
  // the grid. Throws std::invalid_argument for a malformed call (its graph does not match its tile counts).
  std::optional<Bid> Answer(const BidCall& call, const std::optional<Vec2>& position);
  // Whether a call of `caller` for `round` would be answered (cheap: before converting the message).
  bool Unanswered(uint64_t caller, int64_t round) const { return caller != caller_ || round > last_round_; }
  int64_t last_round() const { return last_round_; }

 private:
  uint64_t caller_ = 0;
  int64_t last_round_ = 0;
};

struct BidCounters {
  uint64_t rounds = 0;                     // calls sent
  uint64_t received = 0;                   // bids taken into a round
  uint64_t missing = 0;                    // invited robots without a bid when their round closed (left out of it)
  uint64_t late = 0;                       // bids stamped after the deadline
  uint64_t stale = 0;                      // bids for another round (or when no round is open)
  uint64_t malformed = 0;                  // bids of the wrong length or with a bad cost
  std::vector<uint64_t> missing_by_robot;  // `missing`, per robot: the rounds each sat out
};

// The manager's side: one round at a time.
class BidRound {
 public:
  explicit BidRound(int robots);
  // Opens round `round` (> the last one) for the invited robots, over `tiles` tiles, closing at `deadline_tick`.
  void Open(int64_t round, std::vector<bool> invited, int tiles, int64_t deadline_tick);
  bool open() const { return open_; }
  int64_t round() const { return round_; }
  const std::vector<bool>& invited() const { return invited_; }
  // A bid from `robot`, stamped `tick`. Returns whether it was taken; otherwise it is counted as late, stale or
  // malformed. A second bid of a robot for the same round replaces nothing (stale).
  bool Offer(int robot, const Bid& bid, int64_t tick);
  // Every invited robot has bid, or the deadline has passed.
  bool Complete(int64_t tick) const;
  // Closes the round: per robot, its costs (nullopt: not invited, or no bid — counted as missing when invited).
  std::vector<std::optional<std::vector<double>>> Close();
  const BidCounters& counters() const { return counters_; }

 private:
  std::vector<std::optional<std::vector<double>>> bids_;
  std::vector<bool> invited_;
  int tiles_ = 0;
  int64_t round_ = 0;
  int64_t deadline_tick_ = 0;
  bool open_ = false;
  BidCounters counters_;
};

}  // namespace limbic::explore
