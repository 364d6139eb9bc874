// The affect snapshot carries the engine's whole state: a restarted engine resumed from it continues
// exactly as the one that was stopped; a snapshot that does not fit is refused with a reason.
#include "services/affect/convert.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "services/affect/testing/shipped_config.hpp"

namespace limbic::affect {
namespace {

const geometry::GridSpec kGrid{geometry::Vec2(0, 0), 0.35, 40, 30};

// Drives an engine along a wandering path with occasional collisions (every stimulus moves).
struct Walk {
  std::mt19937_64 rng{11};
  geometry::Pose2 pose{3.0, 3.0, 0.0};
  int k = 0;
  std::vector<geometry::Vec2> ir;
  AffectOutputs Step(AffectEngine& engine) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    AffectInputs in;
    in.time = 0.1 * k++;
    pose.theta += 0.3 * (u(rng) - 0.5);
    in.speed = 0.5 * u(rng);
    pose.x = std::clamp(pose.x + 0.1 * in.speed * std::cos(pose.theta), 0.5, 13.0);
    pose.y = std::clamp(pose.y + 0.1 * in.speed * std::sin(pose.theta), 0.5, 10.0);
    in.pose = pose;
    if (u(rng) < 0.05) {
      in.collision.occurred = in.collision.new_event = true;
      in.collision.sensor_ids = {0};
      in.collision.speed_before = in.speed;
      in.collision.contact_point = pose.Position();
    }
    ir = {pose.Position() + geometry::Vec2(0.5, 0.0)};
    in.ir_points = ir;
    in.goal = GoalProgress{0.0, 10.0, 10.0 - 0.02 * k};
    return engine.Step(in);
  }
};

flatbuffers::DetachedBuffer Snapshot(const AffectEngine& engine, const std::string& model,
                                     const geometry::GridSpec& grid) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeaderDirect(fbb, 0, 7, 1, "affect");
  fbb.Finish(SnapshotToMsg(fbb, header, model, grid, engine.state()),
             messages::Traits<msg::AffectSnapshot>::kIdentifier);
  EXPECT_TRUE(messages::Verify<msg::AffectSnapshot>(fbb.GetBufferPointer(), fbb.GetSize()));
  return fbb.Release();
}

TEST(AffectSnapshot, ARestartedEngineContinuesExactly) {
  const AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir, {});
  AffectEngine original(config, kGrid);
  Walk walk;
  for (int i = 0; i < 300; ++i) walk.Step(original);
  ASSERT_GT(original.state().moods[0] + original.state().moods[1], 0.0);
  const auto buffer = Snapshot(original, "affective", kGrid);
  std::string why;
  auto restored = SnapshotFromMsg(*flatbuffers::GetRoot<msg::AffectSnapshot>(buffer.data()), "affective", kGrid, &why);
  ASSERT_TRUE(restored.has_value()) << why;
  EXPECT_EQ(*restored, original.state());
  AffectEngine resumed(config, kGrid);
  resumed.set_state(*restored);
  AffectEngine fresh(config, kGrid);  // what a restart without the snapshot would do
  Walk walk_resumed = walk, walk_fresh = walk;
  bool fresh_differs = false;
  for (int i = 0; i < 100; ++i) {
    const AffectOutputs a = walk.Step(original);
    EXPECT_EQ(walk_resumed.Step(resumed), a) << "tick " << i;
    fresh_differs |= !(walk_fresh.Step(fresh) == a);
  }
  EXPECT_TRUE(fresh_differs) << "the test would pass without restoring anything";
}

TEST(AffectSnapshot, RefusesASnapshotThatDoesNotFit) {
  const AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir, {});
  AffectEngine engine(config, kGrid);
  Walk walk;
  for (int i = 0; i < 20; ++i) walk.Step(engine);
  const auto buffer = Snapshot(engine, "affective", kGrid);
  const auto& snapshot = *flatbuffers::GetRoot<msg::AffectSnapshot>(buffer.data());
  std::string why;
  EXPECT_FALSE(SnapshotFromMsg(snapshot, "constant", kGrid, &why).has_value());
  EXPECT_NE(why.find("constant"), std::string::npos) << why;
  geometry::GridSpec other = kGrid;
  other.width = 41;
  EXPECT_FALSE(SnapshotFromMsg(snapshot, "affective", other, &why).has_value());
  EXPECT_EQ(why, "another grid");

  AffectState bad = engine.state();
  bad.moods[0] = std::nan("");
  AffectEngine poisoned(config, kGrid);
  poisoned.set_state(bad);
  const auto nan_buffer = Snapshot(poisoned, "affective", kGrid);
  EXPECT_FALSE(SnapshotFromMsg(*flatbuffers::GetRoot<msg::AffectSnapshot>(nan_buffer.data()), "affective", kGrid, &why)
                   .has_value());

  AffectState short_map = engine.state();
  short_map.emotion_maps[2].resize(10);
  AffectEngine truncated(config, kGrid);
  truncated.set_state(short_map);
  const auto short_buffer = Snapshot(truncated, "affective", kGrid);
  EXPECT_FALSE(
      SnapshotFromMsg(*flatbuffers::GetRoot<msg::AffectSnapshot>(short_buffer.data()), "affective", kGrid, &why)
          .has_value());
  EXPECT_NE(why.find("emotion map"), std::string::npos) << why;
}

}  // namespace
}  // namespace limbic::affect
