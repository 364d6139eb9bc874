// The laser robot's reactive controllers (spec reactive-topological §2.2, §2.4): each turns one
// SensorFrame per 10 ms cycle into a desired heading (spec Appendix S1 IController).
//
// StaticController (§2.2, Eq. 4-1): R = GG·Gv + OG·Ov + NG·Nv with fixed gains (GG 6, OG 5, NG 3,
//   NP 2.5 s, S 250 cm: the thesis' optimum).
// CaseBasedController (§2.4): the same law with the seven parameters of the case selected from the
//   Appendix A library by goodness of match (Eq. 4-8) every 1 s (3 s after Random, Repulsion or
//   Wallcrawling), plus the temporary goal vector Tv and the exit goal vector Ev.
//
// Inputs: SensorFrame. Outputs: desired heading (deg), and per-cycle diagnostics (case, gains, env).
// A frame with a non-finite position or heading is not used: the controller returns NaN (the motion
// law keeps the heading) and counts it.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "services/laser_nav/case_library.hpp"
#include "services/laser_nav/environment_info.hpp"
#include "services/laser_nav/heading_law.hpp"
#include "services/laser_nav/scan_segments.hpp"
#include "services/laser_sim/laser_types.hpp"

namespace limbic::laser {

class HeadingController {
 public:
  virtual ~HeadingController() = default;
  // One control cycle: the desired heading (deg), or NaN to keep the current one.
  virtual double Step(const SensorFrame& frame) = 0;
  // Frames refused because their pose was not finite.
  int64_t rejected_frames() const { return rejected_frames_; }

 protected:
  bool Usable(const SensorFrame& frame);

 private:
  int64_t rejected_frames_ = 0;
};

// The noise vector Nv: a unit vector of uniformly random bearing, redrawn every NP seconds.
class NoiseVector {
 public:
  explicit NoiseVector(uint64_t seed) : rng_(seed) {}
  // The vector at cycle `cycle` for persistence `np_cycles` (≥ 1); redraws when it has expired.
  Vec2 At(int64_t cycle, int64_t np_cycles);
  void Expire() { drawn_cycle_ = -1; }  // the next At() draws a new vector (a case switch)

 private:
  std::mt19937_64 rng_;
  int64_t drawn_cycle_ = -1;
  Vec2 v_;
};

struct StaticOptions {
  ControlGains gains;  // TGG and EGG must be 0 (the static controller has no Tv or Ev)
  ObstacleWeightOptions weight;
  uint64_t seed = 1;  // noise vector
};

// Throws std::invalid_argument for a non-finite gain, NP ≤ 0, S outside (0, 250] or TGG/EGG ≠ 0.
void ValidateStaticOptions(const StaticOptions& options);

class StaticController : public HeadingController {
 public:
  explicit StaticController(const StaticOptions& options);
  double Step(const SensorFrame& frame) override;
  Vec2 last_resultant() const { return resultant_; }

 private:
  StaticOptions options_;
  ObstacleField field_;
  NoiseVector noise_;
  Vec2 resultant_;
};

struct CbrOptions {
  CaseLibrary cases = AppendixA();
  MatchOptions match;
  double selection_period_s = 1.0;  // [T]
  double long_period_s = 3.0;       // [T] after Random, Repulsion, Wallcrawling
  ObstacleWeightOptions weight;
  EnvironmentOptions environment;
  SegmentOptions segments;
  uint64_t seed = 1;
};

void ValidateCbrOptions(const CbrOptions& options);

// The map layer's hook into the case-based controller (§2.8, the controller with memory). The map is
// used only when the reactive behaviours fail: at a selection point where the matcher would choose
// Random or Repulsion (A30) the layer may take over with a map-following case that steers to
// way-points (§3.11) until it hands back. Implemented by the topological map layer (services/laser_topo).
class CaseOverride {
 public:
  virtual ~CaseOverride() = default;
  // Every cycle, after the environment information and before case selection (the map update).
  virtual void Observe(const SensorFrame& frame, const EnvironmentInfo& env) = 0;
  // The matcher chose Random or Repulsion: true when the layer takes over (it has a path).
  virtual bool TakeOver(const SensorFrame& frame, const EnvironmentInfo& env) = 0;
  // While taken over: the way-point to steer to (odometry frame); false hands back (selection runs now).
  virtual bool Guide(const SensorFrame& frame, const EnvironmentInfo& env, Vec2* waypoint) = 0;
  // Every cycle between selection points while the current case is Random or Repulsion: true when the
  // layer takes over now. A map layer across the bus answers a plan request a few cycles after the
  // selection point that asked for it (§5.3); the in-process layer plans at once and never does.
  virtual bool TakeOverBetweenSelections(const SensorFrame& /*frame*/, const EnvironmentInfo& /*env*/) { return false; }
  // The map-following case's seven parameters.
  virtual ControlGains gains() const = 0;
};

// What the case-based controller did in one cycle.
struct CbrStep {
  int case_index = 0;     // into CbrOptions::cases; cases.size() = the map-following case (CaseOverride)
  bool selected = false;  // a selection point
  bool switched = false;
  ControlGains gains;
  EnvironmentInfo env;
  Vec2 resultant;
};

class CaseBasedController : public HeadingController {
 public:
  explicit CaseBasedController(const CbrOptions& options);
  double Step(const SensorFrame& frame) override;

  const CbrStep& last() const { return last_; }
  int current_case() const { return current_; }
  int64_t switches() const { return switches_; }
  // Control cycles spent in each case (index into the library).
  const std::vector<int64_t>& cycles_in_case() const { return cycles_in_case_; }
  const CaseLibrary& cases() const { return options_.cases; }
  // Installs the map layer (not owned; nullptr removes it). Its case is index cases().size(), counted
  // in cycles_in_case() (which has cases().size() + 1 entries).
  void SetOverride(CaseOverride* layer) { override_ = layer; }
  int map_following_case() const { return static_cast<int>(options_.cases.size()); }

 private:
  void Switch(int next);

  CbrOptions options_;
  EnvironmentTracker env_;
  ObstacleField field_;
  NoiseVector noise_;
  TemporaryGoal temporary_;
  int current_ = -1;
  int64_t last_selection_cycle_ = 0;
  int64_t switches_ = 0;
  std::vector<int64_t> cycles_in_case_;
  std::vector<bool> long_case_;     // Random, Repulsion, Wallcrawling: selection every 3 s
  std::vector<bool> failing_case_;  // Random, Repulsion: the behaviour is failing (A30)
  CaseOverride* override_ = nullptr;
  CbrStep last_;
};

}  // namespace limbic::laser
