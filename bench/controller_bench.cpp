// One controller tick (directional + velocity layer) with n_θ = 50, a 9×9 or 3×3 window and 500
// obstacle points. Target (issue 4): ≤ 200 µs per tick for 9×9 with 500 points.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/robot/robot_description.hpp"
#include "services/controller/controller.hpp"

namespace limbic::controller {
namespace {

using geometry::Vec2;

// Obstacle points uniformly in an annulus [r_min, r_max] around the robot at the origin (seeded).
std::vector<Vec2> Points(int count, double r_min, double r_max, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Vec2> points;
  for (int i = 0; i < count; ++i) {
    const double r = std::sqrt(r_min * r_min + unit(rng) * (r_max * r_max - r_min * r_min));
    points.push_back(r * geometry::UnitVector(2 * geometry::kPi * unit(rng)));
  }
  return points;
}

PlannedPath StraightPath() {
  PlannedPath path;
  path.success = true;
  for (int i = 0; i <= 40; ++i) path.nodes.push_back({0.35 * i, 0.35 * (i / 3)});
  return path;
}

// args: n (window n_v = n_ω), point count, inner radius (cm), outer radius (cm), with map (0/1)
void BM_ControllerTick(benchmark::State& state) {
  ControlParameters params;
  params.n_v = params.n_omega = static_cast<int>(state.range(0));
  params.w_theta5 = 0.5;
  params.w_theta6 = 0.75;
  params.w_v2 = state.range(4) ? 0.9 : 0.0;
  params.w_theta2 = state.range(4) ? 0.99 : 0.0;
  const std::vector<Vec2> points =
      Points(static_cast<int>(state.range(1)), state.range(2) / 100.0, state.range(3) / 100.0, 1);
  const PlannedPath path = StraightPath();
  geometry::GridSpec spec{Vec2(-17.5, -17.5), 0.35, 100, 100};
  std::vector<double> p_o(spec.CellCount(), 0.2), danger(spec.CellCount(), 0.0);
  std::mt19937_64 rng(2);
  for (double& p : p_o) p = (rng() % 10 == 0) ? 0.9 : 0.2;
  Controller ctrl;
  ControllerInputs in;
  in.odometry.v = 0.5;
  in.odometry.omega = 0.05;
  in.odometry.pose.theta = 0.2;
  in.obstacle_points = points;
  in.path = &path;
  in.goal = path.nodes.back();
  if (state.range(4)) in.map = GridView{spec, p_o, danger};
  int tick = 0;
  for (auto _ : state) {
    in.time = 0.1 * tick++;
    const ControllerOutput& out = ctrl.Tick(in, params);
    benchmark::DoNotOptimize(out.command);
  }
}
// Points spread over the sensor range (0.3–3 m), and a cluttered case with all 500 within 0.3–1.5
// m.
BENCHMARK(BM_ControllerTick)
    ->ArgNames({"window", "points", "rmin_cm", "rmax_cm", "map"})
    ->Args({9, 500, 30, 300, 0})
    ->Args({3, 500, 30, 300, 0})
    ->Args({9, 500, 30, 150, 0})
    ->Args({3, 500, 30, 150, 0})
    ->Args({9, 500, 30, 300, 1})
    ->Args({9, 0, 30, 300, 0})
    ->Unit(benchmark::kMicrosecond);

void BM_DirectionalOnly(benchmark::State& state) {
  ControlParameters params;
  const std::vector<Vec2> points = Points(500, 0.3, 3.0, 1);
  const PlannedPath path = StraightPath();
  DirectionalController ctrl;
  DirectionalInputs in;
  in.obstacle_points = points;
  in.path_nodes = path.nodes;
  in.goal = path.nodes.back();
  DirectionalOutput out;
  for (auto _ : state) {
    ctrl.Tick(in, params, &out);
    benchmark::DoNotOptimize(out.target_heading);
  }
}
BENCHMARK(BM_DirectionalOnly)->Unit(benchmark::kMicrosecond);

// The timed loop of the velocity-layer cases: one tick at speed v, turning at 0.05 rad/s, towards a goal at (10, 3).
void RunVelocityTicks(benchmark::State& state, VelocityController& ctrl, const ControlParameters& params,
                      const std::vector<Vec2>& points, double v) {
  VelocityInputs in;
  in.v = v;
  in.omega = 0.05;
  in.obstacle_points = points;
  in.goal = Vec2(10, 3);
  in.target_heading = 0.3;
  VelocityOutput out;
  for (auto _ : state) {
    ctrl.Tick(in, params, &out);
    benchmark::DoNotOptimize(out.command);
  }
}

void BM_VelocityOnly(benchmark::State& state) {
  ControlParameters params;
  params.n_v = params.n_omega = static_cast<int>(state.range(0));
  const std::vector<Vec2> points = Points(500, 0.3, 3.0, 1);
  VelocityController ctrl;
  RunVelocityTicks(state, ctrl, params, points, 0.5);
}
BENCHMARK(BM_VelocityOnly)->Arg(9)->Arg(3)->Unit(benchmark::kMicrosecond);

// The velocity layer for the Tank (configs/robots/tank.yaml, a 0.70 × 0.52 m rectangle) with its candidates judged by
// the centre's path (outline 0) or by its outline swept over [t_1, t_2] (outline 1, candidate_outline_check), 500
// points in an annulus [rmin, 3 m] — 45 cm: a wall-hugging worst case (every candidate sweeps), 150 cm: open space.
// args: n (window), outline (0/1), inner radius (cm)
void BM_VelocityTank(benchmark::State& state) {
  ControlParameters params;
  params.n_v = params.n_omega = static_cast<int>(state.range(0));
  const std::vector<Vec2> points = Points(500, state.range(2) / 100.0, 3.0, 1);
  VelocityOptions options;
  options.body =
      ControllerBody::From(robot::LoadRobotDescription("tank", std::string(LIMBIC_SOURCE_ROOT) + "/configs/robots"));
  options.candidate_outline_check = state.range(1) != 0;
  VelocityController ctrl(options);
  RunVelocityTicks(state, ctrl, params, points, 0.3);
}
BENCHMARK(BM_VelocityTank)
    ->ArgNames({"window", "outline", "rmin_cm"})
    ->Args({9, 0, 45})
    ->Args({9, 1, 45})
    ->Args({9, 0, 150})
    ->Args({9, 1, 150})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace limbic::controller

BENCHMARK_MAIN();
