#include "services/laser_nav/controllers.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {

int64_t Cycles(double seconds) { return std::max<int64_t>(1, std::llround(seconds / kControlPeriodS)); }

void ValidateGains(const ControlGains& g, const char* who) {
  for (double v : {g.gg, g.og, g.ng, g.tgg, g.egg}) {
    if (!std::isfinite(v)) throw std::invalid_argument(std::string(who) + ": every gain must be a finite number");
  }
  if (!(std::isfinite(g.np_s) && g.np_s > 0.0)) throw std::invalid_argument(std::string(who) + ": NP must be > 0 s");
  if (!(g.s_cm > 0.0 && g.s_cm <= kMaxRangeCm)) {
    throw std::invalid_argument(std::string(who) + ": S must be in (0, 250] cm");
  }
}

}  // namespace

bool HeadingController::Usable(const SensorFrame& f) {
  if (std::isfinite(f.odom.x_cm) && std::isfinite(f.odom.y_cm) && std::isfinite(f.odom.heading_deg) &&
      std::isfinite(f.odom.v_cms) && std::isfinite(f.goal.x) && std::isfinite(f.goal.y)) {
    return true;
  }
  ++rejected_frames_;
  return false;
}

Vec2 NoiseVector::At(int64_t cycle, int64_t np_cycles) {
  if (drawn_cycle_ < 0 || cycle - drawn_cycle_ >= np_cycles) {
    v_ = UnitVector(360.0 * sim::Uniform01(rng_));  // Nv = u(U[0, 360))
    drawn_cycle_ = cycle;
  }
  return v_;
}

void ValidateStaticOptions(const StaticOptions& o) {
  ValidateGains(o.gains, "static controller");
  if (o.gains.tgg != 0.0 || o.gains.egg != 0.0) {
    throw std::invalid_argument("static controller: TGG and EGG must be 0 (Eq. 4-1 has no Tv or Ev)");
  }
  ValidateWeightOptions(o.weight);
}

StaticController::StaticController(const StaticOptions& options)
    : options_(options), field_(options.weight), noise_(options.seed) {
  ValidateStaticOptions(options);
}

double StaticController::Step(const SensorFrame& f) {
  if (!Usable(f)) return kNaN;
  const ControlGains& g = options_.gains;
  // Eq. 4-1: Heading = GG × Gv + NG × Nv + OG × Σ O_a.
  const Vec2 gv = GoalVector({f.odom.x_cm, f.odom.y_cm}, f.goal);
  const Vec2 ov = field_.Compute(f.ranges, g.s_cm);
  const Vec2 nv = g.ng != 0.0 ? noise_.At(f.cycle, Cycles(g.np_s)) : Vec2{};
  resultant_ = g.gg * gv + g.og * ov + g.ng * nv;
  return ResultantHeading(resultant_, f.odom.heading_deg);
}

void ValidateCbrOptions(const CbrOptions& o) {
  if (o.cases.empty()) throw std::invalid_argument("case-based controller: the case library is empty");
  for (const Case& c : o.cases) ValidateGains(GainsOf(c, o.match), ("case " + c.name).c_str());
  if (!(o.selection_period_s >= kControlPeriodS && o.long_period_s >= kControlPeriodS)) {
    throw std::invalid_argument("case-based controller: selection periods must be >= one cycle (0.01 s)");
  }
  if (!(std::isfinite(o.match.np_unit_s) && o.match.np_unit_s > 0.0)) {
    throw std::invalid_argument("case-based controller: np_unit_s must be > 0");
  }
  ValidateWeightOptions(o.weight);
}

CaseBasedController::CaseBasedController(const CbrOptions& options)
    : options_(options),
      env_(options.environment),
      field_(options.weight),
      noise_(options.seed),
      cycles_in_case_(options.cases.size() + 1, 0) {
  ValidateCbrOptions(options);
  for (const Case& c : options.cases) {
    long_case_.push_back(c.name == "Random" || c.name == "Repulsion" || c.name == "Wallcrawling");
    failing_case_.push_back(c.name == "Random" || c.name == "Repulsion");
  }
  long_case_.push_back(false);  // the map-following case
  failing_case_.push_back(false);
}

void CaseBasedController::Switch(int next) {
  if (current_ >= 0) ++switches_;
  current_ = next;
  // §2.4.3: every switch resets the Wander reference and the noise timer; Tv picks its side anew.
  env_.ResetWander();
  noise_.Expire();
  temporary_.Reset();
}

double CaseBasedController::Step(const SensorFrame& f) {
  if (!Usable(f)) return kNaN;
  CbrStep& step = last_;
  step.selected = step.switched = false;
  const EnvironmentInfo& env = env_.Update(f);
  if (override_) override_->Observe(f, env);
  const int following = map_following_case();
  Vec2 goal = f.goal;
  bool force_selection = false;
  if (current_ == following) {
    // §3.11: the map-following case steers to way-points until the layer hands back.
    if (!override_ || !override_->Guide(f, env, &goal)) {
      goal = f.goal;
      force_selection = true;
    }
  }
  // §2.4.3: select at t = 0, then every 1 s (3 s after Random, Repulsion, Wallcrawling); never while
  // the map-following case runs (it ends itself, and selection runs at once).
  const bool long_case = current_ >= 0 && long_case_[current_];
  const int64_t period = Cycles(long_case ? options_.long_period_s : options_.selection_period_s);
  if (current_ < 0 || force_selection || (current_ != following && f.cycle - last_selection_cycle_ >= period)) {
    step.selected = true;
    last_selection_cycle_ = f.cycle;
    int best = SelectCase(options_.cases, env, current_ == following ? -1 : current_, options_.match);
    // §2.8 (A30): Random or Repulsion means the reactive behaviour is failing: consult the map.
    if (override_ && failing_case_[best] && override_->TakeOver(f, env)) {
      best = following;
      if (!override_->Guide(f, env, &goal)) {
        best = SelectCase(options_.cases, env, -1, options_.match);
        goal = f.goal;
      }
    }
    if (best != current_) {
      Switch(best);
      step.switched = true;
      env_.Update(f);  // Wander restarts here (0)
    }
  } else if (override_ && current_ != following && failing_case_[current_] &&
             override_->TakeOverBetweenSelections(f, env)) {
    // §5.3: the plan asked for at the last selection point has arrived over the bus.
    if (override_->Guide(f, env, &goal)) {
      last_selection_cycle_ = f.cycle;
      Switch(following);
      step.switched = true;
      env_.Update(f);
    } else {
      goal = f.goal;
    }
  }
  ++cycles_in_case_[current_];
  const ControlGains g = current_ == following ? override_->gains() : GainsOf(options_.cases[current_], options_.match);
  // §2.4.6: R = GG·Gv + OG·Ov(S) + NG·Nv + TGG·Tv + EGG·Ev (Gv toward the way-point when map-following).
  const Vec2 p{f.odom.x_cm, f.odom.y_cm};
  Vec2 r = g.gg * GoalVector(p, goal) + g.og * field_.Compute(f.ranges, g.s_cm);
  if (g.ng != 0.0) r = r + g.ng * noise_.At(f.cycle, Cycles(g.np_s));
  if (g.tgg != 0.0) r = r + g.tgg * temporary_.Compute(f.ranges, env.goal_bearing_deg);
  if (g.egg != 0.0) r = r + g.egg * ExitGoalVector(f.ranges, env.goal_bearing_deg, options_.segments);
  step.case_index = current_;
  step.gains = g;
  step.env = env;
  step.resultant = r;
  return ResultantHeading(r, f.odom.heading_deg);
}

}  // namespace limbic::laser
