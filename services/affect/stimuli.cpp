#include "services/affect/stimuli.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace limbic::affect {

using geometry::Vec2;

double NormaliseStimulus(double raw, double s_min, double s_max) {
  if (raw < s_min) return 0.0;
  if (raw > s_max) return 1.0;
  return (raw - s_min) / (s_max - s_min);
}

double DampStimulus(double normalised, double damped, double alpha_growth, double alpha_decay) {
  const double alpha = normalised > damped ? alpha_growth : alpha_decay;
  return alpha * normalised + (1.0 - alpha) * damped;
}

double RescaleDampingFactor(double alpha, double period, double reference_period) {
  if (alpha >= 1.0 || period == reference_period) return alpha;
  return 1.0 - std::pow(1.0 - alpha, period / reference_period);
}

double DangerStimulus(std::span<const double> headings, std::span<const double> raw_distances, double robot_heading,
                      double kappa_theta, double distance_max) {
  const size_t n = std::min(headings.size(), raw_distances.size());
  if (n == 0) return 0.0;
  double min_biased = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < n; ++k) {
    const double biased = raw_distances[k] / distance_max +
                          kappa_theta * geometry::AngleDistance(robot_heading, headings[k]) / geometry::kPi;
    min_biased = std::min(min_biased, biased);
  }
  return std::clamp(1.0 - min_biased, 0.0, 1.0);
}

double PainStimulus(const CollisionEvent& collision) {
  return collision.new_event ? std::abs(collision.speed_before) : 0.0;
}

double AchievementStimulus(double distance_at_start, double distance_now, double t_0, double t_now) {
  if (t_now <= t_0) return 0.0;
  return (distance_at_start - distance_now) / (t_now - t_0);
}

double LearningStimulus(double mean_p_e, double time_since_map_reset) {
  if (time_since_map_reset <= 0.0) return 0.0;
  return mean_p_e / time_since_map_reset;
}

double MismatchStimulus(std::span<const UpdatedCell> cells, double w_m1, double w_m2) {
  double weighted = 0.0;
  double total = 0.0;
  for (const UpdatedCell& c : cells) {
    const double w = c.s_o < c.p_o_before ? w_m1 : w_m2;
    weighted += w * std::abs(c.s_o - c.p_o_before);
    total += w;
  }
  return total > 0.0 ? weighted / total : 0.0;
}

double ErrorStimulus(const CollisionEvent& collision, std::span<const Vec2> switch_points,
                     std::span<const Vec2> ir_points, double no_points_distance) {
  if (!collision.occurred) return 0.0;
  if (ir_points.empty()) return no_points_distance;
  std::span<const Vec2> sources = switch_points;
  if (sources.empty()) sources = std::span<const Vec2>(&collision.contact_point, 1);
  double best = std::numeric_limits<double>::infinity();
  for (const Vec2& s : sources) {
    for (const Vec2& p : ir_points) best = std::min(best, (p - s).norm());
  }
  return best;
}

std::vector<Vec2> CollisionSwitchPoints(const geometry::Pose2& pose, const CollisionEvent& collision,
                                        double robot_radius, int switch_count) {
  std::vector<Vec2> points;
  if (!collision.occurred) return points;
  for (int id : collision.sensor_ids) {
    const double angle = pose.theta + 2.0 * geometry::kPi * id / switch_count;
    points.push_back(pose.Position() + robot_radius * geometry::UnitVector(angle));
  }
  return points;
}

double StuckStimulus(double t, double speed, double heading, double window, StuckWindowState* state,
                     StuckWindowUndo* undo) {
  if (undo != nullptr) {
    undo->has_last_ = state->has_last;
    undo->last_time_ = state->last_time;
    undo->last_speed_ = state->last_speed;
    undo->last_heading_ = state->last_heading;
    undo->appended_ = false;
    undo->dropped_.clear();
  }
  if (state->has_last && t > state->last_time) {
    state->segments.push_back({state->last_time, t - state->last_time, state->last_speed, state->last_heading});
    if (undo != nullptr) undo->appended_ = true;
  }
  state->has_last = true;
  state->last_time = t;
  state->last_speed = speed;
  state->last_heading = heading;
  // Keep the segments that start inside [t − t_n, t] (1 ns slack absorbs sums of 0.1 s steps).
  while (!state->segments.empty() && state->segments.front().t_start < t - window - 1e-9) {
    if (undo != nullptr) undo->dropped_.push_back(state->segments.front());
    state->segments.pop_front();
  }
  // Summed afresh each cycle (≤ t_n/T terms), so no running sum drifts.
  Vec2 displacement = Vec2::Zero();
  double elapsed = 0.0;
  for (const StuckSegment& s : state->segments) {
    displacement += s.displacement();
    elapsed += s.dt;
  }
  if (elapsed <= 0.0) return std::abs(speed);  // the limit of eq. 8.6 as the window shrinks to 0
  return displacement.norm() / elapsed;        // elapsed = t_n once the window is full
}

void StuckWindowUndo::Restore(StuckWindowState* state) const {
  // The appended segment is the last one now — or, if the window emptied, the last one dropped.
  size_t old_dropped = dropped_.size();
  if (appended_ && state->segments.empty()) {
    --old_dropped;
  } else if (appended_) {
    state->segments.pop_back();
  }
  for (size_t i = old_dropped; i-- > 0;) state->segments.push_front(dropped_[i]);
  state->has_last = has_last_;
  state->last_time = last_time_;
  state->last_speed = last_speed_;
  state->last_heading = last_heading_;
}

}  // namespace limbic::affect
