// Symbiotic evolution of the laser robot's network controller (spec reactive-topological §2.6, Fig. 5-5;
// E4): the training library (400 worlds: indices 500–599 of the 15/20/25/30 % libraries, A23), each
// generation 20 worlds drawn from it, 500 networks of 5 neurons sampled from 200, every network run on
// every drawn world for at most 60 s (A22) and scored by the Fig. 5-3 fitness (§2.6.3), then the neuron
// fitness, ranking and reproduction of services/laser_nav/sane.hpp.
//
// Parallel over threads (one task per network and world), and deterministic for a given seed whatever
// the number of jobs: each generation's random numbers come from a generator seeded by (seed,
// generation) and used by one thread only; the episodes of a generation share one seed per world; the
// results are reduced in network order. A checkpoint after every generation (the population and the
// log) lets a run stop and resume with the result of an uninterrupted run.
//
// The same loop evolves the recurrent network of §2.7 (E5, controller: rnn): the population is of
// recurrent neurons and the sampled networks have evolution.network_neurons (≤ 50) of them; everything
// else (worlds, fitness, selection, checkpoints, logs) is shared.
//
// Outputs (in the run directory): checkpoint.txt, generations.csv (one row per generation: Fig. 5-6's
// best and mean fitness, solved %, time, efficiency), progress.md (whether the fitness progressed),
// networks/generation_NNN.txt (each generation's best sampled network).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "services/laser_nav/neural_network.hpp"
#include "services/laser_nav/sane.hpp"
#include "services/laser_sim/episode.hpp"
#include "tools/laser/laser_experiment.hpp"

namespace limbic::laser {

// Fig. 5-3 (§2.6.3, A21): 10 + optimal path [m] / time [s] when the goal was reached, else − distance
// to the goal [m]; − collisions; − (25 − closest contact [cm]) / 25 when closer than 25 cm.
double GaFitness(const EpisodeResult& result);

// What one generation did (generations.csv).
struct GenerationRecord {
  int generation = 0;                                            // 1-based
  std::vector<int> worlds;                                       // indices into the training library
  double best_fitness = 0, mean_fitness = 0, worst_fitness = 0;  // over the sampled networks
  double best_solved_pct = 0;                                    // the best network's solved worlds
  double mean_solved_pct = 0;                                    // all episodes
  double mean_time_s = 0;                                        // solved episodes (0 if none)
  double mean_efficiency = 0;                                    // solved episodes
  double mean_collisions = 0;                                    // all episodes
  double wall_s = 0;                                             // not part of the result (differs between runs)
  Network best{};                                                // the best sampled network (nn)
  RecurrentNetwork best_recurrent;                               // the best sampled network (rnn)
};

struct EvolutionState {
  int generation = 0;                                 // generations completed
  std::vector<Neuron> population;                     // controller nn
  std::vector<RecurrentNeuron> recurrent_population;  // controller rnn
  std::vector<GenerationRecord> records;
};

// Whether the definition evolves the recurrent network (§2.7) rather than the feed-forward one.
bool EvolvesRecurrent(const LaserExperiment& experiment);

// The settings that decide the result, as text (a checkpoint refuses to resume under others).
std::string EvolutionFingerprint(const LaserExperiment& experiment);

// The population before generation 1.
EvolutionState StartEvolution(const LaserExperiment& experiment);

// The training worlds in library order (densities, then index), generated over `jobs` threads.
std::vector<World> TrainingLibrary(const LaserExperiment& experiment, int jobs);

struct EvolveOptions {
  int jobs = 1;
  int stop_after = 0;   // generations to run in this call (0: up to the definition's count)
  int generations = 0;  // overrides the definition's count when > 0
  std::string out_dir;  // checkpoint and logs; empty: nothing written
  bool resume = true;   // continue from OUT/checkpoint.txt when it exists
  bool progress = true;
};

// One generation in three steps (RunGeneration does all three; a sharded run spreads the middle one
// over processes): the drawn worlds and networks, and the generator that reproduction continues with;
// the episodes of task t = network · worlds + world for every t ≡ shard_k − 1 (mod shard_n) (other
// entries stay default); fitness, the record and reproduction.
struct GenerationPlan {
  int generation = 0;
  std::vector<int> worlds;
  std::vector<NetworkSample> samples;
  std::mt19937_64 rng;
};
GenerationPlan PlanGeneration(const LaserExperiment& experiment, size_t library_size, const EvolutionState& state);
std::vector<EpisodeResult> EvaluateGeneration(const LaserExperiment& experiment, const std::vector<World>& library,
                                              const GenerationPlan& plan, const EvolutionState& state, int jobs,
                                              int shard_k = 1, int shard_n = 1,
                                              const std::function<void(int64_t, int64_t)>& on_episodes = {});
void FinishGeneration(const LaserExperiment& experiment, GenerationPlan plan, const std::vector<EpisodeResult>& results,
                      double wall_s, EvolutionState* state);

// Runs one generation on `state` (evaluation over `jobs` threads, then reproduction).
// `on_episodes(done, total)` is called as episodes finish (from worker threads, serialised).
void RunGeneration(const LaserExperiment& experiment, const std::vector<World>& library, int jobs,
                   EvolutionState* state, const std::function<void(int64_t, int64_t)>& on_episodes = {});

// The whole run: resumes from the checkpoint, runs generations, writes the checkpoint and logs after
// each one. Throws std::runtime_error for a checkpoint that does not match the definition.
EvolutionState Evolve(const LaserExperiment& experiment, const EvolveOptions& options);

void SaveCheckpoint(const LaserExperiment& experiment, const EvolutionState& state, const std::string& path);
// Throws std::runtime_error naming the file and line for anything wrong, and for a fingerprint that
// differs from the experiment's.
EvolutionState LoadCheckpoint(const LaserExperiment& experiment, const std::string& path);

std::string GenerationsCsv(const std::vector<GenerationRecord>& records);

// Did the fitness progress? Compares the best (and mean) network fitness of the first and the last
// `window` generations (fewer when the run has under 2·window): progressed when the last window's mean
// best fitness exceeds the first's by more than twice the standard error of that difference (the
// generations see different worlds, so single generations swing); windows of one generation (fewer than
// 4 generations) never progress. E5 expects no progress (§2.7).
struct FitnessProgress {
  int window = 0;
  double first_best = 0, last_best = 0, first_mean = 0, last_mean = 0;
  double best_gain = 0, best_gain_se = 0;
  int best_generation = 0;  // the generation of the highest best fitness
  double best_ever = 0;
  bool progressed = false;
};
FitnessProgress MeasureProgress(const std::vector<GenerationRecord>& records, int window = 5);
// "the fitness progressed", "no meaningful progress" or "too few generations to tell".
std::string ProgressVerdict(const FitnessProgress& progress);
std::string ProgressMarkdown(const std::string& name, const std::vector<GenerationRecord>& records, int window = 5);

// Sharded evaluation (Slurm array tasks, the thesis' cluster scheme): EvolveShard evaluates every N-th
// task (K of N) of the generation after OUT/checkpoint.txt into OUT/shards/generation_GGG_shard_K_of_N.txt
// and returns its path; CollateShards reads all N, finishes that generation exactly as an unsharded run
// would, writes the checkpoint and logs, and removes the shard files. Both throw std::runtime_error for a
// missing, foreign or damaged shard, and when the run is complete.
std::string ShardFile(const std::string& out_dir, int generation, int k, int n);
std::string EvolveShard(const LaserExperiment& experiment, const std::string& out_dir, int k, int n, int jobs,
                        bool progress = false);
EvolutionState CollateShards(const LaserExperiment& experiment, const std::string& out_dir, int n);

// OUT/networks/generation_NNN.txt: a generation's best network (a recurrent network file for rnn).
std::string NetworkFile(const std::string& out_dir, int generation);

// E4 (`limbic laser experiment run` of a kind: evolution definition): evolves (resuming from the run
// directory's checkpoint), then runs each generation's best network (evaluate_best: every | last) on the
// test libraries like any episodes experiment — runs.csv, summary.csv/md, and input_usage.csv (gates
// passed per cycle for each input and output). Returns no episodes when the evolution stopped early.
RunOutput RunEvolutionExperiment(const LaserExperiment& experiment, const RunOptions& run,
                                 const EvolveOptions& evolve = {});

}  // namespace limbic::laser
