#include "services/laser_nav/recurrent_network.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "services/laser_nav/neural_network.hpp"

namespace limbic::laser {
namespace {

constexpr const char* kHeader = "recurrent_network";
constexpr const char* kNeuronWord = "rneuron";

uint16_t Random16(std::mt19937_64& rng) { return static_cast<uint16_t>(rng() >> 48); }

// The weights and windows decode as the feed-forward genes (§2.5.3, floating-point division).
double Decode16(uint16_t v) { return DecodeGene(v, false); }

}  // namespace

RecurrentNeuron RandomRecurrentNeuron(std::mt19937_64& rng) {
  RecurrentNeuron n;
  n.bias = Random16(rng);
  for (RecurrentConnection& c : n.in) {
    c.weight = Random16(rng);
    c.a_min = Random16(rng);
    c.a_max = Random16(rng);
  }
  return n;
}

SectorReduction ParseSectorReduction(const std::string& text) {
  if (text == "min") return SectorReduction::kMin;
  if (text == "mean") return SectorReduction::kMean;
  throw std::invalid_argument("sectors must be min or mean, got '" + text + "'");
}

RnnFrame ParseRnnFrame(const std::string& text) {
  if (text == "world") return RnnFrame::kWorld;
  if (text == "body") return RnnFrame::kBody;
  throw std::invalid_argument("frame must be world or body, got '" + text + "'");
}

std::array<double, kRnnSectors> SectorRanges(const RangeScan& ranges, SectorReduction reduction,
                                             int first_bearing_deg) {
  std::array<double, kRnnSectors> out{};
  constexpr int kHalf = kRnnSectorDeg / 2;
  for (int s = 0; s < kRnnSectors; ++s) {
    const int centre = first_bearing_deg + kRnnSectorDeg * s;
    double min = kMaxRangeCm, sum = 0.0;
    for (int d = -kHalf; d <= kHalf; ++d) {
      const int beam = ((centre + d) % kBeams + kBeams) % kBeams;
      const double r = ranges[static_cast<size_t>(beam)];
      min = std::min(min, r);
      sum += r;
    }
    out[static_cast<size_t>(s)] = reduction == SectorReduction::kMin ? min : sum / kRnnSectorDeg;
  }
  return out;
}

DecodedRecurrentNetwork Decode(const RecurrentNetwork& net) {
  if (net.empty() || net.size() > static_cast<size_t>(kRnnMaxNeurons)) {
    throw std::invalid_argument("recurrent network: 1.." + std::to_string(kRnnMaxNeurons) + " neurons (§2.7), got " +
                                std::to_string(net.size()));
  }
  DecodedRecurrentNetwork d;
  d.size = static_cast<int>(net.size());
  const size_t sources = static_cast<size_t>(kRnnInputs + d.size);
  d.bias.reserve(net.size());
  d.weight.reserve(net.size() * sources);
  d.a_min.reserve(net.size() * sources);
  d.a_max.reserve(net.size() * sources);
  for (const RecurrentNeuron& n : net) {
    d.bias.push_back(Decode16(n.bias));
    // Inputs 0..24, then the connections from the network's own neurons 0..size−1 (the rest unused).
    for (size_t i = 0; i < sources; ++i) {
      d.weight.push_back(Decode16(n.in[i].weight));
      d.a_min.push_back(Decode16(n.in[i].a_min));
      d.a_max.push_back(Decode16(n.in[i].a_max));
    }
  }
  return d;
}

double RecurrentStep(const DecodedRecurrentNetwork& net, const RecurrentInputs& inputs, std::vector<double>* state) {
  const size_t size = static_cast<size_t>(net.size);
  if (state->size() != size) throw std::invalid_argument("recurrent network: one state per neuron");
  const size_t sources = static_cast<size_t>(kRnnInputs) + size;
  // The sources in connection order: the inputs, then the previous cycle's states.
  std::vector<double> x(sources);
  std::copy(inputs.begin(), inputs.end(), x.begin());
  std::copy(state->begin(), state->end(), x.begin() + kRnnInputs);
  std::vector<double> next(size);
  double out = 0.0;
  for (size_t j = 0; j < size; ++j) {
    const double* w = &net.weight[j * sources];
    const double* lo = &net.a_min[j * sources];
    const double* hi = &net.a_max[j * sources];
    double sum = net.bias[j];
    for (size_t i = 0; i < sources; ++i) {
      const double y = w[i] * x[i];
      // Branch-free gate (a random genome's windows pass about half the signals, which a branch
      // mispredicts): adds y or 0.
      sum += y * static_cast<double>(GatePasses(y, lo[i], hi[i]));
    }
    if (j == 0) out = sum;
    next[j] = std::tanh(sum);
  }
  // Synchronous update: every neuron above saw the previous cycle's states only.
  *state = std::move(next);
  return out;
}

double HeadingOfOutput(double out) { return 180.0 * (1.0 + std::tanh(out)); }

void ValidateRecurrentOptions(const RecurrentOptions& o) { Decode(o.network); }

RecurrentController::RecurrentController(const RecurrentOptions& options)
    : options_(options), decoded_(Decode(options.network)), state_(options.network.size(), 0.0) {}

double RecurrentController::Step(const SensorFrame& f) {
  if (!Usable(f)) return kNaN;
  RecurrentStepInfo& s = last_;
  const double heading = f.odom.heading_deg;
  const int first_bearing = options_.frame == RnnFrame::kBody ? static_cast<int>(std::lround(heading)) : 0;
  const std::array<double, kRnnSectors> sectors = SectorRanges(f.ranges, options_.sectors, first_bearing);
  for (int i = 0; i < kRnnSectors; ++i)
    s.inputs[static_cast<size_t>(i)] = sectors[static_cast<size_t>(i)] / kMaxRangeCm;
  const double goal_bearing = BearingOf(f.goal - Vec2{f.odom.x_cm, f.odom.y_cm});
  s.inputs[kRnnSectors] = Wrap180(goal_bearing - heading) / 180.0;  // §2.7 [A]
  s.out = RecurrentStep(decoded_, s.inputs, &state_);
  s.heading_deg =
      options_.frame == RnnFrame::kBody ? Wrap360(heading + 180.0 * std::tanh(s.out)) : Wrap360(HeadingOfOutput(s.out));
  return s.heading_deg;
}

std::string FormatRecurrentNeuron(const RecurrentNeuron& n) {
  std::ostringstream s;
  s << kNeuronWord << " " << n.bias;
  for (const RecurrentConnection& c : n.in) s << "  " << c.weight << " " << c.a_min << " " << c.a_max;
  return s.str();
}

RecurrentNeuron ParseRecurrentNeuron(const std::string& line, const std::string& source) {
  std::istringstream in(line);
  std::string word;
  if (!(in >> word) || word != kNeuronWord) {
    throw std::runtime_error(source + ": expected a line '" + std::string(kNeuronWord) + " ...'");
  }
  const std::string shape =
      "a recurrent neuron is a bias and " + std::to_string(kRnnConnections) + " connections of weight a_min a_max";
  RecurrentNeuron n;
  n.bias = static_cast<uint16_t>(ReadGeneField(in, 65535, source, "bias", shape));
  for (int k = 0; k < kRnnConnections; ++k) {
    const std::string where = source + ": connection " + std::to_string(k);
    RecurrentConnection& c = n.in[static_cast<size_t>(k)];
    c.weight = static_cast<uint16_t>(ReadGeneField(in, 65535, where, "weight", shape));
    c.a_min = static_cast<uint16_t>(ReadGeneField(in, 65535, where, "a_min", shape));
    c.a_max = static_cast<uint16_t>(ReadGeneField(in, 65535, where, "a_max", shape));
  }
  if (in >> word) {
    throw std::runtime_error(source + ": more than " + std::to_string(kRnnConnections) + " connections");
  }
  return n;
}

void SaveRecurrentNetwork(const RecurrentNetwork& network, std::ostream& out) {
  out << "# limbic laser recurrent network (spec reactive-topological §2.7): per neuron 'rneuron BIAS' and "
      << kRnnConnections << " connections 'weight a_min a_max' (" << kRnnInputs << " inputs, then neurons 0.."
      << kRnnMaxNeurons - 1 << ")\n";
  out << kHeader << " " << network.size() << "\n";
  for (const RecurrentNeuron& n : network) out << FormatRecurrentNeuron(n) << "\n";
}

RecurrentNetwork LoadRecurrentNetwork(std::istream& in, const std::string& source) {
  RecurrentNetwork net;
  long declared = -1;
  int line_no = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = source + ":" + std::to_string(line_no);
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    if (declared < 0) {
      std::istringstream s(line);
      std::string word;
      if (!(s >> word) || word != kHeader) {
        throw std::runtime_error(where + ": expected '" + std::string(kHeader) + " N' (a recurrent network file)");
      }
      declared = ReadGeneField(s, std::numeric_limits<int>::max(), where, "the neuron count", "recurrent_network N");
      if (declared < 1 || declared > kRnnMaxNeurons) {
        throw std::runtime_error(where + ": a recurrent network has 1.." + std::to_string(kRnnMaxNeurons) +
                                 " neurons (§2.7), the file declares " + std::to_string(declared));
      }
      if (s >> word) throw std::runtime_error(where + ": unexpected '" + word + "' after the neuron count");
      continue;
    }
    if (static_cast<long>(net.size()) == declared) {
      throw std::runtime_error(where + ": more neurons than the " + std::to_string(declared) + " declared");
    }
    net.push_back(ParseRecurrentNeuron(line, where));
  }
  if (declared < 0) throw std::runtime_error(source + ": empty (expected '" + std::string(kHeader) + " N')");
  if (static_cast<long>(net.size()) != declared) {
    throw std::runtime_error(source + ": declares " + std::to_string(declared) + " neurons, found " +
                             std::to_string(net.size()));
  }
  return net;
}

RecurrentNetwork LoadRecurrentNetworkFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return LoadRecurrentNetwork(in, path);
}

}  // namespace limbic::laser
