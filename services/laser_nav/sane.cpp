#include "services/laser_nav/sane.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {

// What Reproduce needs of each chromosome type: its gene count (crossover points) and a random one.
int GenesOf(const Neuron&) { return kGenesPerNeuron; }
int GenesOf(const RecurrentNeuron&) { return kRnnGenesPerNeuron; }
void Randomise(Neuron* n, std::mt19937_64& rng) { *n = RandomNeuron(rng); }
void Randomise(RecurrentNeuron* n, std::mt19937_64& rng) { *n = RandomRecurrentNeuron(rng); }

// Replaces *v by a uniform 16-bit value with probability p; draws both numbers either way, so a
// generation consumes the same random numbers whatever the outcomes.
void MutateValue(uint16_t* v, double p, std::mt19937_64& rng) {
  const bool mutate = sim::Uniform01(rng) < p;
  const auto value = static_cast<uint16_t>(rng() >> 48);
  if (mutate) *v = value;
}

}  // namespace

void ValidateSaneOptions(const SaneOptions& o) {
  if (o.network_size < 1) throw std::invalid_argument("SANE: a network needs at least one neuron");
  if (o.population < o.network_size) {
    throw std::invalid_argument("SANE: the population needs at least one network's " + std::to_string(o.network_size) +
                                " neurons");
  }
  if (o.networks < 1) throw std::invalid_argument("SANE: at least one network per generation");
  if (!(o.reproduce_fraction > 0.0 && o.reproduce_fraction <= 0.5)) {
    throw std::invalid_argument("SANE: the reproducing fraction must be in (0, 0.5]");
  }
  if (o.mate_window < 1) throw std::invalid_argument("SANE: the mate window must be >= 1");
  for (double p : {o.type_mutation, o.value_mutation}) {
    if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("SANE: mutation probabilities must be in [0, 1]");
  }
}

int SaneParents(const SaneOptions& o) {
  const int top = static_cast<int>(std::floor(o.population * o.reproduce_fraction + 1e-9));
  return top - top % 2;
}

template <typename Chromosome>
std::vector<Chromosome> InitialPopulation(const SaneOptions& o, std::mt19937_64& rng) {
  std::vector<Chromosome> p(static_cast<size_t>(o.population));
  for (Chromosome& c : p) Randomise(&c, rng);
  return p;
}
template std::vector<Neuron> InitialPopulation<Neuron>(const SaneOptions&, std::mt19937_64&);
template std::vector<RecurrentNeuron> InitialPopulation<RecurrentNeuron>(const SaneOptions&, std::mt19937_64&);

std::vector<NetworkSample> SampleNetworks(const SaneOptions& o, std::mt19937_64& rng) {
  std::vector<NetworkSample> samples(static_cast<size_t>(o.networks),
                                     NetworkSample(static_cast<size_t>(o.network_size)));
  for (NetworkSample& s : samples) {
    // "randomly selecting chromosomes until the genotype is full", without replacement within a network.
    for (int j = 0; j < o.network_size; ++j) {
      int pick;
      do {
        pick = sim::UniformInt(rng, 0, o.population - 1);
      } while (std::find(s.begin(), s.begin() + j, pick) != s.begin() + j);
      s[j] = pick;
    }
  }
  return samples;
}

Network Assemble(const std::vector<Neuron>& population, const NetworkSample& sample) {
  if (sample.size() != static_cast<size_t>(kNnNeurons)) {
    throw std::invalid_argument("SANE: a feed-forward network has 5 neurons, the sample " +
                                std::to_string(sample.size()));
  }
  Network net;
  for (int j = 0; j < kNnNeurons; ++j) net[j] = population.at(static_cast<size_t>(sample[j]));
  return net;
}

std::vector<double> NeuronFitness(int population, const std::vector<NetworkSample>& samples,
                                  const std::vector<double>& network_fitness) {
  if (samples.size() != network_fitness.size()) throw std::invalid_argument("SANE: one fitness per network");
  std::vector<double> sum(static_cast<size_t>(population), 0.0);
  std::vector<int> count(static_cast<size_t>(population), 0);
  double lowest = network_fitness.empty() ? 0.0 : network_fitness.front();
  for (size_t n = 0; n < samples.size(); ++n) {
    lowest = std::min(lowest, network_fitness[n]);
    for (int i : samples[n]) {
      sum[static_cast<size_t>(i)] += network_fitness[n];
      ++count[static_cast<size_t>(i)];
    }
  }
  // Eq. 5-1: f_avg = Σ f_i / n over the networks the neuron took part in.
  for (size_t i = 0; i < sum.size(); ++i) sum[i] = count[i] > 0 ? sum[i] / count[i] : lowest;
  return sum;
}

std::vector<int> RankNeurons(const std::vector<double>& fitness) {
  std::vector<int> order(fitness.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fitness[a] > fitness[b]; });
  return order;
}

void Crossover(const Neuron& a, const Neuron& b, int k, Neuron* child_a, Neuron* child_b) {
  if (k < 1 || k >= kGenesPerNeuron) throw std::invalid_argument("SANE: crossover point must be 1..13");
  Neuron x = a, y = b;
  for (int g = k; g < kGenesPerNeuron; ++g) {
    std::swap(x.gene[g], y.gene[g]);
    std::swap(x.weight[g], y.weight[g]);
    std::swap(x.a_max[g], y.a_max[g]);
    std::swap(x.a_min[g], y.a_min[g]);
  }
  *child_a = x;
  *child_b = y;
}

void Crossover(const RecurrentNeuron& a, const RecurrentNeuron& b, int k, RecurrentNeuron* child_a,
               RecurrentNeuron* child_b) {
  if (k < 1 || k >= kRnnGenesPerNeuron) throw std::invalid_argument("SANE: crossover point must be 1..75");
  RecurrentNeuron x = a, y = b;
  // Gene 0 is the bias (before every point), gene 1 + i connection i.
  for (int g = k; g < kRnnGenesPerNeuron; ++g)
    std::swap(x.in[static_cast<size_t>(g - 1)], y.in[static_cast<size_t>(g - 1)]);
  *child_a = x;
  *child_b = y;
}

void Mutate(Neuron* n, const SaneOptions& o, std::mt19937_64& rng) {
  // Integer-level replacement, not bit flips (§2.6.1). Every draw is made whether or not it mutates,
  // so a generation consumes the same random numbers whatever the outcomes.
  for (int g = 0; g < kGenesPerNeuron; ++g) {
    const bool type = sim::Uniform01(rng) < o.type_mutation;
    const int new_type = sim::UniformInt(rng, 0, kGeneTypes - 1);
    if (type) n->gene[g] = GeneType(new_type);
    for (uint16_t* v : {&n->weight[g], &n->a_min[g], &n->a_max[g]}) MutateValue(v, o.value_mutation, rng);
  }
}

void Mutate(RecurrentNeuron* n, const SaneOptions& o, std::mt19937_64& rng) {
  // No connection types in the positional encoding (§2.7 [A]): every 16-bit field at the value rate.
  MutateValue(&n->bias, o.value_mutation, rng);
  for (RecurrentConnection& c : n->in) {
    for (uint16_t* v : {&c.weight, &c.a_min, &c.a_max}) MutateValue(v, o.value_mutation, rng);
  }
}

template <typename Chromosome>
void Reproduce(std::vector<Chromosome>* population, const std::vector<int>& ranking, const SaneOptions& o,
               std::mt19937_64& rng) {
  std::vector<Chromosome>& p = *population;
  if (ranking.size() != p.size()) throw std::invalid_argument("SANE: the ranking must cover the population");
  const int parents = SaneParents(o);
  std::vector<int> unpaired(ranking.begin(), ranking.begin() + parents);  // rank order
  std::vector<Chromosome> children;
  children.reserve(static_cast<size_t>(parents));
  while (unpaired.size() >= 2) {
    // The best unpaired neuron mates with one of the next mate_window unpaired (similar rankings).
    const int window = std::min<int>(o.mate_window, static_cast<int>(unpaired.size()) - 1);
    const int m = 1 + sim::UniformInt(rng, 0, window - 1);
    const Chromosome& a = p[static_cast<size_t>(unpaired[0])];
    const Chromosome& b = p[static_cast<size_t>(unpaired[static_cast<size_t>(m)])];
    const int k = sim::UniformInt(rng, 1, GenesOf(a) - 1);
    Chromosome ca, cb;
    Crossover(a, b, k, &ca, &cb);
    children.push_back(ca);
    children.push_back(cb);
    unpaired.erase(unpaired.begin() + m);
    unpaired.erase(unpaired.begin());
  }
  for (Chromosome& c : children) Mutate(&c, o, rng);
  // The children take the places of the worst `parents` neurons, worst last.
  const size_t first_replaced = p.size() - children.size();
  for (size_t i = 0; i < children.size(); ++i) p[static_cast<size_t>(ranking[first_replaced + i])] = children[i];
}

template void Reproduce<Neuron>(std::vector<Neuron>*, const std::vector<int>&, const SaneOptions&, std::mt19937_64&);
template void Reproduce<RecurrentNeuron>(std::vector<RecurrentNeuron>*, const std::vector<int>&, const SaneOptions&,
                                         std::mt19937_64&);

}  // namespace limbic::laser
