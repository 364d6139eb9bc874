#include "services/controller/controller.hpp"

#include <cmath>

namespace limbic::controller {

Controller::Controller(const ControllerOptions& options)
    : directional_(options.directional), velocity_(options.velocity) {}

namespace {

std::string NonFiniteInput(const ControllerInputs& in) {
  auto bad = [](double v) { return !std::isfinite(v); };
  const auto& o = in.odometry;
  if (bad(o.pose.x) || bad(o.pose.y) || bad(o.pose.theta) || bad(o.v) || bad(o.omega)) return "odometry";
  if (bad(in.time)) return "time";
  if (in.goal && (bad(in.goal->x()) || bad(in.goal->y()))) return "goal";
  for (const auto& p : in.obstacle_points) {
    if (bad(p.x()) || bad(p.y())) return "obstacle points";
  }
  return "";
}

}  // namespace

const ControllerOutput& Controller::Tick(const ControllerInputs& in, const ControlParameters& params) {
  if (const std::string what = NonFiniteInput(in); !what.empty()) {
    fault_ = what + " not finite: stopped, state kept";
    output_.active = false;
    output_.command = {0.0, 0.0};
    return output_;
  }
  const DirectionalState saved = directional_.state();
  TickChecked(in, params);
  const auto& c = output_.command;
  if (!std::isfinite(c.v) || !std::isfinite(c.omega) || !std::isfinite(output_.directional.target_heading)) {
    directional_.set_state(saved);
    fault_ = "command not finite: stopped, kept the last good state";
    output_.active = false;
    output_.command = {0.0, 0.0};
    return output_;
  }
  fault_.clear();
  return output_;
}

void Controller::TickChecked(const ControllerInputs& in, const ControlParameters& params) {
  DirectionalInputs dir_in;
  dir_in.pose = in.odometry.pose;
  dir_in.obstacle_points = in.obstacle_points;
  dir_in.map = in.map;
  if (in.path != nullptr && in.path->success) dir_in.path_nodes = in.path->nodes;
  dir_in.time = in.time;

  if (!in.goal.has_value()) {
    // No goal: stand still, but keep the obstacle fields fresh for the danger stimulus.
    directional_.ObstacleFieldsOnly(dir_in, params, &output_.directional);
    output_.active = false;
    output_.command = {0.0, 0.0};
    return;
  }
  dir_in.goal = *in.goal;
  directional_.Tick(dir_in, params, &output_.directional);

  VelocityInputs vel_in;
  vel_in.pose = in.odometry.pose;
  vel_in.v = in.odometry.v;
  vel_in.omega = in.odometry.omega;
  vel_in.obstacle_points = in.obstacle_points;
  vel_in.map_points = output_.directional.map_points;
  vel_in.goal = *in.goal;
  vel_in.target_heading = output_.directional.target_heading;
  velocity_.Tick(vel_in, params, &output_.velocity);

  output_.active = true;
  output_.command = output_.velocity.command;
}

}  // namespace limbic::controller
