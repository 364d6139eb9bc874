#include "tools/experiment/executor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "common/config/config.hpp"
#include "services/controller/directional_controller.hpp"
#include "services/mapper/occupancy_mapper.hpp"
#include "sim/team.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

std::string Bool(const std::string& value) { return value == "true" ? "true" : "false"; }

double OptionNumber(const RunSpec& run, const std::string& name, double fallback) {
  const auto it = run.options.find(name);
  if (it == run.options.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || !(v > 0) || !std::isfinite(v)) {
    throw std::invalid_argument(run.run_id + ": option " + name + " must be a positive number, got '" + it->second +
                                "'");
  }
  return v;
}

// "key=value" for a service's enumerated option, once the service's own parser accepts `value` (its message names
// the choices; a run built by hand, not from a checked definition, can carry anything).
template <typename Parse>
std::string ServiceEnumOption(const RunSpec& run, const std::string& key, const std::string& value, Parse parse) {
  try {
    parse(value);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(run.run_id + ": " + e.what());
  }
  return key + "=" + value;
}

}  // namespace

stack::StackSpec StackSpecFor(const RunSpec& run) {
  stack::StackSpec spec;
  spec.set = run.set;
  spec.index = run.env;
  spec.env_seed = run.environment_seed;
  spec.seed = run.seed;
  spec.iterations = run.iterations;
  spec.affect_config = run.affect;  // "none" is services/affect/config/none.yaml
  spec.affect_overrides = run.AffectOverrides();
  spec.run_id = run.run_id;
  spec.configuration = run.config;
  spec.robots = run.team.count;
  if (!run.team.starts.empty()) spec.options.push_back("simulator.starts=" + run.team.StartsOption());
  if (!run.team.goals.empty()) spec.options.push_back("simulator.goals=" + run.team.GoalsOption());
  spec.bodies = run.team.bodies;
  spec.navigators = run.team.navigators;
  for (const auto& [name, value] : run.options) {
    if (name == "prebuilt_map" || name == "danger_pretag" || name == "wrong_map_all_free") {
      spec.options.push_back("mapper." + name + "=" + Bool(value));
    } else if (name == "human_flee_extension") {
      spec.options.push_back("simulator.humans_flee=" + Bool(value));
    } else if (name == "velocity_goal_source") {
      if (value != "path" && value != "goal_bearing") {
        throw std::invalid_argument(run.run_id + ": velocity_goal_source must be path or goal_bearing, got '" + value +
                                    "'");
      }
      spec.options.push_back(std::string("controller.velocity_goal=") +
                             (value == "goal_bearing" ? "goal_bearing" : "directional"));
    } else if (name == "fault_script") {
      spec.options.push_back("hwio.fault_script=" + value);
    } else if (name == "goal_tolerance") {
      spec.options.push_back("mission.goal_tolerance=" + FormatNumber(OptionNumber(run, name, 0.35)));
    } else if (name == "hold_danger_weight") {
      spec.options.push_back(std::string("planner.danger_weight=") +
                             (Bool(value) == "true" ? "traversal_max" : "live"));
    } else if (name ==
               "tricycle_turn") {  // true: VelocityOptions::turn_speed 0.1 m/s; false: the reversing recovery only
      spec.options.push_back(std::string("controller.tricycle_turn_speed=") + (Bool(value) == "true" ? "0.1" : "0"));
    } else if (name == "candidate_outline") {  // VelocityOptions::candidate_outline_check
      spec.options.push_back("controller.candidate_outline_check=" + Bool(value));
    } else if (name == "map_point_inset") {
      spec.options.push_back("controller.map_point_inset=" + FormatNumber(OptionNumber(run, name, 0.0)));
    } else if (name == "danger_point") {
      spec.options.push_back(ServiceEnumOption(run, "mapper.danger_point", value, mapper::ParseDangerPoint));
    } else if (name == "danger_forget") {
      spec.options.push_back(ServiceEnumOption(run, "mapper.danger_forget", value, mapper::ParseDangerForget));
    } else if (name == "map_danger_point") {
      spec.options.push_back(
          ServiceEnumOption(run, "controller.map_danger_point", value, controller::ParseMapDangerPoint));
    } else if (name == "navigators") {
      spec.navigators = sim::SplitList(value);  // checked against the team by the definition
    } else if (name == "crowd_mode") {
      spec.options.push_back("crowd_nav.mode=" + value);
    } else if (name == "body") {
      spec.bodies = {value};  // every robot of this configuration
    } else if (name == "timeout") {
      spec.options.push_back("mission.timeout_s=" + FormatNumber(OptionNumber(run, name, 600.0)));
    } else {
      throw std::invalid_argument(run.run_id + ": unknown option '" + name + "'");
    }
  }
  // Safety stop only: every traversal ends by arrival or by the mission's timeout long before.
  const double timeout_s = OptionNumber(run, "timeout", 600.0);
  const int64_t per_traversal = static_cast<int64_t>(std::ceil(timeout_s / spec.period_s)) + 100;
  spec.max_ticks = std::max(1, run.iterations) * per_traversal + 100;
  return spec;
}

namespace {

// A row naming the run (the columns every row of a run shares).
IterationRow RowOf(const RunSpec& run) {
  IterationRow r;
  r.run_id = run.run_id;
  r.experiment = run.experiment;
  r.config = run.config;
  r.set = run.set;
  r.env = run.env;
  r.repeat = run.repeat;
  r.seed = run.seed;
  r.sweep = run.sweep;
  r.sweep_value = run.sweep_value;
  return r;
}

}  // namespace

std::vector<IterationRow> RowsFromRecording(const RunSpec& run, const stack::Recording& recording,
                                            const std::string& robot) {
  std::vector<IterationRow> rows;
  for (const auto& t : recording.traversals) {
    IterationRow r = RowOf(run);
    r.robot = robot;
    r.iteration = t.metrics.iteration;
    r.completion_time_s = t.metrics.completion_time_s;
    r.success = t.metrics.success;
    r.collisions = t.metrics.collisions;
    r.collisions_per_min = t.metrics.collisions_per_min;
    r.mean_velocity = t.metrics.mean_velocity;
    r.exec_time_ratio = t.metrics.exec_time_ratio;
    r.coverage = t.metrics.coverage;
    r.distance_travelled = t.metrics.distance_travelled;
    r.contact_cycles = t.contact_cycles;
    rows.push_back(std::move(r));
  }
  return rows;
}

void MarkUnmeasured(const stack::StackSpec& spec, std::vector<IterationRow>* rows) {
  const auto names = stack::RobotNames(spec);
  for (IterationRow& r : *rows) {
    const auto it = std::find(names.begin(), names.end(), r.robot);
    if (it == names.end() || stack::NavigatorOf(spec, static_cast<size_t>(it - names.begin())) != "crowd") continue;
    r.coverage = std::numeric_limits<double>::quiet_NaN();
    r.exec_time_ratio = std::numeric_limits<double>::quiet_NaN();
  }
}

std::string RecordingFileName(const std::string& run_id) { return "recordings/" + run_id + ".mcap"; }

IterationRow ErrorRow(const RunSpec& run, const std::string& error) {
  IterationRow r = RowOf(run);
  r.iteration = 0;
  r.status = "error";
  r.error = error;
  return r;
}

RunOutcome ExecuteRun(const RunSpec& run, const std::atomic<bool>& abandon, const std::string& bag_path,
                      const StackCustomizer& customize) {
  RunOutcome outcome;
  const auto begin = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(); };
  auto recording = std::make_shared<stack::Recording>();
  // A team's other robots (issue 18 item 1): each has a recorder of its own and rows of its own.
  std::vector<std::pair<std::string, std::shared_ptr<stack::Recording>>> team;
  int status = 0;
  std::string step_error;
  stack::StackSpec spec;
  try {
    spec = StackSpecFor(run);
    spec.recording = recording;
    const auto names = stack::RobotNames(spec);
    for (size_t i = 1; i < names.size(); ++i) {
      team.emplace_back(names[i], std::make_shared<stack::Recording>());
      spec.team_recordings[names[i]] = team.back().second;
    }
    spec.customize = customize;
    spec.recorder_options.trajectory = run.record_trace;
    // A crowd robot (issue 19 item 5) has no affect engine and no map: its trace is the trajectory alone.
    const bool hybrid_first = stack::NavigatorOf(spec, 0) == "hybrid";
    spec.recorder_options.affect = run.record_trace && hybrid_first;
    spec.recorder_options.map = run.record_trace && hybrid_first;
    if (run.record_bag && !bag_path.empty()) {
      fs::create_directories(fs::path(bag_path).parent_path());
      spec.bag = std::make_shared<bag::BagWriter>(bag::BagOptions{.path = bag_path});
    }
    status = stack::RunInProcess(spec, abandon, &step_error);
    if (spec.bag) spec.bag->Close();
  } catch (const config::ConfigError& e) {
    outcome.config_error = true;
    outcome.error = e.what();
    outcome.wall_s = elapsed();
    return outcome;
  } catch (const std::exception& e) {
    outcome.config_error = dynamic_cast<const std::invalid_argument*>(&e) != nullptr;
    outcome.error = e.what();
    outcome.wall_s = elapsed();
    return outcome;
  }
  outcome.wall_s = elapsed();
  if (!step_error.empty() && !abandon.load()) {
    // A step threw: the stack ended the run at that tick. Whatever traversals it completed are not
    // data (issue 15, finding 7: a controller that threw every tick was recorded as timeouts).
    outcome.step_error = true;
    outcome.error = step_error;
    outcome.rows = {ErrorRow(run, step_error)};
    return outcome;
  }
  // Complete: every robot's mission reported every traversal, in order.
  auto complete_run = [&](const stack::Recording& r) {
    bool complete = r.run_finished && static_cast<int>(r.traversals.size()) == run.iterations;
    for (size_t i = 0; complete && i < r.traversals.size(); ++i) {
      complete = r.traversals[i].metrics.iteration == static_cast<int>(i) + 1;
    }
    return complete;
  };
  bool complete = complete_run(*recording);
  for (const auto& [name, r] : team) complete = complete && complete_run(*r);
  if (!complete) {
    if (abandon.load()) {
      outcome.abandoned = true;
      outcome.error = "abandoned";
    } else {
      outcome.error = "the run ended after " + std::to_string(recording->ticks) + " ticks with " +
                      std::to_string(recording->traversals.size()) + " of " + std::to_string(run.iterations) +
                      " traversals of r1";
      for (const auto& [name, r] : team) {
        outcome.error += ", " + std::to_string(r->traversals.size()) + " of " + name;
      }
      outcome.error += " (stack exit status " + std::to_string(status) + ")";
    }
    return outcome;
  }
  outcome.ok = true;
  outcome.rows = RowsFromRecording(run, *recording, kLeadRobot);
  for (const auto& [name, r] : team) {
    auto rows = RowsFromRecording(run, *r, name);
    outcome.rows.insert(outcome.rows.end(), rows.begin(), rows.end());
  }
  MarkUnmeasured(spec, &outcome.rows);
  if (!recording->failed.empty()) {
    FailureTrace failures;
    failures.run_id = run.run_id;
    failures.set = run.set;
    failures.env = run.env;
    failures.environment_seed = run.environment_seed;
    failures.seed = run.seed;
    failures.traversals = std::move(recording->failed);
    outcome.failures = std::move(failures);
  }
  if (run.record_trace) {
    RunTrace trace;
    trace.run_id = run.run_id;
    trace.set = run.set;
    trace.env = run.env;
    trace.environment_seed = run.environment_seed;
    trace.seed = run.seed;
    trace.samples = std::move(recording->trajectory);
    trace.grid = recording->grid;
    trace.occupancy = std::move(recording->occupancy);
    outcome.trace = std::move(trace);
    AffectTrace affect;
    affect.run_id = run.run_id;
    affect.samples = std::move(recording->affect);
    outcome.affect = std::move(affect);
  }
  return outcome;
}

ExecutionSummary ExecuteRuns(const std::vector<RunSpec>& runs, const ExecutorOptions& options,
                             const std::atomic<bool>& stop_new, const std::atomic<bool>& abandon,
                             const std::function<void(const RunSpec&, const RunOutcome&)>& on_done) {
  const auto begin = std::chrono::steady_clock::now();
  int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::thread::hardware_concurrency());
  jobs = std::clamp(jobs, 1, std::max(1, static_cast<int>(runs.size())));
  RunsAppender appender((fs::path(options.out_dir) / "runs.csv").string());
  ExecutionSummary summary;
  std::mutex mutex;  // guards summary, next, config_failed and on_done
  size_t next = 0;
  bool config_failed = false;
  auto worker = [&] {
    while (true) {
      const RunSpec* run = nullptr;
      {
        std::lock_guard lock(mutex);
        if (next >= runs.size() || stop_new.load() || abandon.load() || config_failed) return;
        run = &runs[next++];
      }
      RunOutcome outcome = ExecuteRun(
          *run, abandon, (fs::path(options.out_dir) / RecordingFileName(run->run_id)).string(), options.customize);
      std::string write_error;
      if (outcome.step_error) {
        try {
          appender.Append(outcome.rows);
        } catch (const std::exception& e) {
          outcome.step_error = false;
          outcome.config_error = true;  // the output directory is unusable: stop
          outcome.error = e.what();
        }
      } else if (outcome.ok) {
        try {
          // Traces first: a run whose rows are in runs.csv always has its trace files.
          if (outcome.trace)
            WriteRunTrace((fs::path(options.out_dir) / TraceFileName(run->run_id)).string(), *outcome.trace);
          if (outcome.affect) {
            WriteAffectTrace((fs::path(options.out_dir) / AffectTraceFileName(run->run_id)).string(), *outcome.affect);
          }
          if (outcome.failures) {
            WriteFailureTrace((fs::path(options.out_dir) / FailureTraceFileName(run->run_id)).string(),
                              *outcome.failures);
          }
          appender.Append(outcome.rows);
        } catch (const std::exception& e) {
          outcome.ok = false;
          outcome.config_error = true;  // the output directory is unusable: stop
          outcome.error = e.what();
        }
      }
      std::lock_guard lock(mutex);
      if (outcome.ok) {
        ++summary.finished;
      } else if (outcome.step_error) {
        ++summary.errored;
        if (summary.errors.size() < 10) summary.errors.push_back(run->run_id + ": " + outcome.error);
      } else if (outcome.abandoned) {
        ++summary.abandoned;
      } else {
        ++summary.failed;
        if (summary.errors.size() < 10) summary.errors.push_back(run->run_id + ": " + outcome.error);
        if (outcome.config_error) config_failed = true;
      }
      if (on_done) on_done(*run, outcome);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < jobs; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  summary.not_started = static_cast<int>(runs.size() - next);
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return summary;
}

}  // namespace limbic::experiment
