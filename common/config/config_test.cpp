#include "common/config/config.hpp"

#include <gtest/gtest.h>

namespace limbic::config {
namespace {

TEST(StrictMap, ReadsTypedValuesAndDefaults) {
  StrictMap map(YAML::Load("a: 1.5\nb: 3\nname: x\n"), "test.yaml");
  double a = 0;
  int b = 0, c = 7;
  EXPECT_TRUE(map.Optional("a", &a));
  EXPECT_TRUE(map.Optional("b", &b));
  EXPECT_FALSE(map.Optional("c", &c));
  EXPECT_EQ(map.Required<std::string>("name"), "x");
  EXPECT_DOUBLE_EQ(a, 1.5);
  EXPECT_EQ(b, 3);
  EXPECT_EQ(c, 7);
  EXPECT_NO_THROW(map.Finish());
}

TEST(StrictMap, UnknownKeyNamesFileAndPath) {
  StrictMap map(YAML::Load("robot:\n  radius: 0.35\n  raduis: 0.4\n"), "robot.yaml");
  auto robot = map.Child("robot");
  double r = 0;
  robot.Optional("radius", &r);
  try {
    map.Finish();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("robot.yaml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("robot.raduis"), std::string::npos);
  }
}

TEST(StrictMap, WrongTypeAndMissingRequired) {
  StrictMap map(YAML::Load("n: abc\n"), "f.yaml");
  int n = 0;
  EXPECT_THROW(map.Optional("n", &n), ConfigError);
  EXPECT_THROW(map.Required<double>("missing"), ConfigError);
}

TEST(ApplyOverride, CreatesNestedKeysAndParsesYaml) {
  YAML::Node root = YAML::Load("planner:\n  b: 10000\n");
  ApplyOverride(root, "planner.b=500");
  ApplyOverride(root, "controller.weights=[1, 2]");
  EXPECT_EQ(root["planner"]["b"].as<int>(), 500);
  EXPECT_EQ(root["controller"]["weights"][1].as<int>(), 2);
  EXPECT_THROW(ApplyOverride(root, "novalue"), ConfigError);
  ApplyOverride(root, "planner.note=");  // empty: the empty string, not null
  EXPECT_EQ(root["planner"]["note"].as<std::string>(), "");
  EXPECT_THROW(ApplyOverride(root, "planner.b.c=1"), ConfigError);
}

TEST(LoadFile, MissingFileIsAClearError) { EXPECT_THROW(LoadFile("/nonexistent/limbic.yaml"), ConfigError); }

}  // namespace
}  // namespace limbic::config
