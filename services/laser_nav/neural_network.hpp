// The evolved feed-forward network controller (spec reactive-topological §2.5, thesis Ch. 5): 9 inputs
// (the eight environment quantities of §2.3 and a reference 0.5), 5 hidden neurons, 5 outputs that set
// the gains TGG, EGG, OG, GG, NG of the §2.1 heading law every control cycle (NP 2.5 s and S 250 cm fixed).
//
// Genetic encoding (§2.5.2): a network is 5 neurons (chromosomes) of 14 genes; a gene is a connection
// type (< 128: input type % 9, > 127: output type % 5), a 16-bit weight and two 16-bit activation
// values. A connection passes its signal y only inside its window a_min < y < a_max (the only
// non-linearity: no squashing). Weights and windows decode as −1 + v/32767 (floating point; the
// thesis' literal C integer division, which quantises them to {−1, 0, 1}, is a flag: A18).
//
// Inputs: EnvironmentInfo (NetworkInputs) or a SensorFrame (NeuralController). Outputs: the five raw
// outputs, the gains (× 10), a desired heading; and per connection kind how often a gate passed (the
// E4 input-usage analysis).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

#include "services/laser_nav/controllers.hpp"

namespace limbic::laser {

inline constexpr int kNnInputs = 9;         // [T] 8 environment parameters + reference 0.5
inline constexpr int kNnNeurons = 5;        // [T] hidden layer
inline constexpr int kNnOutputs = 5;        // [T] TGG, EGG, OG, GG, NG
inline constexpr int kGenesPerNeuron = 14;  // [T] 9 inputs + 5 outputs
inline constexpr int kGeneTypes = kNnInputs + kNnOutputs;

// One chromosome: the thesis' `struct Neurons` (§2.5.2), 784 bits of storage for 728 bits of genes.
struct Neuron {
  std::array<uint8_t, kGenesPerNeuron> gene{};  // connection type: < 128 input, > 127 output
  std::array<uint16_t, kGenesPerNeuron> weight{};
  std::array<uint16_t, kGenesPerNeuron> a_max{};
  std::array<uint16_t, kGenesPerNeuron> a_min{};
  bool operator==(const Neuron&) const = default;
};

// A genotype: 5 chromosomes (3640 bits).
using Network = std::array<Neuron, kNnNeurons>;

// The type value of the k-th of the 14 valid connection types (§2.5.2 [A]): k < 9 → k (input k),
// k ≥ 9 → 128 + (k − 9). The forward pass addresses output `type % 5` as the thesis' code does, so
// 128..132 reach outputs 3, 4, 0, 1, 2 — still one gene per output.
uint8_t GeneType(int k);

// A neuron of the initial population (§2.5.2): the fourteen types in order (every input and output
// connected), weights and activation values uniform 16-bit.
Neuron RandomNeuron(std::mt19937_64& rng);

// Names of the inputs and outputs in network order (for logs and the input-usage analysis).
inline constexpr std::array<const char*, kNnInputs> kNetworkInputNames{
    "density", "clutter", "ofd", "clear_to_goal", "senses_goal", "goal_nearby", "wander", "nomovement", "reference"};
inline constexpr std::array<const char*, kNnOutputs> kNetworkOutputNames{"TGG", "EGG", "OG", "GG", "NG"};

using NetworkInputs = std::array<double, kNnInputs>;
using NetworkOutputs = std::array<double, kNnOutputs>;

// The thesis' input normalisation (§2.5.3): density/360, clutter/10, ofd/250 (the raw closest range
// ahead, A36), the four binaries − 0.5, wander, and the reference 0.5.
NetworkInputs InputsOf(const EnvironmentInfo& env);

// Decodes a 16-bit weight or activation value: −1 + v/32767 (or the literal integer division).
double DecodeGene(uint16_t v, bool literal_integer_division);

// The raw values whose decodings are exact: −1, 0 and 1.
inline constexpr uint16_t kGeneMinusOne = 0;
inline constexpr uint16_t kGeneZero = 32767;
inline constexpr uint16_t kGeneOne = 65534;

// The activation window (§2.5.3): a signal passes only strictly inside (a_min, a_max). Also the gate of
// the recurrent network's connections (§2.7).
inline bool GatePasses(double y, double a_min, double a_max) { return a_max > y && a_min < y; }

// How often each connection kind's gate passed (input gates by input, output gates by output) and how
// often it was evaluated.
struct GateCounts {
  std::array<int64_t, kNnInputs> input_passed{};
  std::array<int64_t, kNnOutputs> output_passed{};
  int64_t evaluations = 0;  // forward passes
};

// A network with its genes decoded once (the controller runs it 100 times a second): per gene whether it
// is an output connection, the input (type % 9) or output (type % 5) it addresses, and its decoded
// weight and window.
struct DecodedNetwork {
  struct Gene {
    bool output = false;
    uint8_t index = 0;
    double weight = 0, a_max = 0, a_min = 0;
  };
  std::array<std::array<Gene, kGenesPerNeuron>, kNnNeurons> genes{};
};
DecodedNetwork Decode(const Network& network, bool literal_integer_division = false);

// The forward pass of §2.5.3 (the thesis' C code): returns output[0..4] (not yet scaled by 10).
// `counts` (optional) accumulates which gates passed.
NetworkOutputs Forward(const DecodedNetwork& network, const NetworkInputs& inputs, GateCounts* counts = nullptr);
NetworkOutputs Forward(const Network& network, const NetworkInputs& inputs, bool literal_integer_division = false,
                       GateCounts* counts = nullptr);

// The gains of one cycle: TGG, EGG, OG, GG, NG = output × scale (10 [T]); NP and S fixed.
ControlGains GainsOf(const NetworkOutputs& outputs, double scale, double np_s, double s_cm);

struct NeuralOptions {
  Network network{};
  double output_scale = 10.0;             // [T]
  double np_s = 2.5;                      // [A] constant (not a network output)
  double s_cm = 250.0;                    // [A] constant
  bool literal_integer_division = false;  // A18
  ObstacleWeightOptions weight;
  EnvironmentOptions environment = [] {
    EnvironmentOptions e;
    e.wander_window_s = 1.0;  // A19
    return e;
  }();
  SegmentOptions segments;
  uint64_t seed = 1;  // noise vector
};

// Throws std::invalid_argument for a non-finite or non-positive scale, NP ≤ 0, S outside (0, 250], a
// Wander window that is not a positive number, or bad weight options.
void ValidateNeuralOptions(const NeuralOptions& options);

// What the network controller did in one cycle.
struct NeuralStep {
  NetworkInputs inputs{};
  NetworkOutputs outputs{};
  ControlGains gains;
  Vec2 resultant;
};

class NeuralController : public HeadingController {
 public:
  explicit NeuralController(const NeuralOptions& options);
  double Step(const SensorFrame& frame) override;
  const NeuralStep& last() const { return last_; }
  const GateCounts& gate_counts() const { return counts_; }

 private:
  NeuralOptions options_;
  EnvironmentTracker env_;
  ObstacleField field_;
  NoiseVector noise_;
  TemporaryGoal temporary_;
  DecodedNetwork decoded_;
  int64_t np_cycles_ = 250;
  bool tgg_active_ = false;
  GateCounts counts_;
  NeuralStep last_;
};

// Text form of neurons and networks: one neuron per line, "neuron" and 14 genes of four integers
// (type weight a_min a_max). ParseNeuron throws std::runtime_error naming `source` for anything else
// (a type that is neither < 128 nor 128..255 is still a type: the forward pass reduces it modulo).
std::string FormatNeuron(const Neuron& neuron);
// Reads the next word of `in` as an integer in 0..max (a field of a network text file, also the
// recurrent network's); throws std::runtime_error "`where`: missing `what` (`shape`)" or "`where`:
// `what` must be an integer in 0..max, got '...'".
long ReadGeneField(std::istream& in, long max, const std::string& where, const std::string& what,
                   const std::string& shape);
Neuron ParseNeuron(const std::string& line, const std::string& source);
void SaveNetwork(const Network& network, std::ostream& out);
// Reads 5 neuron lines (blank lines and # comments skipped).
Network LoadNetwork(std::istream& in, const std::string& source);
Network LoadNetworkFile(const std::string& path);

}  // namespace limbic::laser
