// Recruitment experiments of spec affective-recruitment §7 as YAML definitions
// (experiments/recruitment/*.yaml), expanded into seeded simulations of the lockstep mine scenario
// and run in parallel; one row of metrics (M1–M4) per simulation.
//
// Why not the navigation runner (tools/experiment): its definitions, runs and rows are built around
// the navigation stack (environment sets, ControlParameters, traversals) and an in-process service
// stack; a recruitment simulation has none of them and takes milliseconds. `limbic experiment list`
// lists these definitions and points at `limbic recruit experiment`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "services/recruiter/mine_scenario.hpp"

namespace limbic::recruit {

// The four strategies of §7: Aff (0.5/D), Aff² (2.5/D²), Gr, Rnd.
struct StrategyChoice {
  std::string name;   // affective | affective_sq | greedy | random
  std::string label;  // Aff | Aff² | Gr | Rnd
  Strategy strategy = Strategy::kAffective;
  FitnessModel fitness;
};
StrategyChoice StrategyByName(const std::string& name);  // throws std::invalid_argument

struct RecruitExperiment {
  std::string name;  // file stem
  std::string description;
  std::string section;           // spec section, e.g. "7.1"
  std::string kind = "compare";  // compare | fairness | use_case
  std::string source;
  std::vector<std::string> strategies;
  std::string variable;  // "" or idle_ugvs | loss | mode: one condition per value
  std::vector<std::string> values;
  int configurations = 1;  // starting configurations (placement seeds)
  int first_configuration = 1;
  int repetitions = 1;  // runs per configuration (radio and selection seeds)
  uint64_t seed = 1;
  double alpha = 0.01;                            // family-wise level of the rank-sum tests
  int comparisons = 1;                            // Bonferroni divisor (30 team size, 15 loss)
  ScenarioOptions scenario;                       // the `scenario:` block over the §5.1 defaults
  std::map<std::string, std::string> case_notes;  // use cases: what to look at in the picture

  int RunCount() const;
};

// Loads a definition strictly (an unknown key is an error naming the file and key path). Throws
// config::ConfigError.
RecruitExperiment LoadRecruitExperiment(const std::string& path);
std::string
DefaultRecruitExperimentDir();  // experiments/recruitment in limbic's data, or $LIMBIC_RECRUIT_EXPERIMENTS_DIR
std::vector<std::string> ListRecruitExperimentFiles(const std::string& dir = DefaultRecruitExperimentDir());
RecruitExperiment FindRecruitExperiment(const std::string& name_or_path,
                                        const std::string& dir = DefaultRecruitExperimentDir());

struct RecruitRun {
  int index = 0;
  std::string condition;  // the variable's value ("" when none)
  std::string strategy;   // StrategyChoice::name
  int configuration = 0;
  int repetition = 0;
  ScenarioOptions options;
};
std::vector<RecruitRun> Expand(const RecruitExperiment& experiment);

struct RecruitRow {
  std::string experiment, condition, strategy;
  int configuration = 0, repetition = 0;
  uint64_t messages = 0;  // M1
  std::array<uint64_t, kMsgTypeCount> by_type{};
  uint64_t dropped = 0;
  double wait_total_s = 0.0;  // M2
  bool success = false;       // M4
  int episodes = 0;
  int bias = 0;                // M3 over the idle UGVs
  std::string recruit_counts;  // "id:count;..." for every UGV
  uint64_t restarts = 0, help_retries = 0, malformed = 0, out_of_order = 0;
  double end_s = 0.0;
};
RecruitRow RunOne(const RecruitExperiment& experiment, const RecruitRun& run, ScenarioResult* full = nullptr);

// CSV with a header; ReadRows accepts what WriteRows wrote (throws std::runtime_error otherwise).
void WriteRows(const std::string& path, const std::vector<RecruitRow>& rows);
std::vector<RecruitRow> ReadRows(const std::string& path);

}  // namespace limbic::recruit
