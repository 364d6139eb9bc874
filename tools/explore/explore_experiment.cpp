#include "tools/explore/explore_experiment.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/config/config.hpp"
#include "common/paths/paths.hpp"
#include "common/robot/robot_description.hpp"
#include "services/explore/exploration_run.hpp"
#include "sim/environment.hpp"
#include "sim/random.hpp"
#include "sim/render_svg.hpp"
#include "sim/team.hpp"
#include "tools/stack/stack.hpp"

namespace limbic::explore {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;
using config::StrictMap;

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

std::string Fixed(double v, int digits) {
  if (!std::isfinite(v)) return "–";
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

// The coverage a run had at time t: its last sample at or before t (the final coverage once the run has ended).
double CoverageAt(const std::vector<std::vector<double>>& trace, double t) {
  double c = 0.0;
  for (const auto& row : trace) {
    if (row.size() < 2 || row[0] > t + 1e-9) break;
    c = row[1];
  }
  return c;
}

// A team's starts for exploration: sim::PlaceTeam around the environment's start with every goal there too (an
// explorer has no start–goal traversal, and a goal beyond a door narrower than a body would refuse the team). Robot 1
// keeps the environment's start. "x,y,theta;..." starts and "x,y;..." goals for the simulator's options.
std::pair<std::string, std::string> ExplorationStarts(char set, int index, const std::vector<std::string>& bodies) {
  sim::Environment env = sim::GenerateEnvironment(set, index, 1);
  env.goal = env.start;
  std::vector<double> reach;
  sim::TeamLayoutOptions layout;
  for (const auto& b : bodies) {
    const robot::RobotDescription d = robot::LoadRobotDescription(b);
    reach.push_back(d.body.reach_from_origin());
    layout.path_radii.push_back(d.body.circumscribed_radius());
  }
  const auto placements = sim::PlaceTeam(env, reach, layout);
  std::ostringstream starts, goals;
  starts << std::setprecision(10);
  goals << std::setprecision(10);
  for (size_t i = 0; i < placements.size(); ++i) {
    const auto& p = placements[i];
    starts << (i ? ";" : "") << p.start.x << "," << p.start.y << "," << p.start.theta;
    goals << (i ? ";" : "") << p.start.x << "," << p.start.y;
  }
  return {starts.str(), goals.str()};
}

constexpr const char* kColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

}  // namespace

int ExploreExperiment::RunCount() const {
  return static_cast<int>(sets.size()) * (last_environment - first_environment + 1) * static_cast<int>(teams.size()) *
         seeds;
}

std::string DefaultExploreExperimentDir() {
  return paths::DataPath("experiments/explore", "LIMBIC_EXPLORE_EXPERIMENTS_DIR").string();
}

ExploreExperiment LoadExploreExperiment(const std::string& path) {
  if (!fs::exists(path)) throw ConfigError(path + ": no such experiment file");
  YAML::Node root = config::LoadFile(path);
  StrictMap top(root, path);
  ExploreExperiment e;
  e.source = path;
  e.name = fs::path(path).stem().string();
  std::string name = e.name;
  top.Optional("name", &name);
  if (name != e.name) top.Fail("name", "must match the file name ('" + e.name + "')");
  top.Optional("description", &e.description);
  int64_t seed = 1;
  top.Optional("seed", &seed);
  e.seed = static_cast<uint64_t>(seed);
  std::vector<std::string> sets;
  if (top.Optional("sets", &sets)) {
    e.sets.clear();
    for (const auto& s : sets) {
      if (s.size() != 1 || !sim::IsValidSetLetter(s[0])) top.Fail("sets", "must be letters A-G (got '" + s + "')");
      e.sets.push_back(s[0]);
    }
    if (e.sets.empty()) top.Fail("sets", "must list at least one set");
  }
  if (top.Has("environments")) {
    StrictMap env = top.Child("environments");
    env.Optional("first", &e.first_environment);
    env.Optional("last", &e.last_environment);
    env.Finish();
    if (e.first_environment < 0 || e.last_environment > 19 || e.last_environment < e.first_environment)
      top.Fail("environments", "must satisfy 0 <= first <= last <= 19");
  }
  top.Optional("seeds", &e.seeds);
  if (e.seeds < 1) top.Fail("seeds", "must be at least 1");
  top.Optional("time_limit", &e.time_limit_s);
  if (!(e.time_limit_s > 0 && e.time_limit_s <= 36000)) top.Fail("time_limit", "must be in (0, 36000] s");
  top.Optional("affect", &e.affect);
  top.Optional("options", &e.options);
  for (const auto& o : e.options) {
    if (o.find('.') == std::string::npos || o.find('=') == std::string::npos)
      top.Fail("options", "'" + o + "' is not service.key=value");
  }
  const std::vector<std::string> known = robot::ListRobotDescriptions();
  for (StrictMap& t : top.ChildList("teams")) {
    TeamConfig team;
    team.label = t.Required<std::string>("label");
    team.bodies = t.Required<std::vector<std::string>>("bodies");
    t.Finish();
    if (team.bodies.empty()) top.Fail("teams", "team '" + team.label + "' has no robots");
    for (const auto& b : team.bodies) {
      if (std::find(known.begin(), known.end(), b) == known.end())
        top.Fail("teams", "team '" + team.label + "': unknown body '" + b + "' (configs/robots)");
    }
    for (const auto& other : e.teams) {
      if (other.label == team.label) top.Fail("teams", "label '" + team.label + "' appears twice");
    }
    e.teams.push_back(team);
  }
  if (e.teams.empty()) top.Fail("teams", "must list at least one team");
  top.Finish();
  return e;
}

ExploreExperiment FindExploreExperiment(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".yaml"))
    return LoadExploreExperiment(name_or_path);
  return LoadExploreExperiment((fs::path(DefaultExploreExperimentDir()) / (name_or_path + ".yaml")).string());
}

std::vector<ExploreRunSpec> ExpandRuns(const ExploreExperiment& e) {
  std::vector<ExploreRunSpec> runs;
  for (char set : e.sets) {
    for (int env = e.first_environment; env <= e.last_environment; ++env) {
      for (int k = 0; k < e.seeds; ++k) {
        // One seed per (set, environment, k), shared by every team: the teams meet the same noise draws.
        const uint64_t seed = sim::DeriveSeed(e.seed, static_cast<uint64_t>((set - 'A') * 1000 + env * 50 + k + 1));
        for (size_t t = 0; t < e.teams.size(); ++t) {
          ExploreRunSpec r;
          r.set = set;
          r.environment = env;
          r.seed = seed;
          r.team = static_cast<int>(t);
          r.run_id = e.name + "-" + std::string(1, set) + std::to_string(env) + "-" + e.teams[t].label + "-s" +
                     std::to_string(k);
          runs.push_back(r);
        }
      }
    }
  }
  return runs;
}

ExploreRunResult ReadRunCsv(const std::string& path) {
  std::ifstream in(path);
  std::string header, line;
  if (!in || !std::getline(in, header) || !std::getline(in, line))
    throw std::runtime_error(path + ": no run row (the task manager did not finish)");
  if (header != RunCsvHeader()) throw std::runtime_error(path + ": unexpected header");
  const auto f = SplitCsv(line);
  if (f.size() != 21) throw std::runtime_error(path + ": " + std::to_string(f.size()) + " fields, expected 21");
  ExploreRunResult r;
  try {
    r.run_id = f[0];
    r.configuration = f[1];
    r.set = f[2].empty() ? '?' : f[2][0];
    r.environment = std::stoi(f[3]);
    r.seed = std::stoull(f[4]);
    r.robots = std::stoi(f[5]);
    r.bodies = f[6];
    r.all_done = f[7] == "1";
    r.end_time_s = std::stod(f[8]);
    r.final_coverage = std::stod(f[9]);
    if (!f[10].empty()) r.time_to_90_s = std::stod(f[10]);
    double* numbers[] = {&r.robot_collisions, &r.world_collisions,  &r.tasks_sent,
                         &r.reports_received, &r.maps_received,     &r.allocation_changes,
                         &r.released_early,   &r.unreachable_tiles, &r.distance_m};
    for (size_t i = 0; i < 9; ++i) *numbers[i] = std::stod(f[11 + i]);
    std::stringstream per_robot(f[20]);
    for (std::string item; std::getline(per_robot, item, '+');) r.world_collisions_by_robot.push_back(std::stod(item));
    if (r.world_collisions_by_robot.size() != static_cast<size_t>(r.robots))
      throw std::runtime_error(path + ": " + std::to_string(r.world_collisions_by_robot.size()) +
                               " robots' world collisions for " + std::to_string(r.robots) + " robots");
  } catch (const std::logic_error& e) {
    throw std::runtime_error(path + ": malformed run row (" + e.what() + ")");
  }
  return r;
}

ExploreOutput RunExploreExperiment(const ExploreExperiment& e, const std::string& work_dir, int jobs, int limit,
                                   const std::atomic<bool>& stop) {
  std::vector<ExploreRunSpec> runs = ExpandRuns(e);
  if (limit > 0 && static_cast<int>(runs.size()) > limit) runs.resize(static_cast<size_t>(limit));
  fs::create_directories(work_dir);
  ExploreOutput out;
  out.runs.resize(runs.size());
  std::vector<std::vector<std::vector<double>>> traces(runs.size());
  std::atomic<size_t> next{0};
  std::atomic<int> done{0};
  std::mutex print;
  auto worker = [&] {
    for (size_t i = next++; i < runs.size() && !stop; i = next++) {
      const ExploreRunSpec& run = runs[i];
      const TeamConfig& team = e.teams[static_cast<size_t>(run.team)];
      const std::string results = (fs::path(work_dir) / (run.run_id + ".csv")).string();
      const std::string trace = (fs::path(work_dir) / (run.run_id + "-trace.csv")).string();
      fs::remove(results);
      fs::remove(trace);
      stack::StackSpec spec;
      spec.set = run.set;
      spec.index = run.environment;
      spec.seed = run.seed;
      spec.robots = static_cast<int>(team.bodies.size());
      spec.bodies = team.bodies;
      spec.explore = true;
      spec.affect_config = e.affect;
      spec.run_id = run.run_id;
      spec.configuration = team.label;
      spec.options = {"mapper.full_map_period=10", "explore_manager.time_limit_s=" + std::to_string(e.time_limit_s),
                      "explore_manager.results_csv=" + results, "explore_manager.trace_csv=" + trace};
      spec.options.insert(spec.options.end(), e.options.begin(), e.options.end());
      // The manager ends the run at its time limit; this is a safety stop 60 s later.
      spec.max_ticks = static_cast<int64_t>((e.time_limit_s + 60.0) / spec.period_s);
      ExploreRunResult result;
      std::string error;
      try {
        if (spec.robots > 1) {
          const auto [starts, goals] = ExplorationStarts(run.set, run.environment, team.bodies);
          spec.options.push_back("simulator.starts=" + starts);
          spec.options.push_back("simulator.goals=" + goals);
        }
        const int status = stack::RunInProcess(spec, stop, &error);
        result = ReadRunCsv(results);
        if (status != 0 && error.empty()) error = "the stack ended with status " + std::to_string(status);
      } catch (const std::exception& ex) {
        error = ex.what();
        result.run_id = run.run_id;
        result.configuration = team.label;
        result.set = run.set;
        result.environment = run.environment;
        result.seed = run.seed;
        result.robots = spec.robots;
      }
      result.error = error;
      std::ifstream tin(trace);
      std::string line;
      std::getline(tin, line);  // header
      while (std::getline(tin, line)) {
        const auto f = SplitCsv(line);
        std::vector<double> row;
        for (size_t k = 1; k < f.size(); ++k) row.push_back(std::stod(f[k]));
        traces[i].push_back(std::move(row));
      }
      out.runs[i] = result;
      std::lock_guard<std::mutex> lock(print);
      std::cerr << "[" << ++done << "/" << runs.size() << "] " << run.run_id << ": coverage "
                << Fixed(result.final_coverage * 100, 1) << " % at " << Fixed(result.end_time_s, 0) << " s"
                << (error.empty() ? "" : "  ERROR " + error) << "\n";
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, jobs); ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < runs.size(); ++i) out.traces[runs[i].run_id] = std::move(traces[i]);
  if (stop) throw std::runtime_error("interrupted");
  return out;
}

std::string RunsCsv(const ExploreOutput& out) {
  std::ostringstream o;
  o << RunCsvHeader() << ",error\n";
  for (const auto& r : out.runs) {
    o << std::setprecision(10) << r.run_id << "," << r.configuration << "," << r.set << "," << r.environment << ","
      << r.seed << "," << r.robots << "," << r.bodies << "," << (r.all_done ? 1 : 0) << "," << r.end_time_s << ","
      << r.final_coverage << ",";
    if (r.time_to_90_s) o << *r.time_to_90_s;
    o << "," << r.robot_collisions << "," << r.world_collisions << "," << r.tasks_sent << "," << r.reports_received
      << "," << r.maps_received << "," << r.allocation_changes << "," << r.released_early << "," << r.unreachable_tiles
      << "," << r.distance_m << ",";
    for (size_t k = 0; k < r.world_collisions_by_robot.size(); ++k)
      o << (k ? "+" : "") << r.world_collisions_by_robot[k];
    o << ",\"" << r.error << "\"\n";
  }
  return o.str();
}

std::string SummaryMarkdown(const ExploreExperiment& e, const ExploreOutput& out) {
  std::ostringstream o;
  o << "# " << e.name << "\n\n" << e.description << "\n\n";
  o << "Per set and team: runs (failed), mean final coverage of the free cells, mean coverage at 60/120/180/240 s, "
       "runs reaching 90 % and their mean time to it, mean collision events (robot–robot counted by each robot "
       "involved, robot–world), mean exploration messages (tasks sent + reports received) and full maps received by "
       "the manager, mean allocation changes (awards), mean distance driven by the team.\n\n";
  o << "| set | team | runs | coverage % | @60 s | @120 s | @180 s | @240 s | ≥90 % | t90 (s) | robot–robot | "
       "robot–world | task+report msgs | maps | allocations | distance (m) |\n";
  o << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (char set : e.sets) {
    for (const auto& team : e.teams) {
      std::vector<double> cov, c60, c120, c180, c240, t90, rr, rw, msgs, maps, alloc, dist;
      int runs = 0, failed = 0, reached = 0;
      for (const auto& r : out.runs) {
        if (r.set != set || r.configuration != team.label) continue;
        ++runs;
        if (!r.error.empty()) {
          ++failed;
          continue;
        }
        cov.push_back(r.final_coverage * 100);
        const auto it = out.traces.find(r.run_id);
        if (it != out.traces.end()) {
          c60.push_back(CoverageAt(it->second, 60) * 100);
          c120.push_back(CoverageAt(it->second, 120) * 100);
          c180.push_back(CoverageAt(it->second, 180) * 100);
          c240.push_back(CoverageAt(it->second, 240) * 100);
        }
        if (r.time_to_90_s) {
          ++reached;
          t90.push_back(*r.time_to_90_s);
        }
        rr.push_back(r.robot_collisions);
        rw.push_back(r.world_collisions);
        msgs.push_back(r.tasks_sent + r.reports_received);
        maps.push_back(r.maps_received);
        alloc.push_back(r.allocation_changes);
        dist.push_back(r.distance_m);
      }
      if (runs == 0) continue;
      o << "| " << set << " | " << team.label << " | " << runs << (failed ? " (" + std::to_string(failed) + ")" : "")
        << " | " << Fixed(Mean(cov), 1) << " | " << Fixed(Mean(c60), 1) << " | " << Fixed(Mean(c120), 1) << " | "
        << Fixed(Mean(c180), 1) << " | " << Fixed(Mean(c240), 1) << " | " << reached << "/" << (runs - failed) << " | "
        << Fixed(Mean(t90), 1) << " | " << Fixed(Mean(rr), 1) << " | " << Fixed(Mean(rw), 1) << " | "
        << Fixed(Mean(msgs), 0) << " | " << Fixed(Mean(maps), 0) << " | " << Fixed(Mean(alloc), 1) << " | "
        << Fixed(Mean(dist), 1) << " |\n";
    }
  }
  // Which body meets the walls: a team's contact events split by robot.
  std::ostringstream by_robot;
  for (char set : e.sets) {
    for (const auto& team : e.teams) {
      if (team.bodies.size() < 2) continue;
      std::vector<std::vector<double>> contacts(team.bodies.size());
      for (const auto& r : out.runs) {
        if (r.set != set || r.configuration != team.label || !r.error.empty()) continue;
        for (size_t k = 0; k < contacts.size() && k < r.world_collisions_by_robot.size(); ++k)
          contacts[k].push_back(r.world_collisions_by_robot[k]);
      }
      if (contacts[0].empty()) continue;
      by_robot << "| " << set << " | " << team.label << " |";
      for (size_t k = 0; k < contacts.size(); ++k)
        by_robot << (k ? " ·" : "") << " r" << k + 1 << " " << team.bodies[k] << " " << Fixed(Mean(contacts[k]), 1);
      by_robot << " |\n";
    }
  }
  if (!by_robot.str().empty()) {
    o << "\nRobot–world contact events by robot (mean a run, teams of more than one robot):\n\n| set | team | by robot "
         "|\n|---|---|---|\n"
      << by_robot.str();
  }
  int errors = 0;
  for (const auto& r : out.runs) errors += r.error.empty() ? 0 : 1;
  if (errors) {
    o << "\nFailed runs:\n\n";
    for (const auto& r : out.runs) {
      if (!r.error.empty()) o << "- " << r.run_id << ": " << r.error << "\n";
    }
  }
  return o.str();
}

std::map<std::string, std::string> PathSvgs(const ExploreExperiment& e, const ExploreOutput& out) {
  std::map<std::string, std::string> svgs;
  for (const auto& r : out.runs) {
    if (!r.error.empty() || r.run_id.size() < 3 || !r.run_id.ends_with("-s0")) continue;
    const auto it = out.traces.find(r.run_id);
    if (it == out.traces.end() || it->second.empty()) continue;
    const sim::Environment env = sim::GenerateEnvironment(r.set, r.environment, 1);
    sim::SvgOptions options;
    options.title = r.run_id + ": coverage " + Fixed(r.final_coverage * 100, 1) + " % at " + Fixed(r.end_time_s, 0) +
                    " s (" + r.bodies + ")";
    options.legend = false;
    const size_t robots = (it->second.front().size() - 2) / 2;
    std::vector<std::string> bodies;
    std::stringstream in(r.bodies);
    for (std::string b; std::getline(in, b, '+');) bodies.push_back(b);
    for (size_t k = 0; k < robots; ++k) {
      sim::TrajectoryOverlay path;
      path.colour = kColours[k % std::size(kColours)];
      path.arrow_every = 1 << 30;
      path.end_marker = true;
      for (const auto& row : it->second) path.poses.push_back({row[2 + 2 * k], row[3 + 2 * k], 0.0});
      options.trajectories.push_back(path);
      sim::BodyOverlay body;
      if (k < bodies.size()) body.body = robot::LoadRobotDescription(bodies[k]).body;
      body.pose = path.poses.front();
      body.colour = path.colour;
      body.label = "r" + std::to_string(k + 1) + (k < bodies.size() ? " " + bodies[k] : "");
      options.bodies.push_back(body);
    }
    svgs[r.run_id + ".svg"] = sim::RenderSvg(env, options);
  }
  (void)e;
  return svgs;
}

}  // namespace limbic::explore
