#include "tools/recruit/experiment.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/config/config.hpp"
#include "common/paths/paths.hpp"
#include "tools/recruit/statistics.hpp"

namespace limbic::recruit {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;
using config::StrictMap;

RobotSpec::Role ParseRole(StrictMap& map, const std::string& text) {
  if (text == "uav") return RobotSpec::Role::kUav;
  if (text == "scanning_ugv") return RobotSpec::Role::kScanningUgv;
  if (text == "idle_ugv") return RobotSpec::Role::kIdleUgv;
  map.Fail("role", "must be uav, scanning_ugv or idle_ugv, got '" + text + "'");
}

RasterArea LoadArea(StrictMap& map, const std::string& key, RasterArea area) {
  std::vector<double> v;
  if (!map.Optional(key, &v)) return area;
  if (v.size() != 5) map.Fail(key, "must be [x0, x1, y0, y1, lane]");
  if (v[4] <= 0.0 || v[1] < v[0] || v[3] < v[2]) map.Fail(key, "needs x0 <= x1, y0 <= y1 and lane > 0");
  return {v[0], v[1], v[2], v[3], v[4]};
}

// The `scenario:` block: every §5.1 default, the protocol and SHAME parameters, the radio.
void LoadScenario(StrictMap map, ScenarioOptions* o) {
  const auto positive = [&](const std::string& key, double* v) {
    if (map.Optional(key, v) && !(*v > 0.0)) map.Fail(key, "must be positive");
  };
  const auto non_negative = [&](const std::string& key, double* v) {
    if (map.Optional(key, v) && !(*v >= 0.0)) map.Fail(key, "must be >= 0");
  };
  positive("grid", &o->grid);
  positive("lane", &o->lane);
  positive("uav_speed", &o->uav_speed);
  positive("ugv_speed", &o->ugv_speed);
  non_negative("end_pause_s", &o->end_pause_s);
  if (map.Optional("stop_intervals_s", &o->stop_intervals_s)) {
    if (o->stop_intervals_s.empty()) map.Fail("stop_intervals_s", "must not be empty");
    for (double v : o->stop_intervals_s)
      if (!(v >= 0.0)) map.Fail("stop_intervals_s", "values must be >= 0");
  }
  if (map.Optional("episodes", &o->episodes) && o->episodes < 1) map.Fail("episodes", "must be at least 1");
  if (map.Optional("idle_ugvs", &o->idle_ugvs) && o->idle_ugvs < 0) map.Fail("idle_ugvs", "must be >= 0");
  if (map.Optional("scanning_ugvs", &o->scanning_ugvs) && o->scanning_ugvs < 0)
    map.Fail("scanning_ugvs", "must be >= 0");
  positive("arrival_radius", &o->arrival_radius);
  positive("tick_s", &o->tick_s);
  positive("time_cap_s", &o->time_cap_s);
  non_negative("uav_start_progress", &o->uav_start_progress);
  // Protocol (§2.3, §2.4, §10 items 4, 15, 16).
  RecruiterOptions& r = o->recruiter;
  positive("help_retry_s", &r.help_retry_s);
  positive("other_timeout_s", &r.other_timeout_s);
  non_negative("accept_grace_s", &r.accept_grace_s);
  std::string text;
  if (map.Optional("selection_window", &text)) {
    try {
      r.selection = ParseSelectionWindow(text);
    } catch (const std::invalid_argument& e) {
      map.Fail("selection_window", e.what());
    }
  }
  positive("pending_timeout_s", &r.pending_timeout_s);
  positive("wait_agree_timeout_s", &r.wait_agree_timeout_s);
  positive("lease_s", &r.lease_s);
  if (map.Optional("lease_renewals", &r.lease_renewals) && r.lease_renewals < 0)
    map.Fail("lease_renewals", "must be >= 0");
  // SHAME (§3.5); the fitness term comes with the strategy.
  map.Optional("threshold", &r.shame.threshold);
  positive("c", &r.shame.c);
  non_negative("decay_per_s", &r.shame.decay_per_s);
  map.Optional("accrue_while_busy", &r.shame.accrue_while_busy);
  // Radio (§5.3).
  RadioOptions& radio = o->radio;
  if (map.Optional("loss", &radio.loss) && !(radio.loss >= 0.0 && radio.loss <= 1.0))
    map.Fail("loss", "must be in [0, 1]");
  if (map.Optional("loss_model", &text)) {
    try {
      radio.loss_model = ParseLossModel(text);
    } catch (const std::invalid_argument& e) {
      map.Fail("loss_model", e.what());
    }
  }
  if (map.Optional("loss_per", &text)) {
    if (text == "transmission")
      radio.granularity = RadioOptions::Granularity::kPerTransmission;
    else if (text == "receiver")
      radio.granularity = RadioOptions::Granularity::kPerReceiver;
    else
      map.Fail("loss_per", "must be transmission or receiver");
  }
  map.Optional("ge_p_good_to_bad", &radio.ge_p_good_to_bad);
  map.Optional("ge_p_bad_to_good", &radio.ge_p_bad_to_good);
  map.Optional("ge_loss_good", &radio.ge_loss_good);
  map.Optional("ge_loss_bad", &radio.ge_loss_bad);
  non_negative("latency_s", &radio.latency_s);
  non_negative("latency_jitter_s", &radio.latency_jitter_s);
  positive("range", &radio.range);
  if (map.Optional("mode", &text)) {
    if (text != "broadcast" && text != "unicast") map.Fail("mode", "must be broadcast or unicast");
    radio.unicast = text == "unicast";
  }
  if (map.Has("robots")) {
    for (StrictMap robot : map.ChildList("robots")) {
      RobotSpec spec;
      spec.id = robot.Required<uint32_t>("id");
      spec.role = ParseRole(robot, robot.Required<std::string>("role"));
      std::vector<double> at;
      if (robot.Optional("at", &at)) {
        if (at.size() != 2) robot.Fail("at", "must be [x, y]");
        spec.start = {at[0], at[1]};
      }
      spec.speed = spec.role == RobotSpec::Role::kUav ? o->uav_speed : o->ugv_speed;
      robot.Optional("speed", &spec.speed);
      if (!(spec.speed > 0.0)) robot.Fail("speed", "must be positive");
      spec.area = LoadArea(robot, "area", RasterArea{0.0, o->grid, 0.0, o->grid, o->lane});
      robot.Optional("progress", &spec.start_progress);
      o->robots.push_back(spec);
    }
  }
  if (map.Has("churn")) {
    for (StrictMap event : map.ChildList("churn")) {
      ChurnEvent c;
      c.at_s = event.Required<double>("at_s");
      c.robot = event.Required<uint32_t>("robot");
      const std::string what = event.Required<std::string>("event");
      if (what != "join" && what != "leave") event.Fail("event", "must be join or leave");
      c.join = what == "join";
      o->churn.push_back(c);
    }
  }
}

uint64_t Mix(uint64_t h, uint64_t v) {
  // splitmix64 step: independent-looking seeds from (experiment seed, configuration, repetition, …).
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h += 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

StrategyChoice StrategyByName(const std::string& name) {
  if (name == "affective") return {name, "Aff", Strategy::kAffective, FitnessModel::Linear(0.5)};
  if (name == "affective_sq") return {name, "Aff²", Strategy::kAffective, FitnessModel::InverseSquare(2.5)};
  if (name == "greedy") return {name, "Gr", Strategy::kGreedy, FitnessModel::Zero()};
  if (name == "random") return {name, "Rnd", Strategy::kRandom, FitnessModel::Zero()};
  throw std::invalid_argument("unknown strategy '" + name + "' (affective, affective_sq, greedy, random)");
}

int RecruitExperiment::RunCount() const {
  return static_cast<int>(strategies.size()) * std::max<int>(1, static_cast<int>(values.size())) * configurations *
         repetitions;
}

RecruitExperiment LoadRecruitExperiment(const std::string& path) {
  StrictMap map(config::LoadFile(path), path);
  RecruitExperiment e;
  e.source = path;
  e.name = map.Required<std::string>("name");
  const std::string stem = fs::path(path).stem().string();
  if (e.name != stem) map.Fail("name", "'" + e.name + "' must equal the file name '" + stem + "'");
  e.description = map.Required<std::string>("description");
  e.section = map.Required<std::string>("section");
  map.Optional("kind", &e.kind);
  if (e.kind != "compare" && e.kind != "fairness" && e.kind != "use_case")
    map.Fail("kind", "must be compare, fairness or use_case");
  e.strategies = map.Required<std::vector<std::string>>("strategies");
  if (e.strategies.empty()) map.Fail("strategies", "must not be empty");
  std::set<std::string> unique;
  for (const auto& s : e.strategies) {
    try {
      StrategyByName(s);
    } catch (const std::invalid_argument& err) {
      map.Fail("strategies", err.what());
    }
    if (!unique.insert(s).second) map.Fail("strategies", "repeats " + s);
  }
  e.seed = map.Required<uint64_t>("seed");
  map.Optional("configurations", &e.configurations);
  if (e.configurations < 1) map.Fail("configurations", "must be at least 1");
  map.Optional("first_configuration", &e.first_configuration);
  map.Optional("repetitions", &e.repetitions);
  if (e.repetitions < 1) map.Fail("repetitions", "must be at least 1");
  map.Optional("alpha", &e.alpha);
  map.Optional("comparisons", &e.comparisons);
  if (e.comparisons < 1) map.Fail("comparisons", "must be at least 1");
  if (map.Has("vary")) {
    StrictMap vary = map.Child("vary");
    e.variable = vary.Required<std::string>("variable");
    if (e.variable != "idle_ugvs" && e.variable != "loss" && e.variable != "mode")
      vary.Fail("variable", "must be idle_ugvs, loss or mode");
    e.values = vary.Required<std::vector<std::string>>("values");
    if (e.values.empty()) vary.Fail("values", "must not be empty");
  }
  if (map.Has("notes")) {
    StrictMap notes = map.Child("notes");
    for (const auto& key : notes.Keys()) e.case_notes[key] = notes.Required<std::string>(key);
  }
  if (map.Has("scenario")) LoadScenario(map.Child("scenario"), &e.scenario);
  map.Finish();
  // Check the variable's values by applying them once.
  for (const RecruitRun& run : Expand(e)) {
    (void)run;
    break;
  }
  return e;
}

std::string DefaultRecruitExperimentDir() {
  return paths::DataPath("experiments/recruitment", "LIMBIC_RECRUIT_EXPERIMENTS_DIR").string();
}

std::vector<std::string> ListRecruitExperimentFiles(const std::string& dir) {
  if (!fs::is_directory(dir)) throw ConfigError(dir + ": no such experiments directory");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

RecruitExperiment FindRecruitExperiment(const std::string& name_or_path, const std::string& dir) {
  if (name_or_path.ends_with(".yaml")) return LoadRecruitExperiment(name_or_path);
  for (const auto& file : ListRecruitExperimentFiles(dir))
    if (fs::path(file).stem().string() == name_or_path) return LoadRecruitExperiment(file);
  throw ConfigError("no recruitment experiment named '" + name_or_path + "' in " + dir +
                    " (limbic recruit experiment list shows them)");
}

std::vector<RecruitRun> Expand(const RecruitExperiment& e) {
  std::vector<RecruitRun> runs;
  const std::vector<std::string> conditions = e.values.empty() ? std::vector<std::string>{""} : e.values;
  for (size_t ci = 0; ci < conditions.size(); ++ci) {
    ScenarioOptions base = e.scenario;
    const std::string& value = conditions[ci];
    try {
      if (e.variable == "idle_ugvs") {
        size_t used = 0;
        base.idle_ugvs = std::stoi(value, &used);
        if (used != value.size() || base.idle_ugvs < 0) throw std::invalid_argument(value);
      } else if (e.variable == "loss") {
        size_t used = 0;
        base.radio.loss = std::stod(value, &used);
        if (used != value.size() || !(base.radio.loss >= 0.0 && base.radio.loss <= 1.0))
          throw std::invalid_argument(value);
      } else if (e.variable == "mode") {
        if (value != "broadcast" && value != "unicast") throw std::invalid_argument(value);
        base.radio.unicast = value == "unicast";
      }
    } catch (const std::exception&) {
      throw ConfigError(e.source + ": vary.values: '" + value + "' is not a valid " + e.variable);
    }
    for (const std::string& strategy : e.strategies) {
      const StrategyChoice choice = StrategyByName(strategy);
      for (int c = 0; c < e.configurations; ++c) {
        const int configuration = e.first_configuration + c;
        for (int rep = 0; rep < e.repetitions; ++rep) {
          RecruitRun run;
          run.index = static_cast<int>(runs.size());
          run.condition = value;
          run.strategy = strategy;
          run.configuration = configuration;
          run.repetition = rep + 1;
          run.options = base;
          run.options.recruiter.strategy = choice.strategy;
          run.options.recruiter.shame.fitness = choice.fitness;
          // Same placement for every strategy and condition of a configuration; same radio and
          // selection draws for every strategy of a (condition, configuration, repetition): paired.
          run.options.config_seed = Mix(e.seed, static_cast<uint64_t>(configuration));
          const uint64_t draw = Mix(Mix(Mix(e.seed, configuration), rep + 1), ci + 1);
          run.options.radio.seed = draw;
          run.options.recruiter.seed = draw ^ 0x5bd1e995u;
          runs.push_back(std::move(run));
        }
      }
    }
  }
  return runs;
}

RecruitRow RunOne(const RecruitExperiment& e, const RecruitRun& run, ScenarioResult* full) {
  ScenarioOptions options = run.options;
  options.record_timeline = full != nullptr;
  const ScenarioResult r = RunMineScenario(options);
  RecruitRow row;
  row.experiment = e.name;
  row.condition = run.condition;
  row.strategy = run.strategy;
  row.configuration = run.configuration;
  row.repetition = run.repetition;
  row.messages = r.messages;
  row.by_type = r.counts.attempts;
  for (uint64_t d : r.counts.dropped) row.dropped += d;
  row.wait_total_s = r.wait_total_s;
  row.success = r.success;
  row.episodes = static_cast<int>(r.episodes.size());
  std::vector<int> idle_counts;
  for (RobotId id : r.idle_ugvs) idle_counts.push_back(r.recruit_counts.at(id));
  row.bias = idle_counts.empty() ? 0 : Bias(idle_counts, options.episodes);
  std::ostringstream counts;
  for (const auto& [id, n] : r.recruit_counts) counts << (counts.tellp() > 0 ? ";" : "") << id << ":" << n;
  row.recruit_counts = counts.str();
  row.restarts = r.totals.restarts;
  row.help_retries = r.totals.help_retries;
  row.malformed = r.totals.malformed;
  row.out_of_order = r.totals.out_of_order;
  row.end_s = r.end_s;
  if (full) *full = r;
  return row;
}

namespace {
const char* kHeader =
    "experiment,condition,strategy,configuration,repetition,messages,help,accept,responder,arrival,agree,ackack,"
    "dropped,wait_total_s,success,episodes,bias,recruit_counts,restarts,help_retries,malformed,out_of_order,end_s";
}

void WriteRows(const std::string& path, const std::vector<RecruitRow>& rows) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << kHeader << "\n";
  out.precision(10);
  for (const RecruitRow& r : rows) {
    out << r.experiment << "," << r.condition << "," << r.strategy << "," << r.configuration << "," << r.repetition
        << "," << r.messages;
    for (uint64_t t : r.by_type) out << "," << t;
    out << "," << r.dropped << "," << r.wait_total_s << "," << (r.success ? 1 : 0) << "," << r.episodes << "," << r.bias
        << "," << r.recruit_counts << "," << r.restarts << "," << r.help_retries << "," << r.malformed << ","
        << r.out_of_order << "," << r.end_s << "\n";
  }
  if (!out) throw std::runtime_error("failed writing " + path);
}

std::vector<RecruitRow> ReadRows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) throw std::runtime_error(path + ": not a recruitment runs.csv");
  std::vector<RecruitRow> rows;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) f.push_back(cell);
    if (!line.empty() && line.back() == ',') f.push_back("");
    if (f.size() != 23) throw std::runtime_error(path + ":" + std::to_string(number) + ": expected 23 fields");
    try {
      RecruitRow r;
      r.experiment = f[0];
      r.condition = f[1];
      r.strategy = f[2];
      r.configuration = std::stoi(f[3]);
      r.repetition = std::stoi(f[4]);
      r.messages = std::stoull(f[5]);
      for (int t = 0; t < kMsgTypeCount; ++t) r.by_type[t] = std::stoull(f[6 + t]);
      r.dropped = std::stoull(f[12]);
      r.wait_total_s = std::stod(f[13]);
      r.success = f[14] == "1";
      r.episodes = std::stoi(f[15]);
      r.bias = std::stoi(f[16]);
      r.recruit_counts = f[17];
      r.restarts = std::stoull(f[18]);
      r.help_retries = std::stoull(f[19]);
      r.malformed = std::stoull(f[20]);
      r.out_of_order = std::stoull(f[21]);
      r.end_s = std::stod(f[22]);
      rows.push_back(r);
    } catch (const std::exception&) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": bad number");
    }
  }
  return rows;
}

}  // namespace limbic::recruit
