#include "sim/world.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/random.hpp"

namespace limbic::sim {
namespace {

constexpr uint64_t kHumanSalt = 0x68756d616e;  // "human"
constexpr uint64_t kRobotSalt = 0x726f626f74;  // "robot"

HumanMode DrawMode(std::mt19937_64& rng) { return static_cast<HumanMode>(UniformInt(rng, 0, 3)); }

}  // namespace

const char* HumanModeName(HumanMode mode) {
  switch (mode) {
    case HumanMode::kTowards:
      return "towards";
    case HumanMode::kAway:
      return "away";
    case HumanMode::kClockwise:
      return "clockwise";
    case HumanMode::kAnticlockwise:
      return "anticlockwise";
  }
  return "?";
}

Vec2 HumanDirection(HumanMode mode, const Vec2& human, const Vec2& robot) {
  const Vec2 rel = human - robot;  // from the robot to the human
  const double n = rel.norm();
  if (n < 1e-12) return Vec2::Zero();
  const Vec2 u = rel / n;
  switch (mode) {
    case HumanMode::kTowards:
      return -u;
    case HumanMode::kAway:
      return u;
    case HumanMode::kClockwise:
      return {u.y(), -u.x()};
    case HumanMode::kAnticlockwise:
      return {-u.y(), u.x()};
  }
  return Vec2::Zero();
}

World::World(Environment environment, WorldOptions options)
    : env_(std::move(environment)), options_(options), index_(env_.objects, options.broad_phase_cell) {
  options_.humans.radius = env_.human_radius;
  state_.human_rng.seed(DeriveSeed(options_.seed, kHumanSalt));
  for (size_t i = 0; i < env_.human_starts.size(); ++i) {
    HumanState h;
    h.id = static_cast<int>(i);
    h.position = env_.human_starts[i];
    h.mode = DrawMode(state_.human_rng);
    h.time_to_change = options_.humans.direction_period;
    state_.humans.push_back(h);
  }
}

int World::AddRobot(const Pose2& pose, const RobotOptions& options) {
  const int id = static_cast<int>(state_.robots.size());
  bool inside = false;
  for (const WorldObject& o : env_.objects) {
    if (!(PropertyBit(o.property) & kBodyMask)) continue;
    for (size_t i = 0, j = o.vertices.size() - 1; i < o.vertices.size(); j = i++) {
      const Vec2& a = o.vertices[i];
      const Vec2& b = o.vertices[j];
      if ((a.y() > pose.y) != (b.y() > pose.y) && pose.x < (b.x() - a.x()) * (pose.y - a.y()) / (b.y() - a.y()) + a.x())
        inside = !inside;
    }
    if (inside) break;
  }
  if (inside || BodyBlocked(PlacedBody(options.model.body, pose), -1, -1)) {
    throw std::invalid_argument("robot " + std::to_string(id) + " start pose (" + std::to_string(pose.x) + ", " +
                                std::to_string(pose.y) + ") overlaps an object, robot or human");
  }
  RobotState r;
  r.id = id;
  r.options = options;
  r.pose = pose;
  r.odometry.pose = pose;
  const uint64_t base = DeriveSeed(options_.seed, kRobotSalt + static_cast<uint64_t>(id));
  r.motor_rng.seed(DeriveSeed(base, 1));
  r.range_rng.seed(DeriveSeed(base, 2));
  r.odometry_rng.seed(DeriveSeed(base, 3));
  state_.robots.push_back(std::move(r));
  layouts_.push_back(BeamLayout(options.model));
  std::vector<Vec2> dirs;
  for (const RangeBeam& b : layouts_.back()) dirs.push_back(geometry::UnitVector(b.angle_local));
  local_dirs_.push_back(std::move(dirs));
  long_range_beams_.push_back(static_cast<size_t>(options.model.long_range.sensor_count) *
                              options.model.long_range.beam_offsets_deg.size());
  double reach = 0.0;
  for (const RangeBeam& b : layouts_.back()) reach = std::max(reach, b.origin_local.norm() + b.d_max);
  beam_reach_.push_back(reach);
  return id;
}

PlacedBody World::Placed(const RobotState& robot) const { return PlacedBody(robot.options.model.body, robot.pose); }

bool World::BodyBlocked(const PlacedBody& body, int ignore_robot, int ignore_human) const {
  if (body.is_circle()) return CircleBlocked(body.centre(), body.bound(), ignore_robot, ignore_human);
  bool blocked = false;
  index_.ForEachNear(body.centre(), body.bound(), kBodyMask, [&](const IndexedSegment& s) {
    if (!blocked && body.ContactWithSegment(s.segment)) blocked = true;
  });
  if (blocked) return true;
  for (const RobotState& r : state_.robots) {
    if (r.id != ignore_robot && body.ContactWith(Placed(r))) return true;
  }
  for (const HumanState& h : state_.humans) {
    if (h.id != ignore_human && body.ContactWithCircle(h.position, options_.humans.radius)) return true;
  }
  return false;
}

bool World::CircleBlocked(const Vec2& center, double radius, int ignore_robot, int ignore_human) const {
  bool blocked = false;
  index_.ForEachNear(center, radius, kBodyMask, [&](const IndexedSegment& s) {
    if (!blocked && geometry::PointSegmentDistance(center, s.segment) < radius) blocked = true;
  });
  if (blocked) return true;
  for (const RobotState& r : state_.robots) {
    if (r.id == ignore_robot) continue;
    if (!r.options.model.body.is_circle()) {
      if (Placed(r).ContactWithCircle(center, radius)) return true;
      continue;
    }
    const double reach = radius + r.options.model.radius();
    if ((r.pose.Position() - center).squaredNorm() < reach * reach) return true;
  }
  for (const HumanState& h : state_.humans) {
    if (h.id == ignore_human) continue;
    const double reach = radius + options_.humans.radius;
    if ((h.position - center).squaredNorm() < reach * reach) return true;
  }
  return false;
}

void World::Contacts(const PlacedBody& body, int ignore_robot, std::vector<Vec2>* points, int* robot_points) const {
  points->clear();
  if (robot_points) *robot_points = 0;
  index_.ForEachNear(body.centre(), body.bound(), kBodyMask, [&](const IndexedSegment& s) {
    if (auto p = body.ContactWithSegment(s.segment)) points->push_back(*p);
  });
  for (const RobotState& r : state_.robots) {
    if (r.id == ignore_robot) continue;
    if (auto p = body.ContactWith(Placed(r))) {
      points->push_back(*p);
      if (robot_points) *robot_points += 1;
    }
  }
  for (const HumanState& h : state_.humans) {
    if (auto p = body.ContactWithCircle(h.position, options_.humans.radius)) points->push_back(*p);
  }
}

void World::StepHumans(double dt, std::span<const RobotInput> inputs) {
  const HumanOptions& ho = options_.humans;
  for (HumanState& h : state_.humans) {
    h.velocity = Vec2::Zero();
    h.fleeing = false;
    h.time_to_change -= dt;
    if (h.time_to_change <= 1e-9) {
      h.mode = DrawMode(state_.human_rng);
      h.time_to_change += ho.direction_period;
    }
    if (state_.robots.empty()) continue;
    // Reference robot: the nearest robot flagged for fleeing within the flee radius, else the
    // nearest robot.
    int nearest = -1, flee = -1;
    double nearest_d = std::numeric_limits<double>::infinity(), flee_d = nearest_d;
    for (const RobotState& r : state_.robots) {
      const double d = (r.pose.Position() - h.position).norm();
      if (d < nearest_d) {
        nearest_d = d;
        nearest = r.id;
      }
      const bool flagged = r.id < static_cast<int>(inputs.size()) && inputs[r.id].humans_flee;
      if (flagged && d <= ho.flee_radius && d < flee_d) {
        flee_d = d;
        flee = r.id;
      }
    }
    h.fleeing = flee >= 0;
    h.reference_robot = h.fleeing ? flee : nearest;
    const HumanMode mode = h.fleeing ? HumanMode::kAway : h.mode;
    const RobotState& ref = state_.robots[h.reference_robot];
    const Vec2 dir = HumanDirection(mode, h.position, ref.pose.Position());
    double step = ho.speed * dt;
    if (mode == HumanMode::kTowards) {
      // Stop at the stop distance (surface gap) from the robot.
      const double gap = ref.options.model.body.is_circle()
                             ? (ref.pose.Position() - h.position).norm() - ho.radius - ref.options.model.radius()
                             : Placed(ref).SignedDistance(h.position) - ho.radius;
      step = std::clamp(gap - ho.stop_distance, 0.0, step);
    }
    if (step <= 0.0 || dir.squaredNorm() == 0.0) continue;
    const Vec2 delta = step * dir;
    // Try the full move, then slide along one axis.
    for (const Vec2& d : {delta, Vec2(delta.x(), 0.0), Vec2(0.0, delta.y())}) {
      if (d.squaredNorm() < 1e-18) continue;
      const Vec2 target = h.position + d;
      // Walls, obstacles and other humans block a human.
      bool blocked = false;
      index_.ForEachNear(target, ho.radius, kBodyMask, [&](const IndexedSegment& s) {
        if (!blocked && geometry::PointSegmentDistance(target, s.segment) < ho.radius) blocked = true;
      });
      for (const HumanState& other : state_.humans) {
        if (blocked) break;
        if (other.id != h.id && (other.position - target).norm() < 2.0 * ho.radius) blocked = true;
      }
      if (blocked) continue;
      // Robots in the way are pushed out of the human's path unless that would push them into
      // something.
      bool ok = true;
      std::vector<std::pair<int, Vec2>> pushes;
      for (const RobotState& r : state_.robots) {
        if (!r.options.model.body.is_circle()) {
          // A polygon body is pushed straight out of the human's disc, away from the human's centre.
          const PlacedBody placed = Placed(r);
          const double depth = ho.radius - placed.SignedDistance(target);
          if (depth <= 0.0) continue;
          const Vec2 rel = placed.NearestOutlinePoint(target) - target;
          if (!options_.humans_push_robots || placed.SignedDistance(target) <= 0.0 || rel.norm() < 1e-9) {
            ok = false;
            break;
          }
          const Vec2 push = (depth + 1e-4) * rel.normalized();
          Pose2 moved = r.pose;
          moved.x += push.x();
          moved.y += push.y();
          const PlacedBody at(r.options.model.body, moved);
          if (BodyBlocked(at, r.id, h.id) || at.ContactWithCircle(target, ho.radius)) {
            ok = false;
            break;
          }
          pushes.emplace_back(r.id, push);
          continue;
        }
        const Vec2 rel = r.pose.Position() - target;
        const double reach = ho.radius + r.options.model.radius();
        const double dist = rel.norm();
        if (dist >= reach) continue;
        if (!options_.humans_push_robots || dist < 1e-9) {
          ok = false;
          break;
        }
        const Vec2 push = (reach - dist + 1e-4) * rel / dist;
        const Vec2 pushed = r.pose.Position() + push;
        // The human has not moved yet, so test against the human at its target explicitly.
        if (CircleBlocked(pushed, r.options.model.radius(), r.id, h.id) || (pushed - target).norm() < reach) {
          ok = false;
          break;
        }
        pushes.emplace_back(r.id, push);
      }
      if (!ok) continue;
      for (const auto& [id, push] : pushes) {
        RobotState& r = state_.robots[id];
        const Vec2 pushed = r.pose.Position() + push;
        r.pose.x = pushed.x();
        r.pose.y = pushed.y();
        ApplyExternalMotion(r.options.odometry, push, r.pose.theta, &r.odometry);
        r.pushed = true;
        r.pushes += 1;
        r.pushed_contact = r.options.model.body.is_circle()
                               ? Vec2(pushed + r.options.model.radius() * (target - pushed).normalized())
                               : Placed(r).NearestOutlinePoint(target);
      }
      h.velocity = d / dt;
      h.position = target;
      break;
    }
  }
}

void World::StepRobot(double dt, const RobotInput& input, RobotState* robot, RobotOutput* out) {
  const RobotOptions& o = robot->options;
  const double d_w = o.model.wheel_separation();  // a skid drive's effective track
  const bool tricycle = o.model.drive.kind == robot::DriveKind::kTricycle;
  const double n_left = robot->motor_normal(robot->motor_rng);
  const double n_right = robot->motor_normal(robot->motor_rng);
  WheelCommand target = input.wheels;
  if (tricycle) {
    // The steered front wheel cannot turn tighter than r_lmin: the rear wheels are driven towards the speeds of
    // the nearest turn it can make.
    const BodyVelocity wanted = LimitToDrive(o.model.drive, BodyFromWheels(target.v_left, target.v_right, d_w));
    target = WheelsFromBody(wanted.v, wanted.omega, d_w);
  }
  double v_left = StepWheel(o.motor, target.v_left, n_left, &robot->left);
  double v_right = StepWheel(o.motor, target.v_right, n_right, &robot->right);
  if (tricycle) {
    // Motor noise must not take the body past the steering limit either; the rear wheels then roll at the
    // speeds of the limited motion (truth and odometry both follow from these wheel speeds).
    const BodyVelocity limited = LimitToDrive(o.model.drive, BodyFromWheels(v_left, v_right, d_w));
    const WheelCommand rolled = WheelsFromBody(limited.v, limited.omega, d_w);
    v_left = robot->left.actual = rolled.v_left;
    v_right = robot->right.actual = rolled.v_right;
  }
  const BodyVelocity body = BodyFromWheels(v_left, v_right, d_w);                       // eqs. 4.4–4.5
  const Pose2 candidate = geometry::IntegrateArc(robot->pose, body.v, body.omega, dt);  // eqs. 4.6–4.7
  const PlacedBody placed(o.model.body, candidate);
  const Pose2 centre_pose{placed.centre().x(), placed.centre().y(), candidate.theta};  // bumpers ring the centre

  CollisionEvent& ev = out->collision;
  ev.occurred = false;
  ev.new_event = false;
  ev.sensor_ids.clear();
  ev.contact_point = Vec2::Zero();
  ev.speed_before = 0.0;
  double applied_v = body.v, applied_omega = body.omega;
  double wheels_left = v_left, wheels_right = v_right;  // what moved the body (for odometry)
  double best = std::numeric_limits<double>::infinity();

  int robot_points = 0;
  Contacts(placed, robot->id, &scratch_points_, &robot_points);
  const bool robot_contact = robot_points > 0;
  const bool world_contact = robot->pushed || static_cast<int>(scratch_points_.size()) > robot_points;
  if (!scratch_points_.empty()) {
    // Collision response (§2.2 item 7): reject the pose, zero the linear velocity, restore and
    // shift 1 cm.
    ev.occurred = true;
    ev.speed_before = std::abs(body.v);
    for (const Vec2& p : scratch_points_) {
      for (int id : ActiveSwitches(centre_pose, p, o.model.bumper_count)) ev.sensor_ids.push_back(id);
      const double d = (p - centre_pose.Position()).squaredNorm();
      if (d < best) {
        best = d;
        ev.contact_point = p;
      }
    }
    const double turn = 0.5 * (v_left - v_right);  // keep the rotational part of the wheel speeds
    robot->left.actual = robot->left.drive = turn;
    robot->right.actual = robot->right.drive = -turn;
    const Vec2 away = Placed(*robot).centre() - ev.contact_point;
    if (away.norm() > 1e-12) {
      const Vec2 shift = o.collision_shift * away.normalized();
      const Vec2 shifted = robot->pose.Position() + shift;
      std::vector<Vec2> probe;
      Contacts(PlacedBody(o.model.body, {shifted.x(), shifted.y(), robot->pose.theta}), robot->id, &probe);
      if (probe.empty()) {
        robot->pose.x = shifted.x();
        robot->pose.y = shifted.y();
        ApplyExternalMotion(o.odometry, shift, robot->pose.theta, &robot->odometry);
      }
    }
    applied_v = 0.0;
    applied_omega = 0.0;
    wheels_left = wheels_right = 0.0;
  } else {
    robot->pose = candidate;
  }
  if (robot->pushed) {
    ev.occurred = true;
    const Vec2 c = Placed(*robot).centre();
    for (int id : ActiveSwitches({c.x(), c.y(), robot->pose.theta}, robot->pushed_contact, o.model.bumper_count))
      ev.sensor_ids.push_back(id);
    if (!std::isfinite(best)) ev.contact_point = robot->pushed_contact;
  }
  std::sort(ev.sensor_ids.begin(), ev.sensor_ids.end());
  ev.sensor_ids.erase(std::unique(ev.sensor_ids.begin(), ev.sensor_ids.end()), ev.sensor_ids.end());
  ev.new_event = ev.occurred && !robot->in_contact;
  robot->in_contact = ev.occurred;
  robot->robot_collisions += robot_contact && !robot->in_robot_contact ? 1 : 0;
  robot->world_collisions += world_contact && !robot->in_world_contact ? 1 : 0;
  robot->in_robot_contact = robot_contact;
  robot->in_world_contact = world_contact;
  robot->v = applied_v;
  robot->omega = applied_omega;

  // Odometry (eq. 4.8) of the wheel motion; the shift-back above and any push were applied to the
  // estimate where they happened (ApplyExternalMotion).
  const double o_left = robot->odometry_normal(robot->odometry_rng);
  const double o_right = robot->odometry_normal(robot->odometry_rng);
  StepOdometry(o.odometry, d_w, wheels_left, wheels_right, dt, o_left, o_right, &robot->odometry);
}

void World::CastBeams(const RobotState& robot, RangeScan* scan) {
  RobotState& r = state_.robots[robot.id];  // for the range-noise generator
  const std::vector<RangeBeam>& layout = layouts_[robot.id];
  if (scan->beams.size() != layout.size()) scan->beams = layout;
  const double c = std::cos(robot.pose.theta), s = std::sin(robot.pose.theta);
  const Vec2 pos = robot.pose.Position();
  const double human_r = options_.humans.radius;
  // The other robots any beam of this scan may reach (issue 18: the per-beam test below ran for every robot,
  // beams × robots² a tick). One is left out only when its centre lies over a metre beyond the farthest reach
  // of this robot's beams plus its own bound, where every beam's test below would have skipped it too (the
  // metre dwarfs any rounding): the scan is the same, bit for bit.
  scratch_nearby_.clear();
  for (const RobotState& other : state_.robots) {
    if (other.id == robot.id) continue;
    const bool circle = other.options.model.body.is_circle();
    const Vec2 centre = circle ? other.pose.Position() : Placed(other).centre();
    const double bound = circle ? other.options.model.radius() : Placed(other).bound();
    const double keep = beam_reach_[robot.id] + bound + 1.0;
    if (!((centre - pos).squaredNorm() > keep * keep)) scratch_nearby_.push_back(&other);  // as the test below
  }
  for (size_t i = 0; i < layout.size(); ++i) {
    const RangeBeam& b = layout[i];
    const Vec2 origin(pos.x() + c * b.origin_local.x() - s * b.origin_local.y(),
                      pos.y() + s * b.origin_local.x() + c * b.origin_local.y());
    const Vec2& local_dir = local_dirs_[robot.id][i];
    const Vec2 dir(c * local_dir.x() - s * local_dir.y(), s * local_dir.x() + c * local_dir.y());
    const uint32_t mask = i >= long_range_beams_[robot.id] ? kShortRangeBeamMask : kLongRangeBeamMask;
    double t = index_.CastRay(origin, dir, b.d_max, mask);
    // Dynamic bodies: other robots and humans (circles).
    for (const RobotState* other_robot : scratch_nearby_) {
      const RobotState& other = *other_robot;
      if (other.options.model.body.is_circle()) {
        const double reach = b.d_max + other.options.model.radius();
        if ((other.pose.Position() - origin).squaredNorm() > reach * reach) continue;
        if (auto hit =
                geometry::RayCircleIntersection(origin, dir, other.pose.Position(), other.options.model.radius()))
          t = std::min(t, *hit);
        continue;
      }
      const PlacedBody placed = Placed(other);
      const double reach = b.d_max + placed.bound();
      if ((placed.centre() - origin).squaredNorm() > reach * reach) continue;
      if (auto hit = placed.RayHit(origin, dir)) t = std::min(t, *hit);
    }
    for (const HumanState& h : state_.humans) {
      const double reach = b.d_max + human_r;
      if ((h.position - origin).squaredNorm() > reach * reach) continue;
      if (auto hit = geometry::RayCircleIntersection(origin, dir, h.position, human_r)) t = std::min(t, *hit);
    }
    RangeBeam& out = scan->beams[i];
    if (t > b.d_max) {
      out.range = b.d_max;
      out.valid = false;
      continue;
    }
    const double d_raw = ApplyDeadZone(t, b.d_min, b.d_max);                                           // eq. 4.10
    const double noisy = d_raw * (1.0 + r.options.range_noise.kappa_d * r.range_normal(r.range_rng));  // eq. 4.11
    out.range = std::max(0.0, noisy);
    out.valid = true;
  }
}

void World::Step(double dt, std::span<const RobotInput> inputs, StepOutput* out) {
  if (inputs.size() != state_.robots.size()) {
    throw std::invalid_argument("World::Step: got " + std::to_string(inputs.size()) + " robot inputs for " +
                                std::to_string(state_.robots.size()) + " robots");
  }
  state_.tick += 1;
  state_.time += dt;
  for (RobotState& r : state_.robots) r.pushed = false;
  StepHumans(dt, inputs);
  out->tick = state_.tick;
  out->stamp = state_.time;
  out->robots.resize(state_.robots.size());
  for (RobotState& r : state_.robots) {
    RobotOutput& ro = out->robots[r.id];
    StepRobot(dt, inputs[r.id], &r, &ro);
  }
  for (const RobotState& r : state_.robots) {
    RobotOutput& ro = out->robots[r.id];
    ro.robot_id = r.id;
    ro.raw_scan.tick = state_.tick;
    ro.raw_scan.stamp = state_.time;
    CastBeams(r, &ro.raw_scan);
    ro.odometry = r.odometry;
    ro.truth.pose = r.pose;
    ro.truth.v = r.v;
    ro.truth.omega = r.omega;
    ro.truth.pushed = r.pushed;
    ro.truth.pushes = r.pushes;
    ro.truth.in_contact = r.in_contact;
    ro.truth.in_robot_contact = r.in_robot_contact;
    ro.truth.robot_collisions = r.robot_collisions;
    ro.truth.world_collisions = r.world_collisions;
    ro.truth.wheel_left = r.left.actual;
    ro.truth.wheel_right = r.right.actual;
  }
  out->humans = state_.humans;
}

StepOutput World::Step(double dt, std::span<const RobotInput> inputs) {
  StepOutput out;
  Step(dt, inputs, &out);
  return out;
}

}  // namespace limbic::sim
