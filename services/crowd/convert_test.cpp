#include "services/crowd/convert.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "messages/validate.hpp"
#include "services/crowd/shipped_table.hpp"

namespace limbic::crowd {
namespace {

using geometry::kPi;

template <typename T, typename Build>
flatbuffers::DetachedBuffer Finish(Build&& build) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto header = msg::CreateHeader(fbb, 5, 7, 1, fbb.CreateString("r1/crowd_nav"));
  fbb.Finish(build(fbb, header), messages::Traits<T>::kIdentifier);
  return fbb.Release();
}

TEST(CrowdConvert, StateCarriesMuEmotionAndParameters) {
  CrowdStateValues v;
  v.step.mu = {0.6, 0.5, 0.25, 1.5, 0.8};
  v.step.params.caution = 1.6;
  v.step.params.half_fov = 110 * kPi / 180;
  v.step.decision.desired_heading = -0.3;
  v.step.decision.desired_speed = 0.35;
  v.emotion.activation = {0.1, 0.7, 0.2};
  v.emotion.active = 1;
  v.emotion_name = "fear";
  v.visible = true;
  v.radius = 0.35;
  v.neighbours = 3;
  v.remembered = 2;
  v.has_goal = true;
  const auto buf = Finish<msg::CrowdState>([&](auto& fbb, auto h) { return ToMsg(fbb, h, v); });
  EXPECT_EQ(messages::VerifyAndValidate(*messages::FindByName("CrowdState"), buf.data(), buf.size()), "");
  const auto& m = *flatbuffers::GetRoot<msg::CrowdState>(buf.data());
  EXPECT_EQ(m.efficacy(), 0.6);
  EXPECT_EQ(m.task_delay(), 1.5);
  EXPECT_EQ(m.emotion()->str(), "fear");
  EXPECT_TRUE(m.visible());
  ASSERT_EQ(m.activations()->size(), 3u);
  EXPECT_EQ(m.activations()->Get(1), 0.7);
  EXPECT_EQ(m.caution(), 1.6);
  EXPECT_EQ(m.half_fov(), 110 * kPi / 180);
  EXPECT_EQ(m.neighbours(), 3u);
  EXPECT_EQ(m.remembered(), 2u);
  // A NaN μ is refused by the validator (a typed publisher would not send it).
  v.step.mu.efficacy = std::numeric_limits<double>::quiet_NaN();
  const auto bad = Finish<msg::CrowdState>([&](auto& fbb, auto h) { return ToMsg(fbb, h, v); });
  EXPECT_NE(messages::VerifyAndValidate(*messages::FindByName("CrowdState"), bad.data(), bad.size()), "");
}

TEST(CrowdConvert, NeighboursTravelInTheObserversFrame) {
  // Observer at (1, 2) heading +90°; a neighbour at (1, 5) (3 m ahead) moving west at 0.5 m/s (to its left... in the
  // observer's frame: x ahead = north, y left = west → velocity (0, 0.5)).
  const geometry::Pose2 observer{1, 2, kPi / 2};
  std::vector<SensedNeighbour> seen{{{1, 5, 0}, {-0.5, 0}, 0.3, "frustration", 4}, {{0, 2, 0}, {0, 0}, 0.35, ""}};
  const auto buf = Finish<msg::CrowdNeighbours>([&](auto& fbb, auto h) { return ToMsg(fbb, h, observer, seen); });
  EXPECT_EQ(messages::VerifyAndValidate(*messages::FindByName("CrowdNeighbours"), buf.data(), buf.size()), "");
  const auto& m = *flatbuffers::GetRoot<msg::CrowdNeighbours>(buf.data());
  ASSERT_EQ(m.neighbours()->size(), 2u);
  EXPECT_NEAR(m.neighbours()->Get(0)->x(), 3.0, 1e-12);
  EXPECT_NEAR(m.neighbours()->Get(0)->y(), 0.0, 1e-12);
  EXPECT_NEAR(m.neighbours()->Get(0)->vx(), 0.0, 1e-12);
  EXPECT_NEAR(m.neighbours()->Get(0)->vy(), 0.5, 1e-12);
  EXPECT_NEAR(m.neighbours()->Get(1)->y(), 1.0, 1e-12);  // 1 m west = 1 m to its left
  // Back into a robot's estimate of its pose (here its odometry says (11, 2) heading +90°: 10 m of drift east).
  const EmotionTable table = LoadEmotionTable(kShippedEmotionTable);
  const SensedNeighbours sensed = FromMsg(m, {11, 2, kPi / 2}, table);
  const std::vector<Neighbour>& n = sensed.neighbours;
  ASSERT_EQ(n.size(), 2u);
  EXPECT_NEAR(n[0].position.x(), 11.0, 1e-12);
  EXPECT_NEAR(n[0].position.y(), 5.0, 1e-12);
  EXPECT_NEAR(n[0].velocity.x(), -0.5, 1e-12);
  EXPECT_NEAR(n[0].radius, 0.3, 1e-12);
  EXPECT_EQ(sensed.emotions, (std::vector<int>{0, -1}));  // frustration is the table's first; "" is none
  EXPECT_EQ(sensed.ids, (std::vector<int>{4, -1}));       // a track id; -1 not tracked
}

TEST(CrowdConvert, WallsAreTheEdgesOfDetectablePolygons) {
  convert::WorldInfo w;
  w.polygons.push_back({{{0, 0}, {2, 0}, {2, 1}}, true, true});
  w.polygons.push_back({{{5, 5}, {6, 5}, {6, 6}, {5, 6}}, false, false});  // limited visibility: unseen
  const auto walls = WallsOf(w);
  ASSERT_EQ(walls.size(), 3u);
  EXPECT_EQ(walls[2].a, Vec2(2, 1));
  EXPECT_EQ(walls[2].b, Vec2(0, 0));  // closed
}

}  // namespace
}  // namespace limbic::crowd
