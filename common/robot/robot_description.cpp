#include "common/robot/robot_description.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "common/config/config.hpp"
#include "common/paths/paths.hpp"

namespace limbic::robot {
namespace {

using geometry::kPi;

double Cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

bool Finite(const Vec2& p) { return std::isfinite(p.x()) && std::isfinite(p.y()); }

// Whether segments [a, b] and [c, d] cross or touch (closed segments).
bool SegmentsIntersect(const Vec2& a, const Vec2& b, const Vec2& c, const Vec2& d) {
  const double d1 = Cross(b - a, c - a), d2 = Cross(b - a, d - a);
  const double d3 = Cross(d - c, a - c), d4 = Cross(d - c, b - c);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  auto on = [](const Vec2& p, const Vec2& q, const Vec2& r, double cross) {
    return cross == 0.0 && std::min(p.x(), q.x()) <= r.x() && r.x() <= std::max(p.x(), q.x()) &&
           std::min(p.y(), q.y()) <= r.y() && r.y() <= std::max(p.y(), q.y());
  };
  return on(a, b, c, d1) || on(a, b, d, d2) || on(c, d, a, d3) || on(c, d, b, d4);
}

}  // namespace

Body Body::Circle(double radius, const Vec2& centre) {
  if (!std::isfinite(radius) || !(radius > 0.0))
    throw std::invalid_argument("circle radius must be > 0 and finite (got " + std::to_string(radius) + ")");
  if (!Finite(centre)) throw std::invalid_argument("circle centre must be finite");
  Body b;
  b.circle_ = true;
  b.radius_ = radius;
  b.centre_ = centre;
  b.ComputeFacts();
  return b;
}

Body Body::Polygon(std::vector<Vec2> vertices) {
  const size_t n = vertices.size();
  if (n < 3) throw std::invalid_argument("a polygon needs at least 3 vertices (got " + std::to_string(n) + ")");
  for (size_t i = 0; i < n; ++i) {
    if (!Finite(vertices[i])) throw std::invalid_argument("vertex " + std::to_string(i) + " is not finite");
  }
  // Shoelace area; clockwise input is reversed so that every polygon is counter-clockwise.
  double twice_area = 0.0;
  for (size_t i = 0; i < n; ++i) twice_area += Cross(vertices[i], vertices[(i + 1) % n]);
  if (std::abs(twice_area) < 1e-6) {
    throw std::invalid_argument("polygon is degenerate: its area is " + std::to_string(0.5 * std::abs(twice_area)) +
                                " m² (vertices collinear or repeated)");
  }
  if (twice_area < 0) std::reverse(vertices.begin(), vertices.end());
  for (size_t i = 0; i < n; ++i) {
    if ((vertices[i] - vertices[(i + 1) % n]).norm() < 1e-9)
      throw std::invalid_argument("polygon has repeated vertices (" + std::to_string(i) + " and its successor)");
  }
  // Simple polygon: no two non-adjacent edges meet.
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (j == i + 1 || (i == 0 && j == n - 1)) continue;
      if (SegmentsIntersect(vertices[i], vertices[(i + 1) % n], vertices[j], vertices[(j + 1) % n])) {
        throw std::invalid_argument("polygon edges " + std::to_string(i) + " and " + std::to_string(j) +
                                    " cross (not a simple polygon)");
      }
    }
  }
  Body b;
  b.circle_ = false;
  b.vertices_ = std::move(vertices);
  b.ComputeFacts();
  return b;
}

void Body::ComputeFacts() {
  if (circle_) {
    area_ = kPi * radius_ * radius_;
    circumscribed_radius_ = radius_;
    inscribed_radius_ = radius_;
    reach_from_origin_ = centre_.norm() + radius_;
    return;
  }
  const size_t n = vertices_.size();
  double twice_area = 0.0;
  Vec2 c = Vec2::Zero();
  for (size_t i = 0; i < n; ++i) {
    const Vec2& p = vertices_[i];
    const Vec2& q = vertices_[(i + 1) % n];
    const double w = Cross(p, q);
    twice_area += w;
    c += w * (p + q);
  }
  area_ = 0.5 * twice_area;
  centre_ = c / (3.0 * twice_area);  // area centroid
  circumscribed_radius_ = 0.0;
  reach_from_origin_ = 0.0;
  for (const Vec2& p : vertices_) {
    circumscribed_radius_ = std::max(circumscribed_radius_, (p - centre_).norm());
    reach_from_origin_ = std::max(reach_from_origin_, p.norm());
  }
  inscribed_radius_ = std::abs(SignedDistance(centre_));
}

bool Body::Contains(const Vec2& p) const { return SignedDistance(p) < 0.0; }

double Body::SignedDistance(const Vec2& p) const {
  if (circle_) return (p - centre_).norm() - radius_;
  const size_t n = vertices_.size();
  double best = std::numeric_limits<double>::infinity();
  bool inside = false;
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    const Vec2& a = vertices_[j];
    const Vec2& b = vertices_[i];
    best = std::min(best, geometry::PointSegmentDistance(p, {a, b}));
    if ((a.y() > p.y()) != (b.y() > p.y()) && p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x())
      inside = !inside;  // even-odd crossing rule
  }
  return inside ? -best : best;
}

Vec2 Body::OutlinePointAt(double bearing) const {
  const Vec2 dir = geometry::UnitVector(bearing);
  if (circle_) return centre_ + radius_ * dir;
  // The centroid of a non-convex polygon may lie outside it; the farthest crossing is on the outline either way.
  double t_best = 0.0;
  const size_t n = vertices_.size();
  for (size_t i = 0; i < n; ++i) {
    if (auto t = geometry::RaySegmentIntersection(centre_, dir, {vertices_[i], vertices_[(i + 1) % n]}))
      t_best = std::max(t_best, *t);
  }
  return centre_ + t_best * dir;
}

std::vector<Vec2> Body::OutlineInWorld(const geometry::Pose2& pose, int circle_sides) const {
  std::vector<Vec2> out;
  if (circle_) {
    for (int k = 0; k < circle_sides; ++k)
      out.push_back(pose.ToWorld(centre_ + radius_ * geometry::UnitVector(2.0 * kPi * k / circle_sides)));
    return out;
  }
  for (const Vec2& v : vertices_) out.push_back(pose.ToWorld(v));
  return out;
}

double Body::HalfWidthAcross(double heading) const {
  if (circle_) return radius_;
  const Vec2 normal(-std::sin(heading), std::cos(heading));
  double half = 0.0;
  for (const Vec2& v : vertices_) half = std::max(half, std::abs((v - centre_).dot(normal)));
  return half;
}

const char* DriveKindName(DriveKind kind) {
  switch (kind) {
    case DriveKind::kDifferential:
      return "differential";
    case DriveKind::kTricycle:
      return "tricycle";
    case DriveKind::kSkid:
      return "skid";
  }
  return "?";
}

double Drive::MinTurningRadius() const {
  if (kind != DriveKind::kTricycle) return 0.0;
  return wheelbase / std::tan(max_steering_angle);
}

double Drive::EffectiveTrack() const {
  return kind == DriveKind::kSkid ? slip_factor * wheel_separation : wheel_separation;
}

Vec2 RobotDescription::SensorPosition(const SensorRing& ring, int index) const {
  const double axis = ring.first_angle + 2.0 * kPi * index / ring.count;
  if (ring.mount_inset) {
    const Vec2 edge = body.OutlinePointAt(axis);
    return edge - *ring.mount_inset * geometry::UnitVector(axis);
  }
  // Exactly the §2.5 layout (mount_radius · unit(axis)) when the centre is R's origin.
  const Vec2 on_circle = ring.mount_radius * geometry::UnitVector(axis);
  return body.centre().isZero() ? on_circle : Vec2(body.centre() + on_circle);
}

std::string DefaultRobotDir() { return paths::DataPath("configs/robots", "LIMBIC_ROBOT_DIR").string(); }

namespace {

double ReadPositive(config::StrictMap& m, const std::string& key, double fallback, bool required = false) {
  double v = fallback;
  if (required) {
    v = m.Required<double>(key);
  } else {
    m.Optional(key, &v);
  }
  if (!std::isfinite(v) || !(v > 0.0)) m.Fail(key, "must be > 0 and finite (got " + std::to_string(v) + ")");
  return v;
}

Vec2 ReadPoint(config::StrictMap& m, const std::string& key, const std::vector<double>& xy) {
  if (xy.size() != 2) m.Fail(key, "must be a point [x, y] (got " + std::to_string(xy.size()) + " numbers)");
  return {xy[0], xy[1]};
}

SensorRing ReadRing(config::StrictMap& m, SensorRing ring, const RobotDescription& d) {
  ring.count = m.Required<int>("count");
  if (ring.count < 1 || ring.count > 360) m.Fail("count", "must be in 1..360 (got " + std::to_string(ring.count) + ")");
  double first_deg = 0.0;
  m.Optional("first_angle_deg", &first_deg);
  if (!std::isfinite(first_deg)) m.Fail("first_angle_deg", "must be finite");
  ring.first_angle = first_deg * kPi / 180.0;
  if (m.Has("beam_offsets_deg")) {
    ring.beam_offsets_deg = m.Required<std::vector<double>>("beam_offsets_deg");
    if (ring.beam_offsets_deg.empty()) m.Fail("beam_offsets_deg", "must list at least one beam");
    for (double b : ring.beam_offsets_deg) {
      if (!std::isfinite(b) || std::abs(b) >= 180.0) m.Fail("beam_offsets_deg", "must be finite and within ±180°");
    }
  }
  if (m.Has("mount_radius") && m.Has("mount_inset")) m.Fail("mount_inset", "and mount_radius exclude each other");
  if (m.Has("mount_inset")) {
    double inset = m.Required<double>("mount_inset");
    if (!std::isfinite(inset) || inset < 0.0) m.Fail("mount_inset", "must be ≥ 0 and finite");
    ring.mount_inset = inset;
  } else {
    double r = ring.mount_radius;
    m.Optional("mount_radius", &r);
    if (!std::isfinite(r) || r < 0.0) m.Fail("mount_radius", "must be ≥ 0 and finite");
    ring.mount_radius = r;
  }
  ring.d_min = m.Required<double>("d_min");
  ring.d_max = m.Required<double>("d_max");
  if (!std::isfinite(ring.d_min) || ring.d_min < 0.0) m.Fail("d_min", "must be ≥ 0 and finite");
  if (!std::isfinite(ring.d_max) || !(ring.d_max > ring.d_min)) m.Fail("d_max", "must be finite and > d_min");
  // Every emitter inside the body (a beam starting outside would see through the chassis).
  for (int s = 0; s < ring.count; ++s) {
    const Vec2 p = d.SensorPosition(ring, s);
    if (!(d.body.SignedDistance(p) <= 1e-9)) {
      m.Fail(ring.mount_inset ? "mount_inset" : "mount_radius", "places sensor " + std::to_string(s) +
                                                                    " outside the body (" + std::to_string(p.x()) +
                                                                    ", " + std::to_string(p.y()) + ")");
    }
  }
  return ring;
}

}  // namespace

RobotDescription ParseRobotDescription(config::StrictMap& root, const std::string& name) {
  RobotDescription d;
  d.name = name;
  d.source = root.source();
  {
    if (!root.Has("body")) root.Fail("body", "is required but missing");
    config::StrictMap body = root.Child("body");
    const auto shape = body.Required<std::string>("shape");
    try {
      if (shape == "circle") {
        const double r = ReadPositive(body, "radius", 0.0, true);
        Vec2 centre = Vec2::Zero();
        if (body.Has("centre")) centre = ReadPoint(body, "centre", body.Required<std::vector<double>>("centre"));
        d.body = Body::Circle(r, centre);
      } else if (shape == "polygon" || shape == "rectangle") {
        std::vector<Vec2> vertices;
        if (shape == "rectangle") {
          // length along x, width along y, centred at `centre` (default: R's origin).
          const double length = ReadPositive(body, "length", 0.0, true);
          const double width = ReadPositive(body, "width", 0.0, true);
          Vec2 c = Vec2::Zero();
          if (body.Has("centre")) c = ReadPoint(body, "centre", body.Required<std::vector<double>>("centre"));
          const double hx = 0.5 * length, hy = 0.5 * width;
          vertices = {c + Vec2(-hx, -hy), c + Vec2(hx, -hy), c + Vec2(hx, hy), c + Vec2(-hx, hy)};
        } else {
          const auto raw = body.Required<std::vector<std::vector<double>>>("vertices");
          for (size_t i = 0; i < raw.size(); ++i)
            vertices.push_back(ReadPoint(body, "vertices[" + std::to_string(i) + "]", raw[i]));
        }
        d.body = Body::Polygon(std::move(vertices));
      } else {
        body.Fail("shape", "must be circle, polygon or rectangle (got '" + shape + "')");
      }
    } catch (const std::invalid_argument& e) {
      body.Fail(shape == "circle" ? "radius" : (shape == "rectangle" ? "length" : "vertices"), e.what());
    }
  }
  {
    if (!root.Has("drive")) root.Fail("drive", "is required but missing");
    config::StrictMap drive = root.Child("drive");
    const auto kind = drive.Required<std::string>("kind");
    if (kind == "differential") {
      d.drive.kind = DriveKind::kDifferential;
    } else if (kind == "tricycle") {
      d.drive.kind = DriveKind::kTricycle;
    } else if (kind == "skid") {
      d.drive.kind = DriveKind::kSkid;
    } else {
      drive.Fail("kind", "must be differential, tricycle or skid (got '" + kind + "')");
    }
    d.drive.wheel_separation = ReadPositive(drive, "wheel_separation", 0.0, true);
    if (d.drive.kind == DriveKind::kTricycle) {
      d.drive.wheelbase = ReadPositive(drive, "wheelbase", 0.0, true);
      // Either the steering limit or the minimum turning radius it implies (r_lmin = L / tan δ_max).
      if (drive.Has("max_steering_angle_deg") == drive.Has("min_turning_radius"))
        drive.Fail("min_turning_radius", "or max_steering_angle_deg: give exactly one");
      if (drive.Has("min_turning_radius")) {
        const double r_min = ReadPositive(drive, "min_turning_radius", 0.0, true);
        d.drive.max_steering_angle = std::atan(d.drive.wheelbase / r_min);
      } else {
        const double deg = ReadPositive(drive, "max_steering_angle_deg", 0.0, true);
        if (!(deg < 90.0))
          drive.Fail("max_steering_angle_deg", "must be below 90° (a tricycle cannot turn on the spot)");
        d.drive.max_steering_angle = deg * kPi / 180.0;
      }
    } else if (d.drive.kind == DriveKind::kSkid) {
      drive.Optional("slip_factor", &d.drive.slip_factor);
      if (!std::isfinite(d.drive.slip_factor) || d.drive.slip_factor < 1.0 || d.drive.slip_factor > 5.0)
        drive.Fail("slip_factor", "must be in [1, 5] (χ: effective track / wheel separation)");
    }
  }
  {
    config::StrictMap sensors = root.Child("sensors");
    if (sensors.Has("long_range")) {
      config::StrictMap m = sensors.Child("long_range");
      d.long_range = ReadRing(m, d.long_range, d);
    }
    if (sensors.Has("short_range")) {
      config::StrictMap m = sensors.Child("short_range");
      d.short_range = ReadRing(m, d.short_range, d);
    }
    sensors.Optional("bumpers", &d.bumper_count);
    if (d.bumper_count < 1 || d.bumper_count > 64) sensors.Fail("bumpers", "must be in 1..64");
  }
  {
    config::StrictMap limits = root.Child("limits");
    d.limits.v_max = ReadPositive(limits, "v_max", d.limits.v_max);
    d.limits.omega_max = ReadPositive(limits, "omega_max", d.limits.omega_max);
    d.limits.a_max = ReadPositive(limits, "a_max", d.limits.a_max);
    limits.Optional("a_min", &d.limits.a_min);
    if (!std::isfinite(d.limits.a_min) || !(d.limits.a_min < 0.0)) limits.Fail("a_min", "must be < 0 and finite");
    d.limits.alpha_max = ReadPositive(limits, "alpha_max", d.limits.alpha_max);
  }
  root.Finish();
  return d;
}

RobotDescription LoadRobotDescription(const std::string& name_or_path, const std::string& dir) {
  if (name_or_path.empty()) throw config::ConfigError("robot description: empty name");
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".yaml");
  const std::string path = is_path ? name_or_path : dir + "/" + name_or_path + ".yaml";
  if (!is_path && !std::filesystem::exists(path)) {
    std::string known;
    for (const auto& n : ListRobotDescriptions(dir)) known += (known.empty() ? "" : ", ") + n;
    throw config::ConfigError("robot description '" + name_or_path + "': no file " + path + " (known: " + known + ")");
  }
  config::StrictMap root(config::LoadFile(path), path);
  return ParseRobotDescription(root, std::filesystem::path(path).stem().string());
}

std::vector<std::string> ListRobotDescriptions(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

CentreMotion CentreMotionFor(double v_l, double omega, const Vec2& offset) {
  if (!std::isfinite(v_l) || !std::isfinite(omega) || !Finite(offset))
    throw std::invalid_argument("CentreMotionFor: non-finite input");
  CentreMotion m;
  const double a = offset.x(), b = offset.y();
  if (omega == 0.0) {  // straight: every point of the body moves with R's origin
    m.radius = std::numeric_limits<double>::infinity();
    m.speed = v_l;
    return m;
  }
  // Velocity of the centre: ω × (centre − ICR) with the ICR at (0, r_l) in R: u = (v_l − ω·b, ω·a).
  const double ux = v_l - omega * b, uy = omega * a;
  const double r_abs = std::hypot(v_l / omega - b, a);  // eq. 8 (b = 0: sqrt(r_l² + y_off²))
  if (v_l == 0.0) {
    // Turning on the spot (r_l = 0, outside eq. 8's range |r_l| ≥ r_lmin): the centre circles R's origin.
    m.radius = omega > 0 ? r_abs : -r_abs;
    m.speed = std::abs(omega) * r_abs;
    m.theta_v = std::atan2(uy, ux);
    return m;
  }
  m.radius = v_l / omega > 0 ? r_abs : -r_abs;  // sign follows r_l
  m.speed = m.radius * omega;                   // eq. 9: v = r·ω = (r / r_l)·v_l
  // Eq. 10: |θ_v| = asin(|y_off| / r); measured from the direction R travels (+x forward, −x backward).
  m.theta_v = v_l > 0 ? std::atan2(uy, ux) : std::atan2(-uy, -ux);
  return m;
}

}  // namespace limbic::robot
