// Where the robots of a team start and go (issue 18 item 1): one start pose and one goal per robot
// in one shared world, chosen so that no two coincide.
#pragma once

#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "sim/environment.hpp"

namespace limbic::sim {

// One robot's task in a shared world: it starts at `start` and travels back and forth to `goal`.
struct Placement {
  geometry::Pose2 start;
  geometry::Vec2 goal{0, 0};
};

// How PlaceTeam spaces the robots.
struct TeamLayoutOptions {
  double clearance = 0.1;        // m, free space kept between a placed body and any object
  double spacing = 0.9;          // m, grid step of the candidate positions (the simulator's old side-by-side step)
  double search_radius = 6;      // m, how far from the environment's start (goal) a robot may be placed
  double path_resolution = 0.1;  // m, flood-fill grid of the start–goal free-path check (HasFreePath)
  // m, the room a standing robot must leave beside it for another to pass, beyond the two bodies and `clearance`:
  // one cell of the planner's grid (0.35 m, spec §4.1). A gap that only a body fits through, to the centimetre,
  // is closed for a robot that plans on 0.35 m cells and keeps r_o from obstacles (set B environment 11: two
  // robots standing on their goals left 0.87 m beside them, and r1 never passed).
  double pass_margin = 0.35;
  // Per robot, the radius of the free-path check when it differs from the radius a start must keep free (a body
  // whose reference point is off its centre, e.g. a tricycle's rear axle: the circumscribed radius about the
  // centre). Empty or shorter than the team: the body radius.
  std::vector<double> path_radii;
};

// Places `radii.size()` robots (robot i has body radius radii[i]) in `env`. Robot 0 takes the
// environment's own start (heading 0) and goal, exactly as a single robot does. Each further robot
// takes the candidate nearest the environment's start (then goal) on a square grid of `spacing`
// (ties broken by angle, so the result is a pure function of its inputs) whose body, inflated by
// `clearance`, lies inside the area, touches no body-solid object and no person's start, keeps a
// gap of `clearance` to every start and goal already chosen (starts and goals alike: a robot's goal
// is where it turns round, and its start is its next goal), from which a free path leads to its
// goal, and which keeps every robot's way open: each robot placed so far still has a free path from its start
// to its goal with a body (its radius + clearance) standing on every other robot's start and goal (a robot that
// has arrived stands on its goal; in a doorway it would close the door to the others for good); when no candidate
// within reach keeps the ways open with `pass_margin` to spare, the nearest that keeps them open for the bodies
// alone; when none does (a goal at the end of a narrow dead end), the nearest free connected one. Throws
// std::invalid_argument when there is no room (names the robot) or a radius is not positive and finite.
std::vector<Placement> PlaceTeam(const Environment& env, const std::vector<double>& radii,
                                 const TeamLayoutOptions& options = {});

// The simulator's starts/goals options: ';'-separated entries of ','-separated finite numbers, each
// entry min_n..max_n numbers ("1,1,0;2.5,1" for starts of x, y[, theta]). "" gives no entries.
// Throws std::invalid_argument naming the entry.
std::vector<std::vector<double>> ParsePointList(const std::string& text, size_t min_n, size_t max_n);

// The team's placements: PlaceTeam's, except that `starts` ("x,y[,theta];..." ) and `goals`
// ("x,y;...") take their place when given (one entry per robot). PlaceTeam's "no room" is an error
// only when it is needed (starts or goals not both given). Throws std::invalid_argument.
std::vector<Placement> TeamPlacements(const Environment& env, const std::vector<double>& radii,
                                      const std::string& starts, const std::string& goals,
                                      const TeamLayoutOptions& options = {});

// Comma-separated items, empty ones dropped ("marvin,itchy" → {marvin, itchy}).
std::vector<std::string> SplitList(const std::string& text);

// The body description name of each of `robots` robots from a comma-separated list (issue 18 item 2): empty →
// every robot is `fallback`; one name → every robot has it; else exactly one name per robot. Throws
// std::invalid_argument naming the counts.
std::vector<std::string> BodiesPerRobot(const std::string& text, size_t robots, const std::string& fallback);

// Robot names r1..rN (the topic namespaces of a team of `count`); throws std::invalid_argument for
// count < 1.
std::vector<std::string> TeamNames(int count);

}  // namespace limbic::sim
