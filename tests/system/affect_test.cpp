// Issue 5 item 5, on observed messages: in set G, collisions with undetectable obstacles raise pain and
// error, confusion rises, the introspection drive rises and the map-avoidance weights rise; in set A,
// happiness rises and the speed limit rises.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/convert/convert.hpp"
#include "tools/stack/stack.hpp"

namespace limbic {
namespace {

// What the observer records each tick.
struct Sample {
  double t = 0;
  std::vector<double> stimuli, emotions, drives;
  ControlParameters params;
};

// A lockstep participant that records the affect state and the parameters of every tick.
runtime::ServiceDefinition Observer(std::shared_ptr<std::vector<Sample>> samples) {
  return {"observer", "records affect state and parameters", [samples](runtime::ServiceContext& ctx) {
            auto affect = ctx.AddInput<msg::AffectState>(ctx.Topic("affect"), runtime::Timing::kSameTick);
            auto params = ctx.AddInput<msg::ControlParams>(ctx.Topic("params"), runtime::Timing::kSameTick);
            ctx.AddStep({}, [=](const runtime::TickInfo& tick) {
              Sample s;
              s.t = tick.time_s;
              const auto* a = affect->Get();
              s.stimuli.assign(a->stimuli_damped()->begin(), a->stimuli_damped()->end());
              s.emotions.assign(a->emotions_combined()->begin(), a->emotions_combined()->end());
              s.drives.assign(a->drives()->begin(), a->drives()->end());
              s.params = convert::FromMsg(*params->Get());
              samples->push_back(std::move(s));
            });
          }};
}

std::vector<Sample> RunObserved(char set, int index, int iterations) {
  stack::StackSpec spec;
  // The scenario world: generator seed 2008 puts undetectable obstacles on set G #0\'s route.
  spec.env_seed = 2008;
  spec.set = set;
  spec.index = index;
  spec.iterations = iterations;
  spec.affect_config = "affective";
  spec.max_ticks = 6000 * iterations + 100;
  auto samples = std::make_shared<std::vector<Sample>>();
  auto services = stack::BuildStack(spec);
  services.front().options.participants.push_back("r1/observer");
  runtime::HostedService observer{Observer(samples), {}};
  observer.options.robot = spec.robot;
  services.push_back(observer);
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://affect-" + std::string(1, set), services, stop), 0);
  return *samples;
}

template <typename F>
double MaxOf(const std::vector<Sample>& s, F f) {
  double m = -1e9;
  for (const auto& x : s) m = std::max(m, f(x));
  return m;
}

// Indices (messages/affect.fbs): stimuli 2 pain, 8 error; emotions 2 happiness, 6 confusion; drive 5
// introspection.
TEST(AffectSystem, SetGUndetectableObstaclesRaisePainErrorConfusionAndIntrospection) {
  const auto s = RunObserved('G', 0, 5);
  ASSERT_GT(s.size(), 100u);
  const auto& first = s.front();
  const double pain = MaxOf(s, [](const Sample& x) { return x.stimuli[2]; });
  const double error = MaxOf(s, [](const Sample& x) { return x.stimuli[8]; });
  const double confusion = MaxOf(s, [](const Sample& x) { return x.emotions[6]; });
  const double introspection = MaxOf(s, [](const Sample& x) { return x.drives[5]; });
  const double w_v2 = MaxOf(s, [](const Sample& x) { return x.params.w_v2; });
  const double w_theta2 = MaxOf(s, [](const Sample& x) { return x.params.w_theta2; });
  const double w_p2 = MaxOf(s, [](const Sample& x) { return x.params.w_p2; });
  std::cout << "set G #0, 5 traversals, " << s.size() << " ticks: max pain " << pain << ", error " << error
            << ", confusion " << confusion << ", introspection " << introspection << ", W_v2 " << w_v2 << ", W_theta2 "
            << w_theta2 << ", W_p2 " << w_p2 << "\n";
  EXPECT_GT(pain, first.stimuli[2] + 0.1);
  EXPECT_GT(error, first.stimuli[8] + 0.1);
  EXPECT_GT(confusion, first.emotions[6] + 0.05);
  EXPECT_GT(introspection, first.drives[5] + 0.05);
  EXPECT_GT(w_v2, first.params.w_v2);
  EXPECT_GT(w_theta2, first.params.w_theta2);
  EXPECT_GT(w_p2, first.params.w_p2);
}

TEST(AffectSystem, SetAOpenSpaceRaisesHappinessAndTheSpeedLimit) {
  const auto s = RunObserved('A', 0, 1);
  ASSERT_GT(s.size(), 50u);
  const double happiness = MaxOf(s, [](const Sample& x) { return x.emotions[2]; });
  const double v_limit = MaxOf(s, [](const Sample& x) { return x.params.v_limit; });
  std::cout << "set A #0, 1 traversal, " << s.size() << " ticks: happiness " << s.front().emotions[2] << " -> max "
            << happiness << ", v_L " << s.front().params.v_limit << " -> max " << v_limit << " (end "
            << s.back().params.v_limit << ")\n";
  EXPECT_GT(happiness, s.front().emotions[2] + 0.1);
  EXPECT_GT(v_limit, s.front().params.v_limit + 0.01);
}

// What reached a subscriber of one robot's emotion layer and path in a lockstep run.
struct LayerRun {
  int layers = 0;              // EmotionLayer messages
  int latched = 0;             // of which latched (a late joiner gets the newest from the bus)
  std::vector<double> paths;   // every Path's max cost, node count and first node, in order
  std::vector<double> truths;  // every GroundTruth pose
};

LayerRun RunLayer(const std::string& config, const std::string& publish, int64_t ticks) {
  stack::StackSpec spec;
  spec.set = 'B';
  spec.index = 0;
  spec.seed = 18;
  spec.affect_config = config;
  spec.iterations = 1000;
  spec.max_ticks = ticks;
  spec.options = {"mission.timeout_s=3600", "affect.emotion_layer_publish=" + publish};
  auto run = std::make_shared<LayerRun>();
  auto services = stack::BuildStack(spec);
  runtime::ServiceDefinition probe{
      "layer_probe", "counts layers, records paths",
      [run](runtime::ServiceContext& ctx) {
        ctx.OnMessage<msg::EmotionLayer>("r1/emotion_layer", [run](const bus::Message<msg::EmotionLayer>& m) {
          ++run->layers;
          run->latched += m.header.latched() ? 1 : 0;
        });
        ctx.OnMessage<msg::Path>("r1/path", [run](const bus::Message<msg::Path>& m) {
          run->paths.push_back(m.msg.max_cost());
          const auto* nodes = m.msg.nodes();
          run->paths.push_back(nodes ? nodes->size() : -1.0);
          if (nodes && nodes->size() > 0) run->paths.push_back(nodes->Get(0)->x());
        });
        ctx.OnMessage<msg::GroundTruth>("r1/truth", [run](const bus::Message<msg::GroundTruth>& m) {
          run->truths.push_back(m.msg.pose()->x());
          run->truths.push_back(m.msg.pose()->y());
        });
      },
      /*global=*/true};
  runtime::HostedService p{probe, {}};
  p.options.robot = "";
  services.push_back(std::move(p));
  std::atomic<bool> stop{false};
  EXPECT_EQ(runtime::RunInProcess("inproc://affect-layer-" + config + "-" + publish, std::move(services), stop), 0);
  return *run;
}

// Issue 18 (performance): affect.emotion_layer_publish=on_change (the default) publishes the layer only when its
// content changes, latched, so that a late joiner (a restarted planner, a recorder) still gets the current one. The
// constant configuration's layer (disabled: all zeros) goes out once instead of every tick; with the affective
// configuration it goes out as it changes. Either way the planner, reading the newest previous-tick layer, plans
// the same paths and the robot drives the same route, value for value.
TEST(AffectSystem, EmotionLayerOnChangePublishesLessAndPlansTheSame) {
  for (const std::string config : {"constant", "affective"}) {
    SCOPED_TRACE(config);
    const LayerRun every = RunLayer(config, "every_tick", 300);
    const LayerRun changed = RunLayer(config, "on_change", 300);
    EXPECT_GE(every.layers, 299);
    EXPECT_EQ(every.latched, 0);
    EXPECT_EQ(changed.latched, changed.layers);
    if (config == "constant") {
      EXPECT_EQ(changed.layers, 1);
    } else {
      EXPECT_GE(changed.layers, 1);
      EXPECT_LE(changed.layers, every.layers);
    }
    ASSERT_GT(every.paths.size(), 100u);
    EXPECT_EQ(changed.paths, every.paths);
    ASSERT_GT(every.truths.size(), 500u);
    EXPECT_EQ(changed.truths, every.truths);
  }
}

}  // namespace
}  // namespace limbic
