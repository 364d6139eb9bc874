#include "sim/environment.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "common/geometry/geometry.hpp"

namespace limbic::sim {
namespace {

// All 20 environments of a set (generated once per set and cached for the tests below).
const std::vector<Environment>& SetEnvironments(char set) {
  static std::map<char, std::vector<Environment>> cache;
  auto& envs = cache[set];
  if (envs.empty())
    for (int i = 0; i < kEnvironmentsPerSet; ++i) envs.push_back(GenerateEnvironment(set, i, 1));
  return envs;
}

struct Box {
  double x0, y0, x1, y1;
};
Box BoundsOf(const WorldObject& o) {
  Box b{1e9, 1e9, -1e9, -1e9};
  for (const Vec2& v : o.vertices) {
    b.x0 = std::min(b.x0, v.x());
    b.y0 = std::min(b.y0, v.y());
    b.x1 = std::max(b.x1, v.x());
    b.y1 = std::max(b.y1, v.y());
  }
  return b;
}

TEST(GenerateEnvironment, SameInputsGiveIdenticalGeometryHash) {
  const Environment a = GenerateEnvironment('C', 7, 42);
  const Environment b = GenerateEnvironment('C', 7, 42);
  EXPECT_EQ(GeometryHash(a), GeometryHash(b));
  ASSERT_EQ(a.objects.size(), b.objects.size());
  for (size_t i = 0; i < a.objects.size(); ++i) EXPECT_EQ(a.objects[i].vertices, b.objects[i].vertices);
}

TEST(GenerateEnvironment, DifferentIndexSeedOrSetGiveDifferentGeometry) {
  const uint64_t base = GeometryHash(GenerateEnvironment('C', 7, 42));
  EXPECT_NE(base, GeometryHash(GenerateEnvironment('C', 8, 42)));
  EXPECT_NE(base, GeometryHash(GenerateEnvironment('C', 7, 43)));
  EXPECT_NE(base, GeometryHash(GenerateEnvironment('G', 7, 42)));
  std::set<uint64_t> hashes;
  for (const Environment& e : SetEnvironments('B')) hashes.insert(GeometryHash(e));
  EXPECT_EQ(hashes.size(), 20u);
}

TEST(GeometryHash, ChangesWhenOneVertexMovesByAMillimetre) {
  Environment e = GenerateEnvironment('B', 0, 1);
  const uint64_t h = GeometryHash(e);
  e.objects[3].vertices[1].x() += 0.001;
  EXPECT_NE(h, GeometryHash(e));
}

TEST(GenerateEnvironment, RejectsBadSetAndIndex) {
  EXPECT_THROW(GenerateEnvironment('H', 0, 1), std::invalid_argument);
  EXPECT_THROW(GenerateEnvironment('b', 0, 1), std::invalid_argument);
  EXPECT_THROW(GenerateEnvironment('B', 20, 1), std::invalid_argument);
  EXPECT_THROW(GenerateEnvironment('B', -1, 1), std::invalid_argument);
}

TEST(GenerateEnvironment, EveryBlockBelongsToARoomAndEveryRoomIsReachableThroughDoors) {
  for (char set : {'B', 'C', 'D', 'E', 'F', 'G'}) {
    for (const Environment& e : SetEnvironments(set)) {
      SCOPED_TRACE(std::string("set ") + set + " index " + std::to_string(e.index));
      for (int r : e.block_room) ASSERT_GE(r, 0);
      std::vector<std::vector<int>> adjacent(e.rooms.size());
      for (const Door& d : e.doors) {
        ASSERT_NE(d.room_a, d.room_b);
        adjacent[d.room_a].push_back(d.room_b);
        adjacent[d.room_b].push_back(d.room_a);
      }
      std::vector<char> seen(e.rooms.size(), 0);
      std::deque<int> queue{0};
      seen[0] = 1;
      while (!queue.empty()) {
        const int r = queue.front();
        queue.pop_front();
        for (int n : adjacent[r])
          if (!seen[n]) {
            seen[n] = 1;
            queue.push_back(n);
          }
      }
      for (size_t r = 0; r < seen.size(); ++r) EXPECT_TRUE(seen[r]) << "room " << r << " unreachable";
      // A tree has rooms−1 doors; 2–3 extra doors make loops.
      EXPECT_GE(e.doors.size(), e.rooms.size() - 1);
      EXPECT_LE(e.doors.size(), e.rooms.size() - 1 + 3);
    }
  }
}

TEST(GenerateEnvironment, RoomTypesFollowTheBlockRules) {
  for (const Environment& e : SetEnvironments('B')) {
    for (const Room& r : e.rooms) {
      EXPECT_LE(std::max(r.w, r.h), 5);
      if (r.type == RoomType::kCorridor) {
        EXPECT_EQ(std::min(r.w, r.h), 1);
      }
      if (r.type == RoomType::kOffice) {
        EXPECT_GE(std::min(r.w, r.h), 2);
        EXPECT_LE(std::max(r.w, r.h), 4);
      }
    }
  }
}

TEST(GenerateEnvironment, DoorWidthsFollowTheSetRules) {
  for (char set : {'C', 'E', 'G'}) {
    for (const Environment& e : SetEnvironments(set)) {
      for (const Door& d : e.doors) {
        EXPECT_GE(d.width, 0.8);
        EXPECT_LE(d.width, 1.4);
      }
    }
  }
  for (char set : {'B', 'D', 'F'})
    for (const Environment& e : SetEnvironments(set))
      for (const Door& d : e.doors) EXPECT_DOUBLE_EQ(d.width, 1.2);
}

TEST(GenerateEnvironment, DoorOpeningsAreClearOfWallsForTheirFullWidth) {
  for (char set : {'B', 'C', 'E', 'G'}) {
    for (const Environment& e : SetEnvironments(set)) {
      for (const Door& d : e.doors) {
        for (const WorldObject& o : e.objects) {
          for (size_t k = 0; k < o.vertices.size(); ++k) {
            const geometry::Segment s{o.vertices[k], o.vertices[(k + 1) % o.vertices.size()]};
            ASSERT_GE(geometry::PointSegmentDistance(d.center, s), 0.5 * d.width - 1e-9)
                << "set " << set << " index " << e.index << " door at " << d.center.transpose();
          }
        }
      }
    }
  }
}

TEST(GenerateEnvironment, WallThicknessFollowsTheSetRules) {
  for (char set : {'B', 'C'}) {
    for (const Environment& e : SetEnvironments(set)) {
      for (const WorldObject& o : e.objects) {
        if (o.kind != ObjectKind::kWall) continue;
        const Box b = BoundsOf(o);
        const double t = std::min(b.x1 - b.x0, b.y1 - b.y0);
        if (set == 'B') {
          EXPECT_NEAR(t, 0.1, 1e-9);
        } else {
          EXPECT_GE(t, 0.1 - 1e-9);
          EXPECT_LE(t, 0.3 + 1e-9);
        }
      }
    }
  }
}

TEST(GenerateEnvironment, NoObstacleInABlockAdjacentToADoorOrToAnotherObstacle) {
  for (char set : kSetLetters) {
    for (const Environment& e : SetEnvironments(set)) {
      std::set<std::pair<int, int>> door_blocks;
      for (const Door& d : e.doors) {
        door_blocks.insert({d.bx, d.by});
        door_blocks.insert(d.vertical_edge ? std::make_pair(d.bx + 1, d.by) : std::make_pair(d.bx, d.by + 1));
      }
      std::vector<std::pair<int, int>> obstacle_blocks;
      for (const WorldObject& o : e.objects) {
        if (o.kind != ObjectKind::kObstacle) continue;
        const Box b = BoundsOf(o);
        const int bx = static_cast<int>(std::floor(0.5 * (b.x0 + b.x1) / e.block_size));
        const int by = static_cast<int>(std::floor(0.5 * (b.y0 + b.y1) / e.block_size));
        // Inside its block.
        EXPECT_GE(b.x0, bx * e.block_size - 1e-9);
        EXPECT_LE(b.x1, (bx + 1) * e.block_size + 1e-9);
        EXPECT_GE(b.y0, by * e.block_size - 1e-9);
        EXPECT_LE(b.y1, (by + 1) * e.block_size + 1e-9);
        EXPECT_FALSE(door_blocks.count({bx, by}))
            << "set " << set << " index " << e.index << " block " << bx << "," << by;
        for (const auto& [ox, oy] : obstacle_blocks) EXPECT_GT(std::max(std::abs(ox - bx), std::abs(oy - by)), 1);
        obstacle_blocks.emplace_back(bx, by);
        if (e.rooms[e.RoomAt(bx, by)].type == RoomType::kCorridor) {
          // At most half a block, inside one quadrant.
          EXPECT_LE(b.x1 - b.x0, 1.0 + 1e-9);
          EXPECT_LE(b.y1 - b.y0, 1.0 + 1e-9);
          const double hx = (bx + 0.5) * e.block_size, hy = (by + 0.5) * e.block_size;
          EXPECT_TRUE(b.x1 <= hx + 1e-9 || b.x0 >= hx - 1e-9);
          EXPECT_TRUE(b.y1 <= hy + 1e-9 || b.y0 >= hy - 1e-9);
        }
      }
      EXPECT_FALSE(obstacle_blocks.empty());
    }
  }
}

TEST(GenerateEnvironment, StartAndGoalAreOppositeCornerBlockCentresWithAFreePath) {
  for (char set : kSetLetters) {
    for (const Environment& e : SetEnvironments(set)) {
      EXPECT_EQ(e.start, Vec2(1.0, 1.0));
      EXPECT_EQ(e.goal, Vec2(19.0, 11.0));
      EXPECT_TRUE(HasFreePath(e, e.start, e.goal, 0.35, 0.05)) << "set " << set << " index " << e.index;
    }
  }
}

TEST(GenerateEnvironment, SetRulesForWallsHumansAndUndetectableObstacles) {
  for (char set : kSetLetters) {
    const SetRules rules = RulesForSet(set);
    int undetectable = 0;
    for (const Environment& e : SetEnvironments(set)) {
      if (set == 'A') {
        EXPECT_TRUE(e.doors.empty());
        EXPECT_EQ(e.rooms.size(), 1u);
        for (const WorldObject& o : e.objects) {
          if (o.kind != ObjectKind::kWall) continue;
          const Box b = BoundsOf(o);  // only the outer boundary
          EXPECT_TRUE(b.x1 <= 0.1 || b.x0 >= 19.9 || b.y1 <= 0.1 || b.y0 >= 11.9);
        }
      }
      EXPECT_EQ(e.human_starts.size(), rules.humans ? 4u : 0u);
      for (const WorldObject& o : e.objects) undetectable += o.property == ObjectProperty::kLimitedVisibility;
    }
    if (rules.undetectable_obstacles) {
      EXPECT_GT(undetectable, 0) << set;
    } else {
      EXPECT_EQ(undetectable, 0) << set;
    }
  }
}

TEST(GenerateEnvironment, RegeneratesDeterministicallyWhenThereIsNoFreePath) {
  // A wide robot (r = 0.5 m) has no free path in the first draw of B/8; the next sub-seed is used.
  GeneratorOptions wide;
  wide.robot_radius = 0.5;
  const Environment a = GenerateEnvironment('B', 8, 1, wide);
  EXPECT_GT(a.attempt, 0);
  EXPECT_EQ(GenerateEnvironment('B', 8, 1).attempt, 0);
  EXPECT_TRUE(HasFreePath(a, a.start, a.goal, 0.5, 0.05));
  EXPECT_EQ(GeometryHash(a), GeometryHash(GenerateEnvironment('B', 8, 1, wide)));
  // Doors of 1.2 m can never pass a 1.3 m robot: give up after max_attempts.
  GeneratorOptions impossible;
  impossible.robot_radius = 0.65;
  impossible.max_attempts = 3;
  EXPECT_THROW(GenerateEnvironment('B', 0, 1, impossible), std::runtime_error);
}

TEST(HasFreePath, NeedsAGapWiderThanTheRobot) {
  Environment e;
  e.width = 10;
  e.height = 4;
  // A wall across x = 5 with a gap between y = 1.6 and y = 1.6 + gap.
  auto with_gap = [&](double gap) {
    e.objects.clear();
    e.objects.push_back({0, ObjectKind::kWall, ObjectProperty::kStatic, BoxVertices(4.95, 0, 5.05, 1.6)});
    e.objects.push_back({1, ObjectKind::kWall, ObjectProperty::kStatic, BoxVertices(4.95, 1.6 + gap, 5.05, 4)});
    return HasFreePath(e, {1, 2}, {9, 2}, 0.35, 0.05);
  };
  EXPECT_TRUE(with_gap(0.8));
  EXPECT_FALSE(with_gap(0.6));
  // Undetectable objects still block bodies; floor objects do not.
  e.objects.clear();
  e.objects.push_back({0, ObjectKind::kObstacle, ObjectProperty::kLimitedVisibility, BoxVertices(4.9, 0, 5.1, 4)});
  EXPECT_FALSE(HasFreePath(e, {1, 2}, {9, 2}, 0.35, 0.05));
  e.objects[0].property = ObjectProperty::kFloor;
  EXPECT_TRUE(HasFreePath(e, {1, 2}, {9, 2}, 0.35, 0.05));
}

// With bodies standing in the world, FreePathGrid (the world's grid, their cells blocked on a copy) answers as a grid
// built from scratch with them among the world's objects (HasFreePath of the world with them added), over real worlds
// (sets B and C) and the cases that decide: a body closing a door, one standing beside the way, one on a floor
// marking (blocks nothing), and an end inside an object. (HasFreePath of the world alone is FreePathGrid::Connected.)
TEST(FreePathGrid, WithObjectsAddedAnswersAsAGridBuiltWithThem) {
  int connected = 0, cut = 0;
  for (const char set : {'B', 'C'}) {
    const Environment env = GenerateEnvironment(set, 3, 7);
    for (const double radius : {0.35, 0.45}) {
      const FreePathGrid grid(env, radius, 0.1);
      const bool world_answer = grid.Connected(env.start, env.goal);
      EXPECT_TRUE(world_answer) << "the generator guarantees a free start-goal path for these radii";
      std::mt19937 rng(11);
      std::uniform_real_distribution<double> x(0.0, env.width), y(0.0, env.height), r(0.2, 0.9);
      for (int i = 0; i < 40; ++i) {
        const Vec2 from(x(rng), y(rng)), to = i % 4 == 0 ? env.goal : Vec2(x(rng), y(rng));
        std::vector<WorldObject> extra;
        for (int k = 0; k < 1 + i % 3; ++k) {
          const double cx = x(rng), cy = y(rng), half = r(rng);
          extra.push_back({900 + k, ObjectKind::kObstacle,
                           i % 5 == 0 ? ObjectProperty::kFloor : ObjectProperty::kStatic,
                           BoxVertices(cx - half, cy - half, cx + half, cy + half)});
        }
        Environment with = env;
        with.objects.insert(with.objects.end(), extra.begin(), extra.end());
        const bool expected = HasFreePath(with, from, to, radius, 0.1);
        ASSERT_EQ(grid.ConnectedWith(extra, from, to), expected) << set << " case " << i;
        (expected ? connected : cut) += 1;
      }
      // Unchanged by the questions with objects added: the world's answer as before them.
      EXPECT_EQ(grid.Connected(env.start, env.goal), world_answer);
    }
  }
  // Both answers were exercised.
  EXPECT_GT(connected, 10);
  EXPECT_GT(cut, 10);
}

TEST(FreePathGrid, ABadResolutionOrRadiusIsRefusedNotAllocated) {
  const Environment env = GenerateEnvironment('B', 0, 1);
  for (const double resolution : {0.0, -0.1, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(FreePathGrid(env, 0.35, resolution), std::invalid_argument) << resolution;
    EXPECT_THROW(HasFreePath(env, env.start, env.goal, 0.35, resolution), std::invalid_argument) << resolution;
  }
  for (const double radius : {-0.1, std::nan("")}) {
    EXPECT_THROW(FreePathGrid(env, radius, 0.1), std::invalid_argument) << radius;
  }
  EXPECT_NO_THROW(FreePathGrid(env, 0.0, 0.1)) << "a point robot";
}

TEST(FreePathGrid, ABodyInTheOnlyGapClosesTheWay) {
  Environment e;
  e.width = 10;
  e.height = 4;
  e.objects.push_back({0, ObjectKind::kWall, ObjectProperty::kStatic, BoxVertices(4.95, 0, 5.05, 1.6)});
  e.objects.push_back({1, ObjectKind::kWall, ObjectProperty::kStatic, BoxVertices(4.95, 2.6, 5.05, 4)});
  const FreePathGrid grid(e, 0.35, 0.05);
  EXPECT_TRUE(grid.Connected({1, 2}, {9, 2}));
  const WorldObject in_gap{2, ObjectKind::kObstacle, ObjectProperty::kStatic, BoxVertices(4.9, 1.9, 5.1, 2.3)};
  EXPECT_FALSE(grid.ConnectedWith({in_gap}, {1, 2}, {9, 2}));
  WorldObject marking = in_gap;
  marking.property = ObjectProperty::kFloor;
  EXPECT_TRUE(grid.ConnectedWith({marking}, {1, 2}, {9, 2}));
  EXPECT_TRUE(grid.Connected({1, 2}, {9, 2})) << "a question with objects added leaves the grid as it was";
}

}  // namespace
}  // namespace limbic::sim
