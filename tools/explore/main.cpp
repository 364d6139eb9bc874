// limbic-explore (`limbic explore ...`): the heterogeneous exploration experiments of issue 18 item 5 (spec
// multi-robot §1) — whole teams in lockstep in one process, the exploration task manager allocating local
// environments to them.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "common/flags/flags.hpp"
#include "tools/explore/explore_experiment.hpp"

namespace limbic::explore {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};

using flags::UsageError;

const char* kUsage = R"(usage: limbic explore <command> [options]

Heterogeneous exploration (services/explore/README.md): a task manager cuts the world into local environments sized to
each robot's sensing range and processing budget, allocates them by auction, and sends each explorer a two-tier A*
approach and line-scanning lanes; every robot runs its whole stack in explore mode. In process, lockstep, seeded.

commands:
  experiment list                     the exploration experiments: name, runs, description
  experiment run NAME [--jobs N] [--limit N] [--out DIR]
                                      run one (--limit: only the first N runs); writes DIR/runs.csv, trace.csv,
                                      summary.md and one SVG of the robots' paths per (set, environment, team);
                                      prints the summary

examples:
  limbic explore experiment list
  limbic explore experiment run explore_smoke --out /tmp/explore_smoke
  limbic explore experiment run explore_teams --jobs 2 --out /tmp/explore_teams   # or: limbic experiment run ...
)";

void Write(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

int CmdList() {
  int bad = 0;
  std::cout << std::left << std::setw(28) << "NAME" << std::setw(8) << "RUNS"
            << "DESCRIPTION\n";
  std::vector<fs::path> files;
  if (fs::is_directory(DefaultExploreExperimentDir())) {
    for (const auto& entry : fs::directory_iterator(DefaultExploreExperimentDir()))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      const ExploreExperiment e = LoadExploreExperiment(file.string());
      std::cout << std::left << std::setw(28) << e.name << std::setw(8) << e.RunCount()
                << e.description.substr(0, e.description.find(". ")) << "\n";
    } catch (const std::exception& ex) {
      ++bad;
      std::cerr << "limbic explore: error: " << ex.what() << "\n";
    }
  }
  return bad ? 1 : 0;
}

int CmdExperimentRun(const std::vector<std::string>& args) {
  std::string name, out_dir;
  int jobs = 1, limit = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--jobs") {
      jobs = flags::ParseInt("--jobs", flags::NextValue(args, &i), 1, 64);
    } else if (args[i] == "--limit") {
      limit = flags::ParseInt("--limit", flags::NextValue(args, &i), 1, 1000000);
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
  if (name.empty()) throw UsageError("experiment run needs a NAME (see limbic explore experiment list)");
  const ExploreExperiment e = FindExploreExperiment(name);
  if (out_dir.empty()) out_dir = "explore_" + e.name;
  fs::create_directories(out_dir);
  std::signal(SIGINT, [](int) { g_stop = true; });
  const ExploreOutput out = RunExploreExperiment(e, (fs::path(out_dir) / "work").string(), jobs, limit, g_stop);
  Write(fs::path(out_dir) / "runs.csv", RunsCsv(out));
  {
    std::ofstream trace(fs::path(out_dir) / "trace.csv");
    trace << "run_id,time_s,coverage,positions...\n";
    for (const auto& [run, rows] : out.traces) {
      for (const auto& row : rows) {
        trace << run;
        for (double v : row) trace << "," << v;
        trace << "\n";
      }
    }
  }
  const std::string summary = SummaryMarkdown(e, out);
  Write(fs::path(out_dir) / "summary.md", summary);
  int svgs = 0;
  for (const auto& [file, svg] : PathSvgs(e, out)) {
    Write(fs::path(out_dir) / file, svg);
    ++svgs;
  }
  std::cout << summary << "\nwritten: " << out_dir << "/{runs.csv,trace.csv,summary.md} and " << svgs
            << " path drawings\n";
  int failed = 0;
  for (const auto& r : out.runs) failed += r.error.empty() ? 0 : 1;
  return failed ? 1 : 0;
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
  throw UsageError("unknown command " + args[0]);
}

}  // namespace
}  // namespace limbic::explore

int main(int argc, char** argv) {
  return limbic::flags::RunTool("limbic explore", [&] { return limbic::explore::Main({argv + 1, argv + argc}); });
}
