// The laser robot in the hybrid navigator's offices (issue 21 item 5, "crossing over"): one of the
// procedurally generated environments of sets A–G (sim/environment.hpp, metres) as the surroundings of a
// laser World (centimetres), so the laser robot's simulator, controllers and experiments run unchanged in
// an office — the 360-beam laser meets the office's walls and obstacles, the 30 cm disc collides with them.
//
// The two worlds share their axes (x east, y north); only the unit differs. What the laser sees follows
// the hybrid simulator's long-range sensors (static, moveable and dynamic objects; set F/G's
// limited-visibility obstacles are invisible to it but still stop the body). Sets D and E are refused:
// their humans walk, and nothing here moves them.
//
// Inputs: set letter, environment index, environment seed (the same worlds as `limbic sim render`).
// Outputs: a World with its surroundings, start and goal of the environment, the robot facing north (as in
//   the thesis' protocol), and the optimal path flooded on the 3 cm grid (§1.3).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "services/laser_sim/laser_world.hpp"
#include "sim/environment.hpp"
#include "sim/segment_index.hpp"

namespace limbic::laser {

class OfficeSurroundings : public LaserSurroundings {
 public:
  explicit OfficeSurroundings(sim::Environment environment);

  void Cast(Vec2 p, std::array<float, kBeams>* ranges, std::array<bool, kBeams>* hit) const override;
  double Clearance(Vec2 p, double radius, double horizon) const override;
  std::vector<std::vector<Vec2>> Outlines() const override;

  const sim::Environment& environment() const { return environment_; }

 private:
  sim::Environment environment_;
  sim::SegmentIndex index_;
  // SegmentIndex queries reuse a visit stamp; the scan cache may cast from several threads.
  mutable std::mutex mutex_;
};

// The laser World of environment `index` of `set` (A, B, C, F or G) generated from `environment_seed`.
// Throws std::invalid_argument for a bad set or index, or for sets D and E.
World OfficeLaserWorld(char set, int index, uint64_t environment_seed = 1);

// Which world a laser simulator runs: world `index` of the `density` library made with `salt`, or, when
// `office` is a set letter (not 0), that set's environment `index` generated from `salt`.
struct LaserWorldChoice {
  double density = 15.0;
  int index = 0;
  uint64_t salt = 1;
  char office = 0;
};
// Throws std::invalid_argument for a density, index or set that does not exist.
World MakeLaserWorld(const LaserWorldChoice& choice);

}  // namespace limbic::laser
