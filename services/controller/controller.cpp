#include "services/controller/controller.hpp"

namespace limbic::controller {

Controller::Controller(const ControllerOptions& options)
    : directional_(options.directional), velocity_(options.velocity) {}

const ControllerOutput& Controller::Tick(const ControllerInputs& in,
                                         const ControlParameters& params) {
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
    return output_;
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
  return output_;
}

}  // namespace limbic::controller
