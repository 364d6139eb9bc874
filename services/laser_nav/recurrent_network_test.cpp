#include "services/laser_nav/recurrent_network.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "services/laser_nav/neural_network.hpp"

namespace limbic::laser {
namespace {

constexpr int kGoalInput = kRnnSectors;  // index of the goal-bearing input
int FromNeuron(int j) { return kRnnInputs + j; }

// A neuron that passes nothing: zero bias, zero weights, empty windows (0, 0).
RecurrentNeuron SilentRecurrent() {
  RecurrentNeuron n;
  n.bias = kGeneZero;
  for (RecurrentConnection& c : n.in) c = {kGeneZero, kGeneZero, kGeneZero};
  return n;
}

// Weight w with the open window (−1, 1).
void Connect(RecurrentNeuron* n, int source, uint16_t weight, uint16_t a_min = kGeneMinusOne,
             uint16_t a_max = kGeneOne) {
  n->in[static_cast<size_t>(source)] = {weight, a_min, a_max};
}

SensorFrame RecurrentFrame(int64_t cycle, double heading_deg = 0.0, Vec2 goal = {430, 100}) {
  SensorFrame f;
  f.cycle = cycle;
  f.time_s = cycle * 0.01;
  f.ranges.fill(250);
  f.odom.x_cm = 330;
  f.odom.y_cm = 100;
  f.odom.heading_deg = heading_deg;
  f.goal = goal;
  return f;
}

TEST(RecurrentNetwork, SectorsReduceFifteenBeamsCentredOnTheirBearing) {
  RangeScan scan;
  scan.fill(250);
  scan[353] = 100;  // sector 0 covers 353..7: its first beam
  scan[7] = 200;    // and its last
  scan[8] = 50;     // sector 1 (8..22)
  scan[180] = 25;   // sector 12 (173..187)
  const auto min = SectorRanges(scan, SectorReduction::kMin);
  EXPECT_DOUBLE_EQ(min[0], 100.0);
  EXPECT_DOUBLE_EQ(min[1], 50.0);
  EXPECT_DOUBLE_EQ(min[12], 25.0);
  EXPECT_DOUBLE_EQ(min[23], 250.0);  // 338..352: untouched
  const auto mean = SectorRanges(scan, SectorReduction::kMean);
  EXPECT_DOUBLE_EQ(mean[0], (13 * 250.0 + 100 + 200) / 15);
  EXPECT_DOUBLE_EQ(mean[1], (14 * 250.0 + 50) / 15);
  // Body frame, heading 180: sector 0 is centred on beam 180.
  const auto body = SectorRanges(scan, SectorReduction::kMin, 180);
  EXPECT_DOUBLE_EQ(body[0], 25.0);
  EXPECT_DOUBLE_EQ(body[12], 100.0);  // centred on 360 ≡ 0
}

// One neuron: sector 0 at 0.5 through weight 1, and itself through weight 1. By hand:
// cycle 1 net = 0.5 → out 0.5, heading 180·(1 + tanh 0.5) = 263.181;
// cycle 2 net = 0.5 + tanh 0.5 = 0.962117 → heading 180·(1 + tanh 0.962117) = 314.140.
TEST(RecurrentNetwork, OneNeuronByHandAndItsStateCarriesOver) {
  RecurrentNeuron n = SilentRecurrent();
  Connect(&n, 0, kGeneOne);
  Connect(&n, FromNeuron(0), kGeneOne);
  RecurrentController c({{n}, SectorReduction::kMin, RnnFrame::kWorld});
  SensorFrame f = RecurrentFrame(0);
  for (int b = 353; b < 360; ++b) f.ranges[static_cast<size_t>(b)] = 125;
  EXPECT_NEAR(c.Step(f), 263.18108830680177, 1e-9);
  EXPECT_DOUBLE_EQ(c.last().inputs[0], 0.5);
  EXPECT_DOUBLE_EQ(c.last().out, 0.5);
  EXPECT_NEAR(c.state()[0], 0.46211715726000974, 1e-12);
  f.cycle = 1;
  EXPECT_NEAR(c.Step(f), 314.1395536193673, 1e-9);  // same inputs, different heading: the state
  EXPECT_NEAR(c.last().out, 0.9621171572600098, 1e-12);
  // A fresh controller starts from a zero state again.
  RecurrentController fresh({{n}, SectorReduction::kMin, RnnFrame::kWorld});
  f.cycle = 0;
  EXPECT_NEAR(fresh.Step(f), 263.18108830680177, 1e-9);
}

// The window gates the recurrent signal too: tanh 0.5 = 0.462 is outside (−1, 0.4), so cycle 2 equals
// cycle 1.
TEST(RecurrentNetwork, ActivationWindowGatesTheRecurrentConnection) {
  RecurrentNeuron n = SilentRecurrent();
  Connect(&n, 0, kGeneOne);
  Connect(&n, FromNeuron(0), kGeneOne, kGeneMinusOne, static_cast<uint16_t>(std::lround(32767 * 1.4)));
  const DecodedRecurrentNetwork d = Decode({n});
  RecurrentInputs in{};
  in[0] = 0.5;
  std::vector<double> state(1, 0.0);
  EXPECT_DOUBLE_EQ(RecurrentStep(d, in, &state), 0.5);
  EXPECT_DOUBLE_EQ(RecurrentStep(d, in, &state), 0.5);
}

// Two neurons: neuron 1 reads the goal bearing (east, heading north: 90/180 = 0.5) through weight 1;
// the output neuron 0 reads neuron 1 through weight −1. By hand: cycle 1 neuron 0 sees neuron 1's
// initial 0 → out 0, heading 180; cycle 2 it sees tanh 0.5 → out −0.462117, heading
// 180·(1 + tanh −0.462117) = 102.275. Synchronous: in cycle 1 neuron 0 does not see neuron 1's new state.
TEST(RecurrentNetwork, TwoNeuronsByHand) {
  RecurrentNeuron out = SilentRecurrent(), hidden = SilentRecurrent();
  Connect(&out, FromNeuron(1), kGeneMinusOne);
  Connect(&hidden, kGoalInput, kGeneOne);
  RecurrentController c({{out, hidden}, SectorReduction::kMin, RnnFrame::kWorld});
  SensorFrame f = RecurrentFrame(0);
  EXPECT_DOUBLE_EQ(c.Step(f), 180.0);
  EXPECT_DOUBLE_EQ(c.last().inputs[kGoalInput], 0.5);
  EXPECT_NEAR(c.state()[1], 0.46211715726000974, 1e-12);
  f.cycle = 1;
  EXPECT_NEAR(c.Step(f), 102.27452749288268, 1e-9);
  EXPECT_NEAR(c.last().out, -0.46211715726000974, 1e-12);
  // Goal bearing relative to the heading: heading 180, goal east → −90/180.
  RecurrentController turned({{out, hidden}, SectorReduction::kMin, RnnFrame::kWorld});
  turned.Step(RecurrentFrame(0, 180.0));
  EXPECT_DOUBLE_EQ(turned.last().inputs[kGoalInput], -0.5);
}

// Synchronous update: neuron 1 copies neuron 0 with one cycle's delay, though it is computed after it.
TEST(RecurrentNetwork, AllNeuronsUpdateFromThePreviousCycle) {
  RecurrentNeuron first = SilentRecurrent(), copy = SilentRecurrent();
  Connect(&first, 0, kGeneOne);
  Connect(&copy, FromNeuron(0), kGeneOne);
  const DecodedRecurrentNetwork d = Decode({first, copy});
  RecurrentInputs in{};
  in[0] = 0.5;
  std::vector<double> state(2, 0.0);
  RecurrentStep(d, in, &state);
  EXPECT_NEAR(state[0], 0.46211715726000974, 1e-12);
  EXPECT_DOUBLE_EQ(state[1], 0.0);  // saw neuron 0's state of before this cycle
  RecurrentStep(d, in, &state);
  EXPECT_NEAR(state[1], std::tanh(0.46211715726000974), 1e-12);
}

TEST(RecurrentNetwork, BodyFrameOutputIsRelativeToTheHeading) {
  RecurrentNeuron n = SilentRecurrent();
  Connect(&n, kGoalInput, kGeneOne);
  RecurrentController c({{n}, SectorReduction::kMin, RnnFrame::kBody});
  // Heading 30, goal east: relative 60/180; out = 1/3 → 30 + 180·tanh(1/3).
  EXPECT_NEAR(c.Step(RecurrentFrame(0, 30.0)), 30.0 + 180.0 * std::tanh(1.0 / 3.0), 1e-9);
}

TEST(RecurrentNetwork, RefusesEmptyOrOversizedNetworksAndBadFrames) {
  EXPECT_THROW(RecurrentController({}), std::invalid_argument);
  std::mt19937_64 rng(1);
  RecurrentNetwork big(kRnnMaxNeurons + 1, RandomRecurrentNeuron(rng));
  EXPECT_THROW(Decode(big), std::invalid_argument);
  big.pop_back();
  EXPECT_EQ(Decode(big).size, kRnnMaxNeurons);
  RecurrentController c({{SilentRecurrent()}, SectorReduction::kMin, RnnFrame::kWorld});
  SensorFrame f = RecurrentFrame(0);
  f.odom.x_cm = std::nan("");
  EXPECT_TRUE(std::isnan(c.Step(f)));
  EXPECT_EQ(c.rejected_frames(), 1);
  EXPECT_THROW(ParseSectorReduction("max"), std::invalid_argument);
  EXPECT_THROW(ParseRnnFrame("robot"), std::invalid_argument);
}

TEST(RecurrentNetworkText, RoundTrips) {
  std::mt19937_64 rng(3);
  RecurrentNetwork net;
  for (int j = 0; j < 3; ++j) net.push_back(RandomRecurrentNeuron(rng));
  std::stringstream s;
  SaveRecurrentNetwork(net, s);
  EXPECT_EQ(LoadRecurrentNetwork(s, "net"), net);
  EXPECT_EQ(ParseRecurrentNeuron(FormatRecurrentNeuron(net[1]), "x"), net[1]);
}

std::string ErrorOf(const std::string& text) {
  std::istringstream in(text);
  try {
    LoadRecurrentNetwork(in, "net.txt");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RecurrentNetworkText, RefusesMalformedFilesWithAClearError) {
  std::mt19937_64 rng(3);
  const std::string line = FormatRecurrentNeuron(RandomRecurrentNeuron(rng));
  EXPECT_NE(ErrorOf("recurrent_network 2\n" + line + "\n").find("declares 2 neurons, found 1"), std::string::npos);
  EXPECT_NE(ErrorOf("recurrent_network 1\n" + line + "\n" + line + "\n").find("net.txt:3: more neurons"),
            std::string::npos);
  EXPECT_NE(ErrorOf("recurrent_network 51\n").find("1..50 neurons"), std::string::npos);
  EXPECT_NE(ErrorOf("recurrent_network 0\n").find("1..50 neurons"), std::string::npos);
  EXPECT_NE(ErrorOf(line + "\n").find("expected 'recurrent_network N'"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("empty"), std::string::npos);
  std::string bad = line;
  bad.replace(bad.find(' ', 10), 1, " x");  // a non-numeric field
  EXPECT_NE(ErrorOf("recurrent_network 1\n" + bad + "\n").find("must be an integer in 0..65535, got 'x"),
            std::string::npos);
  EXPECT_NE(ErrorOf("recurrent_network 1\n" + line + " 7\n").find("more than 75 connections"), std::string::npos);
  EXPECT_NE(ErrorOf("recurrent_network 1\n" + line.substr(0, line.rfind(' ')) + "\n").find("missing a_max"),
            std::string::npos);
  EXPECT_NE(ErrorOf("recurrent_network 1\nrneuron 70000\n").find("bias must be an integer"), std::string::npos);
  EXPECT_THROW(LoadRecurrentNetworkFile("/nonexistent/rnn.txt"), std::runtime_error);
  // A feed-forward network file is not a recurrent one.
  EXPECT_NE(ErrorOf("neuron 0 1 2 3\n").find("expected 'recurrent_network N'"), std::string::npos);
}

}  // namespace
}  // namespace limbic::laser
