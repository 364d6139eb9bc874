#include "services/laser_nav/neural_network.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace limbic::laser {
namespace {

// A network in which no gate ever passes: weight 0 and the empty window (0, 0).
Network Silent() {
  Network net;
  for (Neuron& n : net) {
    for (int k = 0; k < kGenesPerNeuron; ++k) {
      n.gene[k] = GeneType(k);
      n.weight[k] = kGeneZero;
      n.a_min[k] = kGeneZero;
      n.a_max[k] = kGeneZero;
    }
  }
  return net;
}

void SetGene(Neuron* n, int k, uint16_t weight, uint16_t a_min, uint16_t a_max) {
  n->weight[k] = weight;
  n->a_min[k] = a_min;
  n->a_max[k] = a_max;
}

SensorFrame NetworkFrame(int64_t cycle, Vec2 position = {330, 100}, Vec2 goal = {430, 200}) {
  SensorFrame f;
  f.cycle = cycle;
  f.time_s = cycle * 0.01;
  f.ranges.fill(250);
  f.odom.x_cm = position.x;
  f.odom.y_cm = position.y;
  f.goal = goal;
  return f;
}

TEST(NeuralNetwork, GenesDecodeAsTheThesisCodeWithFloatingOrLiteralDivision) {
  EXPECT_DOUBLE_EQ(DecodeGene(kGeneMinusOne, false), -1.0);
  EXPECT_DOUBLE_EQ(DecodeGene(kGeneZero, false), 0.0);
  EXPECT_DOUBLE_EQ(DecodeGene(kGeneOne, false), 1.0);
  EXPECT_NEAR(DecodeGene(65535, false), 1.0000305, 1e-7);  // the top of the range (§2.5.3 note ii)
  EXPECT_NEAR(DecodeGene(49151, false), 0.5000153, 1e-7);
  // A18: in literal C, weight/32767 is an integer division: every value becomes −1, 0 or 1.
  EXPECT_DOUBLE_EQ(DecodeGene(32766, true), -1.0);
  EXPECT_DOUBLE_EQ(DecodeGene(49151, true), 0.0);
  EXPECT_DOUBLE_EQ(DecodeGene(65535, true), 1.0);
}

TEST(NeuralNetwork, InputsAreTheThesisNormalisation) {
  EnvironmentInfo e;
  e.density = 90;
  e.clutter = 4;
  e.ofd_cm = 50;
  e.clear_to_goal = true;
  e.senses_goal = false;
  e.goal_nearby = true;
  e.wander = 0.25;
  e.nomovement = false;
  const NetworkInputs in = InputsOf(e);
  const NetworkInputs expected{0.25, 0.4, 0.2, 0.5, -0.5, 0.5, 0.25, -0.5, 0.5};
  for (int i = 0; i < kNnInputs; ++i) EXPECT_DOUBLE_EQ(in[i], expected[i]) << "input " << i;
}

TEST(NeuralNetwork, InitialNeuronsConnectEveryInputAndOutputOnce) {
  std::mt19937_64 rng(5);
  const Neuron n = RandomNeuron(rng);
  for (int k = 0; k < kNnInputs; ++k) EXPECT_EQ(n.gene[k], k);
  for (int k = kNnInputs; k < kGenesPerNeuron; ++k) EXPECT_EQ(n.gene[k], 128 + k - kNnInputs);
  std::mt19937_64 again(5);
  EXPECT_EQ(RandomNeuron(again), n);  // seeded
}

// The forward pass worked by hand: inputs density 0.5, clutter 0.3, wander 0.2, reference 0.5.
TEST(NeuralNetwork, ForwardPassMatchesAHandComputation) {
  Network net = Silent();
  // Neuron 0: +1·density (0.5) and +1·wander (0.2) pass their (−1, 1) windows; +1·clutter (0.3) is
  // outside its window (−1, 0). neuron value = 0.7.
  SetGene(&net[0], 0, kGeneOne, kGeneMinusOne, kGeneOne);
  SetGene(&net[0], 6, kGeneOne, kGeneMinusOne, kGeneOne);
  SetGene(&net[0], 1, kGeneOne, kGeneMinusOne, kGeneZero);
  // Output genes: type 128 reaches output 128 % 5 = 3 (GG): +1 · 0.7 passes; type 129 → output 4
  // (NG): −1 · 0.7 = −0.7 is below its window (0, 1) and is blocked.
  SetGene(&net[0], 9, kGeneOne, kGeneMinusOne, kGeneOne);
  SetGene(&net[0], 10, kGeneMinusOne, kGeneZero, kGeneOne);
  // Neuron 1: −1 · reference 0.5 = −0.5; type 130 → output 0 (TGG): +1 · −0.5 passes; type 131 →
  // output 1 (EGG) with weight −1: +0.5 passes.
  SetGene(&net[1], 8, kGeneMinusOne, kGeneMinusOne, kGeneOne);
  SetGene(&net[1], 11, kGeneOne, kGeneMinusOne, kGeneOne);
  SetGene(&net[1], 12, kGeneMinusOne, kGeneMinusOne, kGeneOne);
  // Neuron 2 adds to GG as well (contributions add, §2.5.3 note iii): +1 · reference 0.5, then
  // +1 · 0.5 to GG.
  SetGene(&net[2], 8, kGeneOne, kGeneMinusOne, kGeneOne);
  SetGene(&net[2], 9, kGeneOne, kGeneMinusOne, kGeneOne);
  NetworkInputs in{};
  in[0] = 0.5;
  in[1] = 0.3;
  in[6] = 0.2;
  in[8] = 0.5;
  GateCounts counts;
  const NetworkOutputs out = Forward(net, in, false, &counts);
  EXPECT_NEAR(out[0], -0.5, 1e-12);  // TGG
  EXPECT_NEAR(out[1], 0.5, 1e-12);   // EGG
  EXPECT_DOUBLE_EQ(out[2], 0.0);     // OG
  EXPECT_NEAR(out[3], 1.2, 1e-12);   // GG = 0.7 + 0.5
  EXPECT_DOUBLE_EQ(out[4], 0.0);     // NG blocked
  EXPECT_EQ(counts.evaluations, 1);
  EXPECT_EQ(counts.input_passed[0], 1);
  EXPECT_EQ(counts.input_passed[1], 0);  // clutter's gate never passed
  EXPECT_EQ(counts.input_passed[6], 1);
  EXPECT_EQ(counts.input_passed[8], 2);
  EXPECT_EQ(counts.output_passed[3], 2);
  EXPECT_EQ(counts.output_passed[4], 0);
  const ControlGains g = GainsOf(out, 10.0, 2.5, 250.0);
  EXPECT_NEAR(g.tgg, -5.0, 1e-12);
  EXPECT_NEAR(g.egg, 5.0, 1e-12);
  EXPECT_NEAR(g.gg, 12.0, 1e-12);
  EXPECT_DOUBLE_EQ(g.og, 0.0);
  EXPECT_DOUBLE_EQ(g.np_s, 2.5);
  EXPECT_DOUBLE_EQ(g.s_cm, 250.0);
  // The gate is strict: y equal to a window edge does not pass (1 · 1.0 = a_max = 1.0).
  Network edge = Silent();
  SetGene(&edge[0], 0, kGeneOne, kGeneMinusOne, kGeneOne);
  SetGene(&edge[0], 9, kGeneOne, kGeneMinusOne, 65535);
  NetworkInputs full{};
  full[0] = 1.0;
  EXPECT_DOUBLE_EQ(Forward(edge, full)[3], 0.0);
  edge[0].a_max[0] = 65535;  // a_max = 1.00003: now it passes
  EXPECT_NEAR(Forward(edge, full)[3], 1.0, 1e-12);
  // Literal integer division: weight 49151 decodes to 0, so nothing reaches GG.
  Network literal = Silent();
  SetGene(&literal[0], 8, 49151, kGeneMinusOne, kGeneOne);
  SetGene(&literal[0], 9, kGeneOne, kGeneMinusOne, kGeneOne);
  EXPECT_NEAR(Forward(literal, in, false)[3], 0.5 * DecodeGene(49151, false), 1e-12);
  EXPECT_DOUBLE_EQ(Forward(literal, in, true)[3], 0.0);
}

TEST(NeuralNetwork, MutatedTypesOutsideTheValidSetAreReducedModuloAsInTheCode) {
  Network net = Silent();
  net[0].gene[0] = 17;  // 17 % 9 = 8: the reference input
  SetGene(&net[0], 0, kGeneOne, kGeneMinusOne, kGeneOne);
  net[0].gene[9] = 255;  // 255 % 5 = 0: TGG
  SetGene(&net[0], 9, kGeneOne, kGeneMinusOne, kGeneOne);
  NetworkInputs in{};
  in[8] = 0.5;
  EXPECT_NEAR(Forward(net, in)[0], 0.5, 1e-12);
}

TEST(NeuralController, GoalGainOnlyHeadsForTheGoal) {
  NeuralOptions o;
  o.network = Silent();
  SetGene(&o.network[0], 8, kGeneOne, kGeneMinusOne, kGeneOne);  // neuron value 0.5
  SetGene(&o.network[0], 9, kGeneOne, kGeneMinusOne, kGeneOne);  // GG = 10 · 0.5 = 5
  NeuralController c(o);
  EXPECT_NEAR(c.Step(NetworkFrame(0)), 45.0, 1e-9);  // goal at (+100, +100)
  EXPECT_NEAR(c.last().gains.gg, 5.0, 1e-12);
  EXPECT_NEAR(c.last().resultant.x, 5.0 / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(c.gate_counts().evaluations, 1);
  // A negative goal gain (≈ Repulsion of the goal, §2.5.3 note iv) heads away.
  NeuralOptions away = o;
  away.network[0].weight[9] = kGeneMinusOne;
  NeuralController d(away);
  EXPECT_NEAR(d.Step(NetworkFrame(0)), 225.0, 1e-9);
}

TEST(NeuralController, SilentNetworkKeepsTheHeadingAndBadFramesAreRefused) {
  NeuralOptions o;
  o.network = Silent();
  NeuralController c(o);
  SensorFrame f = NetworkFrame(0);
  f.odom.heading_deg = 123.0;
  EXPECT_DOUBLE_EQ(c.Step(f), 123.0);  // R = 0: keep the heading (§2.1)
  f.odom.x_cm = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(c.Step(f)));
  EXPECT_EQ(c.rejected_frames(), 1);
}

TEST(NeuralController, RefusesBadOptions) {
  NeuralOptions o;
  o.np_s = 0.0;
  EXPECT_THROW(NeuralController{o}, std::invalid_argument);
  o = {};
  o.s_cm = 300.0;
  EXPECT_THROW(NeuralController{o}, std::invalid_argument);
  o = {};
  o.output_scale = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(NeuralController{o}, std::invalid_argument);
  o = {};
  o.environment.wander_window_s = 0.0;
  EXPECT_THROW(NeuralController{o}, std::invalid_argument);
}

// A19: without cases the network's Wander is measured over the last second.
TEST(EnvironmentTracker, SlidingWindowWander) {
  EnvironmentOptions o;
  o.wander_window_s = 1.0;  // 100 cycles
  EnvironmentTracker t(o);
  // 1 cm per cycle east for 100 cycles, then north.
  auto position = [](int k) { return k <= 100 ? Vec2{100.0 + k, 100} : Vec2{200, 100.0 + (k - 100)}; };
  for (int k = 0; k <= 100; ++k) t.Update(NetworkFrame(k, position(k)));
  EXPECT_NEAR(t.info().wander, 0.0, 1e-12);  // straight
  for (int k = 101; k <= 150; ++k) t.Update(NetworkFrame(k, position(k)));
  // From cycle 50 (150, 100) to (200, 150): l = 50√2 over p = 100.
  EXPECT_NEAR(t.info().wander, 1.0 - 50.0 * std::sqrt(2.0) / 100.0, 1e-9);
  for (int k = 151; k <= 200; ++k) t.Update(NetworkFrame(k, position(k)));
  EXPECT_NEAR(t.info().wander, 0.0, 1e-9);  // the last second was straight north
  t.ResetWander();                          // no cases: a reset does not touch the window
  t.Update(NetworkFrame(201, position(201)));
  EXPECT_NEAR(t.info().wander, 0.0, 1e-9);
}

TEST(NetworkText, RoundTripsAndRefusesBadLines) {
  std::mt19937_64 rng(3);
  Network net;
  for (Neuron& n : net) n = RandomNeuron(rng);
  std::stringstream s;
  SaveNetwork(net, s);
  EXPECT_EQ(LoadNetwork(s, "net"), net);
  std::string line = FormatNeuron(net[0]);
  EXPECT_EQ(ParseNeuron(line, "x"), net[0]);
  EXPECT_THROW(ParseNeuron(line + " 7", "x"), std::runtime_error);
  EXPECT_THROW(ParseNeuron(line.substr(0, line.rfind(' ')), "x"), std::runtime_error);
  EXPECT_THROW(ParseNeuron("neuron 256 0 0 0", "x"), std::runtime_error);
  EXPECT_THROW(ParseNeuron("neuron -1 0 0 0", "x"), std::runtime_error);
  EXPECT_THROW(ParseNeuron("neurons 1", "x"), std::runtime_error);
  std::string with_nan = line;
  with_nan.replace(with_nan.find(' ', 8), 2, " nan ");
  EXPECT_THROW(ParseNeuron(with_nan, "x"), std::runtime_error);
  std::stringstream four;
  for (int j = 0; j < 4; ++j) four << FormatNeuron(net[j]) << "\n";
  EXPECT_THROW(LoadNetwork(four, "four"), std::runtime_error);
  EXPECT_THROW(LoadNetworkFile("/nonexistent/network.txt"), std::runtime_error);
}

}  // namespace
}  // namespace limbic::laser
