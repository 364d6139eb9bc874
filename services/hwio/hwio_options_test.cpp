#include "services/hwio/hwio_options.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "common/config/config.hpp"

namespace limbic::hwio {
namespace {

// ctest runs tests in the source root; LIMBIC_SOURCE_DIR overrides it.
std::string SourceDir() {
  const char* dir = std::getenv("LIMBIC_SOURCE_DIR");
  return dir ? dir : ".";
}

TEST(HwioOptionsTest, ShippedConfigLoadsWithDefaults) {
  const std::string path = SourceDir() + "/services/hwio/config/hwio.yaml";
  config::StrictMap map(config::LoadFile(path), path);
  HwioOptions options;
  LoadHwioOptions(map, &options);
  map.Finish();
  EXPECT_EQ(options.median.window, 5);
  EXPECT_DOUBLE_EQ(options.watchdog.timeout, 0.3);
  EXPECT_DOUBLE_EQ(options.limits.v_max, 1.6);
  EXPECT_DOUBLE_EQ(options.limits.wheel_separation, 0.6);
  EXPECT_EQ(options.limits.wheel_assignment, WheelAssignment::kWheel1IsRight);
  EXPECT_EQ(options.faults.robot_id, "r1");
}

TEST(HwioOptionsTest, RobotFactsReachEveryPart) {
  YAML::Node root = YAML::Load(
      "robot_id: r7\nrobot: {wheel_separation: 0.5, radius: 0.3, wheel1: right}\nwatchdog: {enabled: false}\n");
  config::StrictMap map(root, "test.yaml");
  HwioOptions options;
  LoadHwioOptions(map, &options);
  map.Finish();
  EXPECT_DOUBLE_EQ(options.serial.wheel_separation, 0.5);
  EXPECT_DOUBLE_EQ(options.faults.robot_radius, 0.3);
  EXPECT_EQ(options.serial.wheel_assignment, WheelAssignment::kWheel1IsRight);
  EXPECT_EQ(options.faults.robot_id, "r7");
  EXPECT_FALSE(options.watchdog.enabled);
}

TEST(HwioOptionsTest, BodyComesFromTheRobotDescription) {
  // Issue 18: Itchy's pentagon, its 0.44 m rear track and 8 switches; the contact point of the front switch is its
  // nose, 0.58 m ahead of the rear axle.
  config::StrictMap map(YAML::Load("robot: {body: itchy}\n"), "test.yaml");
  HwioOptions options;
  LoadHwioOptions(map, &options);
  map.Finish();
  EXPECT_FALSE(options.collisions.body.is_circle());
  EXPECT_DOUBLE_EQ(options.limits.wheel_separation, 0.44);
  EXPECT_EQ(options.collisions.switch_count, 8);
  const geometry::Vec2 nose = ContactPointForSwitches({0}, 8, options.collisions.body, {1, 1, 0});
  EXPECT_NEAR(nose.x(), 1.58, 1e-12);
  EXPECT_NEAR(nose.y(), 1.0, 1e-12);
  // MARVIN (the default): r_R along the switch direction, as before.
  HwioOptions marvin;
  config::StrictMap empty(YAML::Load("{}"), "test.yaml");
  LoadHwioOptions(empty, &marvin);
  EXPECT_EQ(ContactPointForSwitches({2}, 8, marvin.collisions.body, {0, 0, 0}),
            geometry::Vec2(0.35 * geometry::UnitVector(2.0 * geometry::kPi * 2 / 8)));
  // An unknown body names the key and the known descriptions.
  config::StrictMap bad(YAML::Load("robot: {body: hal}\n"), "test.yaml");
  try {
    LoadHwioOptions(bad, &options);
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("robot.body"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("known: itchy, marvin"), std::string::npos) << e.what();
  }
}

TEST(HwioOptionsTest, MisspelledKeyNamesFileAndKey) {
  config::StrictMap map(YAML::Load("watchdog: {timout: 0.5}\n"), "hwio.yaml");
  HwioOptions options;
  LoadHwioOptions(map, &options);
  try {
    map.Finish();
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("hwio.yaml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("watchdog.timout"), std::string::npos);
  }
}

TEST(HwioOptionsTest, BadValuesAreRejected) {
  HwioOptions options;
  config::StrictMap bad_backend(YAML::Load("backend: can\n"), "x.yaml");
  EXPECT_THROW(LoadHwioOptions(bad_backend, &options), config::ConfigError);
  config::StrictMap serial_without_device(YAML::Load("backend: serial\n"), "x.yaml");
  EXPECT_THROW(LoadHwioOptions(serial_without_device, &options), config::ConfigError);
}

TEST(HwioOptionsTest, ExampleFaultScriptLoads) {
  const std::string path = SourceDir() + "/services/hwio/config/example_faults.yaml";
  config::StrictMap map(config::LoadFile(path), path);
  const std::vector<Fault> faults = LoadFaultScript(map);
  map.Finish();
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].kind, FaultKind::kSensorStuck);
  EXPECT_EQ(faults[0].target.sensor_id, 0);
  EXPECT_DOUBLE_EQ(*faults[0].stuck_range, 0.8);
  EXPECT_DOUBLE_EQ(faults[1].noise_sigma, 0.05);
  EXPECT_EQ(faults[1].seed, 7u);
  EXPECT_EQ(faults[2].target.wheel, WheelSide::kLeft);
  EXPECT_DOUBLE_EQ(faults[2].duration, 0.0);
}

TEST(HwioOptionsTest, FaultWithUnknownKindOrBadParameterFails) {
  config::StrictMap unknown(YAML::Load("id: a\nkind: sensor_melted\n"), "f.yaml");
  EXPECT_THROW(LoadFault(unknown), config::ConfigError);
  config::StrictMap negative(YAML::Load("id: a\nkind: sensor_noise\nnoise_sigma: -1\n"), "f.yaml");
  EXPECT_THROW(LoadFault(negative), config::ConfigError);
}

}  // namespace
}  // namespace limbic::hwio
