// What the reactive controller needs to know about the robot's body (issue 18 item 3; multi-robot spec §1):
// the outline (its centre's offset from the drive's reference point, its circumscribed radius, its width across
// a direction of travel), a tricycle's minimum turning radius and the platform's limits — all from the robot
// description, none of them a literal.
#pragma once

#include <span>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"
#include "common/types/control_parameters.hpp"

namespace limbic::controller {

// r_R of navigation spec §2.1: MARVIN's radius, the body for which r_o's default (0.35 m) and the safety drive's
// range [0.25, 0.35] m are given. Another body keeps r_o's margin relative to its own size (below).
inline constexpr double kSpecBodyRadius = 0.35;

struct ControllerBody {
  robot::Body outline = robot::RobotDescription{}.body;  // MARVIN unless a description says otherwise
  double min_turning_radius = 0.0;                       // r_lmin (m); 0: the drive turns on the spot
  robot::Limits limits;

  static ControllerBody From(const robot::RobotDescription& description);
  // The body's centre in R: (y_off, lateral) of eqs. 8–10; zero for MARVIN.
  const geometry::Vec2& centre() const { return outline.centre(); }
  bool centred() const { return outline.centre().isZero(); }
};

// The obstacle radius for a body whose relevant half-extent is `extent` (its circumscribed radius in the
// directional layer, its half-width across the direction of travel in the velocity layer): r_o + (extent − r_R),
// so r_o's margin against the spec body carries over. Exactly r_o when extent = r_R (MARVIN: results unchanged).
// Never negative.
double BodyObstacleRadius(double r_o, double extent);

// The parameters with the description's limits applied: v_L ≤ v_max, ω_L ≤ ω_max, a_max ≤ its limit, a_min ≥ its
// limit, |α| ≤ α_max. Values already within the limits are returned bit for bit.
ControlParameters ApplyBodyLimits(const ControlParameters& params, const robot::Limits& limits);

// Eqs. 8–10 for one (v, ω) candidate: the pose (centre, heading of its velocity θ + θ_v) and speed with which the
// body's centre starts along its curvature segment when R's origin moves at (v, ω). For a centred body this is
// (pose, v) itself.
struct CentreStart {
  geometry::Pose2 pose;
  double speed = 0.0;
  double theta_v = 0.0;
};
CentreStart CentreStartFor(const geometry::Pose2& pose, double v, double omega, const ControllerBody& body);

// The tricycle bound on a candidate's turn rate: ω clamped to ±v / r_lmin (eq. 8's |r_l| ≥ r_lmin); ω unchanged for
// drives that turn on the spot.
double BoundTurnRate(double v, double omega, double min_turning_radius);

// A motion judged by the body's real extent (issue 18): the outline posed along R's path while R drives (v, ω) from
// `pose` for t ∈ [0, duration] (eqs. 4.6–4.7), against each point (world frame). Eq. 5.22 judges a candidate by the
// distance d_o from the centre's path to a point against r_v, the body's half-width *across* the direction of
// travel (eqs. 8–10); that is right beside the body but not ahead of or behind it: Itchy's tail is 0.32 m behind its
// centre and its nose 0.41 m ahead, its half-width 0.26 m, so a check by r_v lets it back 6 cm into a wall.
// The motion is clear when no point comes nearer the outline than `clearance` — and a point already nearer than
// that (a body pressed against a wall) is never brought nearer than it is now, so the body may drive away from it.
struct SweptOutline {
  bool clear = true;
  // A lower bound of the least distance from the outline to any point over the motion (m; negative: a point inside
  // the body at some moment); +∞ when no point is within reach.
  double least = 0.0;
};
// Sampled so that no point of the body moves more than `step` (m) between samples: between two samples a distance
// can dip at most step/2 below their mean, so `least` is a true lower bound and the motion is clear only if it is.
// Throws std::invalid_argument for a non-finite input, a negative duration or clearance, or a step ≤ 0.
SweptOutline SweepOutline(const robot::Body& body, const geometry::Pose2& pose, double v, double omega, double duration,
                          std::span<const geometry::Vec2> points, double clearance, double step = 0.01);

// The sampled motion behind SweepOutline, posed once and asked point by point (the velocity layer asks it for each
// (v, ω) candidate, VelocityOptions::candidate_outline_check). Set() reuses its storage: no allocation per candidate
// once it has held the longest motion. Same sampling, same bound, same errors as SweepOutline.
class OutlineSweep {
 public:
  // What the motion does to one point (m, signed as Body::SignedDistance).
  struct Gap {
    double now = 0.0;             // at t = 0
    double nearest_sample = 0.0;  // the least over the samples
    double bound = 0.0;           // a lower bound of the least over the whole motion
  };
  void Set(const robot::Body& body, const geometry::Pose2& pose, double v, double omega, double duration,
           double step = 0.01);
  Gap At(const geometry::Vec2& p) const;
  // min(At(p).bound, below), exactly, cheaper: a sample whose body-centre circle (circumscribed radius) keeps more than
  // below + moved() from p is not measured — the distance there, and the bound of either interval beside it, is at
  // least `below` (a distance changes by at most moved() from one sample to the next).
  double BoundBelow(const geometry::Vec2& p, double below) const;
  // The most any body point moves between two samples (m).
  double moved() const { return moved_; }
  // No body point comes farther than this from R's position at t = 0 during the motion (m).
  double reach() const { return reach_; }

 private:
  // R's pose at each sample, as what takes a world point into R.
  struct Frame {
    geometry::Vec2 origin{0, 0};
    double c = 1.0, s = 0.0;
    geometry::Vec2 centre{0, 0};  // the body's centre (world)
  };
  const robot::Body* body_ = nullptr;
  std::vector<Frame> frames_;
  double moved_ = 0.0;
  double reach_ = 0.0;
};

}  // namespace limbic::controller
