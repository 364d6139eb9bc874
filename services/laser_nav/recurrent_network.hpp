// The recurrent network attempt (spec reactive-topological §2.7, thesis Ch. 5.7; experiment E5): a
// fully recurrent network of at most 50 tanh neurons, every neuron connected to every input and to
// every neuron of the network (itself included), evolved by the same symbiotic evolution (§2.6) as the
// feed-forward network of §2.5. The thesis reports no evolutionary progress; this is the reproduction.
//
// Inputs (25 [T]): the 360-beam scan reduced to 24 sectors of 15° (range / 250 cm) and the goal bearing
// relative to the heading, wrap180(goal − heading) / 180 ∈ (−1, 1] [A]. Output [T]: one heading angle,
// heading = 180·(1 + tanh(out)) [A] where `out` is the output neuron's net input (so the heading is
// 180·(1 + the output neuron's state)): a compass bearing in [0, 360) like every controller's output.
//
// Genetic encoding [A] (§2.7: "bias, incoming weights from all inputs and all neurons, activation-window
// pairs in 16-bit fields"): a neuron (chromosome) is a 16-bit bias and 75 connections (25 inputs, then
// neurons 0..49), each a 16-bit weight and a 16-bit activation window (a_min, a_max); positional, so no
// connection types. 16 + 75·48 = 3616 bits a neuron, 180 800 bits for 50 (the thesis' "100 000+ bits").
// All fields decode as the feed-forward genes do (−1 + v/32767, §2.5.3) and a connection passes its
// signal y = w·x only strictly inside its window, as in §2.5.3. A network of n < 50 neurons uses the
// first n of each neuron's 50 neuron connections; neuron 0 is the output neuron.
//
// One forward step per 10 ms control cycle, synchronous: every neuron's new state is computed from the
// inputs and the previous cycle's states (zero at the start of an episode), then all are replaced.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

#include "services/laser_nav/controllers.hpp"

namespace limbic::laser {

inline constexpr int kRnnSectors = 24;              // [T] 360° at 15°
inline constexpr int kRnnSectorDeg = 15;            // [T]
inline constexpr int kRnnInputs = kRnnSectors + 1;  // [T] 25: the sectors and the goal bearing [A]
inline constexpr int kRnnMaxNeurons = 50;           // [T] upper limit
inline constexpr int kRnnConnections = kRnnInputs + kRnnMaxNeurons;
// The units of crossover (§2.6.1 one-point crossover at gene boundaries): the bias, then each connection.
inline constexpr int kRnnGenesPerNeuron = 1 + kRnnConnections;

struct RecurrentConnection {
  uint16_t weight = 0, a_min = 0, a_max = 0;
  bool operator==(const RecurrentConnection&) const = default;
};

// One chromosome: the bias and the incoming connections (inputs 0..24, then neurons 0..49).
struct RecurrentNeuron {
  uint16_t bias = 0;
  std::array<RecurrentConnection, kRnnConnections> in{};
  bool operator==(const RecurrentNeuron&) const = default;
};

// A genotype: 1..50 neurons; neuron 0 is the output.
using RecurrentNetwork = std::vector<RecurrentNeuron>;

// A neuron of the initial population: every field uniform 16-bit.
RecurrentNeuron RandomRecurrentNeuron(std::mt19937_64& rng);

// How a 15° sector's 15 beams become one input [A]: the closest return (what an obstacle-avoiding
// reduction keeps) or their mean.
enum class SectorReduction { kMin, kMean };
// The frame of the sectors and of the output [A]: world — sectors by compass bearing as the scan is
// delivered (§0.2), output a compass heading; body — sector 0 centred on the robot's heading and the
// output relative to it, heading + 180·tanh(out) (the [A] formula's range centred on straight ahead).
enum class RnnFrame { kWorld, kBody };

SectorReduction ParseSectorReduction(const std::string& text);  // min | mean; std::invalid_argument
RnnFrame ParseRnnFrame(const std::string& text);                // world | body; std::invalid_argument

// The 24 sector ranges (cm) of a scan: sector s covers the 15 beams centred on bearing
// first_bearing_deg + 15·s, i.e. beams b−7 .. b+7 (mod 360).
std::array<double, kRnnSectors> SectorRanges(const RangeScan& ranges, SectorReduction reduction,
                                             int first_bearing_deg = 0);

using RecurrentInputs = std::array<double, kRnnInputs>;

// The genes decoded once (the controller steps 100 times a second); connections from neurons ≥ size
// are dropped. Throws std::invalid_argument for 0 or more than 50 neurons.
struct DecodedRecurrentNetwork {
  int size = 0;
  std::vector<double> bias;                  // [neuron]
  std::vector<double> weight, a_min, a_max;  // [neuron · (25 + size) + source]: inputs, then neurons
};
DecodedRecurrentNetwork Decode(const RecurrentNetwork& network);

// One cycle: every neuron's state becomes tanh(bias + Σ gated w·input + Σ gated w·previous state), all
// from `state` (the previous cycle's, size() entries), which is then replaced. Returns the output
// neuron's net input (before tanh).
double RecurrentStep(const DecodedRecurrentNetwork& network, const RecurrentInputs& inputs, std::vector<double>* state);

// §2.7 [A]: heading = 180·(1 + tanh(out)).
double HeadingOfOutput(double out);

struct RecurrentOptions {
  RecurrentNetwork network;
  SectorReduction sectors = SectorReduction::kMin;
  RnnFrame frame = RnnFrame::kWorld;
};

// Throws std::invalid_argument for a network of 0 or more than 50 neurons.
void ValidateRecurrentOptions(const RecurrentOptions& options);

// What the recurrent controller did in one cycle.
struct RecurrentStepInfo {
  RecurrentInputs inputs{};
  double out = 0.0;
  double heading_deg = 0.0;
};

class RecurrentController : public HeadingController {
 public:
  explicit RecurrentController(const RecurrentOptions& options);
  double Step(const SensorFrame& frame) override;
  const RecurrentStepInfo& last() const { return last_; }
  const std::vector<double>& state() const { return state_; }

 private:
  RecurrentOptions options_;
  DecodedRecurrentNetwork decoded_;
  std::vector<double> state_;
  RecurrentStepInfo last_;
};

// Text form: a line "recurrent_network N", then N lines "rneuron BIAS" followed by 75 connections
// "weight a_min a_max" (blank lines and # comments skipped). Loading throws std::runtime_error naming
// the source and line for a missing header, N outside 1..50, a neuron count other than N, and any
// field that is not an integer in 0..65535.
std::string FormatRecurrentNeuron(const RecurrentNeuron& neuron);
RecurrentNeuron ParseRecurrentNeuron(const std::string& line, const std::string& source);
void SaveRecurrentNetwork(const RecurrentNetwork& network, std::ostream& out);
RecurrentNetwork LoadRecurrentNetwork(std::istream& in, const std::string& source);
RecurrentNetwork LoadRecurrentNetworkFile(const std::string& path);

}  // namespace limbic::laser
