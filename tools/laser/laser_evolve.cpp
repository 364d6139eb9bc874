#include "tools/laser/laser_evolve.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/hash/fnv1a.hpp"
#include "sim/random.hpp"

namespace limbic::laser {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCheckpointMagic = "limbic-laser-evolution-checkpoint 1";
constexpr uint64_t kPopulationSalt = 0x5a4e0001;
constexpr uint64_t kGenerationSalt = 0x5a4e1000;

// Exact text of a double (round-trips), so a resumed run continues from the very same numbers.
std::string Exact(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::string Short(double v) {
  std::ostringstream s;
  s << std::setprecision(8) << v;
  return s.str();
}

std::string Duration(double s) {
  std::ostringstream o;
  if (!std::isfinite(s) || s < 0) return "?";
  const auto t = static_cast<int64_t>(std::llround(s));
  if (t >= 3600)
    o << t / 3600 << " h " << (t % 3600) / 60 << " min";
  else if (t >= 60)
    o << t / 60 << " min " << t % 60 << " s";
  else
    o << t << " s";
  return o.str();
}

std::mt19937_64 GenerationRng(const LaserExperiment& e, int generation) {
  return std::mt19937_64(sim::DeriveSeed(e.seed, kGenerationSalt + static_cast<uint64_t>(generation)));
}

// The per-world seed of one generation (laser errors, noise vectors): every network sees the same.
uint64_t GenerationEpisodeSeed(const LaserExperiment& e, int generation, int world) {
  return sim::DeriveSeed(sim::DeriveSeed(e.seed, kGenerationSalt + static_cast<uint64_t>(generation)),
                         static_cast<uint64_t>(world) + 1);
}

void WriteAtomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!(out << text) || !out.flush()) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot replace " + path.string() + ": " + ec.message());
}

// The population's size, whichever kind of neuron it holds.
size_t PopulationSize(const LaserExperiment& e, const EvolutionState& state) {
  return EvolvesRecurrent(e) ? state.recurrent_population.size() : state.population.size();
}

// A generation's best network as its text file (loadable by `limbic laser episode --network`).
std::string BestNetworkText(const LaserExperiment& e, const GenerationRecord& r) {
  std::ostringstream best;
  best << "# " << e.name << " generation " << r.generation << ": best sampled network, fitness "
       << Exact(r.best_fitness) << "\n";
  if (EvolvesRecurrent(e))
    SaveRecurrentNetwork(r.best_recurrent, best);
  else
    SaveNetwork(r.best, best);
  return best.str();
}

}  // namespace

bool EvolvesRecurrent(const LaserExperiment& e) { return e.controller == "rnn"; }

std::string NetworkFile(const std::string& out_dir, int generation) {
  char name[40];
  std::snprintf(name, sizeof name, "generation_%03d.txt", generation);
  return (fs::path(out_dir) / "networks" / name).string();
}

double GaFitness(const EpisodeResult& r) {
  // Fig. 5-3 as reconstructed in §2.6.3, units of A21.
  double fitness = 0.0;
  if (r.solved) {
    fitness = 10.0 + (r.optimal_cm / 100.0) / std::max(r.time_s, kControlPeriodS);
  } else {
    fitness -= r.final_goal_distance_cm / 100.0;
  }
  if (r.collisions > 0) fitness -= r.collisions;
  if (r.closest_contact_cm < 25.0) fitness -= (25.0 - r.closest_contact_cm) / 25.0;
  return fitness;
}

std::string EvolutionFingerprint(const LaserExperiment& e) {
  const EvolutionSettings& s = e.evolution;
  const NeuralOptions& n = e.configurations.front().nn_options;
  std::ostringstream t;
  t << "seed " << e.seed << " salt " << e.library_salt << " population " << s.sane.population << " networks "
    << s.sane.networks << " fraction " << Exact(s.sane.reproduce_fraction) << " mate_window " << s.sane.mate_window
    << " mutation " << Exact(s.sane.type_mutation) << " " << Exact(s.sane.value_mutation) << " worlds "
    << s.worlds_per_generation << " training";
  for (double d : s.training_densities) t << " " << Exact(d);
  t << " first " << s.training_first << " per_density " << s.training_per_density << " limit " << Exact(s.time_limit_s)
    << " training_cache " << s.laser_cache << " goal " << Exact(e.episode.goal_radius_cm) << " slip "
    << Exact(e.episode.slip_fraction) << " laser " << static_cast<int>(e.episode.laser.error_model) << " cache "
    << e.episode.laser.cache << " v_max " << Exact(e.episode.motion.v_max_cms) << " k_h "
    << Exact(e.episode.motion.k_heading_per_s) << " nn " << Exact(n.output_scale) << " " << Exact(n.np_s) << " "
    << Exact(n.s_cm) << " " << n.literal_integer_division << " " << Exact(n.environment.wander_window_s) << " "
    << static_cast<int>(n.weight.form) << " " << Exact(n.weight.k_obs) << " " << Exact(n.weight.w_contact);
  if (EvolvesRecurrent(e)) {
    // Only for rnn, so that the feed-forward runs' checkpoints keep their fingerprints.
    const RecurrentOptions& r = e.configurations.front().rnn_options;
    t << " rnn " << s.sane.network_size << " " << static_cast<int>(r.sectors) << " " << static_cast<int>(r.frame);
  }
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, hash::Fnv1a(t.str()));
  return hex;
}

EvolutionState StartEvolution(const LaserExperiment& e) {
  std::mt19937_64 rng(sim::DeriveSeed(e.seed, kPopulationSalt));
  EvolutionState state;
  if (EvolvesRecurrent(e))
    state.recurrent_population = InitialPopulation<RecurrentNeuron>(e.evolution.sane, rng);
  else
    state.population = InitialPopulation(e.evolution.sane, rng);
  return state;
}

std::vector<World> TrainingLibrary(const LaserExperiment& e, int jobs) {
  const EvolutionSettings& s = e.evolution;
  std::vector<World> worlds(s.training_densities.size() * static_cast<size_t>(s.training_per_density));
  std::vector<std::string> errors(worlds.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < worlds.size(); i = next++) {
      const double density = s.training_densities[i / static_cast<size_t>(s.training_per_density)];
      const int index = s.training_first + static_cast<int>(i % static_cast<size_t>(s.training_per_density));
      try {
        worlds[i] = GenerateWorld(density, index, e.library_salt, e.world);
      } catch (const std::exception& ex) {
        errors[i] = Short(density) + " % world " + std::to_string(index) + ": " + ex.what();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, jobs); ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  for (const std::string& err : errors) {
    if (!err.empty()) throw std::runtime_error("training library: " + err);
  }
  return worlds;
}

GenerationPlan PlanGeneration(const LaserExperiment& e, size_t library_size, const EvolutionState& state) {
  const EvolutionSettings& s = e.evolution;
  GenerationPlan plan;
  plan.generation = state.generation + 1;
  plan.rng = GenerationRng(e, plan.generation);
  if (static_cast<size_t>(s.worlds_per_generation) > library_size) {
    throw std::runtime_error("evolution: more worlds per generation than the training library holds");
  }
  // Fig. 5-5: W = 20 distinct worlds of the training library, then 500 networks of 5 neurons.
  while (static_cast<int>(plan.worlds.size()) < s.worlds_per_generation) {
    const int w = sim::UniformInt(plan.rng, 0, static_cast<int>(library_size) - 1);
    if (std::find(plan.worlds.begin(), plan.worlds.end(), w) == plan.worlds.end()) plan.worlds.push_back(w);
  }
  plan.samples = SampleNetworks(s.sane, plan.rng);
  return plan;
}

std::vector<EpisodeResult> EvaluateGeneration(const LaserExperiment& e, const std::vector<World>& library,
                                              const GenerationPlan& plan, const EvolutionState& state, int jobs,
                                              int shard_k, int shard_n,
                                              const std::function<void(int64_t, int64_t)>& on_episodes) {
  const EvolutionSettings& s = e.evolution;
  const int generation = plan.generation;
  const std::vector<int>& worlds = plan.worlds;
  const size_t per_network = worlds.size();
  std::vector<EpisodeResult> results(plan.samples.size() * per_network);
  std::vector<size_t> tasks;  // this shard's: every shard_n-th from shard_k − 1
  for (size_t t = static_cast<size_t>(shard_k - 1); t < results.size(); t += static_cast<size_t>(shard_n)) {
    tasks.push_back(t);
  }
  EpisodeOptions episode_options = e.episode;
  episode_options.time_limit_s = s.time_limit_s;
  episode_options.trajectory_every = 0;
  // One scan cache per drawn world for all its episodes (each fills it where its robot goes).
  std::vector<std::unique_ptr<SharedScanCache>> caches(per_network);
  if (s.laser_cache) {
    if (episode_options.laser.error_model == LaserErrorModel::kThesisApprox) {
      throw std::runtime_error("evolution: laser_cache needs laser_error none or uniform");
    }
    for (size_t w = 0; w < per_network; ++w) {
      caches[w] = std::make_unique<SharedScanCache>(library[static_cast<size_t>(worlds[w])]);
    }
  }
  const NeuralOptions base = e.configurations.front().nn_options;
  const RecurrentOptions recurrent_base = e.configurations.front().rnn_options;
  const bool recurrent = EvolvesRecurrent(e);
  std::atomic<size_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex report;
  std::vector<std::string> errors(tasks.size());
  auto worker = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) {
      const size_t t = tasks[i];
      const size_t n = t / per_network, w = t % per_network;
      try {
        const uint64_t seed = GenerationEpisodeSeed(e, generation, worlds[w]);
        EpisodeOptions eo = episode_options;
        eo.laser.cache = s.laser_cache;
        eo.laser.shared_cache = caches[w].get();
        LaserEpisode episode(library[static_cast<size_t>(worlds[w])], eo, seed);
        if (recurrent) {
          RecurrentOptions o = recurrent_base;
          o.network = Members(state.recurrent_population, plan.samples[n]);
          RecurrentController c(o);
          while (!episode.done()) episode.Advance(c.Step(episode.frame()));
        } else {
          NeuralOptions o = base;
          o.network = Assemble(state.population, plan.samples[n]);
          o.seed = sim::DeriveSeed(seed, 3);
          NeuralController c(o);
          while (!episode.done()) episode.Advance(c.Step(episode.frame()));
        }
        results[t] = episode.Result();
      } catch (const std::exception& ex) {
        errors[i] = ex.what();
      }
      const int64_t finished = ++done;
      if (on_episodes) {
        std::lock_guard<std::mutex> lock(report);
        on_episodes(finished, static_cast<int64_t>(tasks.size()));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, jobs); ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  for (const std::string& err : errors) {
    if (!err.empty()) throw std::runtime_error("generation " + std::to_string(generation) + ": " + err);
  }
  return results;
}

void FinishGeneration(const LaserExperiment& e, GenerationPlan plan, const std::vector<EpisodeResult>& results,
                      double wall_s, EvolutionState* state) {
  const EvolutionSettings& s = e.evolution;
  const int generation = plan.generation;
  const std::vector<int>& worlds = plan.worlds;
  const std::vector<NetworkSample>& samples = plan.samples;
  std::mt19937_64& rng = plan.rng;
  const size_t networks = samples.size(), per_network = worlds.size();
  if (results.size() != networks * per_network) throw std::runtime_error("evolution: one result per task");
  // Network fitness = mean over its worlds (§2.6.1 [A]); reduced in network order, so the sums do not
  // depend on which thread finished first.
  GenerationRecord rec;
  rec.generation = generation;
  rec.worlds = worlds;
  std::vector<double> fitness(networks, 0.0);
  int64_t solved = 0;
  double time_sum = 0, efficiency_sum = 0, collision_sum = 0;
  size_t best = 0;
  for (size_t n = 0; n < networks; ++n) {
    for (size_t w = 0; w < per_network; ++w) {
      const EpisodeResult& r = results[n * per_network + w];
      fitness[n] += GaFitness(r);
      collision_sum += r.collisions;
      if (r.solved) {
        ++solved;
        time_sum += r.time_s;
        efficiency_sum += r.efficiency;
      }
    }
    fitness[n] /= static_cast<double>(per_network);
    if (fitness[n] > fitness[best]) best = n;
  }
  int best_solved = 0;
  for (size_t w = 0; w < per_network; ++w) best_solved += results[best * per_network + w].solved ? 1 : 0;
  double fitness_sum = 0;
  for (double f : fitness) fitness_sum += f;
  const double episodes = static_cast<double>(results.size());
  rec.best_fitness = fitness[best];
  rec.mean_fitness = fitness_sum / static_cast<double>(networks);
  rec.worst_fitness = *std::min_element(fitness.begin(), fitness.end());
  rec.best_solved_pct = 100.0 * best_solved / static_cast<double>(per_network);
  rec.mean_solved_pct = 100.0 * static_cast<double>(solved) / episodes;
  rec.mean_time_s = solved ? time_sum / static_cast<double>(solved) : 0.0;
  rec.mean_efficiency = solved ? efficiency_sum / static_cast<double>(solved) : 0.0;
  rec.mean_collisions = collision_sum / episodes;
  // Eq. 5-1, rank, top quartile mates, bottom quartile replaced.
  const std::vector<int> ranking = RankNeurons(NeuronFitness(s.sane.population, samples, fitness));
  if (EvolvesRecurrent(e)) {
    rec.best_recurrent = Members(state->recurrent_population, samples[best]);
    Reproduce(&state->recurrent_population, ranking, s.sane, rng);
  } else {
    rec.best = Assemble(state->population, samples[best]);
    Reproduce(&state->population, ranking, s.sane, rng);
  }
  rec.wall_s = wall_s;
  state->records.push_back(std::move(rec));
  state->generation = generation;
}

void RunGeneration(const LaserExperiment& e, const std::vector<World>& library, int jobs, EvolutionState* state,
                   const std::function<void(int64_t, int64_t)>& on_episodes) {
  const auto started = std::chrono::steady_clock::now();
  GenerationPlan plan = PlanGeneration(e, library.size(), *state);
  const std::vector<EpisodeResult> results = EvaluateGeneration(e, library, plan, *state, jobs, 1, 1, on_episodes);
  FinishGeneration(e, std::move(plan), results,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), state);
}

std::string GenerationsCsv(const std::vector<GenerationRecord>& records) {
  std::ostringstream s;
  s << "generation,best_fitness,mean_fitness,worst_fitness,best_solved_pct,mean_solved_pct,mean_time_s,"
       "mean_efficiency,mean_collisions,wall_s,worlds\n";
  for (const GenerationRecord& r : records) {
    s << r.generation << "," << Short(r.best_fitness) << "," << Short(r.mean_fitness) << "," << Short(r.worst_fitness)
      << "," << Short(r.best_solved_pct) << "," << Short(r.mean_solved_pct) << "," << Short(r.mean_time_s) << ","
      << Short(r.mean_efficiency) << "," << Short(r.mean_collisions) << "," << Short(r.wall_s) << ",";
    for (size_t i = 0; i < r.worlds.size(); ++i) s << (i ? ";" : "") << r.worlds[i];
    s << "\n";
  }
  return s.str();
}

FitnessProgress MeasureProgress(const std::vector<GenerationRecord>& records, int window) {
  FitnessProgress p;
  const int n = static_cast<int>(records.size());
  p.window = std::max(1, std::min(window, n / 2));
  if (n == 0) return p;
  auto stats = [&](int from, double GenerationRecord::*field, double* mean, double* var) {
    double sum = 0, sq = 0;
    for (int g = from; g < from + p.window; ++g) sum += records[static_cast<size_t>(g)].*field;
    *mean = sum / p.window;
    for (int g = from; g < from + p.window; ++g) sq += std::pow(records[static_cast<size_t>(g)].*field - *mean, 2);
    *var = p.window > 1 ? sq / (p.window - 1) : 0.0;
  };
  double first_var = 0, last_var = 0, unused = 0;
  stats(0, &GenerationRecord::best_fitness, &p.first_best, &first_var);
  stats(n - p.window, &GenerationRecord::best_fitness, &p.last_best, &last_var);
  stats(0, &GenerationRecord::mean_fitness, &p.first_mean, &unused);
  stats(n - p.window, &GenerationRecord::mean_fitness, &p.last_mean, &unused);
  p.best_gain = p.last_best - p.first_best;
  p.best_gain_se = std::sqrt((first_var + last_var) / p.window);
  // Windows of at least 2 generations (a spread to compare with) and a gain of more than two standard
  // errors: fewer than 4 generations never show progress.
  p.progressed = p.window >= 2 && p.best_gain > 0.0 && p.best_gain > 2.0 * p.best_gain_se;
  p.best_ever = records.front().best_fitness;
  p.best_generation = records.front().generation;
  for (const GenerationRecord& r : records) {
    if (r.best_fitness > p.best_ever) {
      p.best_ever = r.best_fitness;
      p.best_generation = r.generation;
    }
  }
  return p;
}

std::string ProgressVerdict(const FitnessProgress& p) {
  if (p.progressed) return "the fitness progressed";
  return p.window < 2 ? "too few generations to tell" : "no meaningful progress";
}

std::string ProgressMarkdown(const std::string& name, const std::vector<GenerationRecord>& records, int window) {
  const FitnessProgress p = MeasureProgress(records, window);
  std::ostringstream s;
  s << "# " << name << ": evolution progress\n\n";
  s << "Generations: " << records.size() << ". Network fitness (Fig. 5-3, mean over each generation's worlds).\n\n";
  s << "| generations | mean best fitness | mean mean fitness |\n|---|---|---|\n";
  s << "| first " << p.window << " | " << Short(p.first_best) << " | " << Short(p.first_mean) << " |\n";
  s << "| last " << p.window << " | " << Short(p.last_best) << " | " << Short(p.last_mean) << " |\n\n";
  s << "Best fitness gain " << Short(p.best_gain) << " (standard error " << Short(p.best_gain_se)
    << "); highest best fitness " << Short(p.best_ever) << " in generation " << p.best_generation << ".\n\n";
  s << "**Verdict: " << ProgressVerdict(p)
    << "** (progress = the last window's mean best fitness above the first's by more than two standard "
       "errors).\n";
  return s.str();
}

void SaveCheckpoint(const LaserExperiment& e, const EvolutionState& state, const std::string& path) {
  std::ostringstream s;
  s << kCheckpointMagic << "\n";
  s << "experiment " << e.name << "\n";
  s << "fingerprint " << EvolutionFingerprint(e) << "\n";
  s << "generation " << state.generation << "\n";
  const bool recurrent = EvolvesRecurrent(e);
  s << "population " << PopulationSize(e, state) << "\n";
  if (recurrent) {
    for (const RecurrentNeuron& n : state.recurrent_population) s << FormatRecurrentNeuron(n) << "\n";
  } else {
    for (const Neuron& n : state.population) s << FormatNeuron(n) << "\n";
  }
  for (const GenerationRecord& r : state.records) {
    s << "record " << r.generation << " " << Exact(r.best_fitness) << " " << Exact(r.mean_fitness) << " "
      << Exact(r.worst_fitness) << " " << Exact(r.best_solved_pct) << " " << Exact(r.mean_solved_pct) << " "
      << Exact(r.mean_time_s) << " " << Exact(r.mean_efficiency) << " " << Exact(r.mean_collisions) << " "
      << Exact(r.wall_s) << " " << r.worlds.size();
    for (int w : r.worlds) s << " " << w;
    s << "\n";
    if (recurrent) {
      for (const RecurrentNeuron& n : r.best_recurrent) s << FormatRecurrentNeuron(n) << "\n";
    } else {
      for (const Neuron& n : r.best) s << FormatNeuron(n) << "\n";
    }
  }
  s << "end\n";
  WriteAtomically(path, s.str());
}

EvolutionState LoadCheckpoint(const LaserExperiment& e, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  int line_no = 0;
  std::string line;
  auto where = [&] { return path + ":" + std::to_string(line_no); };
  auto next_line = [&]() -> std::istringstream {
    if (!std::getline(in, line)) throw std::runtime_error(path + ": ends early (a partial checkpoint?)");
    ++line_no;
    return std::istringstream(line);
  };
  auto expect_word = [&](std::istringstream& s, const std::string& word) {
    std::string w;
    if (!(s >> w) || w != word) throw std::runtime_error(where() + ": expected '" + word + "'");
  };
  {
    next_line();
    if (line != kCheckpointMagic) throw std::runtime_error(path + ": not an evolution checkpoint");
  }
  {
    auto s = next_line();
    expect_word(s, "experiment");
  }
  {
    auto s = next_line();
    expect_word(s, "fingerprint");
    std::string f;
    s >> f;
    if (f != EvolutionFingerprint(e)) {
      throw std::runtime_error(path + ": written under other settings than " + e.source +
                               " (seed, population, worlds, limits, ...); start afresh (--fresh) or use another --out");
    }
  }
  EvolutionState state;
  size_t population = 0;
  {
    auto s = next_line();
    expect_word(s, "generation");
    if (!(s >> state.generation) || state.generation < 0) throw std::runtime_error(where() + ": bad generation");
  }
  {
    auto s = next_line();
    expect_word(s, "population");
    if (!(s >> population) || population != static_cast<size_t>(e.evolution.sane.population)) {
      throw std::runtime_error(where() + ": population size differs from the definition");
    }
  }
  const bool recurrent = EvolvesRecurrent(e);
  for (size_t i = 0; i < population; ++i) {
    next_line();
    if (recurrent)
      state.recurrent_population.push_back(ParseRecurrentNeuron(line, where()));
    else
      state.population.push_back(ParseNeuron(line, where()));
  }
  for (int g = 0; g < state.generation; ++g) {
    auto s = next_line();
    expect_word(s, "record");
    GenerationRecord r;
    size_t worlds = 0;
    if (!(s >> r.generation >> r.best_fitness >> r.mean_fitness >> r.worst_fitness >> r.best_solved_pct >>
          r.mean_solved_pct >> r.mean_time_s >> r.mean_efficiency >> r.mean_collisions >> r.wall_s >> worlds) ||
        r.generation != g + 1 || worlds > 100000) {
      throw std::runtime_error(where() + ": bad generation record");
    }
    r.worlds.resize(worlds);
    for (int& w : r.worlds) {
      if (!(s >> w)) throw std::runtime_error(where() + ": bad world list");
    }
    if (recurrent) {
      // The best network has the definition's size (the fingerprint fixes it).
      for (int j = 0; j < e.evolution.sane.network_size; ++j) {
        next_line();
        r.best_recurrent.push_back(ParseRecurrentNeuron(line, where()));
      }
    } else {
      for (Neuron& n : r.best) {
        next_line();
        n = ParseNeuron(line, where());
      }
    }
    state.records.push_back(std::move(r));
  }
  next_line();
  if (line != "end") throw std::runtime_error(where() + ": expected 'end'");
  return state;
}

namespace {

// After a generation: the checkpoint, the logs and the generation's best network (loadable by
// `limbic laser episode --network`).
void WriteRunFiles(const LaserExperiment& e, const EvolutionState& state, const std::string& out_dir) {
  const fs::path dir(out_dir);
  SaveCheckpoint(e, state, (dir / "checkpoint.txt").string());
  WriteAtomically(dir / "generations.csv", GenerationsCsv(state.records));
  WriteAtomically(dir / "progress.md", ProgressMarkdown(e.name, state.records));
  const GenerationRecord& r = state.records.back();
  fs::create_directories(dir / "networks");
  WriteAtomically(NetworkFile(out_dir, r.generation), BestNetworkText(e, r));
}

}  // namespace

EvolutionState Evolve(const LaserExperiment& e, const EvolveOptions& options) {
  LaserExperiment run = e;
  if (options.generations > 0) run.evolution.generations = options.generations;
  const int total = run.evolution.generations;
  const fs::path dir(options.out_dir);
  const fs::path checkpoint = dir / "checkpoint.txt";
  EvolutionState state;
  if (!options.out_dir.empty() && options.resume && fs::exists(checkpoint)) {
    state = LoadCheckpoint(run, checkpoint.string());
    if (options.progress) {
      std::cerr << run.name << ": resuming from " << checkpoint.string() << " after generation " << state.generation
                << "\n";
    }
  } else {
    state = StartEvolution(run);
  }
  if (state.generation >= total) return state;
  const auto library_started = std::chrono::steady_clock::now();
  const std::vector<World> library = TrainingLibrary(run, options.jobs);
  if (options.progress) {
    std::cerr << run.name << ": training library of " << library.size() << " worlds in "
              << Short(std::chrono::duration<double>(std::chrono::steady_clock::now() - library_started).count())
              << " s; " << run.evolution.sane.networks << " networks x " << run.evolution.worlds_per_generation
              << " worlds per generation, " << options.jobs << " jobs\n";
  }
  const auto run_started = std::chrono::steady_clock::now();
  int ran = 0;
  double generation_s_sum = 0;
  while (state.generation < total && (options.stop_after <= 0 || ran < options.stop_after)) {
    const auto started = std::chrono::steady_clock::now();
    const int generation = state.generation + 1;
    const int remaining_after = total - generation;
    double last_report_s = -1.0;
    auto progress = [&](int64_t done, int64_t episodes) {
      if (!options.progress) return;
      if (done != episodes && done % std::max<int64_t>(1, episodes / 50) != 0) return;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (done != episodes && elapsed - last_report_s < 1.0) return;  // at most once a second
      last_report_s = elapsed;
      const double eta_generation = elapsed / static_cast<double>(done) * static_cast<double>(episodes - done);
      const double per_generation =
          ran > 0 ? generation_s_sum / ran : elapsed / static_cast<double>(done) * static_cast<double>(episodes);
      std::cerr << "\rgeneration " << generation << "/" << total << ": " << done << "/" << episodes
                << " episodes, ETA generation " << Duration(eta_generation) << ", run "
                << Duration(eta_generation + per_generation * remaining_after) << "      " << std::flush;
    };
    RunGeneration(run, library, options.jobs, &state, progress);
    ++ran;
    const GenerationRecord& r = state.records.back();
    generation_s_sum += r.wall_s;
    if (options.progress) {
      std::cerr << "\rgeneration " << generation << "/" << total << ": best fitness " << Short(r.best_fitness)
                << " (solved " << Short(r.best_solved_pct) << " %), mean " << Short(r.mean_fitness) << ", solved "
                << Short(r.mean_solved_pct) << " % of episodes, " << Short(r.wall_s) << " s; run ETA "
                << Duration(generation_s_sum / ran * (total - generation)) << "              \n";
    }
    if (!options.out_dir.empty()) {
      WriteRunFiles(run, state, options.out_dir);
    }
  }
  if (options.progress && !state.records.empty()) {
    const FitnessProgress p = MeasureProgress(state.records);
    std::cerr << run.name << ": best fitness " << Short(p.first_best) << " (first " << p.window << " generations) -> "
              << Short(p.last_best) << " (last " << p.window << "): " << ProgressVerdict(p) << "\n";
  }
  if (options.progress) {
    std::cerr << run.name << ": " << ran << " generation(s) in "
              << Short(std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count()) << " s, "
              << state.generation << "/" << total << " done\n";
  }
  return state;
}

std::string ShardFile(const std::string& out_dir, int generation, int k, int n) {
  char name[80];
  std::snprintf(name, sizeof name, "generation_%03d_shard_%d_of_%d.txt", generation, k, n);
  return (fs::path(out_dir) / "shards" / name).string();
}

namespace {

EvolutionState LoadOrStart(const LaserExperiment& e, const std::string& out_dir) {
  const fs::path checkpoint = fs::path(out_dir) / "checkpoint.txt";
  return fs::exists(checkpoint) ? LoadCheckpoint(e, checkpoint.string()) : StartEvolution(e);
}

void CheckShard(int k, int n) {
  if (n < 1 || k < 1 || k > n) throw std::invalid_argument("shard K/N needs 1 <= K <= N");
}

}  // namespace

std::string EvolveShard(const LaserExperiment& e, const std::string& out_dir, int k, int n, int jobs, bool progress) {
  CheckShard(k, n);
  const EvolutionState state = LoadOrStart(e, out_dir);
  if (state.generation >= e.evolution.generations) {
    throw std::runtime_error(e.name + ": all " + std::to_string(e.evolution.generations) + " generations are done");
  }
  const std::vector<World> library = TrainingLibrary(e, jobs);
  const GenerationPlan plan = PlanGeneration(e, library.size(), state);
  auto report = [&](int64_t done, int64_t total) {
    if (progress && (done == total || done % std::max<int64_t>(1, total / 20) == 0)) {
      std::cerr << "\rgeneration " << plan.generation << " shard " << k << "/" << n << ": " << done << "/" << total
                << " episodes" << (done == total ? "\n" : "") << std::flush;
    }
  };
  const std::vector<EpisodeResult> results = EvaluateGeneration(e, library, plan, state, jobs, k, n, report);
  std::ostringstream s;
  s << "limbic-laser-evolution-shard 1\nfingerprint " << EvolutionFingerprint(e) << "\ngeneration " << plan.generation
    << "\nshard " << k << " " << n << "\n";
  for (size_t t = static_cast<size_t>(k - 1); t < results.size(); t += static_cast<size_t>(n)) {
    const EpisodeResult& r = results[t];
    s << t << " " << r.solved << " " << Exact(r.time_s) << " " << Exact(r.path_cm) << " " << Exact(r.optimal_cm) << " "
      << Exact(r.efficiency) << " " << r.collisions << " " << Exact(r.closest_contact_cm) << " "
      << Exact(r.final_goal_distance_cm) << " " << r.cycles << "\n";
  }
  s << "end\n";
  const std::string path = ShardFile(out_dir, plan.generation, k, n);
  fs::create_directories(fs::path(path).parent_path());
  WriteAtomically(path, s.str());
  return path;
}

EvolutionState CollateShards(const LaserExperiment& e, const std::string& out_dir, int n) {
  CheckShard(1, n);
  EvolutionState state = LoadOrStart(e, out_dir);
  if (state.generation >= e.evolution.generations) {
    throw std::runtime_error(e.name + ": all " + std::to_string(e.evolution.generations) + " generations are done");
  }
  const size_t library_size =
      e.evolution.training_densities.size() * static_cast<size_t>(e.evolution.training_per_density);
  GenerationPlan plan = PlanGeneration(e, library_size, state);
  std::vector<EpisodeResult> results(plan.samples.size() * plan.worlds.size());
  std::vector<bool> seen(results.size(), false);
  std::vector<std::string> files;
  for (int k = 1; k <= n; ++k) {
    const std::string path = ShardFile(out_dir, plan.generation, k, n);
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": missing (shard " + std::to_string(k) + "/" + std::to_string(n) + ")");
    files.push_back(path);
    std::string magic, word, fingerprint;
    int generation = 0, kk = 0, nn = 0;
    std::getline(in, magic);
    if (magic != "limbic-laser-evolution-shard 1" || !(in >> word >> fingerprint) || word != "fingerprint" ||
        !(in >> word >> generation) || word != "generation" || !(in >> word >> kk >> nn) || word != "shard") {
      throw std::runtime_error(path + ": not an evolution shard");
    }
    if (fingerprint != EvolutionFingerprint(e) || generation != plan.generation || kk != k || nn != n) {
      throw std::runtime_error(path + ": from another run, generation or sharding");
    }
    while (in >> word && word != "end") {
      size_t t = 0;
      EpisodeResult r;
      try {
        t = std::stoul(word);
      } catch (const std::exception&) {
        throw std::runtime_error(path + ": bad task '" + word + "'");
      }
      if (t >= results.size() || t % static_cast<size_t>(n) != static_cast<size_t>(k - 1) || seen[t] ||
          !(in >> r.solved >> r.time_s >> r.path_cm >> r.optimal_cm >> r.efficiency >> r.collisions >>
            r.closest_contact_cm >> r.final_goal_distance_cm >> r.cycles)) {
        throw std::runtime_error(path + ": bad line for task " + word);
      }
      results[t] = r;
      seen[t] = true;
    }
    if (word != "end") throw std::runtime_error(path + ": ends early");
  }
  const size_t missing = static_cast<size_t>(std::count(seen.begin(), seen.end(), false));
  if (missing)
    throw std::runtime_error(std::to_string(missing) + " task(s) of generation " + std::to_string(plan.generation) +
                             " are in no shard");
  FinishGeneration(e, std::move(plan), results, 0.0, &state);
  WriteRunFiles(e, state, out_dir);
  for (const std::string& f : files) fs::remove(f);
  return state;
}

}  // namespace limbic::laser

namespace limbic::laser {

RunOutput RunEvolutionExperiment(const LaserExperiment& e, const RunOptions& run, const EvolveOptions& evolve) {
  EvolveOptions o = evolve;
  o.out_dir = run.out_dir;
  o.jobs = run.jobs;
  o.progress = run.progress;
  const EvolutionState state = Evolve(e, o);
  const int total = o.generations > 0 ? o.generations : e.evolution.generations;
  RunOutput out;
  if (state.generation < total || e.evolution.evaluate_best == "none") return out;  // stopped early, or no test
  // E4: each generation's best network (or the last one's) on the test libraries.
  LaserExperiment test = e;
  test.kind = "episodes";
  test.configurations.clear();
  for (const GenerationRecord& r : state.records) {
    if (e.evolution.evaluate_best == "last" && r.generation != state.generation) continue;
    LaserConfiguration c = e.configurations.front();
    c.label = "generation " + std::to_string(r.generation);
    c.nn_options.network = r.best;
    c.rnn_options.network = r.best_recurrent;
    c.network_given = true;
    test.configurations.push_back(c);
  }
  out = RunLaserExperiment(test, run);
  if (!run.out_dir.empty() && !EvolvesRecurrent(e)) {
    // Which inputs (and outputs) the evolved gates pass, per network: gates passed per control cycle,
    // averaged over its test episodes.
    std::ostringstream s;
    s << "configuration,episodes";
    for (const char* name : kNetworkInputNames) s << ",pass_" << name;
    for (const char* name : kNetworkOutputNames) s << ",pass_" << name;
    s << "\n";
    for (const LaserConfiguration& c : test.configurations) {
      GateCounts sum;
      int episodes = 0;
      for (const EpisodeRow& row : out.episodes) {
        if (row.configuration != c.label) continue;
        ++episodes;
        sum.evaluations += row.gates.evaluations;
        for (int i = 0; i < kNnInputs; ++i) sum.input_passed[i] += row.gates.input_passed[i];
        for (int i = 0; i < kNnOutputs; ++i) sum.output_passed[i] += row.gates.output_passed[i];
      }
      const double cycles = static_cast<double>(std::max<int64_t>(1, sum.evaluations));
      s << c.label << "," << episodes;
      for (int64_t n : sum.input_passed) s << "," << Short(static_cast<double>(n) / cycles);
      for (int64_t n : sum.output_passed) s << "," << Short(static_cast<double>(n) / cycles);
      s << "\n";
    }
    WriteAtomically(fs::path(run.out_dir) / "input_usage.csv", s.str());
  }
  return out;
}

}  // namespace limbic::laser
