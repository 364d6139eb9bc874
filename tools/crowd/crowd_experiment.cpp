#include "tools/crowd/crowd_experiment.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/config/config.hpp"
#include "common/markup/escape.hpp"
#include "common/paths/paths.hpp"

namespace limbic::crowd {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;
using config::StrictMap;

double Number(StrictMap& m, const std::string& key, double fallback, double lo, double hi) {
  double v = fallback;
  m.Optional(key, &v);
  if (!std::isfinite(v) || v < lo || v > hi) {
    std::ostringstream why;
    why << "must be a finite number in [" << lo << ", " << hi << "]";
    m.Fail(key, why.str());
  }
  return v;
}

std::string Fmt(double v, int precision = 2) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

struct MeanSd {
  double mean = 0, sd = 0;
};
MeanSd Stats(const std::vector<double>& v) {
  MeanSd r;
  if (v.empty()) return r;
  for (double x : v) r.mean += x;
  r.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    for (double x : v) r.sd += (x - r.mean) * (x - r.mean);
    r.sd = std::sqrt(r.sd / static_cast<double>(v.size() - 1));
  }
  return r;
}

const char* EmotionColour(int e) {
  static const char* colours[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#8c564b", "#e377c2"};
  return e < 0 ? "#bbbbbb" : colours[e % 6];
}
const char* ModeColour(EmotionMode m) {
  switch (m) {
    case EmotionMode::kOff:
      return "#7f7f7f";
    case EmotionMode::kOn:
      return "#d62728";
    case EmotionMode::kInvisible:
      return "#9467bd";
  }
  return "#000000";
}

}  // namespace

std::string DataRoot() { return paths::DataDir().string(); }

std::string DefaultCrowdExperimentDir() {
  return paths::DataPath("experiments/crowd", "LIMBIC_CROWD_EXPERIMENTS_DIR").string();
}

CrowdExperiment LoadCrowdExperiment(const std::string& path) {
  YAML::Node root = config::LoadFile(path);
  StrictMap top(root, path);
  CrowdExperiment e;
  e.source = path;
  e.name = fs::path(path).stem().string();
  std::string name = e.name;
  top.Optional("name", &name);
  if (name != e.name) top.Fail("name", "must match the file name ('" + e.name + "')");
  top.Optional("description", &e.description);
  top.Optional("scenario", &e.scenario);
  if (std::find(ScenarioNames().begin(), ScenarioNames().end(), e.scenario) == ScenarioNames().end())
    top.Fail("scenario", "must be one of antipodal, corridor, doorway");
  if (top.Has("robots")) {
    top.Optional("robots", &e.robots);
    if (e.robots.empty()) top.Fail("robots", "must list at least one crowd size");
    for (int n : e.robots)
      if (n < 1 || n > 256) top.Fail("robots", "sizes must be in [1, 256]");
  }
  if (top.Has("modes")) {
    std::vector<std::string> names;
    top.Optional("modes", &names);
    e.modes.clear();
    for (const auto& n : names) {
      try {
        e.modes.push_back(EmotionModeFromName(n));
      } catch (const std::invalid_argument& ex) {
        top.Fail("modes", ex.what());
      }
    }
    if (e.modes.empty()) top.Fail("modes", "must list at least one of off, on, invisible");
  }
  e.seeds = static_cast<int>(Number(top, "seeds", e.seeds, 1, 100000));
  if (top.Has("seeds") && e.seeds != Number(top, "seeds", e.seeds, 1, 100000)) top.Fail("seeds", "must be whole");
  e.first_seed = static_cast<uint64_t>(Number(top, "seed", 1, 0, 1e15));
  e.emotions = "configs/crowd/emotions.yaml";
  top.Optional("emotions", &e.emotions);
  if (top.Has("run")) {
    StrictMap r = top.Child("run");
    e.run.dt = Number(r, "dt", e.run.dt, 1e-3, 1.0);
    e.run.time_limit = Number(r, "time_limit", e.run.time_limit, 1, 1e5);
    e.run.deadlock_timeout = Number(r, "deadlock_timeout", e.run.deadlock_timeout, 0.1, 1e5);
    e.run.deadlock_progress = Number(r, "deadlock_progress", e.run.deadlock_progress, 1e-3, 100);
    e.run.goal_tolerance = Number(r, "goal_tolerance", e.run.goal_tolerance, 1e-3, 10);
    e.run.neighbour_memory = Number(r, "neighbour_memory", e.run.neighbour_memory, 0, 60);
    std::string scale = "fraction";
    r.Optional("efficacy", &scale);
    if (scale != "fraction" && scale != "speed") r.Fail("efficacy", "must be fraction or speed");
    e.run.efficacy_scale = scale == "speed" ? EfficacyScale::kSpeed : EfficacyScale::kFraction;
    std::string finished = "leave";
    r.Optional("finished", &finished);
    if (finished != "leave" && finished != "stay") r.Fail("finished", "must be leave or stay");
    e.run.finished = finished == "stay" ? FinishedRobots::kStay : FinishedRobots::kLeave;
  }
  if (top.Has("robot")) {
    StrictMap b = top.Child("robot");
    BNavParams& p = e.robot;
    p.optimal_speed = Number(b, "optimal_speed", p.optimal_speed, 0.01, 5);
    p.caution = Number(b, "caution", p.caution, 0.01, 100);
    p.margin = Number(b, "margin", p.margin, 0, 5);
    p.half_fov = Number(b, "fov_deg", p.half_fov * 180 / geometry::kPi, 1, 180) * geometry::kPi / 180;
    p.horizon = Number(b, "horizon", p.horizon, 0.1, 100);
    p.tau = Number(b, "tau", p.tau, 0.01, 100);
    p.directions = static_cast<int>(Number(b, "directions", p.directions, 2, 3600));
    p.radius = Number(b, "radius", p.radius, 0.01, 10);
    p.progress_tolerance = Number(b, "progress_tolerance", p.progress_tolerance, 0, 10);
    std::string tie = "longest";
    b.Optional("tie_break", &tie);
    if (tie != "longest" && tie != "nearest") b.Fail("tie_break", "must be longest or nearest");
    p.tie_break = tie == "nearest" ? TieBreak::kNearest : TieBreak::kLongest;
  }
  top.Finish();
  const std::string table = fs::path(e.emotions).is_absolute() ? e.emotions : DataRoot() + "/" + e.emotions;
  try {
    LoadEmotionTable(table);
  } catch (const ConfigError& ex) {
    throw ConfigError(path + ": emotions: " + ex.what());
  }
  e.emotions = table;
  return e;
}

std::vector<std::string> ListCrowdExperimentFiles(const std::string& dir) {
  std::vector<std::string> files;
  if (!fs::is_directory(dir)) throw ConfigError(dir + ": no such experiments directory");
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

CrowdExperiment FindCrowdExperiment(const std::string& name_or_path, const std::string& dir) {
  if (name_or_path.size() > 5 && name_or_path.ends_with(".yaml")) return LoadCrowdExperiment(name_or_path);
  const fs::path file = fs::path(dir) / (name_or_path + ".yaml");
  if (!fs::exists(file)) throw ConfigError("no crowd experiment '" + name_or_path + "' in " + dir);
  return LoadCrowdExperiment(file.string());
}

CrowdRunOutput RunCrowdExperiment(const CrowdExperiment& e, const CrowdRunOptions& options) {
  const EmotionTable table = LoadEmotionTable(e.emotions);
  const int seeds = options.max_seeds > 0 ? std::min(options.max_seeds, e.seeds) : e.seeds;
  CrowdRunOutput out;
  for (const auto& spec : table.emotions) out.emotion_names.push_back(spec.name);
  for (int n : e.robots)
    for (EmotionMode m : e.modes)
      for (int s = 0; s < seeds; ++s) out.rows.push_back({n, m, e.first_seed + static_cast<uint64_t>(s), {}});
  // The picture: the largest crowd, emotions on if run, first seed.
  const int largest = *std::max_element(e.robots.begin(), e.robots.end());
  out.picture_mode =
      std::find(e.modes.begin(), e.modes.end(), EmotionMode::kOn) != e.modes.end() ? EmotionMode::kOn : e.modes.front();
  std::atomic<size_t> next{0}, done{0};
  std::mutex mutex;
  auto worker = [&] {
    for (size_t i = next++; i < out.rows.size(); i = next++) {
      CrowdRunRow& row = out.rows[i];
      CrowdOptions o = e.run;
      o.mode = row.mode;
      const bool picture = row.robots == largest && row.mode == out.picture_mode && row.seed == e.first_seed;
      o.record_every = picture ? 5 : 0;
      CrowdWorld world(MakeScenario(e.scenario, row.robots, row.seed, e.robot), table, o);
      row.metrics = world.Run();
      std::lock_guard<std::mutex> lock(mutex);
      if (picture) {
        out.picture_scenario = world.scenario();
        out.picture_trajectory = world.trajectory();
      }
      const size_t k = ++done;
      if (!options.quiet && (k % 20 == 0 || k == out.rows.size()))
        std::cerr << "\r" << e.name << ": " << k << "/" << out.rows.size() << " runs" << std::flush;
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, options.jobs); ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (!options.quiet) std::cerr << "\n";
  return out;
}

std::string RunsCsv(const CrowdExperiment& e, const CrowdRunOutput& out) {
  std::ostringstream s;
  s << "scenario,robots,mode,seed,all_done,makespan_s,mean_completion_s,max_completion_s,robot_collisions,"
       "wall_collisions,deadlocked,mean_efficacy";
  for (const auto& n : out.emotion_names) s << ",frac_" << n;
  s << ",frac_none\n";
  for (const auto& r : out.rows) {
    std::vector<double> finished;
    for (double c : r.metrics.completion_times)
      if (c >= 0) finished.push_back(c);
    const double mean = Stats(finished).mean;
    const double max = finished.empty() ? 0 : *std::max_element(finished.begin(), finished.end());
    s << e.scenario << "," << r.robots << "," << EmotionModeName(r.mode) << "," << r.seed << ","
      << (r.metrics.all_done ? 1 : 0) << "," << Fmt(r.metrics.makespan, 1) << "," << Fmt(mean, 2) << "," << Fmt(max, 1)
      << "," << r.metrics.robot_collisions << "," << r.metrics.wall_collisions << "," << r.metrics.deadlocked << ","
      << Fmt(r.metrics.mean_efficacy, 4);
    for (double f : r.metrics.emotion_fractions) s << "," << Fmt(f, 4);
    s << "\n";
  }
  return s.str();
}

std::string CompletionsCsv(const CrowdRunOutput& out) {
  std::ostringstream s;
  s << "robots,mode,seed,robot,completion_s\n";
  for (const auto& r : out.rows) {
    for (size_t i = 0; i < r.metrics.completion_times.size(); ++i) {
      const double c = r.metrics.completion_times[i];
      s << r.robots << "," << EmotionModeName(r.mode) << "," << r.seed << "," << i << "," << (c >= 0 ? Fmt(c, 1) : "")
        << "\n";
    }
  }
  return s.str();
}

namespace {

struct Cell {
  int runs = 0, finished = 0;
  std::vector<double> makespan, completion, collisions, walls, deadlocked, efficacy;
  std::vector<std::vector<double>> fractions;
};

std::map<std::pair<int, int>, Cell> Cells(const CrowdRunOutput& out) {
  std::map<std::pair<int, int>, Cell> cells;
  for (const auto& r : out.rows) {
    Cell& c = cells[{r.robots, static_cast<int>(r.mode)}];
    ++c.runs;
    c.finished += r.metrics.all_done ? 1 : 0;
    c.makespan.push_back(r.metrics.makespan);
    std::vector<double> done;
    for (double t : r.metrics.completion_times)
      if (t >= 0) done.push_back(t);
    if (!done.empty()) c.completion.push_back(Stats(done).mean);
    c.collisions.push_back(static_cast<double>(r.metrics.robot_collisions));
    c.walls.push_back(static_cast<double>(r.metrics.wall_collisions));
    c.deadlocked.push_back(r.metrics.deadlocked);
    c.efficacy.push_back(r.metrics.mean_efficacy);
    c.fractions.resize(r.metrics.emotion_fractions.size());
    for (size_t k = 0; k < r.metrics.emotion_fractions.size(); ++k)
      c.fractions[k].push_back(r.metrics.emotion_fractions[k]);
  }
  return cells;
}

std::string PlusMinus(const std::vector<double>& v, int precision) {
  if (v.empty()) return "–";
  const MeanSd m = Stats(v);
  return Fmt(m.mean, precision) + " ± " + Fmt(m.sd, precision);
}

}  // namespace

std::string SummaryMarkdown(const CrowdExperiment& e, const CrowdRunOutput& out) {
  std::ostringstream s;
  s << "# " << e.name << "\n\n" << e.description << "\n\n";
  s << "Scenario `" << e.scenario << "`, seeds " << e.first_seed << "… (" << (out.rows.empty() ? 0 : out.rows.size())
    << " runs), time limit " << Fmt(e.run.time_limit, 0) << " s, deadlock = no " << Fmt(e.run.deadlock_progress, 2)
    << " m of progress for " << Fmt(e.run.deadlock_timeout, 0) << " s. Means ± standard deviations over the seeds; "
    << "makespan is the time limit in a run some robot did not finish.\n\n";
  s << "| N | emotions | finished | makespan (s) | mean completion (s) | robot collisions | wall collisions | "
       "deadlocked robots | efficacy |";
  for (const auto& n : out.emotion_names) s << " " << n << " |";
  s << " none |\n|---|---|---|---|---|---|---|---|---|";
  for (size_t k = 0; k <= out.emotion_names.size(); ++k) s << "---|";
  s << "\n";
  for (const auto& [key, c] : Cells(out)) {
    s << "| " << key.first << " | " << EmotionModeName(static_cast<EmotionMode>(key.second)) << " | " << c.finished
      << "/" << c.runs << " | " << PlusMinus(c.makespan, 1) << " | " << PlusMinus(c.completion, 1) << " | "
      << PlusMinus(c.collisions, 2) << " | " << PlusMinus(c.walls, 2) << " | " << PlusMinus(c.deadlocked, 2) << " | "
      << Fmt(Stats(c.efficacy).mean, 3) << " |";
    for (const auto& f : c.fractions) s << " " << Fmt(Stats(f).mean, 3) << " |";
    s << "\n";
  }
  return s.str();
}

std::string ReportSvg(const CrowdExperiment& e, const CrowdRunOutput& out) {
  const double W = 1200, H = 1000;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" "
    << "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"10\" y=\"20\" font-size=\"16\">" << markup::Escape(e.name) << " — " << markup::Escape(e.scenario)
    << "</text>\n";
  // Legend of emotions.
  double lx = 10;
  for (int k = -1; k < static_cast<int>(out.emotion_names.size()); ++k) {
    const std::string label = k < 0 ? "none" : out.emotion_names[k];
    s << "<rect x=\"" << lx << "\" y=\"30\" width=\"12\" height=\"12\" fill=\"" << EmotionColour(k) << "\"/><text x=\""
      << lx + 16 << "\" y=\"41\">" << markup::Escape(label) << "</text>\n";
    lx += 30 + 8 * label.size();
  }
  // Panel 1: trajectories of the picture run, each step coloured by the robot's emotion then.
  const auto& traj = out.picture_trajectory;
  const Scenario& sc = out.picture_scenario;
  if (!traj.empty()) {
    double minx = 1e9, maxx = -1e9, miny = 1e9, maxy = -1e9;
    auto grow = [&](const Vec2& p) {
      minx = std::min(minx, p.x()), maxx = std::max(maxx, p.x()), miny = std::min(miny, p.y()),
      maxy = std::max(maxy, p.y());
    };
    for (const auto& w : sc.walls) grow(w.a), grow(w.b);
    for (const auto& a : sc.agents) {
      grow(a.start.Position());
      for (const auto& t : a.targets) grow(t);
    }
    for (const auto& smp : traj)
      for (const auto& p : smp.poses) grow(p.Position());
    const double size = 520, x0 = 20, y0 = 60;
    const double scale = size / std::max({maxx - minx, maxy - miny, 1e-3}) * 0.95;
    auto X = [&](double x) { return x0 + (x - minx) * scale + 10; };
    auto Y = [&](double y) { return y0 + (maxy - y) * scale + 10; };
    s << "<text x=\"" << x0 << "\" y=\"" << y0 - 4 << "\">trajectories: N = " << sc.agents.size() << ", emotions "
      << EmotionModeName(out.picture_mode) << ", seed " << e.first_seed << " (dot start, cross target)</text>\n";
    s << "<rect x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << size + 20 << "\" height=\"" << size + 20
      << "\" fill=\"none\" stroke=\"#dddddd\"/>\n";
    for (const auto& w : sc.walls)
      s << "<line x1=\"" << X(w.a.x()) << "\" y1=\"" << Y(w.a.y()) << "\" x2=\"" << X(w.b.x()) << "\" y2=\""
        << Y(w.b.y()) << "\" stroke=\"black\" stroke-width=\"3\"/>\n";
    for (size_t r = 0; r < sc.agents.size(); ++r) {
      for (size_t k = 1; k < traj.size(); ++k) {
        const auto& a = traj[k - 1].poses[r];
        const auto& b = traj[k].poses[r];
        if (a == b) continue;
        s << "<line x1=\"" << Fmt(X(a.x), 1) << "\" y1=\"" << Fmt(Y(a.y), 1) << "\" x2=\"" << Fmt(X(b.x), 1)
          << "\" y2=\"" << Fmt(Y(b.y), 1) << "\" stroke=\"" << EmotionColour(traj[k].emotions[r])
          << "\" stroke-width=\"1.5\"/>\n";
      }
      const auto& st = sc.agents[r].start;
      s << "<circle cx=\"" << Fmt(X(st.x), 1) << "\" cy=\"" << Fmt(Y(st.y), 1) << "\" r=\"3\" fill=\"black\"/>\n";
      const Vec2 q = sc.agents[r].targets.back();
      s << "<path d=\"M" << Fmt(X(q.x()) - 3, 1) << "," << Fmt(Y(q.y()) - 3, 1)
        << "l6,6m-6,0l6,-6\" stroke=\"black\"/>\n";
    }
    // Panel 2: emotion timeline, one row per robot.
    const double tx = 600, ty = 60, tw = 580, th = 520;
    const double t_end = std::max(traj.back().time, 1e-3);
    const double row = std::min(16.0, th / static_cast<double>(sc.agents.size()));
    s << "<text x=\"" << tx << "\" y=\"" << ty - 4 << "\">emotion timeline per robot (0 … " << Fmt(t_end, 0)
      << " s)</text>\n";
    for (size_t r = 0; r < sc.agents.size(); ++r) {
      const double y = ty + r * row;
      size_t k = 0;
      while (k + 1 < traj.size()) {
        const int em = traj[k + 1].emotions[r];
        size_t j = k + 1;
        while (j + 1 < traj.size() && traj[j + 1].emotions[r] == em) ++j;
        s << "<rect x=\"" << Fmt(tx + traj[k].time / t_end * tw, 1) << "\" y=\"" << Fmt(y, 1) << "\" width=\""
          << Fmt(std::max(0.5, (traj[j].time - traj[k].time) / t_end * tw), 1) << "\" height=\"" << Fmt(row * 0.8, 1)
          << "\" fill=\"" << EmotionColour(em) << "\"/>\n";
        k = j;
      }
    }
  }
  // Panel 3: metrics against N, a line per mode.
  const auto cells = Cells(out);
  struct Metric {
    const char* title;
    std::vector<double> Cell::*field;
  };
  const Metric metrics[] = {{"makespan (s)", &Cell::makespan},
                            {"robot collisions", &Cell::collisions},
                            {"deadlocked robots", &Cell::deadlocked}};
  std::vector<int> ns = e.robots;
  std::sort(ns.begin(), ns.end());
  for (int m = 0; m < 3; ++m) {
    const double px = 20 + m * 400, py = 640, pw = 340, ph = 260;
    double ymax = 1e-9;
    for (const auto& [key, c] : cells) ymax = std::max(ymax, Stats(c.*(metrics[m].field)).mean);
    ymax *= 1.1;
    s << "<text x=\"" << px << "\" y=\"" << py - 6 << "\">" << metrics[m].title << " against N (mean over seeds; max "
      << Fmt(ymax / 1.1, 1) << ")</text>\n";
    s << "<rect x=\"" << px << "\" y=\"" << py << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" fill=\"none\" stroke=\"#999999\"/>\n";
    auto PX = [&](size_t i) { return px + (ns.size() == 1 ? pw / 2 : 20 + i * (pw - 40) / (ns.size() - 1)); };
    for (size_t i = 0; i < ns.size(); ++i)
      s << "<text x=\"" << PX(i) - 6 << "\" y=\"" << py + ph + 14 << "\">" << ns[i] << "</text>\n";
    double ly = py + 14;
    for (EmotionMode mode : e.modes) {
      std::string points;
      for (size_t i = 0; i < ns.size(); ++i) {
        auto it = cells.find({ns[i], static_cast<int>(mode)});
        if (it == cells.end()) continue;
        const double v = Stats(it->second.*(metrics[m].field)).mean;
        points += Fmt(PX(i), 1) + "," + Fmt(py + ph - v / ymax * ph, 1) + " ";
        s << "<circle cx=\"" << Fmt(PX(i), 1) << "\" cy=\"" << Fmt(py + ph - v / ymax * ph, 1) << "\" r=\"3\" fill=\""
          << ModeColour(mode) << "\"/>\n";
      }
      s << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << ModeColour(mode) << "\"/>\n";
      s << "<text x=\"" << px + 8 << "\" y=\"" << ly << "\" fill=\"" << ModeColour(mode) << "\">emotions "
        << EmotionModeName(mode) << "</text>\n";
      ly += 14;
    }
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace limbic::crowd
