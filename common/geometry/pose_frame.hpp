// A pose with its rotation evaluated once, for many points given in the same frame.
#pragma once

#include <cmath>

#include "common/geometry/geometry.hpp"

namespace limbic::geometry {

// For a scan's beams: ToWorld gives the same bits as Pose2::ToWorld (the same expression over the same cos θ and
// sin θ, geometry_test checks it) without a cos and a sin per point (issue 18: the mapper and the affect engine
// took them per beam, 60 beams a robot a tick).
struct PoseFrame {
  explicit PoseFrame(const Pose2& p) : pose(p), c(std::cos(p.theta)), s(std::sin(p.theta)) {}
  Vec2 ToWorld(const Vec2& local) const {
    return {pose.x + c * local.x() - s * local.y(), pose.y + s * local.x() + c * local.y()};
  }
  Pose2 pose;
  double c, s;  // cos θ, sin θ
};

}  // namespace limbic::geometry
