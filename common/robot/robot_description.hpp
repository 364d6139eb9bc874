// A robot's description (issue 18 item 2; multi-robot spec §1): body outline, drive, range-sensor
// placement and limits, read from one YAML file (configs/robots/<name>.yaml). The one source of facts about
// a robot's body (STYLE.md §14): the simulator, hwio, mapper, affect engine and controller all take the
// radius, the outline and the sensor layout from here instead of repeating r_R = 0.35 m.
//
// Frame: the robot frame R of the pose every service uses (odometry, the controller's (v, ω)) has its
// origin at the drive's reference point — the middle of the driven axle for differential and tricycle
// drives (the rear axle of a tricycle), the middle of the tracks for a skid drive — with x straight ahead
// and y to the left. The outline is given in R; its centroid is the body's physical centre, which the
// velocity layer re-references to (spec eqs. 8–10).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic::config {
class StrictMap;
}

namespace limbic::robot {

using geometry::Vec2;

// The body outline: a circle about a centre, or a simple polygon (convex or not) given by its vertices in R.
// Polygons are stored counter-clockwise.
class Body {
 public:
  // Throws std::invalid_argument (naming what is wrong) for a non-finite or non-positive radius.
  static Body Circle(double radius, const Vec2& centre = Vec2::Zero());
  // Throws std::invalid_argument for fewer than 3 vertices, a non-finite coordinate, (near-)zero area,
  // repeated vertices or edges that cross (not a simple polygon). Clockwise input is reversed.
  static Body Polygon(std::vector<Vec2> vertices);

  bool is_circle() const { return circle_; }
  double radius() const { return radius_; }  // circle only (0 for a polygon)
  // Polygon vertices (counter-clockwise) in R; empty for a circle.
  const std::vector<Vec2>& vertices() const { return vertices_; }
  // The body's physical centre in R: the circle's centre, or the polygon's area centroid.
  const Vec2& centre() const { return centre_; }
  // Largest distance from the centre to the outline (the radius of the circle about the centre that holds
  // the body): r_R for a circle; what the directional layer and the broad phases use (issue 18 item 3).
  double circumscribed_radius() const { return circumscribed_radius_; }
  // Largest distance from R's origin (the reference point) to the outline.
  double reach_from_origin() const { return reach_from_origin_; }
  // Smallest distance from the centre to the outline (the radius of the largest circle about the centre
  // that fits inside).
  double inscribed_radius() const { return inscribed_radius_; }
  double area() const { return area_; }

  // Whether a point given in R lies strictly inside the body.
  bool Contains(const Vec2& p) const;
  // Signed distance from a point in R to the outline: negative inside, positive outside.
  double SignedDistance(const Vec2& p) const;
  // Where the ray from the centre at angle `bearing` (R) leaves the body (a point of the outline in R).
  Vec2 OutlinePointAt(double bearing) const;
  // The outline as a closed polygon in the world frame for a pose of R; a circle is approximated by
  // `circle_sides` vertices (for drawings).
  std::vector<Vec2> OutlineInWorld(const geometry::Pose2& pose, int circle_sides = 32) const;
  // Half the body's width across a direction of travel: the largest |lateral offset| of the outline from
  // the line through the centre along `heading` (R). r_R for a circle whatever the heading.
  double HalfWidthAcross(double heading) const;

 private:
  void ComputeFacts();

  bool circle_ = true;
  double radius_ = 0.0;
  std::vector<Vec2> vertices_;
  Vec2 centre_{0, 0};
  double circumscribed_radius_ = 0.0;
  double reach_from_origin_ = 0.0;
  double inscribed_radius_ = 0.0;
  double area_ = 0.0;
};

enum class DriveKind {
  kDifferential,  // two driven wheels on one axle, casters (eqs. 4.1, 4.4–4.5)
  kTricycle,      // a steered front wheel, two rear wheels on the axle through R's origin; cannot turn on the spot
  kSkid,          // tracks or four fixed wheels per side: differential with lateral slip (effective track)
};
const char* DriveKindName(DriveKind kind);

struct Drive {
  DriveKind kind = DriveKind::kDifferential;
  // d_w (m): distance between the wheels (tracks) of the driven axle; eq. 4.1 converts (v, ω) to wheel speeds
  // with it (the effective track for a skid drive, below).
  double wheel_separation = 0.6;
  // Tricycle: distance from the rear axle (R's origin) to the steered front wheel (m), and the steering angle
  // limit (rad). The minimum turning radius of R's origin is r_lmin = wheelbase / tan(max_steering_angle).
  double wheelbase = 0.0;
  double max_steering_angle = 0.0;
  // Skid: the tracks slip sideways while turning; the body turns as a differential drive whose track is
  // slip_factor·wheel_separation (χ ≥ 1, the usual ICR-expansion model of skid steering).
  double slip_factor = 1.0;

  // r_lmin (m): 0 for drives that turn on the spot.
  double MinTurningRadius() const;
  // The track width eq. 4.1 uses for this drive: wheel_separation, times slip_factor for a skid drive.
  double EffectiveTrack() const;
};

// One ring of range sensors (§2.5): `count` sensors spaced evenly from `first_angle` (rad, R), each with beams
// at `beam_offsets_deg` about its axis; emitters on a circle of `mount_radius` about the body centre, or (when
// `mount_inset` is set) on the outline along each sensor's axis, `mount_inset` metres inside it.
struct SensorRing {
  int count = 10;
  double first_angle = 0.0;
  std::vector<double> beam_offsets_deg{0.0};
  double mount_radius = 0.20;
  std::optional<double> mount_inset;
  double d_min = 0.4;
  double d_max = 3.0;
};

// Hard limits of the platform (the controller's window never exceeds them).
struct Limits {
  double v_max = 1.6;                // m/s
  double omega_max = geometry::kPi;  // rad/s
  double a_max = 0.5;                // m/s²
  double a_min = -0.5;               // m/s²
  double alpha_max = geometry::kPi;  // rad/s²
};

struct RobotDescription {
  std::string name = "marvin";
  std::string source;  // the file it was read from ("" for the built-in default)
  Body body = Body::Circle(0.35);
  Drive drive;
  SensorRing long_range{10, 0.0, {-10, -5, 0, 5, 10}, 0.20, std::nullopt, 0.40, 3.00};
  SensorRing short_range{10, 0.0, {0}, 0.20, std::nullopt, 0.14, 0.75};  // also sees `floor` objects
  int bumper_count = 8;  // switches every 360°/n about the centre, switch 0 straight ahead (§2.4)
  Limits limits;

  // The emitter position (R) of sensor `index` of a ring.
  Vec2 SensorPosition(const SensorRing& ring, int index) const;
};

// The shipped descriptions' folder: $LIMBIC_ROBOT_DIR, else configs/robots in limbic's data (common/paths).
std::string DefaultRobotDir();
// Reads a description by name ("marvin", resolved in `dir` as <name>.yaml) or by path (contains '/' or ends in
// .yaml). Throws config::ConfigError naming the file and the field for a missing file, an unknown or missing
// key, or a value out of range (e.g. "configs/robots/x.yaml: key 'drive.wheelbase' must be > 0").
RobotDescription LoadRobotDescription(const std::string& name_or_path, const std::string& dir = DefaultRobotDir());
// The same from a parsed mapping (source names it in errors).
RobotDescription ParseRobotDescription(config::StrictMap& map, const std::string& name);
// Names of the descriptions in `dir` (file stems, sorted).
std::vector<std::string> ListRobotDescriptions(const std::string& dir = DefaultRobotDir());

// Spec multi-robot §1, eqs. 8–10: the body centre's motion when R's origin moves at (v_l, ω).
struct CentreMotion {
  double radius = 0.0;   // r (signed like r_l; infinite when ω = 0): eq. 8
  double speed = 0.0;    // v = (r/r_l)·v_l = r·ω: eq. 9 (the centre's speed, signed like v_l)
  double theta_v = 0.0;  // θ_v: angle from R's x axis to the centre's velocity (signed, counter-clockwise): eq. 10
};
// `offset` is the centre in R (forward, lateral). With a purely forward offset y_off this is eqs. 8–10:
// r = sign(r_l)·sqrt(r_l² + y_off²), v = r·ω, θ_v = sign(ω·v_l·y_off)·asin(|y_off|/|r|). A lateral offset b moves
// the instantaneous centre to (0, r_l − b) relative to the centre (r² = (r_l − b)² + y_off²). ω = 0: straight,
// θ_v = 0. Throws std::invalid_argument for a non-finite input.
CentreMotion CentreMotionFor(double v_l, double omega, const Vec2& offset);

}  // namespace limbic::robot
