// limbic-experiment (`limbic experiment ...`): list, run, merge and report the thesis's experiments.
// Runs use the in-process lockstep stack in N parallel workers; runs.csv grows run by run, so an
// interrupted experiment resumes where it stopped.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/config/config.hpp"
#include "common/flags/flags.hpp"
#include "common/log/log.hpp"
#include "common/paths/paths.hpp"
#include "tools/experiment/definition.hpp"
#include "tools/experiment/durable_file.hpp"
#include "tools/experiment/executor.hpp"
#include "tools/experiment/expand.hpp"
#include "tools/experiment/progress.hpp"
#include "tools/experiment/report.hpp"
#include "tools/experiment/results.hpp"
#include "tools/experiment/summary.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

constexpr int kUsageError = 2;
constexpr int kInterrupted = 130;

// A one-line error for the person at the terminal.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* kMainHelp = R"(usage: limbic experiment <command> [options]

Reproducible experiments of the thesis (experiments/), each run in-process: the broker and every
service take turns on one thread in lockstep, and --jobs N runs N of them at once on N cores.

commands:
  list                      every experiment: name, chapter, runs, what it reproduces
  run NAME [options]        run an experiment (resumes: finished runs in --out are skipped)
  merge DIR... --out DIR    combine the results of shards (or interrupted copies) into one
  report DIR                rewrite DIR/summary.csv and DIR/report.html from DIR/runs.csv

`limbic experiment <command> --help` for a command's options.
Experiments are read from )";

const char* kRunHelp =
    R"(usage: limbic experiment run NAME [--jobs N] [--out DIR] [--shard K/N] [--limit N] [--per-traversal]

Runs experiment NAME (a name from `limbic experiment list`, "<chapter dir>/<name>", or a path to a
definition .yaml). Appends one row per traversal to DIR/runs.csv as each run finishes and writes
trace files for the traced runs; at the end writes DIR/summary.csv and DIR/report.html. Runs already
complete in DIR/runs.csv are skipped, so re-running the same command resumes an interrupted
experiment. Ctrl-C once: no new runs start, runs in flight finish and are kept; twice: runs in flight
are abandoned (a re-run repeats them).

options:
  --jobs N        parallel runs (default: hardware concurrency, here )";

const char* kRunHelpTail = R"()
  --out DIR       output directory (default: results/NAME, or results/NAME-shard-K-of-N)
  --shard K/N     run only shard K of N (runs whose position i has i % N == K-1): one Slurm array
                  task or Kubernetes Indexed Job pod; combine with `limbic experiment merge`
  --limit N       only the first N runs (of the shard), for a quick look
  --log-level L   debug|info|warning|error|off for the services' log (default: warning)
  --per-traversal print the per-traversal table (success and time for traversals 1..N) at the end

examples:
  limbic experiment run ch10_integrated --jobs 2 --out out/ch10 --per-traversal
  limbic experiment run ch6_velocity_w_v4 --limit 4 --out /tmp/quick
)";

const char* kMergeHelp = R"(usage: limbic experiment merge DIR... --out DIR

Concatenates DIR/runs.csv of every input directory into OUT/runs.csv (each run id taken from the
first directory that has it), copies their trace files, and writes OUT/summary.csv and
OUT/report.html. All inputs must hold the same experiment.
)";

const char* kReportHelp = R"(usage: limbic experiment report DIR [--per-traversal]

Reads DIR/runs.csv and the trace files beside it and writes DIR/summary.csv, DIR/per_traversal.csv
(runs of several traversals) and DIR/report.html, and prints the summary: success as k/n with its 95 %
Wilson score interval, the mean completion time with timeouts counted as 600 s and the mean over the
successful traversals only. The report lists every failed traversal with its path (failed_*.csv; a
folder written before those were kept says so).

options:
  --per-traversal         also print success and time for traversals 1..N per configuration and set
  --failure-pictures N    draw the paths of at most N failed traversals (default 500; `all`); every
                          failed traversal is listed either way

examples:
  limbic experiment report results/ch10_integrated
  limbic experiment report results/ch10_integrated --per-traversal
  limbic experiment report results/ch10_integrated --failure-pictures all
)";

const char* kListHelp = R"(usage: limbic experiment list

Lists every experiment definition: name, chapter, number of runs (x traversals per run, when more
than one), and the first sentence of its description that is its own (not shared by other definitions). The definitions live in )";

// --- Signals: first Ctrl-C stops new runs, the second abandons runs in flight. -----------------------

std::atomic<bool> g_stop_new{false};
std::atomic<bool> g_abandon{false};

void OnSignal(int) {
  if (!g_stop_new.exchange(true)) {
    static const char kMsg[] = "\ninterrupt: finishing the runs in flight (Ctrl-C again to abandon them)...\n";
    (void)!write(2, kMsg, sizeof kMsg - 1);
  } else if (!g_abandon.exchange(true)) {
    static const char kMsg[] = "\ninterrupt: abandoning the runs in flight...\n";
    (void)!write(2, kMsg, sizeof kMsg - 1);
  }
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// A file-size limit (RLIMIT_FSIZE, a quota) must be an error with its cause (EFBIG), not SIGXFSZ's
// silent death halfway through a row.
void IgnoreFileSizeSignal() { signal(SIGXFSZ, SIG_IGN); }

// --- Arguments ------------------------------------------------------------------------------------

bool IsHelp(const std::string& a) { return a == "--help" || a == "-h" || a == "help"; }

int ParsePositive(const std::string& flag, const std::string& text) {
  try {
    return flags::ParseInt(flag, text, 1);
  } catch (const flags::FlagValueError& e) {
    throw UsageError(e.what());
  }
}

// Pulls the value of `flag` at args[*i] (either "--flag value" or "--flag=value").
bool TakeFlag(const std::vector<std::string>& args, size_t* i, const std::string& flag, std::string* value) {
  const std::string& a = args[*i];
  if (a == flag) {
    if (*i + 1 >= args.size()) throw UsageError(flag + " needs a value");
    *value = args[++*i];
    return true;
  }
  if (a.rfind(flag + "=", 0) == 0) {
    *value = a.substr(flag.size() + 1);
    return true;
  }
  return false;
}

// --- Output helpers -------------------------------------------------------------------------------

// `text` cut into sentences (". " ends one; newlines are spaces).
std::vector<std::string> Sentences(const std::string& text) {
  std::string s = text;
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    const size_t stop = s.find(". ", start);
    const size_t end = stop == std::string::npos ? s.size() : stop + 1;
    std::string sentence = s.substr(start, end - start);
    sentence.erase(0, sentence.find_first_not_of(' '));
    if (!sentence.empty()) out.push_back(sentence);
    start = end;
  }
  return out;
}

std::string FirstSentence(const std::string& text, size_t max_chars) {
  std::string s = text;
  std::replace(s.begin(), s.end(), '\n', ' ');
  const auto stop = s.find(". ");
  if (stop != std::string::npos) s = s.substr(0, stop + 1);
  if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
  return s;
}

std::string Fixed(double v, int decimals) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(decimals) << v;
  return s.str();
}

// The short table printed at the end: All (and Final) per configuration, swept value and set; with
// `per_traversal`, the per-traversal table after it.
void PrintSummaryTable(const std::vector<IterationRow>& rows, const std::vector<std::string>& config_order,
                       bool per_traversal, std::ostream& out) {
  const auto summary = Summarize(rows, config_order);
  out << SummaryTableText(summary);
  if (per_traversal) {
    const std::string table = PerTraversalTableText(summary);
    out << "\n" << (table.empty() ? "per traversal: every run has a single traversal\n" : table);
  }
}

// Writes and prints the report of `dir`; returns false (after an error line) if it fails.
bool WriteReport(const std::string& dir, const std::vector<std::string>& config_order, bool print_table,
                 bool per_traversal = false, int failure_pictures = -1) {
  ReportOptions options;
  options.config_order = config_order;
  if (failure_pictures >= 0) options.max_failure_pictures = failure_pictures;
  const ReportResult result = Report(dir, options);
  if (print_table) {
    PrintSummaryTable(ReadRuns((fs::path(dir) / "runs.csv").string()).rows, config_order, per_traversal, std::cout);
  }
  std::cout << result.runs << " runs, " << result.rows << " rows";
  if (result.skipped_lines) std::cout << " (" << result.skipped_lines << " torn lines ignored)";
  if (!result.cut_traces.empty()) {
    std::cout << "\n  " << result.cut_traces.size() << " cut trace file" << (result.cut_traces.size() == 1 ? "" : "s")
              << " skipped (ending before their '# end' line):";
    for (const auto& f : result.cut_traces) std::cout << " " << fs::path(f).filename().string();
  }
  std::cout << "\n  runs:    " << (fs::path(dir) / "runs.csv").string() << "\n  summary: " << result.summary_csv;
  if (!result.per_traversal_csv.empty()) std::cout << "\n  per traversal: " << result.per_traversal_csv;
  std::cout << "\n  report:  " << result.report_html << "\n";
  return true;
}

// Fails with a one-line error unless `dir` exists (created if needed) and is writable.
void PrepareOutputDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw std::runtime_error("cannot create output directory " + dir + (ec ? ": " + ec.message() : ""));
  }
  const fs::path probe = fs::path(dir) / (".write-test-" + std::to_string(getpid()));
  {
    std::ofstream f(probe);
    if (!f || !(f << "x").flush()) throw std::runtime_error("output directory " + dir + " is not writable");
  }
  fs::remove(probe, ec);
}

// Where experiments are read from, for the help texts: the help prints on any installation, and a data folder that
// cannot be found is said there (commands that need it fail with the same reason).
std::string ExperimentDirForHelp() {
  try {
    return DefaultExperimentDir();
  } catch (const paths::DataNotFound& e) {
    return std::string("the data folder, which is not found: ") + e.what() + ";";
  }
}

// --- Commands -------------------------------------------------------------------------------------

int CmdList(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (IsHelp(a)) {
      std::cout << kListHelp << ExperimentDirForHelp() << " (LIMBIC_EXPERIMENTS_DIR overrides).\n";
      return 0;
    }
    throw UsageError("list takes no arguments, got '" + a + "'");
  }
  const auto files = ListExperimentFiles();
  if (files.empty()) throw std::runtime_error("no experiment definitions in " + DefaultExperimentDir());
  int bad = 0;
  std::vector<ExperimentDefinition> definitions;
  for (const auto& file : files) {
    try {
      definitions.push_back(LoadExperiment(file));
    } catch (const std::exception& e) {
      ++bad;
      std::cerr << "limbic experiment: error: " << e.what() << "\n";
    }
  }
  // Sentences several descriptions share (a chapter's protocol) say nothing about which experiment is
  // which: each line shows the first sentence of its own (issue 22: the list cut them all at the same
  // prefix).
  std::map<std::string, int> sentence_uses;
  for (const auto& d : definitions) {
    for (const auto& sentence : Sentences(d.description)) ++sentence_uses[sentence];
  }
  std::cout << std::left << std::setw(40) << "NAME" << std::setw(11) << "CHAPTER" << std::setw(13) << "RUNS(xTRAV)"
            << "DESCRIPTION (its own first sentence)\n";
  for (const auto& d : definitions) {
    const std::string runs =
        std::to_string(d.RunCount()) + (d.iterations > 1 ? "x" + std::to_string(d.iterations) : "");
    std::string own;
    for (const auto& sentence : Sentences(d.description)) {
      if (sentence_uses[sentence] < 2) {
        own = sentence;
        break;
      }
    }
    std::cout << std::left << std::setw(40) << d.name << std::setw(11) << d.chapter << std::setw(13) << runs
              << FirstSentence(own.empty() ? d.description : own, 90) << "\n";
  }

  // The recruitment experiments have their own runner (a simulation takes milliseconds and has no
  // navigation stack): name them here so this list stays the one index of experiments.
  const fs::path recruitment = fs::path(DefaultExperimentDir()) / kRecruitmentDir;
  if (fs::is_directory(recruitment)) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(recruitment))
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      std::cout << std::left << std::setw(40) << n << std::setw(11) << "recruit" << std::setw(13) << "-"
                << "affective recruitment (limbic experiment run " << n << " runs limbic recruit)\n";
  }
  // The laser navigator's experiments likewise (`limbic laser experiment`: in-process episodes, E1–E3).
  const fs::path laser = fs::path(DefaultExperimentDir()) / kLaserDir;
  if (fs::is_directory(laser)) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(laser))
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      std::cout << std::left << std::setw(40) << n << std::setw(11) << "laser" << std::setw(13) << "-"
                << "laser navigator (limbic experiment run " << n << " runs limbic laser)\n";
  }
  // The crowd experiments likewise (`limbic crowd experiment`: lockstep b_nav crowds in process, issue 19).
  const fs::path crowd = fs::path(DefaultExperimentDir()) / kCrowdDir;
  if (fs::is_directory(crowd)) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(crowd))
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      std::cout << std::left << std::setw(40) << n << std::setw(11) << "crowd" << std::setw(13) << "-"
                << "emotions in a crowd (limbic experiment run " << n << " runs limbic crowd)\n";
  }
  // The exploration experiments likewise (`limbic explore experiment`: lockstep teams in process, issue 18).
  const fs::path explore = fs::path(DefaultExperimentDir()) / kExploreDir;
  if (fs::is_directory(explore)) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(explore))
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      std::cout << std::left << std::setw(40) << n << std::setw(11) << "explore" << std::setw(13) << "-"
                << "heterogeneous exploration (limbic experiment run " << n << " runs limbic explore)\n";
  }
  std::cout << "\nRUNS: simulation runs (one per seed, environment and configuration); xN: each run travels N\n"
               "times between start and goal (its traversals, one runs.csv row each); -: its own runner decides.\n";
  return bad ? 1 : 0;
}

// A recruitment (laser, crowd) experiment named here runs through `limbic recruit (laser, crowd) experiment
// run`, its own runner.
void RunRecruitmentIfNamed(const std::vector<std::string>& args) {
  if (args.empty() || args[0].rfind("--", 0) == 0) return;
  const bool recruitment = fs::exists(fs::path(DefaultExperimentDir()) / kRecruitmentDir / (args[0] + ".yaml"));
  const bool laser = fs::exists(fs::path(DefaultExperimentDir()) / kLaserDir / (args[0] + ".yaml"));
  const bool crowd = fs::exists(fs::path(DefaultExperimentDir()) / kCrowdDir / (args[0] + ".yaml"));
  const bool explore = fs::exists(fs::path(DefaultExperimentDir()) / kExploreDir / (args[0] + ".yaml"));
  if (!recruitment && !laser && !crowd && !explore) return;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string recruit = (ec ? fs::path(".") : self.parent_path()).string() + (explore ? "/limbic-explore"
                                                                                    : crowd ? "/limbic-crowd"
                                                                                    : laser ? "/limbic-laser"
                                                                                            : "/limbic-recruit");
  std::vector<std::string> argv{recruit, "experiment", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c;
  for (auto& a : argv) c.push_back(a.data());
  c.push_back(nullptr);
  execv(c[0], c.data());
  throw std::runtime_error("cannot run " + recruit);
}

int CmdRun(const std::vector<std::string>& args) {
  RunRecruitmentIfNamed(args);
  std::string name, out_dir, shard_text, log_level = "warning";
  int jobs = 0, limit = 0, shard_k = 1, shard_n = 1;
  bool per_traversal = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (IsHelp(args[i])) {
      std::cout << kRunHelp << std::thread::hardware_concurrency() << kRunHelpTail;
      return 0;
    } else if (TakeFlag(args, &i, "--jobs", &value)) {
      jobs = ParsePositive("--jobs", value);
    } else if (TakeFlag(args, &i, "--out", &value)) {
      if (value.empty()) throw UsageError("--out needs a directory");
      out_dir = value;
    } else if (TakeFlag(args, &i, "--shard", &value)) {
      try {
        ParseShard(value, &shard_k, &shard_n);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
      shard_text = value;
    } else if (TakeFlag(args, &i, "--limit", &value)) {
      limit = ParsePositive("--limit", value);
    } else if (TakeFlag(args, &i, "--log-level", &value)) {
      log_level = value;
    } else if (args[i] == "--per-traversal") {
      per_traversal = true;
    } else if (args[i].rfind("-", 0) == 0) {
      throw UsageError("run: unknown option '" + args[i] + "' (see --help)");
    } else if (name.empty()) {
      name = args[i];
    } else {
      throw UsageError("run takes one experiment name, got '" + name + "' and '" + args[i] + "'");
    }
  }
  if (name.empty()) throw UsageError("run needs an experiment name (see `limbic experiment list`)");
  try {
    log::SetLevel(log::ParseLevel(log_level));
  } catch (const std::invalid_argument&) {
    throw UsageError("--log-level must be debug|info|warning|error|off, got '" + log_level + "'");
  }

  ExperimentDefinition definition;
  try {
    definition = FindExperiment(name);
  } catch (const config::ConfigError& e) {
    throw UsageError(std::string(e.what()) + " (see `limbic experiment list`)");
  }
  std::vector<RunSpec> runs = Expand(definition);
  const int total_runs = static_cast<int>(runs.size());
  runs = Shard(runs, shard_k, shard_n);
  if (limit > 0 && static_cast<int>(runs.size()) > limit) runs.resize(static_cast<size_t>(limit));
  if (out_dir.empty()) {
    out_dir = "results/" + definition.name;
    if (!shard_text.empty()) out_dir += "-shard-" + std::to_string(shard_k) + "-of-" + std::to_string(shard_n);
  }
  PrepareOutputDir(out_dir);
  const std::string runs_csv = (fs::path(out_dir) / "runs.csv").string();
  const RunsFile existing = ReadRuns(runs_csv);  // throws on a foreign header
  for (const auto& row : existing.rows) {
    if (row.experiment != definition.name) {
      throw std::runtime_error(out_dir + " holds results of experiment '" + row.experiment + "'; choose another --out");
    }
  }
  if (const size_t torn = TruncateTornTail(runs_csv)) {
    std::cerr << runs_csv << ": cut a torn last row (" << torn << " bytes) left by an interrupted write\n";
  }
  WriteFileAtomically((fs::path(out_dir) / "experiment.txt").string(), DescribeExperiment(definition));
  const std::set<std::string> finished = FinishedRuns(runs_csv, definition.iterations);
  std::vector<RunSpec> todo;
  for (auto& r : runs) {
    if (!finished.count(r.run_id)) todo.push_back(std::move(r));
  }
  const int skipped = static_cast<int>(runs.size() - todo.size());
  const int workers = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::cerr << definition.name << " (chapter " << definition.chapter << ", " << definition.source << "): " << total_runs
            << " runs x " << definition.iterations << " traversals";
  if (!shard_text.empty()) std::cerr << ", shard " << shard_k << "/" << shard_n << " = " << runs.size() << " runs";
  if (limit > 0) std::cerr << ", first " << limit;
  std::cerr << "; " << skipped << " already done, " << todo.size() << " to run with " << workers << " jobs -> "
            << out_dir << "\n";

  InstallSignalHandlers();
  ExecutionSummary summary;
  if (!todo.empty()) {
    ProgressBar progress(static_cast<int>(todo.size()), std::cerr, StderrIsTerminal(), definition.name);
    progress.Update(0);
    const bool tty = StderrIsTerminal();
    ExecutorOptions options;
    options.jobs = workers;
    options.out_dir = out_dir;
    summary = ExecuteRuns(todo, options, g_stop_new, g_abandon, [&](const RunSpec& run, const RunOutcome& outcome) {
      if (!outcome.ok && !outcome.abandoned) {
        std::cerr << (tty ? "\r\033[K" : "") << "run " << run.run_id
                  << (outcome.step_error ? " error (recorded in runs.csv as status error): " : " failed: ")
                  << outcome.error << "\n";
      }
      progress.Increment();
    });
    progress.Finish();
  }
  const bool interrupted = g_stop_new.load() || g_abandon.load();
  std::cerr << "finished " << summary.finished << ", failed " << summary.failed;
  if (summary.errored) std::cerr << ", error " << summary.errored;
  if (summary.abandoned) std::cerr << ", abandoned " << summary.abandoned;
  if (summary.not_started) std::cerr << ", not started " << summary.not_started;
  std::cerr << ", skipped (done before) " << skipped << " in " << FormatDuration(summary.wall_s);
  if (summary.finished > 0 && summary.wall_s > 0) {
    std::cerr << " (" << Fixed(60.0 * summary.finished / summary.wall_s, 1) << " runs/min)";
  }
  std::cerr << "\n";
  for (const auto& e : summary.errors) std::cerr << "  " << e << "\n";

  std::vector<std::string> order;
  for (const auto& c : definition.configurations) order.push_back(c.label);
  if (fs::exists(runs_csv)) WriteReport(out_dir, order, /*print_table=*/true, per_traversal);
  if (interrupted) {
    std::cerr << "interrupted: re-run the same command to resume\n";
    return kInterrupted;
  }
  return summary.failed > 0 || summary.errored > 0 ? 1 : 0;
}

int CmdMerge(const std::vector<std::string>& args) {
  std::vector<std::string> dirs;
  std::string out_dir;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (IsHelp(args[i])) {
      std::cout << kMergeHelp;
      return 0;
    } else if (TakeFlag(args, &i, "--out", &value)) {
      out_dir = value;
    } else if (args[i].rfind("-", 0) == 0) {
      throw UsageError("merge: unknown option '" + args[i] + "' (see --help)");
    } else {
      dirs.push_back(args[i]);
    }
  }
  if (dirs.empty()) throw UsageError("merge needs at least one result directory");
  if (out_dir.empty()) throw UsageError("merge needs --out DIR");
  for (const auto& d : dirs) {
    if (!fs::exists(fs::path(d) / "runs.csv")) throw std::runtime_error(d + ": no runs.csv");
  }
  PrepareOutputDir(out_dir);
  const MergeResult merged = Merge(dirs, out_dir);
  std::cout << "merged " << dirs.size() << " directories of " << merged.experiment << ": " << merged.runs << " runs, "
            << merged.rows << " rows";
  if (merged.duplicate_runs) std::cout << ", " << merged.duplicate_runs << " duplicate runs dropped";
  std::cout << ", " << merged.trace_files << " trace files\n";
  WriteReport(out_dir, {}, /*print_table=*/false);
  return 0;
}

int CmdReport(const std::vector<std::string>& args) {
  std::string dir;
  bool per_traversal = false;
  int failure_pictures = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string value;
    if (IsHelp(a)) {
      std::cout << kReportHelp;
      return 0;
    }
    if (a == "--per-traversal") {
      per_traversal = true;
      continue;
    }
    if (TakeFlag(args, &i, "--failure-pictures", &value)) {
      failure_pictures = value == "all" ? std::numeric_limits<int>::max() : ParsePositive("--failure-pictures", value);
      continue;
    }
    if (a.rfind("-", 0) == 0) throw UsageError("report: unknown option '" + a + "' (see --help)");
    if (!dir.empty()) throw UsageError("report takes one directory");
    dir = a;
  }
  if (dir.empty()) throw UsageError("report needs a result directory");
  if (!fs::is_directory(dir)) throw std::runtime_error(dir + ": no such directory");
  WriteReport(dir, {}, /*print_table=*/true, per_traversal, failure_pictures);
  return 0;
}

int Main(int argc, char** argv) {
  IgnoreFileSizeSignal();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || IsHelp(args[0])) {
    (args.empty() ? std::cerr : std::cout)
        << kMainHelp << ExperimentDirForHelp() << " (LIMBIC_EXPERIMENTS_DIR overrides).\n";
    return args.empty() ? kUsageError : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "list") return CmdList(args);
    if (command == "run") return CmdRun(args);
    if (command == "merge") return CmdMerge(args);
    if (command == "report") return CmdReport(args);
    throw UsageError("unknown command '" + command + "' (list | run | merge | report; see --help)");
  } catch (const UsageError& e) {
    std::cerr << "limbic experiment: error: " << e.what() << "\n";
    return kUsageError;
  } catch (const std::exception& e) {
    std::cerr << "limbic experiment: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace
}  // namespace limbic::experiment

int main(int argc, char** argv) { return limbic::experiment::Main(argc, argv); }
