// The executor's mapping of a run onto the stack, and the `affect: none` configuration: parameters
// are ControlParameters{} plus the run's overrides, unmodulated, whatever happens to the robot.
#include "tools/experiment/executor.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "services/affect/affect_config.hpp"
#include "services/affect/affect_engine.hpp"
#include "sim/environment.hpp"
#include "sim/random.hpp"
#include "tools/bag/bag_reader.hpp"
#include "tools/experiment/report.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

RunSpec ChapterSixRun() {
  RunSpec run;
  run.experiment = "ch6_velocity_w_v4";
  run.run_id = "velocity-0.3-B-4-0";
  run.set = 'B';
  run.env = 4;
  run.environment_seed = 77;
  run.seed = 123456789;
  run.config = "velocity";
  run.affect = kNoAffect;
  run.parameters = {{"w_v4", 0.3}, {"w_v3", 0.0}, {"n_v", 5}};
  run.options = {{"velocity_goal_source", "goal_bearing"},
                 {"prebuilt_map", "true"},
                 {"human_flee_extension", "false"},
                 {"goal_tolerance", "0.5"},
                 {"timeout", "120"}};
  run.iterations = 2;
  return run;
}

TEST(StackSpecFor, MapsTheRunOntoTheStackServices) {
  const stack::StackSpec spec = StackSpecFor(ChapterSixRun());
  EXPECT_EQ(spec.set, 'B');
  EXPECT_EQ(spec.index, 4);
  EXPECT_EQ(spec.env_seed, 77u);
  EXPECT_EQ(spec.seed, 123456789u);
  EXPECT_EQ(spec.iterations, 2);
  EXPECT_EQ(spec.affect_config, "none");
  EXPECT_EQ(spec.run_id, "velocity-0.3-B-4-0");
  EXPECT_EQ(spec.configuration, "velocity");
  EXPECT_TRUE(Has(spec.affect_overrides, "base_parameters.w_v4=0.3"));
  EXPECT_TRUE(Has(spec.affect_overrides, "base_parameters.n_v=5"));
  EXPECT_TRUE(Has(spec.options, "controller.velocity_goal=goal_bearing"));
  EXPECT_TRUE(Has(spec.options, "mapper.prebuilt_map=true"));
  EXPECT_TRUE(Has(spec.options, "simulator.humans_flee=false"));
  EXPECT_TRUE(Has(spec.options, "mission.goal_tolerance=0.5"));
  EXPECT_TRUE(Has(spec.options, "mission.timeout_s=120"));
  // Safety stop past 2 traversals × 120 s / 0.1 s = 2400 ticks: (1200 + 100) × 2 + 100.
  EXPECT_EQ(spec.max_ticks, 2700);
  EXPECT_FALSE(spec.recording);
}

TEST(StackSpecFor, PathGoalSourceIsTheDirectionalTargetAndUnknownOptionsAreRefused) {
  RunSpec run = ChapterSixRun();
  run.options = {{"velocity_goal_source", "path"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "controller.velocity_goal=directional"));
  run.options = {{"teleport", "true"}};
  EXPECT_THROW(StackSpecFor(run), std::invalid_argument);
  // Issue 14's named options: the controller's map-point inset and the planner's held danger weight.
  run.options = {{"map_point_inset", "0.175"}, {"hold_danger_weight", "true"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "controller.map_point_inset=0.175"));
  EXPECT_TRUE(Has(StackSpecFor(run).options, "planner.danger_weight=traversal_max"));
  run.options = {{"hold_danger_weight", "false"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "planner.danger_weight=live"));
  // Issue 18: the tricycle's forward turning arc (the controller's tricycle_turn_speed), off unless asked for.
  run.options = {{"tricycle_turn", "false"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "controller.tricycle_turn_speed=0"));
  run.options = {{"tricycle_turn", "true"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "controller.tricycle_turn_speed=0.1"));
  // Issue 18: every velocity candidate of a non-circular body judged by its swept outline.
  run.options = {{"candidate_outline", "true"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "controller.candidate_outline_check=true"));
  run.options = {{"map_point_inset", "-1"}};
  EXPECT_THROW(StackSpecFor(run), std::invalid_argument);
  // Issue 19 item 5: a configuration's navigators and the crowd robots' emotion mode.
  run.options = {{"navigators", "hybrid,crowd"}, {"crowd_mode", "off"}};
  EXPECT_EQ(StackSpecFor(run).navigators, (std::vector<std::string>{"hybrid", "crowd"}));
  EXPECT_TRUE(Has(StackSpecFor(run).options, "crowd_nav.mode=off"));
  // Where map-based avoidance stands a collision danger cell (the controller's map_danger_point).
  run.options = {{"map_danger_point", "site"}};
  EXPECT_TRUE(Has(StackSpecFor(run).options, "controller.map_danger_point=site"));
  run.options = {{"map_danger_point", "center"}};
  EXPECT_THROW(StackSpecFor(run), std::invalid_argument);
  // Where a collision marks the danger map (the mapper's danger_point).
  for (const char* point : {"surface", "contact", "sensed", "sector"}) {
    run.options = {{"danger_point", point}};
    EXPECT_TRUE(Has(StackSpecFor(run).options, std::string("mapper.danger_point=") + point));
  }
  run.options = {{"danger_point", "switch"}};
  EXPECT_THROW(StackSpecFor(run), std::invalid_argument);
  // Whether collision danger cells are cleared (the mapper's danger_forget).
  for (const char* forget : {"none", "free_space", "seen_free_space", "body"}) {
    run.options = {{"danger_forget", forget}};
    EXPECT_TRUE(Has(StackSpecFor(run).options, std::string("mapper.danger_forget=") + forget));
  }
  run.options = {{"danger_forget", "decay"}};
  EXPECT_THROW(StackSpecFor(run), std::invalid_argument);
}

TEST(NoAffectConfiguration, PublishesTheDefaultsPlusTheOverridesUnmodulated) {
  const RunSpec run = ChapterSixRun();
  const stack::StackSpec spec = StackSpecFor(run);
  const affect::AffectConfig config =
      affect::LoadAffectConfig(spec.affect_config, affect::DefaultConfigDir(), spec.affect_overrides);
  EXPECT_FALSE(config.modulate_parameters);
  EXPECT_FALSE(config.emotion_layer_enabled);
  ControlParameters expected;  // Table 7.2 defaults
  expected.w_v4 = 0.3;
  expected.w_v3 = 0.0;
  expected.n_v = 5;
  EXPECT_EQ(run.Parameters(), expected);
  EXPECT_EQ(config.base_parameters, expected);

  // Whatever the robot meets (a collision at speed, a looming obstacle), the engine publishes them.
  affect::AffectEngine engine(config, geometry::GridSpec{});
  affect::AffectInputs in;
  for (int k = 0; k < 50; ++k) {
    in.time = 0.1 * k;
    in.speed = 0.8;
    in.collision.occurred = (k % 7 == 0);
    in.collision.speed_before = 0.8;
    const affect::AffectOutputs out = engine.Step(in);
    ASSERT_EQ(out.parameters, expected) << "tick " << k;
    EXPECT_EQ(out.emotions_combined[0], 0.0) << "anger stays 0: the flee extension never triggers";
  }
}

TEST(RowsFromRecording, CopiesTheMissionMetricsAndTheRunIdentity) {
  RunSpec run = ChapterSixRun();
  run.sweep = "W_v4=0.3";
  run.sweep_value = 0.3;
  run.repeat = 2;
  stack::Recording recording;
  stack::RecordedTraversal t;
  t.metrics.iteration = 1;
  t.metrics.completion_time_s = 42.5;
  t.metrics.success = true;
  t.metrics.collisions = 3;
  t.metrics.collisions_per_min = 3 / (42.5 / 60);
  t.metrics.mean_velocity = 0.41;
  t.metrics.exec_time_ratio = 0.002;
  t.metrics.coverage = 0.3;
  t.metrics.distance_travelled = 17.4;
  t.contact_cycles = 7;
  recording.traversals.push_back(t);
  t.metrics.iteration = 2;
  t.metrics.success = false;
  t.metrics.completion_time_s = 600;
  recording.traversals.push_back(t);
  const auto rows = RowsFromRecording(run, recording);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].run_id, "velocity-0.3-B-4-0");
  EXPECT_EQ(rows[0].experiment, "ch6_velocity_w_v4");
  EXPECT_EQ(rows[0].config, "velocity");
  EXPECT_EQ(rows[0].set, 'B');
  EXPECT_EQ(rows[0].env, 4);
  EXPECT_EQ(rows[0].repeat, 2);
  EXPECT_EQ(rows[0].seed, 123456789u);
  EXPECT_EQ(rows[0].sweep, "W_v4=0.3");
  EXPECT_EQ(rows[0].sweep_value, 0.3);
  EXPECT_EQ(rows[0].iteration, 1);
  EXPECT_EQ(rows[0].completion_time_s, 42.5);
  EXPECT_TRUE(rows[0].success);
  EXPECT_EQ(rows[0].collisions, 3);
  EXPECT_DOUBLE_EQ(rows[0].collisions_per_min, 3 / (42.5 / 60));
  EXPECT_EQ(rows[0].mean_velocity, 0.41);
  EXPECT_EQ(rows[0].coverage, 0.3);
  EXPECT_EQ(rows[0].distance_travelled, 17.4);
  EXPECT_EQ(rows[0].contact_cycles, 7);
  EXPECT_EQ(rows[1].iteration, 2);
  EXPECT_FALSE(rows[1].success);
  EXPECT_EQ(rows[1].completion_time_s, 600.0);
}

TEST(ExecuteRun, RecordsATracedRunWithASeedAbove2To63) {
  RunSpec run;
  run.experiment = "unit";
  run.run_id = "traced-B-0-0";
  run.set = 'B';
  run.env = 0;
  run.seed = (uint64_t{1} << 63) + 12345;  // beyond int64: must reach the services intact
  run.config = "traced";
  run.affect = kNoAffect;
  run.options = {{"timeout", "3"}};  // one 3 s traversal: a timeout, 30 ticks
  run.iterations = 1;
  run.record_trace = true;
  std::atomic<bool> abandon{false};
  const RunOutcome outcome = ExecuteRun(run, abandon);
  ASSERT_TRUE(outcome.ok) << outcome.error;
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].seed, run.seed);
  EXPECT_FALSE(outcome.rows[0].success);
  EXPECT_EQ(outcome.rows[0].completion_time_s, 3.0);
  ASSERT_TRUE(outcome.trace && outcome.affect);
  // Ticks 0..29 or so, one sample per tick (0.1 s); the first is the start pose (1, 1, 0).
  EXPECT_GE(outcome.trace->samples.size(), 30u);
  EXPECT_LE(outcome.trace->samples.size(), 32u);
  EXPECT_EQ(outcome.trace->samples[0].t, 0.0);
  EXPECT_EQ(outcome.trace->samples[0].iteration, 1);
  EXPECT_EQ(outcome.trace->grid.CellCount(), static_cast<int>(outcome.trace->occupancy.size()));
  EXPECT_GT(outcome.trace->occupancy.size(), 0u);
  // Affect every 0.5 s: t = 0, 0.5, ..., about 6 samples.
  EXPECT_GE(outcome.affect->samples.size(), 6u);
  EXPECT_LE(outcome.affect->samples.size(), 7u);
  EXPECT_DOUBLE_EQ(outcome.affect->samples[1].t, 0.5);
}

TEST(ExecuteRun, WritesTheRunsRecordingWhenAsked) {
  RunSpec run;
  run.experiment = "unit";
  run.run_id = "recorded-B-0-0";
  run.set = 'B';
  run.affect = kNoAffect;
  run.options = {{"timeout", "3"}};  // 30 ticks
  run.iterations = 1;
  run.record_bag = true;
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("exec_bag_" + std::to_string(::getpid()))).string();
  const std::string path = dir + "/" + RecordingFileName(run.run_id);
  std::atomic<bool> abandon{false};
  ASSERT_TRUE(ExecuteRun(run, abandon, path).ok);
  const bag::BagSummary s = bag::Summarize({path});
  EXPECT_TRUE(s.problems.empty());
  EXPECT_TRUE(s.topics.count("r1/metrics"));
  EXPECT_GE(s.topics.at("clock").messages, 30u);
  run.record_bag = false;  // not asked: no file
  std::filesystem::remove(path);
  ASSERT_TRUE(ExecuteRun(run, abandon, path).ok);
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(dir);
}

// Two 3 s traversals of an untraced run: both time out, and each keeps its path and where it
// stopped (the distance the mission judged the timeout on, from the same true pose as the path's
// last point).
TEST(ExecuteRuns, AnUntracedRunKeepsThePathsOfItsFailedTraversals) {
  RunSpec run;
  run.experiment = "unit";
  run.run_id = "untraced-B-0-0";
  run.set = 'B';
  run.env = 0;
  run.seed = 7;
  run.config = "untraced";
  run.affect = kNoAffect;
  run.options = {{"timeout", "3"}};
  run.iterations = 2;
  run.record_trace = false;
  const fs::path dir = fs::temp_directory_path() / "limbic_executor_failed_paths";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::atomic<bool> stop{false}, abandon{false};
  const ExecutionSummary summary = ExecuteRuns({run}, {.jobs = 1, .out_dir = dir.string()}, stop, abandon);
  ASSERT_EQ(summary.finished, 1) << (summary.errors.empty() ? "" : summary.errors[0]);
  EXPECT_FALSE(fs::exists(dir / TraceFileName(run.run_id))) << "not traced";
  ASSERT_TRUE(fs::exists(dir / FailureTraceFileName(run.run_id)));
  const FailureTrace failed = ReadFailureTrace((dir / FailureTraceFileName(run.run_id)).string());
  EXPECT_EQ(failed.run_id, run.run_id);
  EXPECT_EQ(failed.set, 'B');
  EXPECT_EQ(failed.seed, 7u);
  ASSERT_EQ(failed.traversals.size(), 2u);
  const sim::Environment world = sim::GenerateEnvironment('B', 0, run.environment_seed);
  for (int k = 0; k < 2; ++k) {
    const FailedTraversal& f = failed.traversals[k];
    EXPECT_EQ(f.iteration, k + 1);
    // Traversal 1 heads for the goal, traversal 2 back to the start (§3.5).
    const geometry::Vec2 target = k == 0 ? world.goal : world.start;
    EXPECT_NEAR(f.goal_x, target.x(), 1e-9);
    EXPECT_NEAR(f.goal_y, target.y(), 1e-9);
    ASSERT_GE(f.samples.size(), 1u);
    EXPECT_NEAR(f.samples.back().t - f.samples.front().t, 3.0, 0.1 + 1e-9);
    // The file keeps the path to 1 mm.
    EXPECT_NEAR(std::hypot(f.samples.back().x - f.goal_x, f.samples.back().y - f.goal_y), f.distance_to_goal, 1e-3);
    EXPECT_GT(f.distance_to_goal, 0.35) << "a timeout, not an arrival";
  }
  EXPECT_EQ(failed.traversals[0].samples.front().t, 0.0);
  EXPECT_NEAR(failed.traversals[0].samples.front().x, world.start.x(), 1e-3);
  // Traversal 2 starts where traversal 1 stopped.
  EXPECT_EQ(failed.traversals[1].samples.front().x, failed.traversals[0].samples.back().x);
  fs::remove_all(dir);
}

// Issue 15, finding 7: a lockstep step that threw was logged and counted while the run carried on, and
// a run whose controller threw every tick was recorded in runs.csv as ordinary timeouts. Now the first
// failing step ends the run with status `error` and the message, and it is never data.
StackCustomizer ControllerThatThrows() {
  return [](std::vector<runtime::HostedService>& services) {
    for (auto& s : services) {
      if (s.definition.name != "controller") continue;
      auto original = s.definition.setup;
      s.definition.setup = [original](runtime::ServiceContext& ctx) {
        original(ctx);
        // A second step of the same participant, declared like the controller's own: it throws as the
        // controller did on poisoned parameters.
        ctx.AddStep({.outputs = {ctx.Topic("cmd_vel"), ctx.Topic("control/direction"), ctx.Topic("control/velocity")}},
                    [](const runtime::TickInfo&) {
                      throw std::invalid_argument("ControlParameters.n_theta must be at least 1 (got 0)");
                    });
      };
    }
  };
}

RunSpec ShortRun(const std::string& id) {
  RunSpec run;
  run.experiment = "unit";
  run.run_id = id;
  run.set = 'B';
  run.env = 0;
  run.seed = 7;
  run.config = "throwing";
  run.affect = kNoAffect;
  run.options = {{"timeout", "3"}};
  run.iterations = 2;
  return run;
}

TEST(ExecuteRun, ARunWhoseControllerThrowsEndsWithStatusErrorNotTimeouts) {
  std::atomic<bool> abandon{false};
  const RunOutcome outcome = ExecuteRun(ShortRun("throws-B-0-0"), abandon, "", ControllerThatThrows());
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(outcome.step_error);
  EXPECT_FALSE(outcome.config_error);
  EXPECT_NE(outcome.error.find("step r1/controller failed at tick 0: ControlParameters.n_theta must be at least 1"),
            std::string::npos)
      << outcome.error;
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].status, "error");
  EXPECT_EQ(outcome.rows[0].iteration, 0);
  // The run stops at the failing tick instead of running two 3 s timeouts.
  EXPECT_LT(outcome.wall_s, 20.0);
}

TEST(ExecuteRuns, AnErrorRunIsOneStatusErrorRowInRunsCsvAndNeverData) {
  const std::string dir = testing::TempDir() + "/executor_error_run";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ExecutorOptions options;
  options.jobs = 1;
  options.out_dir = dir;
  options.customize = ControllerThatThrows();
  std::atomic<bool> stop{false}, abandon{false};
  const ExecutionSummary summary = ExecuteRuns({ShortRun("throws-B-0-1")}, options, stop, abandon);
  EXPECT_EQ(summary.errored, 1);
  EXPECT_EQ(summary.finished, 0);
  ASSERT_EQ(summary.errors.size(), 1u);
  const RunsFile file = ReadRuns(dir + "/runs.csv");
  EXPECT_TRUE(file.rows.empty()) << "an error run must not be recorded as data";
  ASSERT_EQ(file.errors.size(), 1u);
  EXPECT_EQ(file.errors[0].run_id, "throws-B-0-1");
  EXPECT_NE(file.errors[0].error.find("r1/controller failed"), std::string::npos);
  // A resumed experiment does not run it again (lockstep: it would fail the same way).
  EXPECT_EQ(FinishedRuns(dir + "/runs.csv", 2).count("throws-B-0-1"), 1u);
}

TEST(ExecuteRun, AnAbandonedRunReportsNoRows) {
  RunSpec run;
  run.experiment = "unit";
  run.run_id = "abandoned-B-0-0";
  run.affect = kNoAffect;
  std::atomic<bool> abandon{true};
  const RunOutcome outcome = ExecuteRun(run, abandon);
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(outcome.abandoned);
  EXPECT_TRUE(outcome.rows.empty());
}

// Issue 19 item 5: a traced mixed run whose r1 is a crowd robot. A crowd robot has no affect engine and no map, so
// its trace is its path alone; the recorder once waited for r1/affect and the lockstep refused to start.
TEST(ExecuteRun, ATracedMixedRunWithACrowdRobotFirstRecordsItsPath) {
  RunSpec run = ShortRun("mixed-A-4-0");
  run.set = 'A';
  run.env = 4;
  run.config = "mixed";
  run.affect = "affective";
  run.options = {{"timeout", "3"}, {"navigators", "crowd,hybrid"}, {"crowd_mode", "on"}};
  run.iterations = 1;
  run.team.count = 2;
  run.record_trace = true;
  std::atomic<bool> abandon{false};
  const RunOutcome outcome = ExecuteRun(run, abandon);
  ASSERT_TRUE(outcome.ok) << outcome.error;
  ASSERT_EQ(outcome.rows.size(), 2u);  // r1 (crowd) and r2 (hybrid)
  for (const auto& r : outcome.rows) EXPECT_GT(r.distance_travelled, 0.1) << r.robot << " did not move";
  // The crowd robot builds no map and runs no controller or affect engine: not measured, not 0.
  EXPECT_EQ(outcome.rows[0].robot, "r1");
  EXPECT_TRUE(std::isnan(outcome.rows[0].coverage));
  EXPECT_TRUE(std::isnan(outcome.rows[0].exec_time_ratio));
  EXPECT_TRUE(std::isfinite(outcome.rows[1].coverage));
  EXPECT_GT(outcome.rows[1].exec_time_ratio, 0.0);
  ASSERT_TRUE(outcome.trace);
  EXPECT_GE(outcome.trace->samples.size(), 30u);
  EXPECT_TRUE(outcome.trace->occupancy.empty());  // no mapper on a crowd robot
}

// Issue 18 item 1: a team run gives one row per robot and traversal (r1 first), each from that robot's
// own mission; the experiment's runs.csv keeps them and the report draws a section per robot.
TEST(ExecuteRuns, ATeamRunHasOneRowPerRobotAndTheReportASectionPerRobot) {
  RunSpec run;
  run.experiment = "unit";
  run.run_id = "team-B-0-0";
  run.set = 'B';
  run.env = 0;
  run.seed = 18;
  run.config = "team";
  run.affect = kNoAffect;
  run.options = {{"timeout", "3"}};  // 3 s each: every robot times out after 30 ticks, having moved
  run.iterations = 1;
  run.team.count = 3;
  const fs::path dir = fs::temp_directory_path() / ("limbic_executor_team_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::atomic<bool> stop{false}, abandon{false};
  const ExecutionSummary summary = ExecuteRuns({run}, {.jobs = 1, .out_dir = dir.string()}, stop, abandon);
  ASSERT_EQ(summary.finished, 1) << (summary.errors.empty() ? "" : summary.errors[0]);
  const RunsFile file = ReadRuns((dir / "runs.csv").string());
  ASSERT_EQ(file.rows.size(), 1u);
  ASSERT_EQ(file.team_rows.size(), 2u);
  EXPECT_EQ(file.rows[0].robot, "r1");
  EXPECT_EQ(file.team_rows[0].robot, "r2");
  EXPECT_EQ(file.team_rows[1].robot, "r3");
  std::set<double> distances;
  for (const auto* r : {&file.rows[0], &file.team_rows[0], &file.team_rows[1]}) {
    EXPECT_EQ(r->run_id, run.run_id);
    EXPECT_EQ(r->seed, run.seed);  // the run seed; each robot's own seed derives from it (stack::RobotSeed)
    EXPECT_FALSE(r->success);
    EXPECT_EQ(r->completion_time_s, 3.0);
    EXPECT_GT(r->distance_travelled, 0.0);
    distances.insert(r->distance_travelled);
  }
  EXPECT_EQ(distances.size(), 3u) << "three robots in three places do not travel the same distance";
  Report(dir.string(), ReportOptions{});
  std::ifstream in((dir / "report.html").string());
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(html.find("<h2>Per robot</h2>"), std::string::npos);
  EXPECT_NE(html.find("team · r3"), std::string::npos);
  fs::remove_all(dir);
}

// Each robot's own seed: r1 keeps the run seed (a team's r1 and a single robot alike), the others derive
// theirs from it (SplitMix64 of the seed and the robot's number), and their controllers get them.
TEST(RobotSeed, FirstRobotKeepsTheRunSeedOthersDeriveTheirsAndTheControllersGetThem) {
  stack::StackSpec spec;
  spec.seed = 18;
  spec.robots = 3;
  EXPECT_EQ(stack::RobotSeed(spec, 0), 18u);
  EXPECT_EQ(stack::RobotSeed(spec, 1), sim::DeriveSeed(18, 2));
  EXPECT_EQ(stack::RobotSeed(spec, 2), sim::DeriveSeed(18, 3));
  EXPECT_NE(stack::RobotSeed(spec, 1), stack::RobotSeed(spec, 2));
  EXPECT_NE(stack::RobotSeed(spec, 1), 18u);
  for (const auto& [name, argv] : stack::StackCommands(spec, "/bin", "ipc:///tmp/x")) {
    if (name.find("controller") == std::string::npos) continue;
    const size_t k = static_cast<size_t>(name[1] - '1');
    const std::string expected = "seed=" + std::to_string(static_cast<int64_t>(stack::RobotSeed(spec, k)));
    EXPECT_TRUE(Has(argv, expected)) << name;
  }
}

}  // namespace
}  // namespace limbic::experiment
