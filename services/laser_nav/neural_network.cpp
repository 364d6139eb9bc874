#include "services/laser_nav/neural_network.hpp"

#include <cmath>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "sim/random.hpp"

namespace limbic::laser {
namespace {}  // namespace

uint8_t GeneType(int k) { return static_cast<uint8_t>(k < kNnInputs ? k : 128 + (k - kNnInputs)); }

Neuron RandomNeuron(std::mt19937_64& rng) {
  Neuron n;
  for (int k = 0; k < kGenesPerNeuron; ++k) {
    n.gene[k] = GeneType(k);
    n.weight[k] = static_cast<uint16_t>(rng() >> 48);
    n.a_max[k] = static_cast<uint16_t>(rng() >> 48);
    n.a_min[k] = static_cast<uint16_t>(rng() >> 48);
  }
  return n;
}

NetworkInputs InputsOf(const EnvironmentInfo& e) {
  // §2.5.3, the thesis' normalisation line by line.
  return {e.density / 360.0,
          e.clutter / 10.0,
          e.ofd_cm / 250.0,
          (e.clear_to_goal ? 1.0 : 0.0) - 0.5,
          (e.senses_goal ? 1.0 : 0.0) - 0.5,
          (e.goal_nearby ? 1.0 : 0.0) - 0.5,
          e.wander,
          (e.nomovement ? 1.0 : 0.0) - 0.5,
          0.5};
}

double DecodeGene(uint16_t v, bool literal_integer_division) {
  // (double) -1.0 + weight / 32767: in C the division is between integers (A18).
  return literal_integer_division ? -1.0 + static_cast<double>(v / 32767) : -1.0 + v / 32767.0;
}

DecodedNetwork Decode(const Network& net, bool literal) {
  DecodedNetwork d;
  for (int j = 0; j < kNnNeurons; ++j) {
    for (int k = 0; k < kGenesPerNeuron; ++k) {
      const unsigned x = net[j].gene[k];
      DecodedNetwork::Gene& g = d.genes[j][k];
      // < 128: input x % 9; > 127: output x % 5 (§2.5.3).
      g.output = x > 127;
      g.index = static_cast<uint8_t>(g.output ? x % kNnOutputs : x % kNnInputs);
      g.weight = DecodeGene(net[j].weight[k], literal);
      g.a_max = DecodeGene(net[j].a_max[k], literal);
      g.a_min = DecodeGene(net[j].a_min[k], literal);
    }
  }
  return d;
}

NetworkOutputs Forward(const DecodedNetwork& net, const NetworkInputs& input, GateCounts* counts) {
  NetworkOutputs output{};  // zeroed every cycle (A19)
  if (counts) ++counts->evaluations;
  for (const auto& neuron : net.genes) {
    double neuron_value = 0.0;
    for (const DecodedNetwork::Gene& g : neuron) {
      if (g.output) continue;
      const double y = g.weight * input[g.index];
      // The activation window is the gate: the signal passes only strictly inside (a_min, a_max).
      if (GatePasses(y, g.a_min, g.a_max)) {
        neuron_value += y;
        if (counts) ++counts->input_passed[g.index];
      }
    }
    for (const DecodedNetwork::Gene& g : neuron) {
      if (!g.output) continue;
      const double y = neuron_value * g.weight;
      if (GatePasses(y, g.a_min, g.a_max)) {
        output[g.index] += y;
        if (counts) ++counts->output_passed[g.index];
      }
    }
  }
  return output;
}

NetworkOutputs Forward(const Network& net, const NetworkInputs& input, bool literal, GateCounts* counts) {
  return Forward(Decode(net, literal), input, counts);
}

ControlGains GainsOf(const NetworkOutputs& out, double scale, double np_s, double s_cm) {
  ControlGains g;
  g.tgg = out[0] * scale;
  g.egg = out[1] * scale;
  g.og = out[2] * scale;
  g.gg = out[3] * scale;
  g.ng = out[4] * scale;
  g.np_s = np_s;
  g.s_cm = s_cm;
  return g;
}

void ValidateNeuralOptions(const NeuralOptions& o) {
  if (!(std::isfinite(o.output_scale) && o.output_scale > 0.0)) {
    throw std::invalid_argument("network controller: output scale must be a positive number");
  }
  if (!(std::isfinite(o.np_s) && o.np_s > 0.0)) throw std::invalid_argument("network controller: NP must be > 0 s");
  if (!(o.s_cm > 0.0 && o.s_cm <= kMaxRangeCm)) {
    throw std::invalid_argument("network controller: S must be in (0, 250] cm");
  }
  if (!(std::isfinite(o.environment.wander_window_s) && o.environment.wander_window_s > 0.0)) {
    throw std::invalid_argument("network controller: the Wander window must be > 0 s (A19)");
  }
  ValidateWeightOptions(o.weight);
}

NeuralController::NeuralController(const NeuralOptions& options)
    : options_(options),
      env_(options.environment),
      field_(options.weight),
      noise_(options.seed),
      decoded_(Decode(options.network, options.literal_integer_division)),
      np_cycles_(std::max<int64_t>(1, std::llround(options.np_s / kControlPeriodS))) {
  ValidateNeuralOptions(options);
}

double NeuralController::Step(const SensorFrame& f) {
  if (!Usable(f)) return kNaN;
  const EnvironmentInfo& env = env_.Update(f);
  NeuralStep& s = last_;
  s.inputs = InputsOf(env);
  s.outputs = Forward(decoded_, s.inputs, &counts_);
  s.gains = GainsOf(s.outputs, options_.output_scale, options_.np_s, options_.s_cm);
  const ControlGains& g = s.gains;
  // §2.5.1: Tv's side is chosen when TGG becomes non-zero (and kept while it stays so).
  if (g.tgg != 0.0 && !tgg_active_) temporary_.Reset();
  tgg_active_ = g.tgg != 0.0;
  // §2.1: R = GG·Gv + OG·Ov(S) + NG·Nv + TGG·Tv + EGG·Ev, every gain from this cycle's outputs.
  const Vec2 p{f.odom.x_cm, f.odom.y_cm};
  Vec2 r = g.gg * GoalVector(p, f.goal);
  if (g.og != 0.0) r = r + g.og * field_.Compute(f.ranges, g.s_cm);
  if (g.ng != 0.0) r = r + g.ng * noise_.At(f.cycle, np_cycles_);
  if (g.tgg != 0.0) r = r + g.tgg * temporary_.Compute(f.ranges, env.goal_bearing_deg);
  if (g.egg != 0.0) r = r + g.egg * ExitGoalVector(f.ranges, env.goal_bearing_deg, options_.segments);
  s.resultant = r;
  return ResultantHeading(r, f.odom.heading_deg);
}

std::string FormatNeuron(const Neuron& n) {
  std::ostringstream s;
  s << "neuron";
  for (int k = 0; k < kGenesPerNeuron; ++k) {
    s << "  " << static_cast<int>(n.gene[k]) << " " << n.weight[k] << " " << n.a_min[k] << " " << n.a_max[k];
  }
  return s.str();
}

long ReadGeneField(std::istream& in, long max, const std::string& where, const std::string& what,
                   const std::string& shape) {
  std::string token;
  if (!(in >> token)) throw std::runtime_error(where + ": missing " + what + " (" + shape + ")");
  size_t used = 0;
  long v = -1;
  try {
    v = std::stol(token, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != token.size() || v < 0 || v > max) {
    throw std::runtime_error(where + ": " + what + " must be an integer in 0.." + std::to_string(max) + ", got '" +
                             token + "'");
  }
  return v;
}

Neuron ParseNeuron(const std::string& line, const std::string& source) {
  std::istringstream in(line);
  std::string word;
  if (!(in >> word) || word != "neuron") throw std::runtime_error(source + ": expected a line 'neuron ...'");
  Neuron n;
  const std::string shape = "a neuron has " + std::to_string(kGenesPerNeuron) + " genes of type weight a_min a_max";
  for (int k = 0; k < kGenesPerNeuron; ++k) {
    const std::string where = source + ": gene " + std::to_string(k);
    n.gene[k] = static_cast<uint8_t>(ReadGeneField(in, 255, where, "type", shape));
    n.weight[k] = static_cast<uint16_t>(ReadGeneField(in, 65535, where, "weight", shape));
    n.a_min[k] = static_cast<uint16_t>(ReadGeneField(in, 65535, where, "a_min", shape));
    n.a_max[k] = static_cast<uint16_t>(ReadGeneField(in, 65535, where, "a_max", shape));
  }
  if (in >> word) throw std::runtime_error(source + ": more than " + std::to_string(kGenesPerNeuron) + " genes");
  return n;
}

void SaveNetwork(const Network& network, std::ostream& out) {
  out << "# limbic laser network (spec reactive-topological §2.5.2): 5 neurons of 14 genes 'type weight a_min "
         "a_max'\n";
  for (const Neuron& n : network) out << FormatNeuron(n) << "\n";
}

Network LoadNetwork(std::istream& in, const std::string& source) {
  Network net;
  int count = 0, line_no = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    if (count == kNnNeurons) throw std::runtime_error(source + ":" + std::to_string(line_no) + ": more than 5 neurons");
    net[count++] = ParseNeuron(line, source + ":" + std::to_string(line_no));
  }
  if (count != kNnNeurons) {
    throw std::runtime_error(source + ": a network has 5 neurons, found " + std::to_string(count));
  }
  return net;
}

Network LoadNetworkFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return LoadNetwork(in, path);
}

}  // namespace limbic::laser
