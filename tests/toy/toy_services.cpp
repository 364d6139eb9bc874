#include "tests/toy/toy_services.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>

#include "common/hash/fnv1a.hpp"

namespace limbic::toy {
namespace {

using runtime::ServiceContext;
using runtime::TickInfo;
using runtime::Timing;

template <typename Out>
void PublishValue(Out& out, const TickInfo& tick, double v) {
  out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    return msg::CreateVelocityCommand(fbb, header, v, static_cast<double>(tick.tick));
  });
}

}  // namespace

runtime::ServiceDefinition SourceService() {
  return {"source", "toy pipeline head: seeded noise plus feedback", [](ServiceContext& ctx) {
            struct State {
              int64_t seed = 1;
              std::mt19937_64 rng;
            };
            auto state = std::make_shared<State>();
            state->seed = ctx.Option<int64_t>("seed", 1, "random seed");
            state->rng.seed(static_cast<uint64_t>(state->seed));
            auto feedback = ctx.AddInput<msg::VelocityCommand>("toy/feedback", Timing::kPreviousTick);
            auto out = ctx.AddOutput<msg::VelocityCommand>("toy/a");
            ctx.AddStep({.outputs = {"toy/a"}}, [=](const TickInfo& tick) {
              std::uniform_real_distribution<double> uniform(0.0, 1.0);
              const double fb = feedback->Get() ? feedback->Get()->v() : 0.0;
              PublishValue(out, tick, uniform(state->rng) + 0.5 * fb);
            });
          }};
}

runtime::ServiceDefinition ScaleService() {
  return {"scale", "toy pipeline middle: b = 2a + sin(a)", [](ServiceContext& ctx) {
            auto a = ctx.AddInput<msg::VelocityCommand>("toy/a", Timing::kSameTick);
            auto out = ctx.AddOutput<msg::VelocityCommand>("toy/b");
            ctx.AddStep({.outputs = {"toy/b"}}, [=](const TickInfo& tick) {
              const double v = a->Get()->v();
              PublishValue(out, tick, 2.0 * v + std::sin(v));
            });
          }};
}

runtime::ServiceDefinition SinkService() {
  return {"sink", "toy pipeline tail: feedback = b/4, hashes the sequence", [](ServiceContext& ctx) {
            struct State {
              std::string hash_file;
              uint64_t hash = hash::kFnv1aBasis;
              int64_t ticks = 0;
            };
            auto state = std::make_shared<State>();
            state->hash_file = ctx.Option<std::string>("hash_file", "", "where to write the output hash on stop");
            auto b = ctx.AddInput<msg::VelocityCommand>("toy/b", Timing::kSameTick);
            auto out = ctx.AddOutput<msg::VelocityCommand>("toy/feedback");
            ctx.AddStep({.outputs = {"toy/feedback"}}, [=](const TickInfo& tick) {
              const double v = b->Get()->v();
              state->hash = hash::Fnv1aBytes(&tick.tick, sizeof(tick.tick), state->hash);
              state->hash = hash::Fnv1aBytes(&v, sizeof(v), state->hash);
              ++state->ticks;
              PublishValue(out, tick, v / 4.0);
            });
            ctx.Counter("ticks", [state] { return static_cast<double>(state->ticks); });
            ctx.OnStop([state] {
              if (state->hash_file.empty()) return;
              std::ofstream(state->hash_file) << std::hex << state->hash << " " << std::dec << state->ticks << "\n";
            });
          }};
}

runtime::ServiceDefinition LoopAService() {
  return {"loop_a", "toy same-tick loop, half A", [](ServiceContext& ctx) {
            auto in = ctx.AddInput<msg::VelocityCommand>("toy/loop_b", Timing::kSameTick);
            auto out = ctx.AddOutput<msg::VelocityCommand>("toy/loop_a");
            ctx.AddStep({.outputs = {"toy/loop_a"}}, [=](const TickInfo& tick) { PublishValue(out, tick, 1.0); });
          }};
}

runtime::ServiceDefinition LoopBService() {
  return {"loop_b", "toy same-tick loop, half B", [](ServiceContext& ctx) {
            auto in = ctx.AddInput<msg::VelocityCommand>("toy/loop_a", Timing::kSameTick);
            auto out = ctx.AddOutput<msg::VelocityCommand>("toy/loop_b");
            ctx.AddStep({.outputs = {"toy/loop_b"}}, [=](const TickInfo& tick) { PublishValue(out, tick, 1.0); });
          }};
}

runtime::ServiceDefinition TalkerService() {
  return {"talker", "publishes a counter on `chatter` every tick", [](ServiceContext& ctx) {
            struct State {
              bool latched = false;
              bool state = false;
              int64_t count = -1;  // messages to send; -1 = forever
              std::string topic = "chatter";
              std::string degraded;
              int64_t fail_at = -1;
              std::string crash_once;
            };
            auto state = std::make_shared<State>();
            state->latched = ctx.Option("latched", false, "publish as a latched topic");
            // A direct node sends only state directly (docs/protocol.md section 13, "First messages").
            state->state = ctx.Option("state", false, "publish the counter as odometry, a state type, not a command");
            state->count = ctx.LiveParam<int64_t>("count", -1, "stop publishing after this many messages (-1: never)",
                                                  runtime::AtLeast<int64_t>(-1),
                                                  [state](const int64_t& count) { state->count = count; });
            state->topic = ctx.Option<std::string>("topic", "chatter", "topic to publish on");
            // Health scenarios for `limbic nodes` tests (issue 15, item 2).
            state->degraded = ctx.Option<std::string>("degraded", "", "report itself degraded with this reason");
            state->fail_at = ctx.Option<int64_t>("fail_at", -1, "the step throws once at this tick (-1: never)");
            state->crash_once = ctx.Option<std::string>(
                "crash_once", "", "exit(3) at tick 5 unless this file exists (it is created first): one crash");
            std::shared_ptr<runtime::Output<msg::VelocityCommand>> out;
            std::shared_ptr<runtime::Output<msg::Odometry>> odom;
            if (state->state) {
              odom = ctx.AddOutput<msg::Odometry>(state->topic, state->latched);
            } else {
              out = ctx.AddOutput<msg::VelocityCommand>(state->topic, state->latched);
            }
            ctx.AddStep({}, [=, &ctx](const TickInfo& tick) {
              if (!state->degraded.empty()) ctx.SetDegraded(state->degraded);
              if (tick.tick == state->fail_at)
                throw std::runtime_error("toy failure at tick " + std::to_string(tick.tick));
              if (!state->crash_once.empty() && tick.tick == 5 && !std::ifstream(state->crash_once)) {
                std::ofstream(state->crash_once) << "crashed\n";
                std::cerr << "talker: crashing once (crash_once)" << std::endl;
                std::_Exit(3);
              }
              if (state->count >= 0 && tick.tick >= state->count) return;
              if (odom) {
                odom->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                  const msg::Pose2 pose(0.0, 0.0, 0.0);
                  return msg::CreateOdometry(fbb, header, &pose, 0.0, 0.0);
                });
              } else {
                PublishValue(out, tick, tick.time_s);
              }
            });
          }};
}

runtime::ServiceDefinition ListenerService() {
  return {"listener", "prints what it hears on `chatter`", [](ServiceContext& ctx) {
            // The talker's `state=true` counterpart: its counter as odometry.
            if (ctx.Option("state", false, "listen for odometry, the talker's state=true type, not a command")) {
              ctx.OnMessage<msg::Odometry>("chatter", [](const bus::Message<msg::Odometry>& m) {
                const double latency_ms = (bus::Node::WallNowNs() - m.header.stamp_ns()) / 1e6;
                std::cout << "heard #" << m.header.seq() << " from " << m.header.source()->str() << " (odometry, "
                          << latency_ms << " ms after it was sent)" << std::endl;
              });
              return;
            }
            ctx.OnMessage<msg::VelocityCommand>("chatter", [](const bus::Message<msg::VelocityCommand>& m) {
              const double latency_ms = (bus::Node::WallNowNs() - m.header.stamp_ns()) / 1e6;
              std::cout << "heard #" << m.header.seq() << " from " << m.header.source()->str() << " (t = " << m.msg.v()
                        << " s, " << latency_ms << " ms after it was sent)" << std::endl;
            });
          }};
}

const runtime::ServiceDefinition* FindToyService(const std::string& name) {
  static const std::vector<runtime::ServiceDefinition> all = {SourceService(),  ScaleService(), SinkService(),
                                                              LoopAService(),   LoopBService(), TalkerService(),
                                                              ListenerService()};
  for (const auto& d : all) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

}  // namespace limbic::toy
