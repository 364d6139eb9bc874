#include "tools/laser/laser_evolve.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/config/config.hpp"
#include "tools/laser/laser_test_support.hpp"

namespace limbic::laser {
namespace {

namespace fs = std::filesystem;

using test_support::ReadFile;
using test_support::RunCommand;
using test_support::TempDir;

LaserExperiment Smoke() {
  return FindLaserExperiment("laser_e4_smoke", std::string(LIMBIC_SOURCE_ROOT) + "/experiments/laser");
}

// Everything that is the result (the wall time is not).
void ExpectSameResult(const EvolutionState& a, const EvolutionState& b) {
  ASSERT_EQ(a.generation, b.generation);
  EXPECT_EQ(a.population, b.population);
  ASSERT_EQ(a.records.size(), b.records.size());
  for (size_t g = 0; g < a.records.size(); ++g) {
    const GenerationRecord &x = a.records[g], &y = b.records[g];
    EXPECT_EQ(x.worlds, y.worlds) << "generation " << g + 1;
    EXPECT_EQ(x.best_fitness, y.best_fitness) << "generation " << g + 1;
    EXPECT_EQ(x.mean_fitness, y.mean_fitness);
    EXPECT_EQ(x.worst_fitness, y.worst_fitness);
    EXPECT_EQ(x.mean_solved_pct, y.mean_solved_pct);
    EXPECT_EQ(x.mean_collisions, y.mean_collisions);
    EXPECT_EQ(x.best, y.best);
    EXPECT_EQ(x.best_recurrent, y.best_recurrent);
  }
  EXPECT_EQ(a.recurrent_population, b.recurrent_population);
}

// generations.csv without its wall-time column (the only part that differs between equal runs).
std::string LogWithoutWallTime(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream l(line);
    for (std::string f; std::getline(l, f, ',');) fields.push_back(f);
    if (fields.size() > 9) fields.erase(fields.begin() + 9);  // wall_s
    for (const std::string& f : fields) out += f + ",";
    out += "\n";
  }
  return out;
}

LaserExperiment RecurrentSmoke() {
  return FindLaserExperiment("laser_e5_smoke", std::string(LIMBIC_SOURCE_ROOT) + "/experiments/laser");
}

TEST(LaserEvolution, FitnessOfFig53) {
  EpisodeResult solved;
  solved.solved = true;
  solved.optimal_cm = 700;
  solved.time_s = 20;
  solved.closest_contact_cm = 30;
  EXPECT_DOUBLE_EQ(GaFitness(solved), 10.0 + 7.0 / 20.0);  // 10 + optimal [m] / time [s]
  EpisodeResult failed;
  failed.final_goal_distance_cm = 250;
  failed.collisions = 2;
  failed.closest_contact_cm = 20;
  EXPECT_DOUBLE_EQ(GaFitness(failed), -2.5 - 2.0 - 0.2);  // − distance [m] − collisions − (25 − 20)/25
  failed.closest_contact_cm = 25;
  EXPECT_DOUBLE_EQ(GaFitness(failed), -4.5);  // no contact penalty from 25 cm on
}

TEST(LaserEvolution, SmokeDefinitionLoadsWithTheSpecDefaultsAndE4HasTheSpecSettings) {
  const LaserExperiment e4 =
      FindLaserExperiment("laser_e4_evolution", std::string(LIMBIC_SOURCE_ROOT) + "/experiments/laser");
  EXPECT_EQ(e4.kind, "evolution");
  EXPECT_EQ(e4.evolution.sane.population, 200);
  EXPECT_EQ(e4.evolution.sane.networks, 500);
  EXPECT_EQ(e4.evolution.worlds_per_generation, 20);
  EXPECT_EQ(e4.evolution.generations, 100);
  EXPECT_EQ(e4.evolution.training_densities.size() * e4.evolution.training_per_density, 400u);
  EXPECT_DOUBLE_EQ(e4.evolution.time_limit_s, 60.0);
  const LaserExperiment smoke = Smoke();
  const std::vector<World> library = TrainingLibrary(smoke, 2);
  ASSERT_EQ(library.size(), 4u);
  EXPECT_EQ(library[0].id, 500);  // A23: indices 500.. of the test libraries
  EXPECT_DOUBLE_EQ(library[3].density_pct, 20.0);
}

// Seeded and deterministic for a given seed whatever the job count, and different for another seed.
TEST(LaserEvolution, SameSeedSameResultWithOneOrTwoJobs) {
  const LaserExperiment e = Smoke();
  const std::vector<World> library = TrainingLibrary(e, 1);
  EvolutionState one = StartEvolution(e), two = StartEvolution(e);
  for (int g = 0; g < 2; ++g) {
    RunGeneration(e, library, 1, &one);
    RunGeneration(e, library, 2, &two);
  }
  ExpectSameResult(one, two);
  EXPECT_NE(one.population, StartEvolution(e).population);  // reproduction changed it
  LaserExperiment other = e;
  other.seed = 2;
  EvolutionState three = StartEvolution(other);
  RunGeneration(other, library, 2, &three);
  EXPECT_NE(three.population, one.population);
}

// Stop after k generations, resume from the checkpoint: the same as an uninterrupted run.
TEST(LaserEvolution, ResumedRunEqualsUninterruptedRun) {
  const LaserExperiment e = Smoke();
  const fs::path stopped = TempDir("stopped"), straight = TempDir("straight");
  EvolveOptions o;
  o.jobs = 2;
  o.progress = false;
  o.out_dir = stopped.string();
  o.stop_after = 1;
  EXPECT_EQ(Evolve(e, o).generation, 1);
  EXPECT_EQ(LoadCheckpoint(e, (stopped / "checkpoint.txt").string()).generation, 1);
  EXPECT_EQ(Evolve(e, o).generation, 2);  // resumed: one more
  o.stop_after = 0;
  const EvolutionState resumed = Evolve(e, o);  // to the end (3)
  EXPECT_EQ(resumed.generation, 3);
  o.out_dir = straight.string();
  const EvolutionState uninterrupted = Evolve(e, o);
  ExpectSameResult(resumed, uninterrupted);
  ExpectSameResult(LoadCheckpoint(e, (stopped / "checkpoint.txt").string()), uninterrupted);
  // The logs: one row per generation; the same rows but for the wall time.
  const std::string log = ReadFile(stopped / "generations.csv");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 4);
  EXPECT_EQ(log.substr(0, log.find('\n')),
            "generation,best_fitness,mean_fitness,worst_fitness,best_solved_pct,mean_solved_pct,mean_time_s,"
            "mean_efficiency,mean_collisions,wall_s,worlds");
  EXPECT_EQ(LoadNetworkFile(NetworkFile(stopped.string(), 3)), uninterrupted.records[2].best);
  // A finished run does nothing more.
  EXPECT_EQ(Evolve(e, o).generation, 3);
  fs::remove_all(stopped);
  fs::remove_all(straight);
}

// The thesis' cluster scheme: shards of a generation's evaluations, collated, equal an unsharded run.
TEST(LaserEvolution, ShardedGenerationsEqualUnshardedOnes) {
  const LaserExperiment e = Smoke();
  const fs::path dir = TempDir("shards");
  for (int g = 0; g < 2; ++g) {
    EXPECT_THROW(CollateShards(e, dir.string(), 3), std::runtime_error);  // no shard yet
    for (int k = 3; k >= 1; --k) EXPECT_TRUE(fs::exists(EvolveShard(e, dir.string(), k, 3, 1)));
    EXPECT_EQ(CollateShards(e, dir.string(), 3).generation, g + 1);
    EXPECT_FALSE(fs::exists(ShardFile(dir.string(), g + 1, 1, 3)));  // removed once collated
  }
  EvolutionState straight = StartEvolution(e);
  const std::vector<World> library = TrainingLibrary(e, 1);
  RunGeneration(e, library, 2, &straight);
  RunGeneration(e, library, 2, &straight);
  ExpectSameResult(LoadCheckpoint(e, (dir / "checkpoint.txt").string()), straight);
  // A damaged or foreign shard is refused.
  const std::string shard = EvolveShard(e, dir.string(), 1, 2, 1);
  EvolveShard(e, dir.string(), 2, 2, 1);
  const std::string text = ReadFile(shard);
  std::ofstream(shard) << text.substr(0, text.size() - 10);
  EXPECT_THROW(CollateShards(e, dir.string(), 2), std::runtime_error);
  LaserExperiment other = e;
  other.seed = 9;
  EXPECT_THROW(CollateShards(other, dir.string(), 2), std::runtime_error);
  EXPECT_THROW(EvolveShard(e, dir.string(), 3, 2, 1), std::invalid_argument);
  fs::remove_all(dir);
}

TEST(LaserEvolution, CheckpointRefusesOtherSettingsAndDamage) {
  const LaserExperiment e = Smoke();
  const fs::path dir = TempDir("checkpoint");
  EvolutionState state = StartEvolution(e);
  RunGeneration(e, TrainingLibrary(e, 1), 1, &state);
  const std::string path = (dir / "checkpoint.txt").string();
  SaveCheckpoint(e, state, path);
  ExpectSameResult(LoadCheckpoint(e, path), state);
  LaserExperiment other = e;
  other.evolution.sane.value_mutation = 0.05;
  try {
    LoadCheckpoint(other, path);
    ADD_FAILURE() << "a checkpoint of other settings loaded";
  } catch (const std::runtime_error& err) {
    EXPECT_NE(std::string(err.what()).find("other settings"), std::string::npos) << err.what();
  }
  // Truncated (a run killed while writing would leave the old file: writes go through a rename).
  const std::string text = ReadFile(path);
  std::ofstream(path) << text.substr(0, text.size() / 2);
  EXPECT_THROW(LoadCheckpoint(e, path), std::runtime_error);
  std::ofstream(path) << "something else\n";
  EXPECT_THROW(LoadCheckpoint(e, path), std::runtime_error);
  EXPECT_THROW(LoadCheckpoint(e, (dir / "missing.txt").string()), std::runtime_error);
  // Evolve refuses to resume from it rather than starting over silently.
  EvolveOptions o;
  o.progress = false;
  o.out_dir = dir.string();
  EXPECT_THROW(Evolve(e, o), std::runtime_error);
  fs::remove_all(dir);
}

TEST(LaserEvolution, CommandLineEvolvesResumesAndRunsTheEvolvedNetwork) {
  const std::string exe = std::string(LIMBIC_BUILD_BIN_DIR) + "/limbic-laser";
  const fs::path out = TempDir("cli");
  std::string text;
  // The --help examples (with the output directory moved under the test's).
  ASSERT_EQ(RunCommand(exe + " evolve --help", &text), 0);
  EXPECT_NE(text.find("limbic laser evolve laser_e4_smoke --out /tmp/e4s"), std::string::npos);
  ASSERT_EQ(RunCommand(exe + " evolve laser_e4_smoke --stop-after 2 --jobs 2 --out " + out.string(), &text), 0) << text;
  EXPECT_NE(text.find("generation 2/3"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA"), std::string::npos) << text;
  ASSERT_EQ(RunCommand(exe + " evolve laser_e4_smoke --jobs 2 --out " + out.string(), &text), 0) << text;
  EXPECT_NE(text.find("resuming from"), std::string::npos) << text;
  EXPECT_NE(text.find("3/3 generations"), std::string::npos) << text;
  const std::string network = NetworkFile(out.string(), 2);
  ASSERT_TRUE(fs::exists(network));
  ASSERT_EQ(RunCommand(exe + " episode --density 15 --index 0 --controller nn --network " + network, &text), 0) << text;
  EXPECT_NE(text.find("nn: "), std::string::npos) << text;
  EXPECT_NE(text.find("gates passed per cycle: density"), std::string::npos) << text;
  // Unhappy paths: exit 2 with the reason.
  EXPECT_EQ(RunCommand(exe + " evolve laser_e4_smoke --generations nan --out " + out.string(), &text), 2);
  EXPECT_NE(text.find("--generations"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " evolve laser_smoke --out " + out.string(), &text), 2);
  EXPECT_NE(text.find("is not an evolution"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " episode --density 15 --index 0 --controller nn", &text), 2);
  EXPECT_NE(text.find("needs --network"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(
                exe + " episode --density 15 --index 0 --controller nn --network " + (out / "generations.csv").string(),
                &text),
            1);
  EXPECT_NE(text.find("expected a line 'neuron"), std::string::npos) << text;
  // Shards through the command line (the --help example), and their misuse.
  const fs::path sharded = out / "sharded";
  ASSERT_EQ(RunCommand(exe + " evolve laser_e4_smoke --out " + sharded.string() + " --shard 1/2", &text), 0) << text;
  ASSERT_EQ(RunCommand(exe + " evolve laser_e4_smoke --out " + sharded.string() + " --shard 2/2", &text), 0) << text;
  ASSERT_EQ(RunCommand(exe + " evolve laser_e4_smoke --out " + sharded.string() + " --collate 2", &text), 0) << text;
  EXPECT_NE(text.find("generation 1/3 collated from 2 shards"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " evolve laser_e4_smoke --out " + sharded.string() + " --shard 3/2", &text), 2);
  EXPECT_EQ(RunCommand(exe + " evolve laser_e4_smoke --out " + sharded.string() + " --shard 2", &text), 2);
  EXPECT_EQ(RunCommand(exe + " evolve laser_e4_smoke --out " + sharded.string() + " --collate 2", &text), 1);
  EXPECT_NE(text.find("missing"), std::string::npos) << text;
  // E4 in miniature through `experiment run`: evolution, then the best network on the test worlds.
  const fs::path e4 = out / "e4";
  ASSERT_EQ(RunCommand(exe + " experiment run laser_e4_smoke --jobs 2 --out " + e4.string(), &text), 0) << text;
  const std::string runs = ReadFile(e4 / "runs.csv");
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 1 + 2);  // the last generation's best on 2 worlds
  EXPECT_NE(runs.find("generation 3"), std::string::npos);
  EXPECT_NE(runs.find("pass_wander"), std::string::npos);
  const std::string usage = ReadFile(e4 / "input_usage.csv");
  EXPECT_NE(usage.find("configuration,episodes,pass_density"), std::string::npos) << usage;
  EXPECT_NE(usage.find("generation 3,2,"), std::string::npos) << usage;
  EXPECT_TRUE(fs::exists(e4 / "summary.md"));
  fs::remove_all(out);
}

// E5 (§2.7): the recurrent network through the same loop.
TEST(LaserEvolutionRecurrent, E5DefinitionsHaveTheSpecSettings) {
  const std::string dir = std::string(LIMBIC_SOURCE_ROOT) + "/experiments/laser";
  const LaserExperiment e5 = FindLaserExperiment("laser_e5_recurrent", dir);
  EXPECT_EQ(e5.section, "E5");
  EXPECT_EQ(e5.kind, "evolution");
  EXPECT_TRUE(EvolvesRecurrent(e5));
  EXPECT_GE(e5.evolution.generations, 20);  // §4 E5
  EXPECT_EQ(e5.evolution.sane.network_size, 50);
  EXPECT_EQ(e5.evolution.sane.population, 200);
  EXPECT_EQ(e5.evolution.sane.networks, 500);
  EXPECT_EQ(e5.evolution.worlds_per_generation, 20);
  const LaserExperiment reduced = FindLaserExperiment("laser_e5_reduced", dir);
  EXPECT_GE(reduced.evolution.generations, 20);
  EXPECT_NE(EvolutionFingerprint(reduced), EvolutionFingerprint(e5));
  const EvolutionState start = StartEvolution(e5);
  EXPECT_EQ(start.recurrent_population.size(), 200u);
  EXPECT_TRUE(start.population.empty());
  EXPECT_FALSE(EvolvesRecurrent(Smoke()));
}

// Same seed → same log and population; a stopped run resumed from its checkpoint ends where an
// uninterrupted one does; another seed differs.
TEST(LaserEvolutionRecurrent, SmokeIsDeterministicAndResumesToTheSameResult) {
  const LaserExperiment e = RecurrentSmoke();
  const fs::path stopped = TempDir("rnn_stopped"), straight = TempDir("rnn_straight"), again = TempDir("rnn_again");
  EvolveOptions o;
  o.jobs = 2;
  o.progress = false;
  o.out_dir = stopped.string();
  o.stop_after = 1;
  EXPECT_EQ(Evolve(e, o).generation, 1);
  const EvolutionState first = LoadCheckpoint(e, (stopped / "checkpoint.txt").string());
  EXPECT_EQ(first.generation, 1);
  EXPECT_EQ(first.recurrent_population.size(), 12u);
  o.stop_after = 0;
  const EvolutionState resumed = Evolve(e, o);
  ASSERT_EQ(resumed.generation, 3);
  o.out_dir = straight.string();
  const EvolutionState uninterrupted = Evolve(e, o);
  ExpectSameResult(resumed, uninterrupted);
  ExpectSameResult(LoadCheckpoint(e, (stopped / "checkpoint.txt").string()), uninterrupted);
  o.out_dir = again.string();
  o.jobs = 1;
  ExpectSameResult(Evolve(e, o), uninterrupted);
  const std::string log = ReadFile(straight / "generations.csv");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 4);
  EXPECT_EQ(LogWithoutWallTime(ReadFile(stopped / "generations.csv")), LogWithoutWallTime(log));
  EXPECT_EQ(LogWithoutWallTime(ReadFile(again / "generations.csv")), LogWithoutWallTime(log));
  EXPECT_NE(uninterrupted.recurrent_population, StartEvolution(e).recurrent_population);
  // Each generation's best network is a recurrent network file of the definition's 4 neurons.
  const RecurrentNetwork best = LoadRecurrentNetworkFile(NetworkFile(straight.string(), 3));
  EXPECT_EQ(best.size(), 4u);
  EXPECT_EQ(best, uninterrupted.records[2].best_recurrent);
  EXPECT_NE(ReadFile(straight / "progress.md").find("Verdict"), std::string::npos);
  LaserExperiment other = e;
  other.seed = 2;
  EvolutionState three = StartEvolution(other);
  RunGeneration(other, TrainingLibrary(other, 1), 2, &three);
  EXPECT_NE(three.recurrent_population, first.recurrent_population);
  // Sharded evaluation and collation give the same generation as an unsharded one.
  const fs::path sharded = TempDir("rnn_shards");
  for (int k = 1; k <= 2; ++k) EvolveShard(e, sharded.string(), k, 2, 1);
  EvolutionState one = StartEvolution(e);
  RunGeneration(e, TrainingLibrary(e, 1), 2, &one);
  ExpectSameResult(CollateShards(e, sharded.string(), 2), one);
  fs::remove_all(sharded);
  // A checkpoint of another network size is refused.
  LaserExperiment bigger = e;
  bigger.evolution.sane.network_size = 5;
  EXPECT_THROW(LoadCheckpoint(bigger, (stopped / "checkpoint.txt").string()), std::runtime_error);
  for (const fs::path& d : {stopped, straight, again}) fs::remove_all(d);
}

GenerationRecord Record(int generation, double best, double mean) {
  GenerationRecord r;
  r.generation = generation;
  r.best_fitness = best;
  r.mean_fitness = mean;
  return r;
}

TEST(LaserEvolutionRecurrent, ProgressComparesTheFirstAndLastGenerations) {
  std::vector<GenerationRecord> flat, rising;
  const double swing[] = {0.3, -0.2, 0.1, -0.3, 0.2};
  for (int g = 1; g <= 20; ++g) {
    flat.push_back(Record(g, -3.0 + swing[g % 5], -5.0));
    rising.push_back(Record(g, -3.0 + 0.5 * g + swing[g % 5], -5.0 + 0.1 * g));
  }
  const FitnessProgress none = MeasureProgress(flat);
  EXPECT_EQ(none.window, 5);
  EXPECT_NEAR(none.best_gain, 0.0, 1e-12);  // the same swings in both windows
  EXPECT_FALSE(none.progressed);
  const FitnessProgress some = MeasureProgress(rising);
  EXPECT_NEAR(some.best_gain, 0.5 * 15, 1e-12);  // generations 16–20 against 1–5
  EXPECT_TRUE(some.progressed);
  EXPECT_EQ(some.best_generation, 20);
  EXPECT_NEAR(some.last_mean - some.first_mean, 1.5, 1e-12);
  // Fewer generations than two windows: half each; one generation shows nothing.
  rising.resize(6);
  EXPECT_EQ(MeasureProgress(rising).window, 3);
  EXPECT_TRUE(MeasureProgress(rising).progressed);
  rising.resize(3);  // windows of one generation: no spread to judge by
  EXPECT_EQ(MeasureProgress(rising).window, 1);
  EXPECT_FALSE(MeasureProgress(rising).progressed);
  EXPECT_NE(ProgressMarkdown("x", rising).find("too few generations to tell"), std::string::npos);
  rising.resize(1);
  EXPECT_FALSE(MeasureProgress(rising).progressed);
  EXPECT_NE(ProgressMarkdown("x", flat).find("no meaningful progress"), std::string::npos);
  EXPECT_NE(ProgressMarkdown("x", std::vector<GenerationRecord>(rising.begin(), rising.end())).find("Verdict"),
            std::string::npos);
}

TEST(LaserEvolutionRecurrent, CommandLineRunsE5SmokeAndTheEvolvedRecurrentNetwork) {
  const std::string exe = std::string(LIMBIC_BUILD_BIN_DIR) + "/limbic-laser";
  const fs::path out = TempDir("rnn_cli");
  std::string text;
  ASSERT_EQ(RunCommand(exe + " experiment run laser_e5_smoke --jobs 2 --out " + out.string(), &text), 0) << text;
  EXPECT_NE(text.find("Verdict"), std::string::npos) << text;
  const std::string runs = ReadFile(out / "runs.csv");
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 1 + 2);  // the last generation's best on 2 worlds
  EXPECT_NE(runs.find("generation 3"), std::string::npos);
  EXPECT_FALSE(fs::exists(out / "input_usage.csv"));  // the gates analysis is the feed-forward network's
  const std::string network = NetworkFile(out.string(), 3);
  ASSERT_EQ(RunCommand(exe + " episode --density 15 --index 0 --controller rnn --network " + network, &text), 0)
      << text;
  EXPECT_NE(text.find("rnn: "), std::string::npos) << text;
  // Unhappy paths: a usage error exits 2, a bad file 1, each with the reason.
  EXPECT_EQ(RunCommand(exe + " episode --density 15 --index 0 --controller rnn", &text), 2);
  EXPECT_NE(text.find("--controller rnn needs --network"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " episode --density 15 --index 0 --controller cbr --network " + network, &text), 2);
  EXPECT_NE(text.find("--network is for --controller nn or rnn"), std::string::npos) << text;
  const fs::path feed_forward = out / "ff.txt";
  {
    std::ofstream f(feed_forward);
    std::mt19937_64 rng(1);
    Network net;
    for (Neuron& n : net) n = RandomNeuron(rng);
    SaveNetwork(net, f);
  }
  EXPECT_EQ(
      RunCommand(exe + " episode --density 15 --index 0 --controller rnn --network " + feed_forward.string(), &text),
      1);
  EXPECT_NE(text.find("expected 'recurrent_network N'"), std::string::npos) << text;
  EXPECT_EQ(RunCommand(exe + " experiment list", &text), 0);
  EXPECT_NE(text.find("laser_e5_recurrent"), std::string::npos) << text;
  fs::remove_all(out);
}

}  // namespace
}  // namespace limbic::laser
