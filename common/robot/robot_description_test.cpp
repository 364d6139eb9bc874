#include "common/robot/robot_description.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "common/config/config.hpp"

namespace limbic::robot {
namespace {

namespace fs = std::filesystem;
using geometry::kPi;

const std::string kRobotDir = std::string(LIMBIC_SOURCE_ROOT) + "/configs/robots";

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Parses `text` as a description file.
RobotDescription Parse(const std::string& text) {
  config::StrictMap map(YAML::Load(text), "test.yaml");
  return ParseRobotDescription(map, "test");
}

const char* kMinimal = R"(
body: {shape: circle, radius: 0.3}
drive: {kind: differential, wheel_separation: 0.5}
)";

TEST(RobotDescription, EveryShippedFileLoadsThroughTheRealLoader) {
  const auto names = ListRobotDescriptions(kRobotDir);
  EXPECT_EQ(names, (std::vector<std::string>{"itchy", "marvin", "scratchy", "tank"}));
  for (const auto& n : names) EXPECT_NO_THROW(LoadRobotDescription(n, kRobotDir)) << n;
}

TEST(RobotDescription, MarvinIsTheSpecRobotExactly) {
  // §2.1, §2.5, §8 item 10: the numbers the stack used before descriptions (bit for bit).
  const RobotDescription d = LoadRobotDescription("marvin", kRobotDir);
  EXPECT_TRUE(d.body.is_circle());
  EXPECT_EQ(d.body.radius(), 0.35);
  EXPECT_EQ(d.body.circumscribed_radius(), 0.35);
  EXPECT_TRUE(d.body.centre().isZero());
  EXPECT_EQ(d.drive.kind, DriveKind::kDifferential);
  EXPECT_EQ(d.drive.wheel_separation, 0.6);
  EXPECT_EQ(d.drive.EffectiveTrack(), 0.6);
  EXPECT_EQ(d.drive.MinTurningRadius(), 0.0);
  EXPECT_EQ(d.long_range.count, 10);
  EXPECT_EQ(d.long_range.beam_offsets_deg, (std::vector<double>{-10, -5, 0, 5, 10}));
  EXPECT_EQ(d.long_range.d_min, 0.40);
  EXPECT_EQ(d.long_range.d_max, 3.00);
  EXPECT_EQ(d.short_range.d_min, 0.14);
  EXPECT_EQ(d.short_range.d_max, 0.75);
  EXPECT_EQ(d.bumper_count, 8);
  EXPECT_EQ(d.limits.omega_max, kPi);
  // Emitters on the 0.20 m circle exactly as §2.5 placed them.
  const Vec2 s3 = d.SensorPosition(d.long_range, 3);
  EXPECT_EQ(s3, Vec2(0.20 * geometry::UnitVector(2.0 * kPi * 3 / 10)));
}

TEST(RobotDescription, PentagonAndRectangleFacts) {
  const RobotDescription itchy = LoadRobotDescription("itchy", kRobotDir);
  ASSERT_FALSE(itchy.body.is_circle());
  ASSERT_EQ(itchy.body.vertices().size(), 5u);
  // Area by hand: a 0.53 × 0.52 rectangle and a triangle of base 0.52 and height 0.20.
  EXPECT_NEAR(itchy.body.area(), 0.53 * 0.52 + 0.5 * 0.52 * 0.20, 1e-12);
  // Centroid: (0.2756·0.115 + 0.052·(0.38 + 0.2/3)) / 0.3276 ahead of the rear axle.
  EXPECT_NEAR(itchy.body.centre().x(), (0.2756 * 0.115 + 0.052 * (0.38 + 0.2 / 3.0)) / 0.3276, 1e-12);
  EXPECT_NEAR(itchy.body.centre().y(), 0.0, 1e-12);
  // The nose is the farthest from the centroid (0.41235 m; the rear corners are at 0.41049 m).
  EXPECT_NEAR(itchy.body.circumscribed_radius(), 0.58 - 0.16764550264550265, 1e-12);
  EXPECT_NEAR(itchy.body.reach_from_origin(), 0.58, 1e-12);
  EXPECT_EQ(itchy.drive.kind, DriveKind::kTricycle);
  EXPECT_NEAR(itchy.drive.MinTurningRadius(), 0.40 / std::tan(50.0 * kPi / 180.0), 1e-12);  // r_lmin = L / tan δ

  const RobotDescription tank = LoadRobotDescription("tank", kRobotDir);
  EXPECT_EQ(tank.drive.kind, DriveKind::kSkid);
  EXPECT_NEAR(tank.drive.EffectiveTrack(), 1.4 * 0.46, 1e-12);
  EXPECT_NEAR(tank.body.area(), 0.70 * 0.52, 1e-12);
  EXPECT_NEAR(tank.body.circumscribed_radius(), std::hypot(0.35, 0.26), 1e-12);
  EXPECT_NEAR(tank.body.inscribed_radius(), 0.26, 1e-12);
  EXPECT_NEAR(tank.body.HalfWidthAcross(0.0), 0.26, 1e-12);
  EXPECT_NEAR(tank.body.HalfWidthAcross(0.5 * kPi), 0.35, 1e-12);
  // Sensors sit on the outline 5 cm inside: straight ahead at x = 0.35 − 0.05.
  EXPECT_NEAR(tank.SensorPosition(tank.long_range, 0).x(), 0.30, 1e-12);
  EXPECT_NEAR(tank.SensorPosition(tank.long_range, 0).y(), 0.0, 1e-12);
}

TEST(Body, PointInBodyAndDistanceFromOutline) {
  const Body square = Body::Polygon({{-1, -1}, {1, -1}, {1, 1}, {-1, 1}});
  EXPECT_TRUE(square.Contains({0.5, 0.5}));
  EXPECT_FALSE(square.Contains({1.5, 0}));
  EXPECT_DOUBLE_EQ(square.SignedDistance({0, 0}), -1.0);
  EXPECT_DOUBLE_EQ(square.SignedDistance({3, 0}), 2.0);
  EXPECT_DOUBLE_EQ(square.SignedDistance({2, 2}), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(square.OutlinePointAt(0.25 * kPi).x(), 1.0);
  // Clockwise input is reversed; facts unchanged.
  const Body cw = Body::Polygon({{-1, 1}, {1, 1}, {1, -1}, {-1, -1}});
  EXPECT_DOUBLE_EQ(cw.area(), 4.0);
  // A non-convex L shape: the notch is outside.
  const Body l = Body::Polygon({{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}});
  EXPECT_FALSE(l.Contains({1.5, 1.5}));
  EXPECT_TRUE(l.Contains({0.5, 1.5}));
  const Body c = Body::Circle(0.35);
  EXPECT_DOUBLE_EQ(c.SignedDistance({1, 0}), 0.65);
  EXPECT_DOUBLE_EQ(c.HalfWidthAcross(1.0), 0.35);
}

TEST(Body, DegenerateAndNonFiniteOutlinesAreRefused) {
  EXPECT_NE(ErrorOf([] { Body::Polygon({{0, 0}, {1, 0}}); }).find("at least 3"), std::string::npos);
  EXPECT_NE(ErrorOf([] { Body::Polygon({{0, 0}, {1, 0}, {2, 0}}); }).find("degenerate"), std::string::npos);
  EXPECT_NE(ErrorOf([] { Body::Polygon({{0, 0}, {2, 2}, {2, 0}, {0, 1}}); }).find("cross"), std::string::npos);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(ErrorOf([&] { Body::Polygon({{0, 0}, {nan, 0}, {0, 1}}); }).find("not finite"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { Body::Circle(nan); }).find("radius"), std::string::npos);
  EXPECT_NE(ErrorOf([] { Body::Circle(0.0); }).find("radius"), std::string::npos);
}

TEST(RobotDescription, BadFilesNameTheField) {
  EXPECT_NO_THROW(Parse(kMinimal));
  struct Case {
    std::string text;
    std::string expect;
  };
  const std::vector<Case> cases{
      {"drive: {kind: differential, wheel_separation: 0.5}", "'body' is required"},
      {"body: {shape: hexagon}\ndrive: {kind: differential, wheel_separation: 0.5}", "'body.shape' must be circle"},
      {"body: {shape: circle, radius: -1}\ndrive: {kind: differential, wheel_separation: 0.5}", "'body.radius'"},
      {"body: {shape: circle, radius: .nan}\ndrive: {kind: differential, wheel_separation: 0.5}", "'body.radius'"},
      {"body: {shape: polygon, vertices: [[0, 0], [1, 0], [2, 0]]}\ndrive: {kind: skid, wheel_separation: 0.5}",
       "'body.vertices' polygon is degenerate"},
      {"body: {shape: polygon, vertices: [[0, 0], [1]]}\ndrive: {kind: skid, wheel_separation: 0.5}",
       "'body.vertices[1]' must be a point"},
      {"body: {shape: circle, radius: 0.3}\ndrive: {kind: tricycle, wheel_separation: 0.5, wheelbase: 0, "
       "min_turning_radius: 1}",
       "'drive.wheelbase' must be > 0"},
      {"body: {shape: circle, radius: 0.3}\ndrive: {kind: tricycle, wheel_separation: 0.5, wheelbase: 0.4}",
       "'drive.min_turning_radius' or max_steering_angle_deg"},
      {"body: {shape: circle, radius: 0.3}\ndrive: {kind: tricycle, wheel_separation: 0.5, wheelbase: 0.4, "
       "max_steering_angle_deg: 90}",
       "'drive.max_steering_angle_deg' must be below 90"},
      {"body: {shape: circle, radius: 0.3}\ndrive: {kind: skid, wheel_separation: 0.5, slip_factor: 0.5}",
       "'drive.slip_factor'"},
      {"body: {shape: circle, radius: 0.3}\ndrive: {kind: hover, wheel_separation: 0.5}", "'drive.kind'"},
      {std::string(kMinimal) + "sensors: {long_range: {count: 10, mount_radius: 0.5, d_min: 0.4, d_max: 3}}",
       "'sensors.long_range.mount_radius' places sensor 0 outside the body"},
      {std::string(kMinimal) + "sensors: {long_range: {count: 10, d_min: 0.4, d_max: 0.3}}",
       "'sensors.long_range.d_max'"},
      {std::string(kMinimal) + "limits: {a_min: 0.5}", "'limits.a_min' must be < 0"},
      {std::string(kMinimal) + "limits: {v_max: .inf}", "'limits.v_max'"},
      {std::string(kMinimal) + "colour: red", "colour"},
  };
  for (const Case& c : cases) {
    const std::string error = ErrorOf([&] { Parse(c.text); });
    EXPECT_NE(error.find(c.expect), std::string::npos) << c.text << "\n  gave: " << error;
    EXPECT_NE(error.find("test.yaml"), std::string::npos) << error;
  }
}

TEST(RobotDescription, UnknownNameAndMissingFile) {
  const std::string e = ErrorOf([] { LoadRobotDescription("hal9000", kRobotDir); });
  EXPECT_NE(e.find("hal9000"), std::string::npos) << e;
  EXPECT_NE(e.find("known: itchy, marvin, scratchy, tank"), std::string::npos) << e;
  EXPECT_NE(ErrorOf([] { LoadRobotDescription("/nonexistent/x.yaml"); }).find("/nonexistent/x.yaml"),
            std::string::npos);
  // A file given by path is named by its stem.
  const fs::path dir = fs::temp_directory_path() / ("limbic_robot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "mini.yaml") << kMinimal;
  EXPECT_EQ(LoadRobotDescription((dir / "mini.yaml").string()).name, "mini");
  fs::remove_all(dir);
}

// Spec multi-robot §1, eqs. 8–10. The spec prints no numbers for them; these are worked by hand from the
// equations: r_l = v_l/ω = 0.5/0.5 = 1 m, y_off = 0.2 m → r = sqrt(1 + 0.04) = 1.0198039 m (eq. 8),
// v = r·ω = 0.5099020 m/s (eq. 9), θ_v = asin(0.2/1.0198039) = 0.1973956 rad = atan(0.2) (eq. 10).
TEST(CentreMotion, FrameOffsetWorkedValues) {
  const CentreMotion m = CentreMotionFor(0.5, 0.5, {0.2, 0.0});
  EXPECT_NEAR(m.radius, 1.019803902718557, 1e-12);
  EXPECT_NEAR(m.speed, 0.5099019513592785, 1e-12);
  EXPECT_NEAR(m.theta_v, 0.19739555984988075, 1e-12);
  EXPECT_NEAR(std::sin(m.theta_v), 0.2 / m.radius, 1e-12);
  // Right turn: r and θ_v change sign, the speed does not.
  const CentreMotion right = CentreMotionFor(0.5, -0.5, {0.2, 0.0});
  EXPECT_NEAR(right.radius, -1.019803902718557, 1e-12);
  EXPECT_NEAR(right.speed, 0.5099019513592785, 1e-12);
  EXPECT_NEAR(right.theta_v, -0.19739555984988075, 1e-12);
  // The tricycle's tightest turn: r_l = r_lmin = 0.4/tan 50° = 0.33564 m, y_off = 0.16765 m (Itchy's centroid).
  const double r_lmin = 0.40 / std::tan(50.0 * kPi / 180.0), y_off = 0.16764550264550265;
  const CentreMotion tight = CentreMotionFor(0.3, 0.3 / r_lmin, {y_off, 0.0});
  EXPECT_NEAR(tight.radius, std::sqrt(r_lmin * r_lmin + y_off * y_off), 1e-12);  // 0.3751788 m
  EXPECT_NEAR(tight.radius, 0.3751788, 1e-7);
  EXPECT_NEAR(tight.theta_v, std::asin(y_off / tight.radius), 1e-12);  // 0.46323 rad
  // No offset (MARVIN): the centre moves with R exactly.
  const CentreMotion none = CentreMotionFor(0.5, 0.25, {0.0, 0.0});
  EXPECT_EQ(none.radius, 2.0);
  EXPECT_EQ(none.speed, 0.5);
  EXPECT_EQ(none.theta_v, 0.0);
  // Straight ahead: θ_v = 0 whatever the offset.
  EXPECT_EQ(CentreMotionFor(0.5, 0.0, {0.2, 0.0}).theta_v, 0.0);
  EXPECT_EQ(CentreMotionFor(0.5, 0.0, {0.2, 0.0}).speed, 0.5);
}

TEST(CentreMotion, NonFiniteInputThrows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(CentreMotionFor(nan, 0.1, {0.2, 0}), std::invalid_argument);
  EXPECT_THROW(CentreMotionFor(0.1, std::numeric_limits<double>::infinity(), {0.2, 0}), std::invalid_argument);
  EXPECT_THROW(CentreMotionFor(0.1, 0.1, {nan, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::robot
