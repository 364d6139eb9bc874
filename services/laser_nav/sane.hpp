// Symbiotic evolution of the network controller's neurons (spec reactive-topological §2.6, SANE after
// Moriarty & Miikkulainen 1994): the individuals are neurons, not networks. Each generation samples
// networks of 5 neurons from the population, scores each network (the caller runs the episodes), gives
// each neuron the mean fitness of the networks it took part in (Eq. 5-1), ranks the neurons, mates the
// top quartile by one-point crossover and replaces the bottom quartile by the children, which are
// mutated at the integer level.
//
// Interpretations (§2.6.1 [A], A20): no neuron twice in one network; the top quartile is walked in rank
// order, the best unpaired neuron mates with one drawn uniformly among the next 4 unpaired; two children
// per mating replace the bottom ranks (parents stay: steady state); the crossover point is one of the 13
// interior gene boundaries; per child gene the type is replaced by one of the 14 valid types with
// p = 0.002 and each of weight, a_min, a_max by a uniform 16-bit value with p = 0.02; a neuron in no
// network gets the generation's lowest network fitness.
//
// The same operations evolve the recurrent network's neurons (§2.7, E5: "the same SANE loop"): the
// population functions are templates over the chromosome (Neuron, RecurrentNeuron) and the network
// size is an option (5 for §2.5, up to 50 for §2.7). A recurrent chromosome's genes are its bias and its
// 75 connections (crossover at one of their 75 interior boundaries); it has no connection types, so only
// the value mutation applies, to every 16-bit field.
//
// Pure functions of their arguments and a std::mt19937_64: a seeded generation is reproducible.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "services/laser_nav/neural_network.hpp"
#include "services/laser_nav/recurrent_network.hpp"

namespace limbic::laser {

struct SaneOptions {
  int population = 200;              // [T] neurons
  int networks = 500;                // [T] networks sampled per generation
  double reproduce_fraction = 0.25;  // [T] top quartile mates, bottom quartile replaced
  int mate_window = 4;               // [A] the mate is among the next 4 unpaired neurons in rank order
  double type_mutation = 0.002;      // [T] per gene
  double value_mutation = 0.02;      // [T] per weight / activation value
  int network_size = kNnNeurons;     // [T] neurons per network: 5 (§2.5); the recurrent network ≤ 50 (§2.7)
};

// Throws std::invalid_argument unless network_size ≥ 1, population ≥ network_size (one network),
// networks ≥ 1, the fraction in (0, 0.5], mate_window ≥ 1 and both probabilities in [0, 1].
void ValidateSaneOptions(const SaneOptions& options);

// The number of parents (= children) per generation: the top fraction, rounded down to an even count.
int SaneParents(const SaneOptions& options);

// `population` random chromosomes (RandomNeuron, RandomRecurrentNeuron).
template <typename Chromosome = Neuron>
std::vector<Chromosome> InitialPopulation(const SaneOptions& options, std::mt19937_64& rng);

// `networks` networks of network_size distinct population indices each.
using NetworkSample = std::vector<int>;
std::vector<NetworkSample> SampleNetworks(const SaneOptions& options, std::mt19937_64& rng);

// The feed-forward genotype of a sample of 5; throws std::invalid_argument for another size.
Network Assemble(const std::vector<Neuron>& population, const NetworkSample& sample);
// The chromosomes of a sample in sample order (a recurrent network: neuron 0 is the output).
template <typename Chromosome>
std::vector<Chromosome> Members(const std::vector<Chromosome>& population, const NetworkSample& sample) {
  std::vector<Chromosome> members;
  members.reserve(sample.size());
  for (int i : sample) members.push_back(population.at(static_cast<size_t>(i)));
  return members;
}

// Eq. 5-1: each neuron's mean over the networks it took part in; neurons in none get the minimum
// network fitness. `network_fitness[n]` belongs to `samples[n]`.
std::vector<double> NeuronFitness(int population, const std::vector<NetworkSample>& samples,
                                  const std::vector<double>& network_fitness);

// Population indices from best to worst (ties: lower index first).
std::vector<int> RankNeurons(const std::vector<double>& fitness);

// Fig. 5-4: child a = A[0..k) + B[k..14), child b = B[0..k) + A[k..14), genes whole.
// The recurrent chromosome: k in 1..75 over the genes (bias, connection 0, ..., connection 74).
void Crossover(const Neuron& a, const Neuron& b, int k, Neuron* child_a, Neuron* child_b);
void Crossover(const RecurrentNeuron& a, const RecurrentNeuron& b, int k, RecurrentNeuron* child_a,
               RecurrentNeuron* child_b);
void Mutate(Neuron* neuron, const SaneOptions& options, std::mt19937_64& rng);
void Mutate(RecurrentNeuron* neuron, const SaneOptions& options, std::mt19937_64& rng);

// Mates the top ranks and overwrites the bottom ranks with the mutated children (in place).
template <typename Chromosome>
void Reproduce(std::vector<Chromosome>* population, const std::vector<int>& ranking, const SaneOptions& options,
               std::mt19937_64& rng);

}  // namespace limbic::laser
