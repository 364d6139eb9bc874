// The topological map built on the fly (spec reactive-topological §3.5–3.8, §3.10, thesis Ch. 6): one node
// per distinct passage — the smallest vector between the two obstacles closest to the robot — linked to
// the node the robot came from by the metric vector between their middles, with up to 8 possible exits
// (one per 45° compass sector) whose probability grows as the robot travels toward them, and three
// masking procedures that close exits already explored.
//
//   Update_Topological_Map (§3.6): a feature that differs from the current node's by more than
//     2·Vbearing + 10° (d180) OR 2·Vlength + 20 cm (A12) creates a node (Create_New_Node), linked back
//     to the current node by L = new.rel − old.rel; Resolve_and_Circular_Paths replaces it by an older
//     node with the same characterisation within 30 cm (A26: a revisit or a loop closure).
//   Node statistics (§3.5, A13): running mean and standard deviation ("variance" V) of bearing (with
//     180° wrap) and length; extents n, e, s, w of the robot's positions while current; rel = mean of
//     good-perspective midpoints during the first visit, then fixed.
//   Self-localisation (§3.7): the midpoint M_t = p + nvr·u(nvb) is stationary when it moves < 0.5 cm +
//     0.1·(robot's move) for 10 cycles; on a revisit with a stationary, good-perspective feature the
//     pose is calibrated once: correction = node.rel − M_t (heading never corrected).
//   Exits (§3.8, A27): candidates = features between adjacent obstacles (≥ 40 cm), not the node's own,
//     midpoint > 30 cm from the node middle; sector k = ((int)(β + 23) / 45) % 8; probability
//     max(prob, 10 + projection of the robot's offset from the node middle on the exit direction),
//     ≤ 100, −2 per cycle when not seen although the robot is 20 cm further that way; usable iff
//     filled, prob ≥ 10, unmasked.
//   Masking (§3.10): MaskExit1 (a link in the exit's sector), MaskExit2 (a similar node, reachable but
//     not directly linked, within 30 cm of the exit's position), MaskExit3 (the exit runs into the
//     explored area of a linked node), and code 4 after 2 tries.
//
// Inputs per cycle: features and the classified index (§3.2–3.4), the pose estimate, the goal flags.
// Outputs: the nodes, the current node, what changed (MapUpdate), a pose correction.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "services/laser_sim/laser_types.hpp"
#include "services/laser_topo/perception.hpp"

namespace limbic::laser {

struct TopoMapOptions {
  double gate_bearing_deg = 10.0;       // [T] 2·Vbearing + 10
  double gate_length_cm = 20.0;         // [T] 2·Vlength + 20
  double gate_sigmas = 2.0;             // [T]
  double revisit_cm = 30.0;             // [A] A26
  int max_links = 20;                   // [T]
  double exit_min_length_cm = 40.0;     // [T] min_exit_width
  double exit_near_node_cm = 30.0;      // [A] candidates this close to the node middle are the node itself
  double exit_prob_base = 10.0;         // [A] A27
  double exit_prob_max = 100.0;         // [A]
  double exit_unseen_margin_cm = 20.0;  // [A]
  double exit_decay = 2.0;              // [A]
  double exit_usable_prob = 10.0;       // [A]
  double mask2_distance_cm = 30.0;      // [T]
  int max_exit_tries = 2;               // [T]
  // §3.10 + §5.2 item 15: a try is counted when the robot sets off through an exit (ExitAttempt Started, §3.9 [A]
  // "increment exittrys"), and §3.10 masks an exit "after two attempts" whatever became of them (the default).
  // true: an ExitResult Reached takes its try back and lifts the code-4 mask it caused (the exit is no spurious
  // one). Measured on E6 it makes a livelock: a reached exit of the current node stays open, is planned again at
  // the next failing selection point and reached at once, cycle after cycle (README).
  bool reached_is_not_a_try = false;      // [A]
  double stationary_cm = 0.5;             // [A] §3.7
  double stationary_move_fraction = 0.1;  // [A]
  int stationary_cycles = 10;             // [A]
  bool self_localise = true;
};

void ValidateTopoMapOptions(const TopoMapOptions& options);

struct NodeLink {
  int to = -1;
  double range_cm = 0.0;     // |L|
  double bearing_deg = 0.0;  // bearing of L, from this node's middle to the other's
  bool operator==(const NodeLink&) const = default;
};

// Exit mask codes (§3.5 exitmask).
enum ExitMask : int { kExitOpen = 0, kMaskLink = 1, kMaskKnownNode = 2, kMaskAdjacentArea = 3, kMaskTries = 4 };

struct NodeExit {
  bool filled = false;
  double feature_bearing_deg = 0.0;  // exitmap: the gap's own smallest vector
  double feature_length_cm = 0.0;    // exitmapl
  double bearing_deg = 0.0;          // exitmapvb: node middle → gap midpoint
  double range_cm = 0.0;             // exitmapvl
  int mask = kExitOpen;              // exitmask
  int tries = 0;                     // exittrys
  double prob = 0.0;                 // exitprob, 0..100
  double proj_seen_cm = 0.0;         // the furthest the robot had gone that way when it saw the exit
  bool operator==(const NodeExit&) const = default;
};

struct TopoNode {
  int id = 0;
  double bearing_deg = 0.0;  // running mean, [0, 180)
  double length_cm = 0.0;
  double ref_bearing_deg = 0.0;  // first sample: deviations are accumulated from it (180° wrap)
  double s_bearing = 0.0, ss_bearing = 0.0, s_length = 0.0, ss_length = 0.0;
  int64_t n = 0;
  double v_bearing = 0.0, v_length = 0.0;                   // standard deviations (A13); 0 while n < 2
  double north = 0.0, east = 0.0, south = 0.0, west = 0.0;  // extents of robot positions while current
  Vec2 rel;                                                 // the node's middle (map frame, cm)
  Vec2 rel_sum;                                             // sum of good-perspective midpoints (first visit)
  int64_t rel_n = 0;
  std::vector<NodeLink> links;
  std::array<NodeExit, 8> exits{};
  bool perspective = false;
  bool goal_seen = false;
  int visits = 1;
  bool calibrated_this_visit = false;

  const NodeLink* LinkTo(int other) const;
  bool ExitUsable(int k, double usable_prob) const;
  // Where exit k leads: rel + range·u(bearing).
  Vec2 ExitPosition(int k) const;
  // Every field the same, bit for bit (a copy sent as updates or a snapshot must equal the original).
  bool operator==(const TopoNode& o) const;
};

// §5.2 item 15: what became of an attempt through an exit.
enum class ExitOutcome { kStarted = 0, kReached = 1, kAbandoned = 2 };

// The 45° sector of a bearing (thesis: (bearing + 23) / 45, 8 → 0).
int ExitSector(double bearing_deg);

struct MapUpdate {
  bool updated = false;  // a feature was classified this cycle
  bool created = false;  // a new node
  bool revisit = false;  // an older node became current again (resolved or entered)
  bool changed = false;  // the current node differs from the previous cycle's
  int current = -1;
  bool good_perspective = false;
  Vec2 correction;  // to add to the pose estimate (§3.7), zero when none
  bool corrected = false;
};

class TopoMap {
 public:
  explicit TopoMap(const TopoMapOptions& options = {});

  // One scan's worth: `features` from FindFeatures, `classified` from ClassifyArea (−1: no update),
  // `pose` the robot's estimated position, `goal_in_sight` Clear-to-goal or Senses-goal now.
  MapUpdate Update(const std::vector<Feature>& features, int classified, Vec2 pose, bool goal_in_sight);

  const std::vector<TopoNode>& nodes() const { return nodes_; }
  std::vector<TopoNode>& mutable_nodes() { return nodes_; }
  int current() const { return current_; }
  const TopoMapOptions& options() const { return options_; }
  // Links per node (each link counted at both ends, as the nodes store them).
  double LinksPerNode() const;
  // Runs the masking procedures (§3.10) on node `id` (Update runs them on the current node).
  void MaskExits(int id);
  // §5.2 ExitAttempt/ExitResult for exit `sector` of node `id` (§3.10): Started counts a try and applies the
  // two-tries rule; Reached takes the try back (reached_is_not_a_try) and re-runs the masking; Abandoned
  // leaves the counted try. False, and nothing changes, for a node or an exit slot the map does not have.
  bool RecordExitAttempt(int id, int sector, ExitOutcome outcome);
  // Forgets where the robot is (a new episode over a retained map): the next feature is resolved
  // against the whole map; no link is made to the node the robot was in.
  void Relocate();

 private:
  int CreateNode(const Feature& f, Vec2 pose);
  void Link(int a, int b);
  int ResolveCircular(int exclude, const Feature& f, Vec2 midpoint, int old);
  void AddSample(TopoNode& node, const Feature& f, Vec2 midpoint, Vec2 pose, bool goal_in_sight);
  void UpdateExits(TopoNode& node, const std::vector<Feature>& features, int classified, Vec2 pose);
  bool Matches(const TopoNode& node, double bearing, double length) const;

  TopoMapOptions options_;
  std::vector<TopoNode> nodes_;
  int current_ = -1;
  // Self-localisation state (§3.7).
  bool have_last_ = false;
  Vec2 last_midpoint_, last_pose_;
  int stationary_count_ = 0;
};

}  // namespace limbic::laser
