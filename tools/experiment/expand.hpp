// Expansion of an experiment definition into the list of runs to execute, and sharding of that list
// (`--shard K/N`, one Slurm array task or Kubernetes Indexed Job pod per shard).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/types/control_parameters.hpp"
#include "tools/experiment/definition.hpp"

namespace limbic::experiment {

// Everything the executor needs for one run: one environment, `iterations` traversals, reset at the
// start (§6.1).
struct RunSpec {
  std::string experiment;
  std::string run_id;  // "<config>[-<sweep value>]-<set>-<env>-<repeat>", stable and unique
  int index = 0;       // position in the expansion (sharding key)
  char set = 'B';
  int env = 0;                    // environment index 0..19
  int repeat = 0;                 // 0..runs_per_environment-1
  uint64_t environment_seed = 1;  // sim::GenerateEnvironment(set, env, environment_seed)
  uint64_t seed = 0;              // run seed (world noise, humans, wander): f(base seed, set, env, repeat) only,
                                  // so every configuration and swept value sees the same worlds
  std::string config;             // configuration label
  std::string sweep;              // "name=value" ("" without a sweep)
  double sweep_value = 0.0;       // the swept value (0 without a sweep)
  std::map<std::string, double> sweep_assignments;  // target path -> value set by the sweep
  std::string affect;                               // affect configuration name, or "none" (kNoAffect)
  std::map<std::string, double> parameters;         // ControlParameters overrides (sweep included)
  std::vector<std::string> affect_overrides;        // "key.path=value" (sweep "affect.*" targets included)
  std::map<std::string, std::string> options;       // option name -> value (sweep "option.*" included)
  int iterations = 1;
  Team team;                  // robots in the world (results follow r1)
  bool record_trace = false;  // write trace_<run_id>.csv and affect_<run_id>.csv
  bool record_bag = false;    // write recordings/<run_id>.mcap (every message of the run)

  // ControlParameters{} with `parameters` applied: the run's parameters when affect == "none", and
  // the starting parameters otherwise.
  ControlParameters Parameters() const;
  // affect_overrides plus "base_parameters.<field>=<value>" for every parameter override, in that
  // order: pass to affect::LoadAffectConfig(affect, dir, AffectOverrides()). Fields that the drive
  // mapping (Table 8.2) modulates are still overwritten by the drives.
  std::vector<std::string> AffectOverrides() const;
  bool OptionEnabled(const std::string& name) const;  // a boolean option set to true
};

// The run seed: SplitMix64-derived from base seed, set letter, environment and repeat.
uint64_t RunSeed(uint64_t base_seed, char set, int env, int repeat);

// All runs of `definition`, ordered configuration → sweep value → set → environment → repeat.
// Throws std::invalid_argument if two runs would share a run_id.
std::vector<RunSpec> Expand(const ExperimentDefinition& definition);

// Shard K of N (1-based, as in --shard K/N): every run whose position i satisfies i % N == K − 1.
// Throws std::invalid_argument unless 1 <= K <= N.
std::vector<RunSpec> Shard(const std::vector<RunSpec>& runs, int k, int n);

// Parses "K/N" (e.g. "3/8"); throws std::invalid_argument with a readable message.
void ParseShard(const std::string& text, int* k, int* n);

}  // namespace limbic::experiment
