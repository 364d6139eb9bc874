// limbic-recruit (`limbic recruit ...`): the affective recruitment experiments of spec
// affective-recruitment §7 in the lockstep simulator, one simulation on the terminal, and the live demo.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "common/flags/flags.hpp"
#include "tools/recruit/experiment.hpp"
#include "tools/recruit/report.hpp"

namespace limbic::recruit {
namespace {

namespace fs = std::filesystem;

using flags::UsageError;

const char* kUsage = R"(usage: limbic recruit <command> [options]

Affective multi-robot recruitment (spec affective-recruitment): robots answer a call for help once their
SHAME passes a threshold, compared with greedy and random schedulers over a lossy radio.

commands:
  experiment list                     the recruitment experiments: name, section, simulations, description
  experiment run NAME|all [--jobs N] [--out DIR]
                                      run one experiment (or all six: 842 simulations) and write
                                      DIR/runs.csv, DIR/summary.md and DIR/report.html
  experiment report DIR               rewrite DIR/summary.md and DIR/report.html from DIR/runs.csv
  sim [options]                       one simulation of the mine scenario, metrics on the terminal
  demo [options]                      live: a broker, a radio and one recruiter process per robot
                                      (limbic recruit demo --help)
  crosscheck [options]                the same cell live and in lockstep, compared
                                      (limbic recruit crosscheck --help)

examples:
  limbic recruit experiment list
  limbic recruit experiment run recruit_team_size --jobs 2 --out out/team_size
  limbic recruit experiment run all --jobs 2 --out out/recruitment
  limbic recruit sim --strategy greedy --idle 50 --loss 0.25 --config 3
  limbic recruit crosscheck --strategy greedy --loss 0 --episodes 2
)";

const char* kSimUsage = R"(usage: limbic recruit sim [options]

One simulation of the mine-detection scenario in lockstep; prints M1–M4 and every episode.

options:
  --strategy S      affective | affective_sq | greedy | random (default affective)
  --idle N          idle UGVs (default 10)
  --scanning N      scanning UGVs (default 2)
  --episodes N      recruitment episodes (default 5)
  --loss P          i.i.d. loss per transmission in [0, 1] (default 0)
  --mode M          broadcast | unicast (default broadcast)
  --config N        starting configuration (placement seed, default 1)
  --seed N          radio and selection seed (default 1)

example:
  limbic recruit sim --strategy affective_sq --idle 50 --loss 0.1
)";

bool IsHelp(const std::string& a) { return a == "--help" || a == "-h" || a == "help"; }

std::vector<std::string> PicturesFor(const RecruitExperiment& e) {
  std::vector<std::string> pictures;
  if (e.kind != "use_case") return pictures;
  for (const RecruitRun& run : Expand(e)) {
    ScenarioResult full;
    RunOne(e, run, &full);
    pictures.push_back(UseCasePicture(full, e.name + ": " + StrategyByName(run.strategy).label));
  }
  return pictures;
}

void WriteOutputs(const std::string& dir, const std::vector<RecruitExperiment>& experiments,
                  const std::vector<RecruitRow>& rows) {
  std::vector<std::string> sections;
  std::ofstream md(dir + "/summary.md");
  for (const RecruitExperiment& e : experiments) {
    std::vector<RecruitRow> mine;
    for (const RecruitRow& r : rows)
      if (r.experiment == e.name) mine.push_back(r);
    if (mine.empty()) continue;
    md << TextSummary(e, mine) << "\n";
    sections.push_back(HtmlSection(e, mine, PicturesFor(e)));
  }
  std::ofstream html(dir + "/report.html");
  html << HtmlPage("Affective recruitment experiments", sections);
  if (!md || !html) throw std::runtime_error("cannot write the report into " + dir);
}

int CmdList() {
  std::printf("%-34s %-8s %-6s %s\n", "NAME", "SECTION", "SIMS", "DESCRIPTION");
  int total = 0;
  for (const auto& file : ListRecruitExperimentFiles()) {
    const RecruitExperiment e = LoadRecruitExperiment(file);
    total += e.RunCount();
    std::string first = e.description.substr(0, e.description.find(". ") + 1);
    if (first.size() > 90) first = first.substr(0, 87) + "...";
    std::printf("%-34s %-8s %-6d %s\n", e.name.c_str(), e.section.c_str(), e.RunCount(), first.c_str());
  }
  std::printf("total: %d simulations (limbic recruit experiment run NAME|all)\n", total);
  return 0;
}

int CmdRun(const std::vector<std::string>& args) {
  std::string name, out;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHelp(args[i])) {
      std::cout << kUsage;
      return 0;
    } else if (args[i] == "--jobs") {
      jobs = flags::ParseInt("--jobs", flags::NextValue(args, &i), 1, 1024);
    } else if (args[i] == "--out") {
      out = flags::NextValue(args, &i);
    } else if (args[i].rfind("--", 0) == 0) {
      throw UsageError("unknown option " + args[i]);
    } else if (name.empty()) {
      name = args[i];
    } else {
      throw UsageError("run takes one experiment name, got '" + args[i] + "' too");
    }
  }
  if (name.empty()) throw UsageError("run needs an experiment name (or all)");
  std::vector<RecruitExperiment> experiments;
  if (name == "all") {
    for (const auto& f : ListRecruitExperimentFiles()) experiments.push_back(LoadRecruitExperiment(f));
  } else {
    experiments.push_back(FindRecruitExperiment(name));
  }
  if (out.empty()) out = "results/" + name;
  fs::create_directories(out);
  struct Job {
    const RecruitExperiment* e;
    RecruitRun run;
  };
  std::vector<Job> queue;
  for (const auto& e : experiments)
    for (auto& r : Expand(e)) queue.push_back({&e, std::move(r)});
  std::vector<RecruitRow> rows(queue.size());
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::mutex error_mutex;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int w = 0; w < jobs; ++w) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < queue.size() && !failed; i = next++) {
        try {
          rows[i] = RunOne(*queue[i].e, queue[i].run);
        } catch (const std::exception& ex) {
          std::lock_guard<std::mutex> lock(error_mutex);
          error = ex.what();
          failed = true;
        }
        const size_t d = ++done;
        if (d % 50 == 0 || d == queue.size()) std::fprintf(stderr, "\r%zu/%zu simulations", d, queue.size());
      }
    });
  }
  for (auto& t : workers) t.join();
  std::fprintf(stderr, "\n");
  if (failed) throw std::runtime_error("a simulation failed: " + error);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WriteRows(out + "/runs.csv", rows);
  WriteOutputs(out, experiments, rows);
  int failures = 0;
  for (const auto& r : rows) failures += !r.success;
  std::printf("%zu simulations in %.2f s with %d jobs; %d did not complete every episode\n", rows.size(), seconds, jobs,
              failures);
  std::printf("wrote %s/runs.csv, %s/summary.md, %s/report.html\n", out.c_str(), out.c_str(), out.c_str());
  return 0;
}

int CmdReport(const std::vector<std::string>& args) {
  if (args.size() != 1 || IsHelp(args[0])) throw UsageError("usage: limbic recruit experiment report DIR");
  const std::vector<RecruitRow> rows = ReadRows(args[0] + "/runs.csv");
  std::vector<RecruitExperiment> experiments;
  std::set<std::string> names;
  for (const auto& r : rows)
    if (names.insert(r.experiment).second) experiments.push_back(FindRecruitExperiment(r.experiment));
  WriteOutputs(args[0], experiments, rows);
  std::printf("wrote %s/summary.md and %s/report.html\n", args[0].c_str(), args[0].c_str());
  return 0;
}

int CmdSim(const std::vector<std::string>& args) {
  ScenarioOptions o;
  std::string strategy = "affective";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (IsHelp(a)) {
      std::cout << kSimUsage;
      return 0;
    } else if (a == "--strategy") {
      strategy = flags::NextValue(args, &i);
    } else if (a == "--idle") {
      o.idle_ugvs = flags::ParseInt(a, flags::NextValue(args, &i), 0);
    } else if (a == "--scanning") {
      o.scanning_ugvs = flags::ParseInt(a, flags::NextValue(args, &i), 0);
    } else if (a == "--episodes") {
      o.episodes = flags::ParseInt(a, flags::NextValue(args, &i), 1);
    } else if (a == "--loss") {
      o.radio.loss = flags::ParseFiniteNumber(a, flags::NextValue(args, &i));
    } else if (a == "--mode") {
      const std::string m = flags::NextValue(args, &i);
      if (m != "broadcast" && m != "unicast") throw UsageError("--mode expects broadcast or unicast, got '" + m + "'");
      o.radio.unicast = m == "unicast";
    } else if (a == "--config") {
      o.config_seed = static_cast<uint64_t>(flags::ParseInteger(a, flags::NextValue(args, &i), 0));
    } else if (a == "--seed") {
      o.radio.seed = o.recruiter.seed = static_cast<uint64_t>(flags::ParseInteger(a, flags::NextValue(args, &i), 0));
    } else {
      throw UsageError("unknown option " + a + " (limbic recruit sim --help)");
    }
  }
  StrategyChoice choice;
  try {
    choice = StrategyByName(strategy);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--strategy: ") + e.what());
  }
  o.recruiter.strategy = choice.strategy;
  o.recruiter.shame.fitness = choice.fitness;
  ScenarioResult r;
  try {
    r = RunMineScenario(o);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::printf("strategy %s, %d idle + %d scanning UGVs, loss %.2f, %s\n", choice.label.c_str(), o.idle_ugvs,
              o.scanning_ugvs, o.radio.loss, o.radio.unicast ? "unicast" : "broadcast");
  for (const Episode& e : r.episodes)
    std::printf("  episode: HELP at %7.1f s, ACKACK at %7.1f s (wait %6.1f s), responder r%u, %d HELP, %d restarts\n",
                e.start_s, e.end_s, e.end_s - e.start_s, e.responder, e.helps, e.restarts);
  std::printf("M1 messages %lu (", static_cast<unsigned long>(r.messages));
  for (int t = 0; t < kMsgTypeCount; ++t)
    std::printf("%s%s %lu", t ? ", " : "", MsgTypeName(static_cast<MsgType>(t)),
                static_cast<unsigned long>(r.counts.attempts[t]));
  std::printf("), dropped %lu\nM2 wait %.1f s\nM4 success %s\n",
              static_cast<unsigned long>(r.counts.dropped[0] + r.counts.dropped[1] + r.counts.dropped[2] +
                                         r.counts.dropped[3] + r.counts.dropped[4] + r.counts.dropped[5]),
              r.wait_total_s, r.success ? "yes" : "no (time cap reached)");
  return r.success ? 0 : 1;
}

}  // namespace

int DemoMain(const std::vector<std::string>& args);
int CrosscheckMain(const std::vector<std::string>& args);

}  // namespace limbic::recruit

int main(int argc, char** argv) {
  using namespace limbic::recruit;
  const std::vector<std::string> args(argv + 1, argv + argc);
  return limbic::flags::RunTool("limbic recruit", [&] {
    if (args.empty() || IsHelp(args[0])) {
      std::cout << kUsage;
      return args.empty() ? 2 : 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "experiment") {
      if (rest.empty() || IsHelp(rest[0])) {
        std::cout << kUsage;
        return rest.empty() ? 2 : 0;
      }
      const std::vector<std::string> tail(rest.begin() + 1, rest.end());
      if (rest[0] == "list") return CmdList();
      if (rest[0] == "run") return CmdRun(tail);
      if (rest[0] == "report") return CmdReport(tail);
      throw UsageError("unknown experiment command '" + rest[0] + "' (list, run, report)");
    }
    if (args[0] == "sim") return CmdSim(rest);
    if (args[0] == "demo") return DemoMain(rest);
    if (args[0] == "crosscheck") return CrosscheckMain(rest);
    throw UsageError("unknown command '" + args[0] + "'");
  });
}
