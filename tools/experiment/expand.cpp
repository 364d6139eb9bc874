#include "tools/experiment/expand.hpp"

#include <set>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::experiment {

ControlParameters RunSpec::Parameters() const {
  ControlParameters p;
  ApplyParameterOverrides(parameters, &p);
  return p;
}

std::vector<std::string> RunSpec::AffectOverrides() const {
  std::vector<std::string> out = affect_overrides;
  for (const auto& [name, value] : parameters) out.push_back("base_parameters." + name + "=" + FormatNumber(value));
  return out;
}

bool RunSpec::OptionEnabled(const std::string& name) const {
  const auto it = options.find(name);
  return it != options.end() && it->second == "true";
}

uint64_t RunSeed(uint64_t base_seed, char set, int env, int repeat) {
  uint64_t s = sim::DeriveSeed(base_seed, static_cast<uint64_t>(set));
  s = sim::DeriveSeed(s, static_cast<uint64_t>(env));
  return sim::DeriveSeed(s, static_cast<uint64_t>(repeat));
}

std::vector<RunSpec> Expand(const ExperimentDefinition& d) {
  std::vector<RunSpec> runs;
  runs.reserve(static_cast<size_t>(d.RunCount()));
  std::vector<double> values = d.sweep ? d.sweep->values : std::vector<double>{0.0};
  std::set<std::string> ids;
  for (const Configuration& c : d.configurations) {
    for (double value : values) {
      for (char set : d.sets) {
        int traced = 0;
        for (int env : d.environments) {
          for (int repeat = 0; repeat < d.runs_per_environment; ++repeat) {
            RunSpec r;
            r.experiment = d.name;
            r.index = static_cast<int>(runs.size());
            r.set = set;
            r.env = env;
            r.repeat = repeat;
            r.environment_seed = d.environment_seed;
            r.seed = RunSeed(d.seed, set, env, repeat);
            r.config = c.label;
            r.affect = c.affect;
            r.parameters = c.parameters;
            r.affect_overrides = c.affect_overrides;
            r.options = c.options;
            r.iterations = d.iterations;
            r.team = d.team;
            r.record_trace = traced++ < d.trace_runs;
            r.record_bag = d.record == "all" || (d.record == "traced" && r.record_trace);
            std::string id = c.label;
            if (d.sweep) {
              r.sweep_value = value;
              r.sweep = d.sweep->name + "=" + FormatNumber(value);
              id += "-" + FormatNumber(value);
              for (const SweepTarget& t : d.sweep->targets) {
                const double v = t.scale * value + t.offset;
                r.sweep_assignments[t.path] = v;
                if (t.path.rfind("affect.", 0) == 0) {
                  r.affect_overrides.push_back(t.path.substr(7) + "=" + FormatNumber(v));
                } else if (t.path.rfind("option.", 0) == 0) {
                  r.options[t.path.substr(7)] = FormatNumber(v);
                } else {
                  r.parameters[t.path] = v;
                }
              }
            }
            r.run_id = id + "-" + std::string(1, set) + "-" + std::to_string(env) + "-" + std::to_string(repeat);
            if (!ids.insert(r.run_id).second)
              throw std::invalid_argument(d.source + ": two runs share the id '" + r.run_id + "'");
            runs.push_back(std::move(r));
          }
        }
      }
    }
  }
  return runs;
}

std::vector<RunSpec> Shard(const std::vector<RunSpec>& runs, int k, int n) {
  if (n < 1 || k < 1 || k > n)
    throw std::invalid_argument("shard " + std::to_string(k) + "/" + std::to_string(n) +
                                " is not valid: need 1 <= K <= N");
  std::vector<RunSpec> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(n)) == k - 1) out.push_back(runs[i]);
  }
  return out;
}

void ParseShard(const std::string& text, int* k, int* n) {
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t used_k = 0, used_n = 0;
    *k = std::stoi(text.substr(0, slash), &used_k);
    *n = std::stoi(text.substr(slash + 1), &used_n);
    if (used_k != slash || used_n != text.size() - slash - 1) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument("--shard expects K/N (e.g. 2/8), got '" + text + "'");
  }
  if (*n < 1 || *k < 1 || *k > *n) throw std::invalid_argument("--shard " + text + ": need 1 <= K <= N");
}

}  // namespace limbic::experiment
