#include "services/foxglove/derived.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace limbic::foxglove {
namespace {

using nlohmann::json;

std::vector<uint8_t> Unbase64(const std::string& s) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else
      break;  // '='
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

float FloatAt(const std::vector<uint8_t>& data, size_t offset) {
  float f;
  data.at(offset + 3);  // bounds
  std::memcpy(&f, data.data() + offset, 4);
  return f;
}

geometry::GridSpec Spec(int w, int h) { return {{-1.0, 2.0}, 0.5, w, h}; }

TEST(DerivedChannels, OccupancyMapBecomesAFloat32GridInFoxgloveRowMajorOrder) {
  DerivedChannels d({});
  std::vector<double> p_o{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, p_e(6, 1.0);
  const auto out = d.OnMap("r1", Spec(3, 2), p_o, p_e, 1'500'000'000, 10.0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].topic, "foxglove/r1/map");
  EXPECT_EQ(out[0].schema_name, "foxglove.Grid");
  const json g = json::parse(out[0].json);
  EXPECT_EQ(g["timestamp"]["sec"], 1);
  EXPECT_EQ(g["timestamp"]["nsec"], 500'000'000);
  EXPECT_EQ(g["frame_id"], "world");
  EXPECT_DOUBLE_EQ(g["pose"]["position"]["x"], -1.0);  // cell (0,0)'s lower-left corner
  EXPECT_DOUBLE_EQ(g["pose"]["position"]["y"], 2.0);
  EXPECT_EQ(g["column_count"], 3);
  EXPECT_DOUBLE_EQ(g["cell_size"]["x"], 0.5);
  EXPECT_EQ(g["cell_stride"], 8);
  EXPECT_EQ(g["row_stride"], 24);
  ASSERT_EQ(g["fields"].size(), 2u);
  EXPECT_EQ(g["fields"][1]["name"], "p_e");
  EXPECT_EQ(g["fields"][1]["offset"], 4);
  EXPECT_EQ(g["fields"][1]["type"], 7);  // FLOAT32
  const auto data = Unbase64(g["data"]);
  ASSERT_EQ(data.size(), 48u);
  // Cell ix=2, iy=1 (index 5): row 1, column 2.
  EXPECT_FLOAT_EQ(FloatAt(data, 1 * 24 + 2 * 8), 0.6f);
  EXPECT_FLOAT_EQ(FloatAt(data, 1 * 24 + 2 * 8 + 4), 1.0f);
}

TEST(DerivedChannels, GridsAreThrottledAndPatchesApplyToTheLastFullMap) {
  DerivedChannels d({.grid_period_s = 1.0});
  std::vector<double> zeros(4, 0.0);
  EXPECT_TRUE(d.OnMapPatch("r1", {{0, 0.9, 0.9}}, 0, 0.0).empty());  // no full map yet
  ASSERT_EQ(d.OnMap("r1", Spec(2, 2), zeros, zeros, 0, 0.0).size(), 1u);
  EXPECT_TRUE(d.OnMapPatch("r1", {{3, 0.75, 0.25}, {7, 1.0, 1.0}}, 0, 0.5).empty());  // throttled
  EXPECT_EQ(d.rejected(), 1u);                                                        // index 7 is outside a 2x2 grid
  const auto out = d.OnMapPatch("r1", {}, 0, 1.2);  // due, and the earlier patch is pending
  ASSERT_EQ(out.size(), 1u);
  const auto data = Unbase64(json::parse(out[0].json)["data"]);
  EXPECT_FLOAT_EQ(FloatAt(data, 3 * 8), 0.75f);
  EXPECT_FLOAT_EQ(FloatAt(data, 3 * 8 + 4), 0.25f);
  EXPECT_TRUE(d.OnMapPatch("r1", {}, 0, 5.0).empty());  // nothing changed: nothing sent
}

TEST(DerivedChannels, InconsistentGridsAreRejected) {
  DerivedChannels d({});
  EXPECT_TRUE(d.OnMap("r1", Spec(3, 2), std::vector<double>(5), {}, 0, 0).empty());
  EXPECT_TRUE(d.OnEmotionLayer("r1", {{0, 0}, -1.0, 2, 2}, std::vector<double>(4), 0, 0).empty());
  EXPECT_TRUE(
      d.OnEmotionMaps("r1", Spec(2, 2), {std::vector<double>(4), std::vector<double>(3)}, {"a", "b"}, 0, 0).empty());
  EXPECT_EQ(d.rejected(), 3u);
}

TEST(DerivedChannels, EmotionMapsAreOneGridWithAFieldPerEmotion) {
  DerivedChannels d({});
  std::vector<std::vector<double>> maps{{0, 0, 0, 0.5}, {1, 1, 1, 1}};
  const auto out = d.OnEmotionMaps("r1", Spec(2, 2), maps, {"anger", "fear"}, 0, 0);
  ASSERT_EQ(out.size(), 1u);
  const json g = json::parse(out[0].json);
  EXPECT_EQ(g["fields"][0]["name"], "anger");
  EXPECT_EQ(g["fields"][1]["name"], "fear");
  EXPECT_EQ(g["cell_stride"], 8);
  EXPECT_FLOAT_EQ(FloatAt(Unbase64(g["data"]), 3 * 8), 0.5f);
}

TEST(DerivedChannels, PoseBecomesAFrameTransformAndTheRobotBodyFollowsIt) {
  DerivedChannels d({.robot_radius = 0.35});
  const auto out = d.OnOdometry("r1", {1.0, 2.0, geometry::kPi / 2}, 0, 0.0);
  ASSERT_EQ(out.size(), 2u);
  const json tf = json::parse(out[0].json);
  EXPECT_EQ(out[0].schema_name, "foxglove.FrameTransform");
  EXPECT_EQ(tf["parent_frame_id"], "world");
  EXPECT_EQ(tf["child_frame_id"], "r1/base_link");
  EXPECT_DOUBLE_EQ(tf["translation"]["x"], 1.0);
  EXPECT_NEAR(tf["rotation"]["z"].get<double>(), std::sqrt(0.5),
              1e-12);  // yaw π/2: (0, 0, sin π/4, cos π/4)
  EXPECT_NEAR(tf["rotation"]["w"].get<double>(), std::sqrt(0.5), 1e-12);
  const json body = json::parse(out[1].json);
  EXPECT_EQ(out[1].topic, "foxglove/r1/robot");
  EXPECT_EQ(body["entities"][0]["frame_id"], "r1/base_link");
  EXPECT_TRUE(body["entities"][0]["frame_locked"].get<bool>());
  EXPECT_DOUBLE_EQ(body["entities"][0]["cylinders"][0]["size"]["x"], 0.7);  // diameter 2 r_R
  EXPECT_EQ(d.OnOdometry("r1", {1.0, 2.0, 0}, 0, 0.5).size(),
            1u);  // body again only after robot_period_s
  EXPECT_TRUE(d.OnOdometry("r1", {std::nan(""), 2.0, 0}, 0, 2.0).empty());
  EXPECT_EQ(d.rejected(), 1u);
}

TEST(DerivedChannels, PathPosesFaceTheNextNode) {
  DerivedChannels d({});
  PlannedPath path;
  path.nodes = {{0, 0}, {0, 1}, {1, 1}};
  const json p = json::parse(d.OnPath("r1", path, 0).at(0).json);
  ASSERT_EQ(p["poses"].size(), 3u);
  EXPECT_NEAR(p["poses"][0]["orientation"]["z"].get<double>(), std::sin(geometry::kPi / 4),
              1e-12);                                                        // facing +y
  EXPECT_NEAR(p["poses"][1]["orientation"]["z"].get<double>(), 0.0, 1e-12);  // facing +x
  EXPECT_NEAR(p["poses"][2]["orientation"]["z"].get<double>(), 0.0, 1e-12);  // keeps it
  path.nodes.push_back({std::numeric_limits<double>::infinity(), 0});
  EXPECT_TRUE(d.OnPath("r1", path, 0).empty());
}

TEST(DerivedChannels, RangeRingEndPointsLandInTheirBearingBins) {
  DerivedChannels d({.scan_bins = 360});
  RangeScan scan;
  RangeBeam ahead;
  ahead.origin_local = {0.2, 0.0};
  ahead.angle_local = 0.0;
  ahead.range = 1.0;
  ahead.valid = true;
  RangeBeam left = ahead;  // mounted on the left, looking left, nothing within d_max
  left.origin_local = {0.0, 0.2};
  left.angle_local = geometry::kPi / 2;
  left.range = 3.0;
  left.valid = false;
  scan.beams = {ahead, left};
  const json s = json::parse(d.OnScan("r1", scan, 0).at(0).json);
  EXPECT_EQ(s["frame_id"], "r1/base_link");
  ASSERT_EQ(s["ranges"].size(), 360u);
  const double start = s["start_angle"], end = s["end_angle"];
  const double step = (end - start) / 359;
  EXPECT_NEAR(step, geometry::kPi / 180, 1e-12);
  const int bin_ahead = static_cast<int>(std::lround((0.0 - start) / step));
  const int bin_left = static_cast<int>(std::lround((geometry::kPi / 2 - start) / step));
  EXPECT_DOUBLE_EQ(s["ranges"][bin_ahead], 1.2);  // 0.2 m mount + 1.0 m reading
  EXPECT_DOUBLE_EQ(s["intensities"][bin_ahead], 1.0);
  EXPECT_DOUBLE_EQ(s["ranges"][bin_left], 3.2);
  EXPECT_DOUBLE_EQ(s["intensities"][bin_left], 0.0);  // no return
  EXPECT_DOUBLE_EQ(s["ranges"][bin_ahead + 5], 0.0);  // no beam there
}

TEST(DerivedChannels, PeopleGoalAndBumperHitsAreSceneUpdates) {
  DerivedChannels d({.max_bumps = 2});
  const json people = json::parse(d.OnHumans({{4, {1, 2}, 0.25}, {5, {NAN, 0}, 0.25}}, 0).at(0).json);
  EXPECT_EQ(people["deletions"][0]["type"], 1);  // ALL: the previous set goes
  ASSERT_EQ(people["entities"].size(), 1u);      // the NaN one is rejected
  EXPECT_EQ(people["entities"][0]["id"], "human/4");
  EXPECT_DOUBLE_EQ(people["entities"][0]["cylinders"][0]["size"]["x"], 0.5);

  const json goal = json::parse(d.OnGoal("r1", true, {3, 4}, 0).at(0).json);
  EXPECT_DOUBLE_EQ(goal["entities"][0]["cylinders"][0]["pose"]["position"]["x"], 3.0);
  EXPECT_TRUE(json::parse(d.OnGoal("r1", false, {3, 4}, 0).at(0).json)["entities"].empty());

  CollisionEvent e;
  e.occurred = true;
  e.new_event = false;
  EXPECT_TRUE(d.OnCollision("r1", e, 0).empty());  // still in the same contact
  e.new_event = true;
  for (int i = 0; i < 2; ++i) {
    e.contact_point = {double(i), 0};
    EXPECT_TRUE(json::parse(d.OnCollision("r1", e, 0).at(0).json)["deletions"].empty());
  }
  e.contact_point = {9, 9};
  const json third = json::parse(d.OnCollision("r1", e, 0).at(0).json);
  ASSERT_EQ(third["deletions"].size(), 1u);  // over max_bumps: the oldest goes
  EXPECT_EQ(third["deletions"][0]["id"], "r1/bump/0");
  EXPECT_EQ(third["entities"][0]["id"], "r1/bump/2");
}

TEST(DerivedChannels, RoutesNeedTheExpectedTopicAndType) {
  auto r = RouteOf("r1/map/patch", "limbic.msg.GridPatch");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->source, DerivedSource::kMapPatch);
  EXPECT_EQ(r->robot, "r1");
  EXPECT_EQ(RouteOf("r2/odom", "limbic.msg.Odometry")->robot, "r2");
  EXPECT_FALSE(RouteOf("r1/odom_raw", "limbic.msg.Odometry").has_value());
  EXPECT_FALSE(RouteOf("r1/map", "limbic.msg.GridPatch").has_value());  // wrong type for the topic
  EXPECT_FALSE(RouteOf("/map", "limbic.msg.GridMap").has_value());
  EXPECT_EQ(RouteOf("humans", "limbic.msg.Humans")->source, DerivedSource::kHumans);
}

TEST(DerivedChannels, EveryWrittenSchemaHasAJsonSchema) {
  for (const char* name : {"foxglove.Grid", "foxglove.PosesInFrame", "foxglove.FrameTransform", "foxglove.LaserScan",
                           "foxglove.SceneUpdate"}) {
    const json s = json::parse(JsonSchemaFor(name));
    EXPECT_EQ(s["type"], "object") << name;
  }
  // Foxglove decodes Grid.data from base64 only when the schema says so.
  EXPECT_EQ(json::parse(JsonSchemaFor("foxglove.Grid"))["properties"]["data"]["contentEncoding"], "base64");
  EXPECT_THROW(JsonSchemaFor("foxglove.Nothing"), std::invalid_argument);
}

TEST(DerivedChannels, ShippedLayoutUsesOnlyChannelsTheBridgeWrites) {
  DerivedChannels d({});
  std::set<std::string> written;
  auto add = [&](const std::vector<DerivedMessage>& v) {
    for (const auto& m : v) written.insert(m.topic);
  };
  std::vector<double> g(4, 0.0);
  add(d.OnMap("r1", Spec(2, 2), g, g, 0, 0));
  add(d.OnEmotionLayer("r1", Spec(2, 2), g, 0, 0));
  add(d.OnEmotionMaps("r1", Spec(2, 2), {g}, {"fear"}, 0, 0));
  add(d.OnPath("r1", {}, 0));
  add(d.OnOdometry("r1", {}, 0, 0));
  add(d.OnTruth("r1", {}, 0));
  add(d.OnScan("r1", {}, 0));
  add(d.OnGoal("r1", true, {1, 1}, 0));
  CollisionEvent hit;
  hit.new_event = true;
  add(d.OnCollision("r1", hit, 0));
  add(d.OnHumans({}, 0));
  std::ifstream in(std::string(LIMBIC_SOURCE_ROOT) + "/deploy/foxglove/limbic-layout.json");
  ASSERT_TRUE(in.good());
  const json layout = json::parse(in);
  const json& topics = layout["configById"]["3D!limbic"]["topics"];
  ASSERT_FALSE(topics.empty());
  for (const auto& [topic, settings] : topics.items()) EXPECT_EQ(written.count(topic), 1u) << topic;
  // Plots read r1/affect through its schema: the arrays named must exist in AffectState
  // (affect.fbs).
  for (const char* plot : {"Plot!emotions", "Plot!moods", "Plot!drives"}) {
    for (const auto& p : layout["configById"][plot]["paths"]) {
      const std::string path = p["value"];
      EXPECT_EQ(path.rfind("\"r1/affect\".", 0), 0u) << path;
    }
  }
}

}  // namespace
}  // namespace limbic::foxglove
