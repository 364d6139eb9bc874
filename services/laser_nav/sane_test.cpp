#include "services/laser_nav/sane.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace limbic::laser {
namespace {

// A neuron whose every value is `v` (so children show which parent each gene came from).
Neuron Marked(uint16_t v) {
  Neuron n;
  for (int k = 0; k < kGenesPerNeuron; ++k) {
    n.gene[k] = GeneType(k);
    n.weight[k] = n.a_min[k] = n.a_max[k] = v;
  }
  return n;
}

TEST(Sane, SettingsOfTheSpec) {
  const SaneOptions o;
  EXPECT_EQ(o.population, 200);
  EXPECT_EQ(o.networks, 500);
  EXPECT_EQ(SaneParents(o), 50);  // top 25 % reproduce, bottom 25 % replaced
  SaneOptions odd = o;
  odd.population = 22;  // 5.5 → 5 → an even 4
  EXPECT_EQ(SaneParents(odd), 4);
  EXPECT_NO_THROW(ValidateSaneOptions(o));
  for (auto bad : {+[](SaneOptions& x) { x.population = 4; }, +[](SaneOptions& x) { x.networks = 0; },
                   +[](SaneOptions& x) { x.reproduce_fraction = 0.6; },
                   +[](SaneOptions& x) { x.reproduce_fraction = std::nan(""); },
                   +[](SaneOptions& x) { x.value_mutation = 1.5; }, +[](SaneOptions& x) { x.mate_window = 0; }}) {
    SaneOptions x = o;
    bad(x);
    EXPECT_THROW(ValidateSaneOptions(x), std::invalid_argument);
  }
}

TEST(Sane, NetworksHaveFiveDistinctNeuronsAndEachNeuronAbout12Point5Networks) {
  const SaneOptions o;
  std::mt19937_64 rng(7);
  const auto samples = SampleNetworks(o, rng);
  ASSERT_EQ(samples.size(), 500u);
  std::vector<int> participation(200, 0);
  for (const auto& s : samples) {
    EXPECT_EQ(std::set<int>(s.begin(), s.end()).size(), 5u);
    for (int i : s) {
      ASSERT_GE(i, 0);
      ASSERT_LT(i, 200);
      ++participation[i];
    }
  }
  double mean = 0;
  for (int p : participation) mean += p;
  EXPECT_DOUBLE_EQ(mean / 200, 12.5);  // 500 · 5 / 200
  EXPECT_LT(*std::max_element(participation.begin(), participation.end()), 35);
  std::mt19937_64 again(7);
  EXPECT_EQ(SampleNetworks(o, again), samples);
}

TEST(Sane, NeuronFitnessIsEq51AndUnsampledNeuronsGetTheMinimum) {
  const std::vector<NetworkSample> samples{{0, 1, 2, 3, 4}, {0, 1, 2, 3, 5}};
  const auto f = NeuronFitness(7, samples, {2.0, 4.0});
  EXPECT_DOUBLE_EQ(f[0], 3.0);
  EXPECT_DOUBLE_EQ(f[3], 3.0);
  EXPECT_DOUBLE_EQ(f[4], 2.0);
  EXPECT_DOUBLE_EQ(f[5], 4.0);
  EXPECT_DOUBLE_EQ(f[6], 2.0);  // in no network
  EXPECT_THROW(NeuronFitness(7, samples, {1.0}), std::invalid_argument);
  const auto rank = RankNeurons({1.0, 3.0, 3.0, -2.0});
  EXPECT_EQ(rank, (std::vector<int>{1, 2, 0, 3}));  // ties keep index order
}

TEST(Sane, OnePointCrossoverAtAGeneBoundary) {
  Neuron a = Marked(1), b = Marked(2), ca, cb;
  Crossover(a, b, 3, &ca, &cb);
  for (int k = 0; k < kGenesPerNeuron; ++k) {
    EXPECT_EQ(ca.weight[k], k < 3 ? 1 : 2) << k;
    EXPECT_EQ(cb.a_max[k], k < 3 ? 2 : 1) << k;
  }
  EXPECT_THROW(Crossover(a, b, 0, &ca, &cb), std::invalid_argument);
  EXPECT_THROW(Crossover(a, b, 14, &ca, &cb), std::invalid_argument);
}

TEST(Sane, MutationRatesAreThoseOfTheSpecAtTheIntegerLevel) {
  SaneOptions o;
  std::mt19937_64 rng(11);
  int64_t values = 0, changed_values = 0, types = 0, changed_types = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    Neuron n = Marked(12345);
    n.gene[0] = 200;  // not a valid type: a type mutation always changes it
    Mutate(&n, o, rng);
    for (int k = 0; k < kGenesPerNeuron; ++k) {
      for (uint16_t v : {n.weight[k], n.a_min[k], n.a_max[k]}) {
        ++values;
        changed_values += v != 12345;
      }
    }
    ++types;
    changed_types += n.gene[0] != 200;
    // Any mutated type is one of the 14 valid ones.
    if (n.gene[0] != 200) {
      EXPECT_TRUE(n.gene[0] < kNnInputs || (n.gene[0] >= 128 && n.gene[0] < 133));
    }
  }
  // 168 000 values at p = 0.02: 3360 expected, ±5 sd ≈ ±287.
  EXPECT_NEAR(static_cast<double>(changed_values) / values, 0.02, 0.0018);
  // 4000 types at p = 0.002: 8 expected; 0 or > 25 would be far outside.
  EXPECT_GT(changed_types, 0);
  EXPECT_LT(changed_types, 25);
  SaneOptions never = o;
  never.type_mutation = never.value_mutation = 0.0;
  Neuron n = Marked(9);
  Mutate(&n, never, rng);
  EXPECT_EQ(n, Marked(9));
}

TEST(Sane, ReproductionMatesTheTopQuartileAndReplacesTheBottomQuartile) {
  SaneOptions o;
  o.type_mutation = o.value_mutation = 0.0;  // so children show their parents
  std::vector<Neuron> population;
  for (int i = 0; i < 200; ++i) population.push_back(Marked(static_cast<uint16_t>(1000 + i)));
  // Fitness = index: rank 0 is neuron 199, the bottom quartile is neurons 0..49.
  std::vector<double> fitness(200);
  for (int i = 0; i < 200; ++i) fitness[i] = i;
  const std::vector<int> ranking = RankNeurons(fitness);
  std::mt19937_64 rng(3);
  const std::vector<Neuron> before = population;
  Reproduce(&population, ranking, o, rng);
  for (int i = 50; i < 200; ++i) EXPECT_EQ(population[i], before[i]) << "neuron " << i << " must stay";
  std::multiset<int> parents_used;
  for (int i = 0; i < 50; i += 2) {
    // Children come in complementary pairs from two top-quartile parents (marks 1150..1199).
    const Neuron& a = population[ranking[199 - i]];
    const Neuron& b = population[ranking[198 - i]];
    std::set<int> marks;
    for (int k = 0; k < kGenesPerNeuron; ++k) {
      marks.insert(a.weight[k]);
      EXPECT_NE(a.weight[k], b.weight[k]);
      EXPECT_EQ(a.weight[k], a.a_min[k]);  // genes move whole
    }
    ASSERT_EQ(marks.size(), 2u) << "pair " << i / 2 << ": one crossover point, two parents";
    for (int m : marks) {
      EXPECT_GE(m, 1150);
      parents_used.insert(m);
    }
  }
  // Every top-quartile neuron mates exactly once (25 matings, 50 children).
  EXPECT_EQ(parents_used.size(), 50u);
  EXPECT_EQ(std::set<int>(parents_used.begin(), parents_used.end()).size(), 50u);
}

TEST(Sane, AGenerationIsReproducibleFromItsSeed) {
  SaneOptions o;
  auto run = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Neuron> p = InitialPopulation(o, rng);
    const auto samples = SampleNetworks(o, rng);
    std::vector<double> f;
    for (const auto& s : samples) f.push_back(Assemble(p, s)[0].weight[0] / 65535.0);
    Reproduce(&p, RankNeurons(NeuronFitness(o.population, samples, f)), o, rng);
    return p;
  };
  EXPECT_EQ(run(4), run(4));
  EXPECT_NE(run(4), run(5));
}

// §2.7 (E5): the same operations on recurrent chromosomes and networks of up to 50 neurons.
RecurrentNeuron MarkedRecurrent(uint16_t v) {
  RecurrentNeuron n;
  n.bias = v;
  for (RecurrentConnection& c : n.in) c = {v, v, v};
  return n;
}

TEST(Sane, RecurrentNetworksOfTheirSizeAndCrossoverAtConnectionBoundaries) {
  SaneOptions o;
  o.network_size = kRnnMaxNeurons;
  std::mt19937_64 rng(7);
  const auto samples = SampleNetworks(o, rng);
  ASSERT_EQ(samples.size(), 500u);
  for (const auto& s : samples) ASSERT_EQ(std::set<int>(s.begin(), s.end()).size(), 50u);
  const std::vector<RecurrentNeuron> population = InitialPopulation<RecurrentNeuron>(o, rng);
  ASSERT_EQ(population.size(), 200u);
  const std::vector<RecurrentNeuron> net = Members(population, samples[0]);
  ASSERT_EQ(net.size(), 50u);
  EXPECT_EQ(net[3], population[static_cast<size_t>(samples[0][3])]);
  EXPECT_THROW(Assemble(InitialPopulation(o, rng), samples[0]), std::invalid_argument);  // not 5 neurons
  o.population = 49;
  EXPECT_THROW(ValidateSaneOptions(o), std::invalid_argument);
  o.network_size = 0;
  EXPECT_THROW(ValidateSaneOptions(o), std::invalid_argument);

  const RecurrentNeuron a = MarkedRecurrent(1), b = MarkedRecurrent(2);
  RecurrentNeuron ca, cb;
  Crossover(a, b, 1, &ca, &cb);  // after the bias: only the bias from the own parent
  EXPECT_EQ(ca.bias, 1);
  EXPECT_EQ(ca.in[0].weight, 2);
  EXPECT_EQ(cb.bias, 2);
  EXPECT_EQ(cb.in[74].a_max, 1);
  Crossover(a, b, 75, &ca, &cb);  // before the last connection
  EXPECT_EQ(ca.in[73], a.in[73]);
  EXPECT_EQ(ca.in[74], b.in[74]);
  EXPECT_THROW(Crossover(a, b, 76, &ca, &cb), std::invalid_argument);
  EXPECT_THROW(Crossover(a, b, 0, &ca, &cb), std::invalid_argument);
}

TEST(Sane, RecurrentMutationReplacesEveryFieldAtTheValueRate) {
  SaneOptions o;
  o.value_mutation = 0.0;
  std::mt19937_64 rng(1);
  RecurrentNeuron n = MarkedRecurrent(7);
  Mutate(&n, o, rng);
  EXPECT_EQ(n, MarkedRecurrent(7));
  o.value_mutation = 1.0;
  Mutate(&n, o, rng);
  int unchanged = n.bias == 7 ? 1 : 0;
  for (const RecurrentConnection& c : n.in) unchanged += (c.weight == 7) + (c.a_min == 7) + (c.a_max == 7);
  EXPECT_LE(unchanged, 1);  // 226 uniform 16-bit draws: (almost) all differ from 7
  // A generation of recurrent neurons is reproducible from its seed and replaces the bottom quartile.
  o.value_mutation = 0.02;
  o.network_size = 10;
  auto run = [&](uint64_t seed) {
    std::mt19937_64 r(seed);
    std::vector<RecurrentNeuron> p = InitialPopulation<RecurrentNeuron>(o, r);
    const auto samples = SampleNetworks(o, r);
    std::vector<double> f;
    for (const auto& s : samples) f.push_back(Members(p, s)[0].bias / 65535.0);
    const std::vector<int> ranking = RankNeurons(NeuronFitness(o.population, samples, f));
    const std::vector<RecurrentNeuron> before = p;
    Reproduce(&p, ranking, o, r);
    EXPECT_EQ(p[static_cast<size_t>(ranking[0])], before[static_cast<size_t>(ranking[0])]);  // parents stay
    EXPECT_NE(p[static_cast<size_t>(ranking[199])], before[static_cast<size_t>(ranking[199])]);
    return p;
  };
  EXPECT_EQ(run(4), run(4));
  EXPECT_NE(run(4), run(5));
}

}  // namespace
}  // namespace limbic::laser
