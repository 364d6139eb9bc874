// limbic-crowd (`limbic crowd ...`): crowds of b_nav robots whose emotions coordinate them (issue 19; spec
// multi-robot §2) — the experiments, and one run with its report.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "common/config/config.hpp"
#include "common/flags/flags.hpp"
#include "tools/crowd/crowd_experiment.hpp"

namespace limbic::crowd {
namespace {

namespace fs = std::filesystem;

using flags::UsageError;

const char* kUsage = R"(usage: limbic crowd <command> [options]

Crowds of b_nav robots (no map, no planner: free distance, reachable distance, caution) whose emotions —
frustration, fear, calm from configs/crowd/emotions.yaml — modulate their own caution, margins, speed and view,
and, when visible, coordinate the crowd. In process, lockstep, seeded.

commands:
  experiment list                     the crowd experiments: name, runs, description
  experiment run NAME [--jobs N] [--seeds N] [--out DIR]
                                      run one (--seeds: only the first N seeds); writes DIR/runs.csv,
                                      completions.csv, summary.md, report.svg; prints the summary
  run [--scenario S] [--robots N] [--mode M] [--seed N] [--time-limit S] [--emotions FILE] [--out DIR]
                                      one run: S = antipodal | corridor | doorway, M = off | on | invisible;
                                      prints the metrics; with --out writes runs.csv and report.svg there

examples:
  limbic crowd experiment list
  limbic crowd experiment run crowd_smoke --out /tmp/crowd_smoke
  limbic crowd experiment run crowd_antipodal --jobs 2 --out /tmp/crowd_antipodal   # or: limbic experiment run ...
  limbic crowd run --scenario doorway --robots 16 --mode on --seed 3
)";

void Write(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void WriteOutputs(const fs::path& dir, const CrowdExperiment& e, const CrowdRunOutput& out) {
  fs::create_directories(dir);
  Write(dir / "runs.csv", RunsCsv(e, out));
  Write(dir / "completions.csv", CompletionsCsv(out));
  Write(dir / "summary.md", SummaryMarkdown(e, out));
  Write(dir / "report.svg", ReportSvg(e, out));
}

int CmdList() {
  int bad = 0;
  std::cout << std::left << std::setw(28) << "NAME" << std::setw(8) << "RUNS"
            << "DESCRIPTION\n";
  for (const auto& file : ListCrowdExperimentFiles()) {
    try {
      const CrowdExperiment e = LoadCrowdExperiment(file);
      std::cout << std::left << std::setw(28) << e.name << std::setw(8) << e.RunCount()
                << e.description.substr(0, e.description.find(". ")) << "\n";
    } catch (const std::exception& ex) {
      ++bad;
      std::cerr << "limbic crowd: error: " << ex.what() << "\n";
    }
  }
  return bad ? 1 : 0;
}

int CmdExperimentRun(const std::vector<std::string>& args) {
  std::string name, out_dir;
  CrowdRunOptions options;
  options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--jobs") {
      options.jobs = flags::ParseInt("--jobs", flags::NextValue(args, &i), 1, 256);
    } else if (args[i] == "--seeds") {
      options.max_seeds = flags::ParseInt("--seeds", flags::NextValue(args, &i), 1, 100000);
    } else if (args[i] == "--out") {
      out_dir = flags::NextValue(args, &i);
    } else if (args[i].rfind("--", 0) == 0) {
      throw UsageError("unknown option " + args[i]);
    } else if (name.empty()) {
      name = args[i];
    } else {
      throw UsageError("one experiment at a time (" + name + ", " + args[i] + ")");
    }
  }
  if (name.empty()) throw UsageError("experiment run needs a NAME (see limbic crowd experiment list)");
  const CrowdExperiment e = FindCrowdExperiment(name);
  const CrowdRunOutput out = RunCrowdExperiment(e, options);
  if (out_dir.empty()) out_dir = "crowd_" + e.name;
  WriteOutputs(out_dir, e, out);
  std::cout << SummaryMarkdown(e, out) << "\nwritten: " << out_dir
            << "/{runs.csv,completions.csv,summary.md,report.svg}\n";
  return 0;
}

// A flag's value the library refuses (std::invalid_argument: an unknown scenario or mode) is a usage error.
template <typename F>
void AsUsageError(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int CmdRun(const std::vector<std::string>& args) {
  CrowdExperiment e;
  e.name = "crowd_run";
  e.robots = {8};
  e.modes = {EmotionMode::kOn};
  e.seeds = 1;
  e.emotions = DataRoot() + "/configs/crowd/emotions.yaml";
  e.run.time_limit = 180;
  std::string out_dir;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--scenario") {
      e.scenario = flags::NextValue(args, &i);
      AsUsageError([&] { MakeScenario(e.scenario, 1, 1, e.robot); });  // refuses unknown names
    } else if (args[i] == "--robots") {
      e.robots = {flags::ParseInt("--robots", flags::NextValue(args, &i), 1, 256)};
    } else if (args[i] == "--mode") {
      const std::string mode = flags::NextValue(args, &i);
      AsUsageError([&] { e.modes = {EmotionModeFromName(mode)}; });
    } else if (args[i] == "--seed") {
      e.first_seed = static_cast<uint64_t>(flags::ParseInteger("--seed", flags::NextValue(args, &i), 0));
    } else if (args[i] == "--time-limit") {
      e.run.time_limit = flags::ParseFiniteNumber("--time-limit", flags::NextValue(args, &i));
      if (e.run.time_limit <= 0) throw UsageError("--time-limit must be > 0");
    } else if (args[i] == "--emotions") {
      e.emotions = flags::NextValue(args, &i);
    } else if (args[i] == "--out") {
      out_dir = flags::NextValue(args, &i);
    } else {
      throw UsageError("unknown option " + args[i]);
    }
  }
  LoadEmotionTable(e.emotions);  // a bad table is an error before anything runs
  CrowdRunOptions options;
  options.quiet = true;
  const CrowdRunOutput out = RunCrowdExperiment(e, options);
  const CrowdRunRow& r = out.rows.front();
  std::cout << "scenario " << e.scenario << ", " << r.robots << " robots, emotions " << EmotionModeName(r.mode)
            << ", seed " << r.seed << "\n"
            << "finished: " << (r.metrics.all_done ? "all" : "not all") << "\nmakespan: " << r.metrics.makespan
            << " s\nrobot collisions: " << r.metrics.robot_collisions
            << "\nwall collisions: " << r.metrics.wall_collisions << "\ndeadlocked robots: " << r.metrics.deadlocked
            << "\nmean efficacy: " << r.metrics.mean_efficacy << "\n";
  for (size_t k = 0; k < r.metrics.emotion_fractions.size(); ++k)
    std::cout << "time " << (k < out.emotion_names.size() ? out.emotion_names[k] : "none") << ": "
              << r.metrics.emotion_fractions[k] << "\n";
  if (!out_dir.empty()) {
    WriteOutputs(out_dir, e, out);
    std::cout << "written: " << out_dir << "\n";
  }
  return 0;
}

int Main(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "experiment") {
    if (rest.empty()) throw UsageError("experiment needs list or run");
    if (rest[0] == "list") return CmdList();
    if (rest[0] == "run") return CmdExperimentRun({rest.begin() + 1, rest.end()});
    throw UsageError("unknown experiment command " + rest[0]);
  }
  if (args[0] == "run") return CmdRun(rest);
  throw UsageError("unknown command " + args[0]);
}

}  // namespace
}  // namespace limbic::crowd

int main(int argc, char** argv) {
  return limbic::flags::RunTool("limbic crowd", [&] { return limbic::crowd::Main({argv + 1, argv + argc}); });
}
