// The shipped Foxglove layout (deploy/foxglove/limbic-layout.json) against what Foxglove reads and
// what the bridge offers (issue 17 item 4). Foxglove itself cannot run here, so the layout is
// checked against the shape of Foxglove Studio's own types, as its public source defines them:
//   LayoutData (CurrentLayoutContext/actions.ts): configById, globalVariables, userNodes,
//     linkedGlobalVariables?, playbackConfig, layout — a react-mosaic tree whose leaves are panel
//     ids
//     "<panel type>!<suffix>", each with its entry in configById and none without one;
//   PlotConfig / PlotPath (panels/Plot): paths of {value, enabled, timestampMethod "receiveTime" |
//     "headerStamp", label?}, xAxisVal "timestamp" | "index" | "custom" | "currentCustom",
//     legendDisplay "floating" | "top" | "left";
//   the 3D panel's config (panels/ThreeDeeRender): followMode "follow-pose" | "follow-position" |
//     "follow-none", followTf a frame, cameraState numbers, topics keyed by topic name.
// And against limbic: every 3D topic is a channel the bridge derives (each derivation run for robot
// r1), a Grid's colorField is one of that Grid's fields, followTf is the bridge's world frame, and
// every plot path "topic".field[i] names a bus topic of a limbic type whose field is a vector of
// numbers with at least i + 1 entries, labelled with the affect engine's own name for entry i.
#include <flatbuffers/reflection.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/regex/regex.hpp"
#include "messages/messages.hpp"
#include "services/affect/affect_ids.hpp"
#include "services/foxglove/derived.hpp"

namespace limbic::foxglove {
namespace {

using nlohmann::json;

json LoadLayout() {
  std::ifstream in(std::string(LIMBIC_SOURCE_ROOT) + "/deploy/foxglove/limbic-layout.json");
  EXPECT_TRUE(in.good());
  return json::parse(in);
}

// Every derived message the bridge writes for robot r1, by topic (one run of each derivation).
std::map<std::string, DerivedMessage> BridgeChannels() {
  DerivedChannels d({});
  std::map<std::string, DerivedMessage> out;
  auto add = [&](const std::vector<DerivedMessage>& v) {
    for (const auto& m : v) out.emplace(m.topic, m);
  };
  const geometry::GridSpec spec{{-1.0, -1.0}, 0.5, 2, 2};
  const std::vector<double> g(4, 0.5);
  std::vector<std::string> emotions(affect::kEmotionNames.begin(), affect::kEmotionNames.end());
  add(d.OnMap("r1", spec, g, g, 1, 0));
  add(d.OnEmotionLayer("r1", spec, g, 1, 0));
  add(d.OnEmotionMaps("r1", spec, std::vector<std::vector<double>>(emotions.size(), g), emotions, 1, 0));
  PlannedPath path;
  path.nodes = {{0, 0}, {1, 1}};
  add(d.OnPath("r1", path, 1));
  add(d.OnOdometry("r1", {1, 2, 0}, 1, 0));
  add(d.OnTruth("r1", {1, 2, 0}, 1));
  add(d.OnScan("r1", {}, 1));
  add(d.OnGoal("r1", true, {1, 1}, 1));
  CollisionEvent hit;
  hit.occurred = hit.new_event = true;
  add(d.OnCollision("r1", hit, 1));
  add(d.OnHumans({{1, {0, 0}, 0.25}}, 1));
  return out;
}

// Collects the leaves of a react-mosaic tree; a malformed node fails the test.
void MosaicLeaves(const json& node, std::vector<std::string>* leaves) {
  if (node.is_string()) {
    leaves->push_back(node.get<std::string>());
    return;
  }
  ASSERT_TRUE(node.is_object()) << node.dump();
  for (const auto& [key, value] : node.items()) {
    EXPECT_TRUE(key == "direction" || key == "first" || key == "second" || key == "splitPercentage")
        << "mosaic node key " << key;
  }
  ASSERT_TRUE(node.contains("direction") && node.contains("first") && node.contains("second")) << node.dump();
  EXPECT_TRUE(node["direction"] == "row" || node["direction"] == "column") << node["direction"];
  if (node.contains("splitPercentage")) {
    EXPECT_TRUE(node["splitPercentage"].is_number());
    EXPECT_GT(node["splitPercentage"].get<double>(), 0);
    EXPECT_LT(node["splitPercentage"].get<double>(), 100);
  }
  MosaicLeaves(node["first"], leaves);
  MosaicLeaves(node["second"], leaves);
}

TEST(FoxgloveLayout, HasTheShapeOfFoxglovesLayoutData) {
  const json layout = LoadLayout();
  const std::set<std::string> allowed{"configById",     "globalVariables", "userNodes", "linkedGlobalVariables",
                                      "playbackConfig", "layout"};
  for (const auto& [key, value] : layout.items()) EXPECT_EQ(allowed.count(key), 1u) << "unknown key " << key;
  for (const char* key : {"configById", "globalVariables", "userNodes", "playbackConfig", "layout"}) {
    EXPECT_TRUE(layout.contains(key)) << key;
  }
  EXPECT_TRUE(layout["playbackConfig"]["speed"].is_number());
  std::vector<std::string> leaves;
  MosaicLeaves(layout["layout"], &leaves);
  // Each panel once in the tree, each with its config, no config without its panel.
  const std::set<std::string> unique(leaves.begin(), leaves.end());
  EXPECT_EQ(unique.size(), leaves.size());
  std::set<std::string> configured;
  for (const auto& [id, config] : layout["configById"].items()) configured.insert(id);
  EXPECT_EQ(unique, configured);
  const regex::Regex id_form(R"(^(3D|Plot)![A-Za-z0-9_-]+$)");  // the panel types this layout uses
  for (const auto& id : leaves) EXPECT_TRUE(id_form.Match(id)) << id;
}

TEST(FoxgloveLayout, ThreeDPanelShowsOnlyChannelsTheBridgeDerivesInItsWorldFrame) {
  const json layout = LoadLayout();
  const auto channels = BridgeChannels();
  for (const auto& [id, config] : layout["configById"].items()) {
    if (id.rfind("3D!", 0) != 0) continue;
    const std::set<std::string> follow_modes{"follow-pose", "follow-position", "follow-none"};
    EXPECT_EQ(follow_modes.count(config.value("followMode", "")), 1u) << config["followMode"];
    EXPECT_EQ(config["followTf"], DerivedOptions{}.world_frame);
    for (const char* k : {"distance", "phi", "thetaOffset", "fovy", "near", "far"}) {
      EXPECT_TRUE(config["cameraState"][k].is_number()) << k;
    }
    ASSERT_FALSE(config["topics"].empty());
    for (const auto& [topic, settings] : config["topics"].items()) {
      const auto channel = channels.find(topic);
      ASSERT_NE(channel, channels.end()) << topic << " is no channel the bridge derives";
      EXPECT_TRUE(settings["visible"].is_boolean()) << topic;
      if (!settings.contains("colorField")) continue;
      const std::string field = settings["colorField"];
      const json message = json::parse(channel->second.json);
      std::set<std::string> fields;
      if (channel->second.schema_name == "foxglove.Grid") {
        for (const auto& f : message["fields"]) fields.insert(f["name"].get<std::string>());
      } else if (channel->second.schema_name == "foxglove.LaserScan") {
        fields = {"range", "intensity"};  // what Foxglove colours a LaserScan by (intensities are sent)
        EXPECT_TRUE(message.contains("intensities")) << topic;
      }
      EXPECT_EQ(fields.count(field), 1u) << topic << ": colorField " << field << " is not among its fields";
    }
  }
}

TEST(FoxgloveLayout, PlotsReadNumberArraysOfLimbicTopicsLabelledAsTheAffectEngineNamesThem) {
  const json layout = LoadLayout();
  const auto* schema = reflection::GetSchema(messages::BinarySchema().data());
  const std::map<std::string, std::vector<std::string_view>> names{
      {"emotions_combined", {affect::kEmotionNames.begin(), affect::kEmotionNames.end()}},
      {"moods", {affect::kMoodNames.begin(), affect::kMoodNames.end()}},
      {"drives", {affect::kDriveNames.begin(), affect::kDriveNames.end()}}};
  const regex::Regex path_form(R"re(^"([^"]+)"\.([a-z_]+)\[([0-9]+)\]$)re");
  int plots = 0;
  for (const auto& [id, config] : layout["configById"].items()) {
    if (id.rfind("Plot!", 0) != 0) continue;
    ++plots;
    const std::set<std::string> x_axis{"timestamp", "index", "custom", "currentCustom"};
    EXPECT_EQ(x_axis.count(config.value("xAxisVal", "")), 1u) << id;
    const std::set<std::string> legend{"floating", "top", "left"};
    EXPECT_EQ(legend.count(config.value("legendDisplay", "")), 1u) << id;
    ASSERT_FALSE(config["paths"].empty()) << id;
    for (const auto& p : config["paths"]) {
      EXPECT_TRUE(p["enabled"].is_boolean());
      EXPECT_TRUE(p["timestampMethod"] == "receiveTime" || p["timestampMethod"] == "headerStamp");
      const std::string value = p["value"];
      const auto m = path_form.Match(value);
      ASSERT_TRUE(m) << value;
      const std::string topic = (*m)[1], field = (*m)[2];
      const size_t index = std::stoul((*m)[3]);
      const messages::MessageType* type = messages::ConventionalType(topic);
      ASSERT_NE(type, nullptr) << topic << " has no fixed limbic type";
      const auto* object = schema->objects()->LookupByKey(type->name);
      ASSERT_NE(object, nullptr) << type->name;
      const auto* f = object->fields()->LookupByKey(field.c_str());
      ASSERT_NE(f, nullptr) << type->name << " has no field " << field;
      EXPECT_EQ(f->type()->base_type(), reflection::Vector) << value;
      EXPECT_EQ(f->type()->element(), reflection::Double) << value;
      ASSERT_EQ(names.count(field), 1u) << value;
      const auto& expected = names.at(field);
      ASSERT_LT(index, expected.size()) << value << ": past the end of " << field;
      EXPECT_EQ(p.value("label", ""), expected[index]) << value;
    }
  }
  EXPECT_EQ(plots, 3);
}

}  // namespace
}  // namespace limbic::foxglove
