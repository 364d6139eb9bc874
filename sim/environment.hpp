// Simulated environments: object properties (§3.1), the procedural office generator (§3.2) and the
// rules of environment sets A–G (§3.3, Table 7.1, §8 item 11).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"

namespace limbic::sim {

using geometry::Vec2;

// How an object behaves (§3.1, spec §1.4 WorldGeometry.property).
enum class ObjectProperty { kStatic, kMoveable, kDynamic, kLimitedVisibility, kFloor };

const char* ObjectPropertyName(ObjectProperty property);

// What an object is, for rendering and tests (the simulator only cares about ObjectProperty).
enum class ObjectKind { kWall, kObstacle };

// A closed polygon in the world frame (vertices counter-clockwise, last joined to first).
struct WorldObject {
  int id = 0;
  ObjectKind kind = ObjectKind::kWall;
  ObjectProperty property = ObjectProperty::kStatic;
  std::vector<Vec2> vertices;
};

// Corridors are exactly one block wide, offices at least two (§3.2); set A is one open area.
enum class RoomType { kCorridor, kOffice, kOpen };

// A rectangle of blocks.
struct Room {
  int id = 0;
  RoomType type = RoomType::kOffice;
  int bx = 0, by = 0;  // lower-left block
  int w = 1, h = 1;    // size in blocks
};

// A doorway: an opening in the wall on the edge between block (bx, by) and its neighbour in +x
// (vertical edge) or +y (horizontal edge).
struct Door {
  int bx = 0, by = 0;
  bool vertical_edge = true;  // true: edge between (bx,by) and (bx+1,by); false: (bx,by)-(bx,by+1)
  double width = 1.2;         // clear opening (m)
  Vec2 center{0, 0};          // world position of the opening's centre (m)
  int room_a = -1, room_b = -1;
  bool extra = false;  // added after the tree to create a loop
};

// Rules of one environment set (Table 7.1 with the §8 item 11 values).
struct SetRules {
  char letter = 'B';
  bool walls = true;                // false: set A (no interior walls)
  bool random_sizes = false;        // C/E/G: random wall thickness and door width
  double wall_thickness = 0.1;      // constant sets (m)
  double door_width = 1.2;          // constant sets (m)
  double wall_thickness_min = 0.1;  // random sets: U[min, max] (m)
  double wall_thickness_max = 0.3;
  double door_width_min = 0.8;  // the stated 0.8 m minimum
  double door_width_max = 1.4;
  bool humans = false;                  // D/E
  bool undetectable_obstacles = false;  // F/G
  std::string description;
};

// The rules for a set letter 'A'..'G'; throws std::invalid_argument for any other letter.
SetRules RulesForSet(char letter);
bool IsValidSetLetter(char letter);
inline constexpr char kSetLetters[] = {'A', 'B', 'C', 'D', 'E', 'F', 'G'};
inline constexpr int kEnvironmentsPerSet = 20;

// Generator tuning (the spec leaves these open; §8 item 11 gives the suggested values).
struct GeneratorOptions {
  int blocks_x = 10;  // 20 m × 12 m (Fig. 6.1)
  int blocks_y = 6;
  double block_size = 2.0;                  // m
  double corridor_probability = 0.4;        // chance that a new room is a 1×k corridor
  int corridor_max_length = 5;              // blocks
  int office_max_size = 4;                  // offices up to 4×4 blocks
  double doors_per_perimeter_block = 0.25;  // max doors of a room ∝ perimeter (in block edges)
  int extra_doors_min = 2;                  // n extra doors for loops, U{min..max}
  int extra_doors_max = 3;
  double undetectable_fraction = 0.5;  // F/G: share of obstacles that are limited_visibility
  double obstacle_min_size = 0.2;      // m, smallest side of a rectangle obstacle
  double corridor_obstacle_max = 1.0;  // m: half a block, always inside one block quadrant
  double room_obstacle_max = 2.0;      // m: up to a full block
  // "Adjacent" for the obstacle–obstacle rule: true = the 8 surrounding blocks, false = the 4 edge
  // neighbours.
  bool obstacle_exclusion_8_neighbours = true;
  bool keep_start_goal_blocks_clear = true;  // no obstacle in the start and goal blocks
  bool set_a_boundary_walls = true;          // set A keeps the outer boundary (the robot cannot leave the area)
  int human_count = 4;                       // D/E (§8 item 11: 3–5)
  double human_radius = 0.25;                // m
  // m, for the start–goal free-path check: the spec robot's r_R (MARVIN's description), which every set was
  // generated for; other bodies are checked when they are placed (PlaceTeam).
  double robot_radius = robot::RobotDescription{}.body.circumscribed_radius();
  double path_check_resolution = 0.05;  // m, flood-fill grid
  int max_attempts = 200;               // sub-seeds tried before giving up (throws)
};

// A generated environment: f(set, index, seed). Everything in metres, world frame, origin at the
// lower-left corner of the area.
struct Environment {
  char set = 'B';
  int index = 0;
  uint64_t seed = 0;
  int attempt = 0;  // which sub-seed produced it (0 = the first; > 0 after failed free-path checks)
  SetRules rules;
  int blocks_x = 10, blocks_y = 6;
  double block_size = 2.0;
  double width = 20.0, height = 12.0;
  std::vector<Room> rooms;
  std::vector<int> block_room;  // room id per block, index by * blocks_x + bx
  std::vector<Door> doors;
  std::vector<WorldObject> objects;
  std::vector<Vec2> human_starts;
  double human_radius = 0.25;
  Vec2 start{1, 1};
  Vec2 goal{19, 11};

  int RoomAt(int bx, int by) const { return block_room[by * blocks_x + bx]; }
};

// Generates environment `index` (0..19) of `set` ('A'..'G') from `seed`, regenerating with the next
// sub-seed until the robot has a free path from start to goal. Throws std::invalid_argument for a
// bad set or index.
Environment GenerateEnvironment(char set, int index, uint64_t seed, const GeneratorOptions& options = {});

// True when a circle of `radius` can travel from `from` to `to` without touching any body-solid
// object (static, moveable, limited_visibility), on a flood-fill grid of `resolution`.
bool HasFreePath(const Environment& env, const Vec2& from, const Vec2& to, double radius, double resolution);

// HasFreePath's grid for one environment and radius, built once, for callers that ask many times (a team's
// placement asks thousands: each question rebuilt the whole world's grid, ~1.4 s of a 16-robot run's start-up).
// A cell is blocked when any object blocks it, whatever the order, so the environment's grid with a few more objects
// blocked on top is exactly the grid of the environment with those objects added: both answers are HasFreePath's.
class FreePathGrid {
 public:
  FreePathGrid(const Environment& env, double radius, double resolution);
  // HasFreePath(env, from, to, radius, resolution).
  bool Connected(const Vec2& from, const Vec2& to) const;
  // HasFreePath of env with `extra` appended to its objects (those that are not body-solid block nothing, as there).
  bool ConnectedWith(const std::vector<WorldObject>& extra, const Vec2& from, const Vec2& to) const;

 private:
  geometry::GridSpec spec_;
  double radius_ = 0.0;
  std::vector<char> blocked_;
};

// Stable 64-bit FNV-1a hash over the quantised (0.1 mm) geometry, properties, start, goal and
// humans.
uint64_t GeometryHash(const Environment& env);

// Rectangle polygon (counter-clockwise) for the axis-aligned box [x0,x1]×[y0,y1].
std::vector<Vec2> BoxVertices(double x0, double y0, double x1, double y1);

}  // namespace limbic::sim
