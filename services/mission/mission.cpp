#include "services/mission/mission.hpp"

#include <cmath>
#include <stdexcept>

namespace limbic::mission {

namespace {
void Validate(const MissionOptions& options) {
  if (options.iterations < 0) throw std::invalid_argument("mission: iterations must be >= 0");
  if (!(options.goal_tolerance > 0)) throw std::invalid_argument("mission: goal_tolerance must be positive");
  if (!(options.timeout_s > 0)) throw std::invalid_argument("mission: timeout_s must be positive");
}
}  // namespace

MissionTracker::MissionTracker(MissionOptions options, geometry::Vec2 start, geometry::Vec2 goal)
    : options_(options), start_(start), goal_(goal) {
  Validate(options_);
}

void MissionTracker::SetOptions(const MissionOptions& options) {
  Validate(options);
  options_ = options;
}

void MissionTracker::Resume(const MissionState& saved, double elapsed_s, double now_s) {
  const bool finite = std::isfinite(saved.speed_sum) && std::isfinite(saved.compute_s) &&
                      std::isfinite(saved.distance) && std::isfinite(elapsed_s) && std::isfinite(now_s);
  if (!finite || saved.iteration < 0 || saved.collisions < 0 || saved.samples < 0 || elapsed_s < 0) {
    throw std::invalid_argument("mission: the saved state cannot be resumed (negative or non-finite values)");
  }
  state_ = saved;
  state_.started_at = now_s - elapsed_s;
  state_.goal.received_at = state_.started_at;
}

void MissionTracker::BeginTraversal(const MissionInputs& in, MissionOutputs* out) {
  ++state_.iteration;
  // Odd traversals go start -> goal, even ones back (§3.5).
  const geometry::Vec2 target = state_.iteration % 2 == 1 ? goal_ : start_;
  state_.goal = NavigationGoal{target, state_.iteration, in.time, (target - in.true_pose.Position()).norm()};
  state_.started_at = in.time;
  state_.collisions = 0;
  state_.speed_sum = 0.0;
  state_.samples = 0;
  state_.compute_s = 0.0;
  state_.distance = 0.0;
  out->new_goal = state_.goal;
}

MissionOutputs MissionTracker::Step(const MissionInputs& in) {
  MissionOutputs out;
  if (state_.done) return out;
  if (state_.iteration == 0) BeginTraversal(in, &out);
  // This tick's motion and events belong to the traversal under way.
  state_.collisions += in.new_collision ? 1 : 0;
  state_.speed_sum += std::abs(in.true_speed);
  ++state_.samples;
  state_.compute_s += in.compute_time_s;
  state_.distance += std::abs(in.true_speed) * in.dt;
  out.distance_to_goal = (state_.goal.goal - in.true_pose.Position()).norm();
  const double elapsed = in.time - state_.started_at;
  const bool arrived = out.distance_to_goal < options_.goal_tolerance;
  const bool timed_out = !arrived && elapsed >= options_.timeout_s;
  if (arrived || timed_out) {
    TraversalMetrics m;
    m.iteration = state_.iteration;
    m.success = arrived;
    m.completion_time_s = arrived ? elapsed : options_.timeout_s;
    m.collisions = state_.collisions;
    m.collisions_per_min = m.completion_time_s > 0 ? m.collisions / (m.completion_time_s / 60.0) : 0.0;
    m.mean_velocity = state_.samples > 0 ? state_.speed_sum / static_cast<double>(state_.samples) : 0.0;
    m.exec_time_ratio = elapsed > 0 ? state_.compute_s / elapsed : 0.0;
    m.coverage = in.coverage;
    m.distance_travelled = state_.distance;
    m.run_finished = options_.iterations > 0 && state_.iteration >= options_.iterations;
    out.finished = m;
    if (m.run_finished) {
      state_.done = true;
      NavigationGoal stop = state_.goal;
      stop.instruction_id = -1;  // no instruction: stand still
      out.new_goal = stop;
      return out;
    }
    BeginTraversal(in, &out);
  }
  out.active = !state_.done;
  return out;
}

}  // namespace limbic::mission
