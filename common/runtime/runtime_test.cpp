#include "common/runtime/runtime.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <thread>

#include "common/bus/broker.hpp"
#include "common/bus/local_bus.hpp"
#include "common/runtime/in_process.hpp"

namespace limbic::runtime {
namespace {

// A stored VelocityCommand whose v is the tick it carries, so selection is visible.
void StoreTick(Input<msg::VelocityCommand>& input, int64_t tick, double v) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateVelocityCommand(fbb, msg::CreateHeaderDirect(fbb, 0, tick, 1, "t"), v, 0), "CMDV");
  input.Store(tick, fbb.GetBufferPointer(), fbb.GetSize());
}

TEST(Input, SameTickSelectsExactlyThatTick) {
  Input<msg::VelocityCommand> input("x", Timing::kSameTick, false);
  StoreTick(input, 3, 3.0);
  StoreTick(input, 4, 4.0);
  input.Select(Mode::kLockstep, 4);
  ASSERT_TRUE(input.Get());
  EXPECT_EQ(input.Get()->v(), 4.0);
  input.Select(Mode::kLockstep, 5);  // not there yet
  EXPECT_EQ(input.Get(), nullptr);
  EXPECT_FALSE(input.HasTick(5));
}

// In process an input keeps the LocalBus's delivered buffer instead of a copy; any other caller's bytes are
// copied (a ZeroMQ frame is gone after the handler), and a shared buffer that does not hold those bytes is
// not trusted.
TEST(Input, KeepsASharedDeliveryAndCopiesEverythingElse) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateVelocityCommand(fbb, msg::CreateHeaderDirect(fbb, 0, 2, 1, "t"), 0.5, 0), "CMDV");
  auto delivered =
      std::make_shared<const std::vector<uint8_t>>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  Input<msg::VelocityCommand> shared("x", Timing::kSameTick, false);
  shared.Store(2, delivered->data(), delivered->size(), &delivered);
  shared.Select(Mode::kLockstep, 2);
  ASSERT_TRUE(shared.Get());
  EXPECT_EQ(shared.Get(), flatbuffers::GetRoot<msg::VelocityCommand>(delivered->data()));  // the same bytes
  EXPECT_EQ(delivered.use_count(), 2);

  Input<msg::VelocityCommand> copied("x", Timing::kSameTick, false);
  const auto other = std::make_shared<const std::vector<uint8_t>>(4, 0);
  copied.Store(2, delivered->data(), delivered->size(), &other);  // not the bytes it holds: copied
  copied.Store(2, fbb.GetBufferPointer(), fbb.GetSize());
  copied.Select(Mode::kLockstep, 2);
  ASSERT_TRUE(copied.Get());
  EXPECT_EQ(copied.Get()->v(), 0.5);
  EXPECT_EQ(delivered.use_count(), 2);
  EXPECT_EQ(other.use_count(), 1);
}

TEST(Input, FeedbackNeverSeesTheCurrentTickEvenIfItArrivedEarly) {
  Input<msg::VelocityCommand> input("x", Timing::kPreviousTick, false);
  StoreTick(input, 6, 6.0);
  StoreTick(input, 7, 7.0);  // arrived early: must not be used at tick 7
  input.Select(Mode::kLockstep, 7);
  ASSERT_TRUE(input.Get());
  EXPECT_EQ(input.Get()->v(), 6.0);
  input.Select(Mode::kLockstep, 8);
  EXPECT_EQ(input.Get()->v(), 7.0);
}

TEST(Input, FeedbackHoldsTheLastValueAcrossQuietTicksAndUntiedMessages) {
  Input<msg::VelocityCommand> input("x", Timing::kPreviousTick, false);
  StoreTick(input, -1, 99.0);  // e.g. a goal sent by hand, tied to no tick
  input.Select(Mode::kLockstep, 0);
  EXPECT_EQ(input.Get()->v(), 99.0);
  StoreTick(input, 2, 2.0);
  input.Select(Mode::kLockstep, 10);
  EXPECT_EQ(input.Get()->v(), 2.0);
}

TEST(Input, RealtimeUsesTheNewest) {
  Input<msg::VelocityCommand> input("x", Timing::kSameTick, false);
  StoreTick(input, 1, 1.0);
  StoreTick(input, 9, 9.0);
  StoreTick(input, 2, 2.0);
  input.Select(Mode::kRealtime, 0);
  EXPECT_EQ(input.Get()->v(), 2.0);
  EXPECT_LT(input.AgeS(), 1.0);
}

TEST(Names, InstanceAndTopics) {
  EXPECT_EQ(InstanceName("mapper", "r1"), "r1/mapper");
  EXPECT_EQ(InstanceName("bus", ""), "bus");
  EXPECT_EQ(RobotTopic("r2", "scan"), "r2/scan");
  EXPECT_EQ(RobotTopic("r2", "/clock"), "clock");
  EXPECT_EQ(RobotTopic("", "faults"), "faults");
}

TEST(ServiceContext, LiveParametersReadYamlValidateAndApply) {
  config::StrictMap map(YAML::Load("gain: 2.5\n"), "svc.yaml");
  HostOptions options;
  ServiceContext ctx(options, &map);
  double applied = 0.0;
  int changes = 0;
  const double initial = ctx.LiveParam<double>("gain", 1.0, "a gain", InRange(0.5, 5.0), [&](const double& g) {
    applied = g;
    ++changes;
  });
  EXPECT_EQ(initial, 2.5);  // from the YAML, not the default
  ASSERT_EQ(ctx.parameters().size(), 1u);
  const Parameter& gain = ctx.parameters()[0];
  EXPECT_EQ(gain.kind, ParameterKind::kLive);
  EXPECT_EQ(gain.range, "[0.5, 5]");
  EXPECT_EQ(gain.set(YAML::Load("4")), "4");
  EXPECT_EQ(applied, 4.0);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(gain.get(), "4");
  // Refused: not a number, out of range, not finite. The value and the algorithm keep the last good one.
  EXPECT_THROW(gain.set(YAML::Load("fast")), config::ConfigError);
  try {
    gain.set(YAML::Load("7"));
    ADD_FAILURE() << "7 is outside [0.5, 5]";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("[0.5, 5]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gain.set(YAML::Load(".nan")), config::ConfigError);
  EXPECT_THROW(gain.set(YAML::Load(".inf")), config::ConfigError);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(gain.get(), "4");
}

TEST(ServiceContext, AnApplyStepThatThrowsRefusesTheSetAndKeepsTheOldValue) {
  HostOptions options;
  ServiceContext ctx(options, nullptr);
  ctx.LiveParam<int>("n", 3, "a count", {}, [](const int& n) {
    if (n == 13) throw std::invalid_argument("13 is unlucky");
  });
  const Parameter& n = ctx.parameters()[0];
  try {
    n.set(YAML::Load("13"));
    ADD_FAILURE() << "the apply step refused 13";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("13 is unlucky"), std::string::npos) << e.what();
  }
  EXPECT_EQ(n.get(), "3");
}

TEST(ServiceContext, OptionsAreReadOnceAndALiveSetSaysHowToChangeThem) {
  config::StrictMap map(YAML::Load("mode: fast\n"), "svc.yaml");
  HostOptions options;
  options.service = "svc";
  options.robot = "r1";
  ServiceContext ctx(options, &map);
  EXPECT_EQ(ctx.Option<std::string>("mode", "slow", "a mode", OneOf({"slow", "fast"})), "fast");
  EXPECT_EQ(ctx.Option<int>("depth", 4, "a depth"), 4);  // default: not in the YAML
  const Parameter& mode = ctx.parameters()[0];
  EXPECT_EQ(mode.kind, ParameterKind::kOption);
  EXPECT_EQ(mode.range, "slow | fast");
  try {
    mode.set(YAML::Load("slow"));
    ADD_FAILURE() << "an option cannot be set live";
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("start-up option of r1/svc"), std::string::npos) << what;
    EXPECT_NE(what.find("--set mode=VALUE"), std::string::npos) << what;
  }
  EXPECT_EQ(mode.get(), "fast");
}

TEST(ServiceContext, AnInvalidStartUpValueIsRefusedWithItsValidRange) {
  config::StrictMap map(YAML::Load("mode: bogus\nratio: .nan\n"), "svc.yaml");
  HostOptions options;
  ServiceContext ctx(options, &map);
  try {
    ctx.Option<std::string>("mode", "slow", "a mode", OneOf({"slow", "fast"}));
    ADD_FAILURE() << "bogus is not a mode";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("slow | fast"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ctx.LiveParam<double>("ratio", 0.5, "a ratio", {}, {}), config::ConfigError);
}

// The storage belongs to the runtime: a setting registered inside a setup function that has since
// returned still reads back (hwio once registered a pointer to a local and crashed on `param get`).
TEST(ServiceContext, SettingsOutliveTheSetupFunctionThatDeclaredThem) {
  config::StrictMap map(YAML::Load("fault_script: faults.yaml\n"), "svc.yaml");
  HostOptions options;
  ServiceContext ctx(options, &map);
  [&] {
    const std::string local = ctx.Option<std::string>("fault_script", "", "a file");
    EXPECT_EQ(local, "faults.yaml");
  }();
  std::string clobber(64, 'x');  // reuse the stack where the local was
  EXPECT_EQ(ctx.parameters()[0].get(), "faults.yaml");
}

// A two-stage pipeline with feedback: head publishes a_k = 0.5 * a_{k-1}' + k (feedback from tail,
// previous tick), tail publishes b_k = a_k / 3 (same tick) and hashes what it saw; tail asks the
// coordinator to end the run after tick `stop_at`.
struct PipelineResult {
  double checksum = 0.0;
  int64_t tail_ticks = 0;
  InProcessStats stats;
  int status = -1;
};

// `conductor`: the coordinator is a third host with no step of its own (as the simulator is not a producer of the
// pipeline's topics), so the probes and the inputs come from different nodes.
ServiceDefinition PipelineHead() {
  return ServiceDefinition{"head", "test head", [](ServiceContext& ctx) {
                             auto feedback = ctx.AddInput<msg::VelocityCommand>("t/b", Timing::kPreviousTick);
                             auto out = ctx.AddOutput<msg::VelocityCommand>("t/a");
                             ctx.AddStep({.waits_for = {}, .outputs = {"t/a"}}, [=](const TickInfo& tick) {
                               const double fb = feedback->Get() ? feedback->Get()->v() : 0.0;
                               out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                                 // tick % 10 keeps the speed a valid one (messages/validate.hpp: |v| <= 100 m/s).
                                 return msg::CreateVelocityCommand(fbb, header, 0.5 * fb + tick.tick % 10, 0.0);
                               });
                             });
                           }};
}

ServiceDefinition PipelineTail(std::shared_ptr<PipelineResult> result, int64_t stop_at) {
  return ServiceDefinition{"tail", "test tail", [result, stop_at](ServiceContext& ctx) {
                             auto a = ctx.AddInput<msg::VelocityCommand>("t/a", Timing::kSameTick);
                             auto out = ctx.AddOutput<msg::VelocityCommand>("t/b");
                             ctx.AddStep({.waits_for = {}, .outputs = {"t/b"}}, [=, &ctx](const TickInfo& tick) {
                               const double b = a->Get()->v() / 3.0;
                               result->checksum = result->checksum * 1.0001 + b * (tick.tick + 1);
                               ++result->tail_ticks;
                               out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                                 return msg::CreateVelocityCommand(fbb, header, b, 0.0);
                               });
                               if (tick.tick == stop_at) ctx.RequestRunStop();
                             });
                           }};
}

PipelineResult RunPipeline(const std::string& name, bool single_thread, int64_t stop_at, bool conductor = false) {
  auto result = std::make_shared<PipelineResult>();
  const ServiceDefinition head = PipelineHead();
  const ServiceDefinition tail = PipelineTail(result, stop_at);
  HostedService h{head, {}};
  h.options.robot = "";
  HostedService t{tail, {}};
  t.options.robot = "";
  std::vector<HostedService> services{h, t};
  if (conductor) {
    services.push_back(HostedService{ServiceDefinition{"conductor", "test coordinator", [](ServiceContext&) {}}, {}});
    services.back().options.robot = "";
  }
  services.back().options.coordinate = true;
  services.back().options.participants = {"head", "tail"};
  InProcessOptions options;
  options.single_thread = single_thread;
  std::atomic<bool> stop{false};
  // The conductor's runs go over ipc: there ZeroMQ connects, and hands a subscription to the publisher's socket, on
  // its I/O threads, in the background (over inproc both happen at once, so the race below could not show).
  const std::string address =
      conductor ? "ipc:///tmp/limbic-runtime-test-" + std::to_string(getpid()) + "-" + name : "inproc://" + name;
  result->status = RunInProcess(address, services, stop, options, &result->stats);
  return *result;
}

TEST(RunInProcess, OneThreadAndAThreadPerServiceGiveTheSameRunAndStopAfterTheRequestedTick) {
  const PipelineResult one = RunPipeline("one-thread", true, 199);
  const PipelineResult many = RunPipeline("threads", false, 199);
  ASSERT_EQ(one.status, 0);
  ASSERT_EQ(many.status, 0);
  // Ticks 0..199, then the coordinator stops: the tick that asked is the last.
  EXPECT_EQ(one.tail_ticks, 200);
  EXPECT_EQ(many.tail_ticks, 200);
  EXPECT_EQ(one.stats.ticks, 200);
  EXPECT_EQ(many.stats.ticks, 200);
  EXPECT_EQ(one.checksum, many.checksum);
  // The run's own span, start-up and teardown excluded: measured on one thread, where the calling thread did the work.
  EXPECT_GT(one.stats.run_s, 0.0);
  EXPECT_LE(one.stats.run_s, one.stats.total_s - one.stats.startup_s);
  EXPECT_GT(one.stats.run_cpu_s, 0.0);
  EXPECT_LE(one.stats.run_cpu_s, one.stats.run_s * 1.05 + 0.01);  // one thread's CPU time cannot outrun its wall time
  EXPECT_EQ(many.stats.run_s, 0.0) << "a thread per service: the calling thread's CPU time says nothing";
  EXPECT_EQ(many.stats.run_cpu_s, 0.0);
  // Tick 1 by hand: a_0 = 0, b_0 = 0; a_1 = 0.5 * 0 + 1 = 1, b_1 = 1/3 -> checksum after two ticks 2/3.
  const PipelineResult two = RunPipeline("two", true, 1);
  EXPECT_EQ(two.tail_ticks, 2);
  EXPECT_NEAR(two.checksum, 2.0 / 3.0, 1e-12);
}

// The tail waits for the head's output of the same tick, from tick 0 on: sent once, it must find the tail's
// subscription in place. The coordinator starts the run only once every participant has answered one and the same
// probe with its links proven (Host::AnswerProbe); on the direct path (the default; LIMBIC_BUS_PATH=broker in
// runtime_test_broker_path) the probes come through the broker and the head's output straight from its socket, so a
// join that did not wait for that link stalled the run at tick 0 now and then.
TEST(RunInProcess, ACoordinatorApartFromTheProducerStartsOnlyOnceEveryInputCanArrive) {
  const PipelineResult reference = RunPipeline("reference", true, 49);
  ASSERT_EQ(reference.status, 0);
  for (int i = 0; i < 5; ++i) {
    for (bool single_thread : {false, true}) {
      const PipelineResult run = RunPipeline("conductor-" + std::to_string(i), single_thread, 49, true);
      ASSERT_EQ(run.status, 0);
      EXPECT_EQ(run.tail_ticks, 50);
      EXPECT_EQ(run.checksum, reference.checksum);
    }
  }
}

// Every Node this process makes while it lives takes the direct path ($LIMBIC_BUS_PATH); the old value after.
class DirectPathInThisProcess {
 public:
  DirectPathInThisProcess() {
    const char* path = std::getenv("LIMBIC_BUS_PATH");
    saved_ = path ? path : "";
    ::setenv("LIMBIC_BUS_PATH", "direct", 1);
  }
  ~DirectPathInThisProcess() {
    if (saved_.empty()) {
      ::unsetenv("LIMBIC_BUS_PATH");
    } else {
      ::setenv("LIMBIC_BUS_PATH", saved_.c_str(), 1);
    }
  }

 private:
  std::string saved_;
};

// A broker on its own thread at `address`, stopped (and its thread joined) by Stop or on destruction.
class BrokerThread {
 public:
  BrokerThread(zmq::context_t& context, const std::string& address)
      : broker_(context,
                [&] {
                  bus::BrokerOptions options;
                  options.address = address;
                  return options;
                }()),
        thread_([this] { broker_.Run(stop_); }) {}
  ~BrokerThread() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  bus::Broker broker_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// On the direct path, over ipc, the producer of the tail's same-tick input starts late: the tail has answered probes
// for a while, then learns the head's endpoint and connects in the background while the head joins. The run starts
// only on a probe both answered after that, the tail once the head's data socket has taken in its subscription
// (Host::AnswerProbe), so the head's tick-0 output, sent once, reaches it. This is the scenario, not a proof: with
// the link wait left out it passed too (20 of 20 runs, quiet machine) — the race needs the connection to be slower
// than a round through the broker; direct_test's ALinkIsReady... shows the wait itself deterministically.
TEST(Host, ALateProducersFirstOutputReachesAConsumerThatJoinedBeforeIt) {
  using namespace std::chrono_literals;
  const PipelineResult reference = RunPipeline("late-reference", true, 49);
  ASSERT_EQ(reference.status, 0);
  const DirectPathInThisProcess direct_path;
  for (int round = 0; round < 3; ++round) {
    const std::string address =
        "ipc:///tmp/limbic-runtime-test-" + std::to_string(getpid()) + "-late-" + std::to_string(round);
    zmq::context_t context;
    BrokerThread broker(context, address);
    auto result = std::make_shared<PipelineResult>();
    auto options = [&](bool coordinate) {
      HostOptions o;
      o.robot = "";
      o.bus = address;
      o.mode = Mode::kLockstep;
      o.probe_period = 5ms;
      o.coordinate = coordinate;
      if (coordinate) o.participants = {"head", "tail"};
      return o;
    };
    std::atomic<bool> stop{false};
    std::vector<int> statuses(3, -1);
    std::thread conductor([&] {
      Host host(context, options(true), ServiceDefinition{"conductor", "test coordinator", [](ServiceContext&) {}});
      statuses[0] = host.Run(stop);
    });
    std::thread tail([&] {
      Host host(context, options(false), PipelineTail(result, 49));
      statuses[1] = host.Run(stop);
    });
    std::this_thread::sleep_for(200ms);  // the tail answers probes with no link yet
    std::thread head([&] {
      Host host(context, options(false), PipelineHead());
      statuses[2] = host.Run(stop);
    });
    // The tail's RequestRunStop at tick 49 ends every host's run; a stalled run is ended after 20 s (the checks
    // below then fail). The result is read only after the hosts' threads are joined (ThreadSanitizer).
    std::atomic<bool> ended{false};
    std::thread watchdog([&] {
      const auto deadline = std::chrono::steady_clock::now() + 20s;
      while (!ended && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
      stop = true;
    });
    for (std::thread* t : {&conductor, &tail, &head}) t->join();
    ended = true;
    watchdog.join();
    broker.Stop();
    EXPECT_EQ(result->tail_ticks, 50) << "round " << round << ": the run stalled";
    EXPECT_EQ(result->checksum, reference.checksum);
    EXPECT_EQ(statuses, (std::vector<int>{0, 0, 0}));
  }
}

// A lockstep run in which a direct topic's message outgrows NodeOptions::direct_max_message_bytes mid-run (issue 23):
// the head's map grows from 32 x 32 (~8 kB) to 128 x 128 cells (~131 kB) at tick 10, so its topic moves to the broker
// path at that tick (docs/protocol.md §13, "A slow subscriber"). The tail waits for each tick's map (same tick); the
// echo reads it as the previous tick's value, so it waits for the head's tick report on the topic — which stops once
// the topic has moved, and the echo must learn that from the withdrawal rather than wait for ever ("Lockstep: a
// tick's last word"). Both must get every tick's map, in order; a stalled run is ended by a watchdog and shows as
// missing ticks. Returns the tail's widths, then the echo's.
std::pair<std::vector<int>, std::vector<int>> RunGrowingMap(const std::string& address) {
  auto widths = std::make_shared<std::vector<int>>();
  auto echoed = std::make_shared<std::vector<int>>();
  ServiceDefinition head{"head", "test map head", [](ServiceContext& ctx) {
                           auto out = ctx.AddOutput<msg::GridMap>("t/map");
                           ctx.AddStep({.waits_for = {}, .outputs = {"t/map"}}, [=](const TickInfo& tick) {
                             const int side = tick.tick < 10 ? 32 : 128;
                             const msg::GridInfo info(0, 0, 0.1, side, side);
                             const std::vector<double> p_o(static_cast<size_t>(side) * side, 0.5);
                             out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                               return msg::CreateGridMapDirect(fbb, header, &info, &p_o);
                             });
                           });
                         }};
  ServiceDefinition tail{"tail", "test map tail", [widths](ServiceContext& ctx) {
                           auto map = ctx.AddInput<msg::GridMap>("t/map", Timing::kSameTick);
                           ctx.AddStep({.waits_for = {}, .outputs = {}}, [=, &ctx](const TickInfo& tick) {
                             widths->push_back(map->Get() != nullptr ? map->Get()->info()->width() : -1);
                             if (tick.tick == 19) ctx.RequestRunStop();
                           });
                         }};
  ServiceDefinition echo{"echo", "test map echo", [echoed](ServiceContext& ctx) {
                           auto map = ctx.AddInput<msg::GridMap>("t/map", Timing::kPreviousTick);
                           ctx.AddStep({.waits_for = {}, .outputs = {}}, [=](const TickInfo&) {
                             echoed->push_back(map->Get() != nullptr ? map->Get()->info()->width() : -1);
                           });
                         }};
  std::vector<HostedService> services{
      HostedService{head, {}}, HostedService{tail, {}}, HostedService{echo, {}},
      HostedService{ServiceDefinition{"conductor", "test coordinator", [](ServiceContext&) {}}, {}}};
  for (auto& s : services) s.options.robot = "";
  services.back().options.coordinate = true;
  services.back().options.participants = {"head", "tail", "echo"};
  InProcessOptions options;
  options.single_thread = false;
  std::atomic<bool> stop{false};
  std::atomic<bool> ended{false};
  std::thread watchdog([&] {  // a stalled run is ended after 30 s (the checks then fail)
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!ended && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stop = true;
  });
  EXPECT_EQ(RunInProcess(address, services, stop, options), 0) << address;
  ended = true;
  watchdog.join();
  return {*widths, *echoed};
}

TEST(Host, ADirectTopicWhoseMessageOutgrowsTheDirectLimitMidRunMovesWithoutLosingATick) {
  std::vector<int> same_tick(10, 32), previous_tick{-1};
  same_tick.resize(20, 128);
  previous_tick.insert(previous_tick.end(), same_tick.begin(), same_tick.end() - 1);
  const std::pair expected{same_tick, previous_tick};
  const DirectPathInThisProcess direct_path;  // also in runtime_test_broker_path
  EXPECT_EQ(RunGrowingMap("inproc://growing-map"), expected);
  EXPECT_EQ(RunGrowingMap("ipc:///tmp/limbic-runtime-test-" + std::to_string(getpid()) + "-growing-map"), expected);
}

// The direct path's lockstep race (docs/protocol.md §13, "Lockstep: a tick's last word"), forced. The head reads the
// tail's t/b as an earlier tick's value; the test plays the tail and the coordinator, and sends the clock of tick k
// before the tail's tick-(k-1) output has even left, as a consumer whose I/O thread fell behind would see them. The
// head must wait for the tail's tick report and step k with b_{k-1}; without it, it stepped at once with b_{k-2}. A
// second publisher of t/b that is no lockstep participant is not waited for.
TEST(Host, AnEarlierTicksOutputThatArrivesAfterTheNextClockIsWaitedFor) {
  using namespace std::chrono_literals;
  const std::string address = "ipc:///tmp/limbic-runtime-test-" + std::to_string(getpid()) + "-tick-reports";
  const DirectPathInThisProcess direct_path;  // the head's node (the tail's and the bystander's are direct by option)
  zmq::context_t context;
  BrokerThread broker(context, address);

  bus::NodeOptions direct{.name = "tail"};
  direct.data_path = bus::DataPath::kDirect;
  direct.direct_events = true;  // t/b is a command topic: sent direct all the same, as the race needs
  bus::Node tail(context, address, direct);
  tail.MarkLockstepTicks();
  auto b_pub = tail.Advertise<msg::VelocityCommand>("t/b");
  auto clock_pub = tail.Advertise<msg::Clock>("clock");
  std::map<int64_t, double> a;  // the head's outputs by tick
  tail.Subscribe<msg::VelocityCommand>(
      "t/a", [&](const bus::Message<msg::VelocityCommand>& m) { a[m.header.tick()] = m.msg.v(); });
  bool joined = false;
  tail.Subscribe<msg::LockstepJoin>("lockstep/join", [&](const bus::Message<msg::LockstepJoin>& m) {
    joined = joined || (m.msg.participant() && m.msg.participant()->str() == "head" && m.msg.probe() > 0);
  });
  direct.name = "bystander";
  bus::Node bystander(context, address, direct);
  (void)bystander.Advertise<msg::VelocityCommand>("t/b");  // announced, never sent on

  HostOptions options;
  options.robot = "";
  options.bus = address;
  options.mode = Mode::kLockstep;
  options.probe_period = 5ms;
  std::atomic<bool> stop{false};
  int status = -1;
  std::thread head([&] {
    Host host(context, options, PipelineHead());
    status = host.Run(stop);
  });
  auto poll = [&](std::chrono::milliseconds limit, const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      tail.Poll(2ms);
      bystander.Poll(0ms);
      if (done()) return true;
    }
    return false;
  };
  auto publish_clock = [&](int64_t tick, bool probe) {
    clock_pub.Publish(0, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreateClock(fbb, header, 0.1, true, false, probe);
    });
  };
  // The head joins once its links to both publishers of t/b are proven; the tail's own link to t/a too.
  const bool ready = poll(10s, [&] {
    publish_clock(-1, true);
    return joined && tail.DirectLinksReady();
  });
  EXPECT_TRUE(ready) << "the head never joined";
  double b_before = 0.0;  // b_{k-1}: the head's feedback->Get() is null at tick 0
  constexpr int64_t kTicks = 12;
  for (int64_t k = 0; ready && k < kTicks; ++k) {
    publish_clock(k, false);
    if (k > 0) {
      // The clock of k is out and the tail's output of k-1 is not: the head must not step yet.
      EXPECT_FALSE(poll(60ms, [&] { return a.count(k) > 0; })) << "tick " << k << " stepped before b_" << k - 1;
      b_pub.Publish(0, k - 1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        return msg::CreateVelocityCommand(fbb, header, b_before, 0.0);
      });
      tail.SendTickDone(k - 1);
    }
    if (!poll(5s, [&] { return a.count(k) > 0; })) {
      ADD_FAILURE() << "tick " << k << " never stepped";
      break;
    }
    EXPECT_EQ(a[k], 0.5 * b_before + k % 10) << "tick " << k;
    b_before = a[k] / 3.0;  // the tail's b_k, sent in the next round
  }
  stop = true;
  head.join();
  broker.Stop();
  EXPECT_EQ(status, 0);
}

// Issue 15, finding 7: in lockstep a step that threw was logged and the run carried on. Now it ends
// the run at that tick, with the error — even when another participant waits for the outputs the
// failed step never published (the coordinator does not wait for its acknowledgement).
TEST(RunInProcess, ALockstepStepThatThrowsEndsTheRunWithItsError) {
  for (bool single_thread : {true, false}) {
    auto tail_ticks = std::make_shared<int64_t>(0);
    ServiceDefinition head{"head", "throws at tick 5", [](ServiceContext& ctx) {
                             auto out = ctx.AddOutput<msg::VelocityCommand>("t/a");
                             ctx.AddStep({.outputs = {"t/a"}}, [=](const TickInfo& tick) {
                               if (tick.tick == 5) throw std::runtime_error("poisoned input");
                               out->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
                                 return msg::CreateVelocityCommand(fbb, header, 1.0, 0.0);
                               });
                             });
                           }};
    ServiceDefinition tail{"tail", "waits for head", [tail_ticks](ServiceContext& ctx) {
                             auto a = ctx.AddInput<msg::VelocityCommand>("t/a", Timing::kSameTick);
                             ctx.AddStep({}, [=](const TickInfo&) { ++*tail_ticks; });
                           }};
    HostedService h{head, {}};
    h.options.robot = "";
    h.options.coordinate = true;
    h.options.participants = {"head", "tail"};
    h.options.max_ticks = 1000;
    HostedService t{tail, {}};
    t.options.robot = "";
    InProcessOptions options;
    options.single_thread = single_thread;
    InProcessStats stats;
    std::atomic<bool> stop{false};
    const auto begin = std::chrono::steady_clock::now();
    const int status =
        RunInProcess("inproc://throwing-" + std::to_string(single_thread), {h, t}, stop, options, &stats);
    EXPECT_NE(status, 0);
    ASSERT_EQ(stats.errors.size(), 1u);
    EXPECT_EQ(stats.errors[0], "step head failed at tick 5: poisoned input");
    EXPECT_EQ(*tail_ticks, 5);  // ticks 0..4; tick 5 never came
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10)) << "the run must not stall";
  }
}

// Realtime: a step that throws marks the service Degraded with the error text, Failing when it keeps
// throwing, and the heartbeat says so; SetDegraded does the same for a problem the service handles.
TEST(Host, HeartbeatsTellDegradedFailingAndRecovery) {
  bus::LocalBus bus(std::chrono::hours(1));
  auto throwing = std::make_shared<bool>(false);
  auto degrade = std::make_shared<std::string>();
  auto degrade_once = std::make_shared<bool>(false);
  ServiceDefinition def{"svc", "test", [=](ServiceContext& ctx) {
                          ctx.AddStep({}, [=, &ctx](const TickInfo&) {
                            if (*degrade_once) {
                              ctx.SetDegraded("mapper: map sums not finite: cycle rolled back");
                              *degrade_once = false;
                            } else {
                              ctx.ReportFault("affect", *degrade);  // what every service's step does
                            }
                            if (*throwing) throw std::invalid_argument("n_theta must be at least 1 (got 0)");
                          });
                        }};
  HostOptions options;
  options.robot = "";
  options.period_s = 0.002;
  options.heartbeat_period = std::chrono::milliseconds(5);
  Host host(bus, options, def);
  bus::Node watcher(bus, {.name = "watcher"});
  msg::ServiceState state = msg::ServiceState::Starting;
  std::string reason, last_error;
  std::vector<std::string> degraded_reasons;  // every Degraded heartbeat's reason
  watcher.Subscribe<msg::Heartbeat>("health/svc", [&](const bus::Message<msg::Heartbeat>& m) {
    state = m.msg.state();
    reason = m.msg.status_reason() ? m.msg.status_reason()->str() : "";
    if (state == msg::ServiceState::Degraded) degraded_reasons.push_back(reason);
    last_error = m.msg.last_error() ? m.msg.last_error()->str() : "";
  });
  std::atomic<bool> stop{false};
  host.Start();
  auto run_for = [&](int steps) {
    for (int i = 0; i < steps; ++i) {
      const int64_t before = host.tick();
      while (host.tick() == before) host.Pump(std::chrono::milliseconds(1), stop);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(6));
    host.Pump(std::chrono::milliseconds(0), stop);  // a heartbeat is due
    watcher.Poll(std::chrono::milliseconds(0));
  };
  run_for(3);
  EXPECT_EQ(state, msg::ServiceState::Running);
  EXPECT_EQ(reason, "");
  *throwing = true;
  run_for(2);
  EXPECT_EQ(state, msg::ServiceState::Degraded);
  EXPECT_NE(reason.find("step svc failed at tick"), std::string::npos) << reason;
  EXPECT_NE(reason.find("n_theta must be at least 1"), std::string::npos) << reason;
  run_for(Host::kFailingAfter);
  EXPECT_EQ(state, msg::ServiceState::Failing);
  EXPECT_NE(reason.find("failing"), std::string::npos) << reason;
  *throwing = false;
  run_for(1);
  EXPECT_EQ(state, msg::ServiceState::Degraded) << "one good tick is not recovery";
  run_for(Host::kRecoveredAfter);
  EXPECT_EQ(state, msg::ServiceState::Running);
  EXPECT_NE(last_error.find("n_theta"), std::string::npos) << "the last error stays visible";
  *degrade = "affect state not finite: kept the last good one";
  run_for(1);
  EXPECT_EQ(state, msg::ServiceState::Degraded);
  EXPECT_EQ(reason, "affect: " + *degrade);
  degrade->clear();
  run_for(1);
  EXPECT_EQ(state, msg::ServiceState::Running);
  // One refused cycle between two heartbeats (issue 15: mapper and planner roll back a single bad cycle
  // and carry on) is still reported once, then the service is ok again.
  degraded_reasons.clear();
  *degrade_once = true;
  run_for(3);
  ASSERT_FALSE(degraded_reasons.empty()) << "a one-tick degradation vanished between heartbeats";
  EXPECT_NE(degraded_reasons.back().find("mapper: map sums not finite"), std::string::npos) << degraded_reasons.back();
  run_for(1);
  EXPECT_EQ(state, msg::ServiceState::Running);
  host.Finish();
}

// Realtime ticks started by arrivals (RealtimeTicks::kInput): a service that names a trigger input runs as its
// trigger arrives, not on its own timer; a burst runs it no faster than every half period; without arrivals its
// timer still ticks it (so it can see its data is stale); RealtimeTicks::kTimer and a step without a trigger keep
// the timer. The periods are long where the timer must not be what ticked.
struct TriggeredService {
  std::shared_ptr<int> ticks = std::make_shared<int>(0);
  ServiceDefinition Definition(bool every_step_triggered) const {
    return {"svc", "test", [ticks = ticks, every_step_triggered](ServiceContext& ctx) {
              auto in = ctx.AddInput<msg::VelocityCommand>("t", Timing::kSameTick);
              ctx.AddStep({.name = "react", .realtime_trigger = in.get()}, [ticks](const TickInfo&) { ++*ticks; });
              if (!every_step_triggered) ctx.AddStep({.name = "pace"}, [](const TickInfo&) {});
            }};
  }
};

void SendCommand(bus::Publisher<msg::VelocityCommand>& pub) {
  pub.Publish(0, 0, [](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    return msg::CreateVelocityCommand(fbb, header, 0.1, 0.0);
  });
}

// Pumps `host` until `done` or `limit` has passed.
template <typename Done>
void PumpUntil(Host& host, Done done, std::chrono::milliseconds limit) {
  std::atomic<bool> stop{false};
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < end) host.Pump(std::chrono::milliseconds(1), stop);
}

TEST(Host, ARealtimeStepWithATriggerRunsWhenItArrivesNotOnItsTimer) {
  bus::LocalBus bus(std::chrono::hours(1));
  TriggeredService svc;
  HostOptions options;
  options.robot = "";
  options.period_s = 10.0;  // the timer cannot be what ticks it during this test
  Host host(bus, options, svc.Definition(true));
  bus::Node sender(bus, {.name = "sender"});
  auto pub = sender.Advertise<msg::VelocityCommand>("t");
  host.Start();
  PumpUntil(
      host, [] { return false; }, std::chrono::milliseconds(50));
  EXPECT_EQ(*svc.ticks, 0) << "nothing arrived, the timer is 10 s away";
  SendCommand(pub);
  PumpUntil(
      host, [&] { return *svc.ticks > 0; }, std::chrono::seconds(5));
  EXPECT_EQ(*svc.ticks, 1) << "the arrival ticks it";
  // A second arrival within half a period waits for it: the steps never run faster than their period assumes.
  SendCommand(pub);
  PumpUntil(
      host, [] { return false; }, std::chrono::milliseconds(100));
  EXPECT_EQ(*svc.ticks, 1);
  host.Finish();
}

TEST(Host, ARealtimeTriggerIgnoredOnTheTimerScheduleOrWhenAnotherStepHasNone) {
  for (const bool timer_schedule : {true, false}) {
    SCOPED_TRACE(timer_schedule ? "--realtime-ticks timer" : "a step without a trigger");
    bus::LocalBus bus(std::chrono::hours(1));
    TriggeredService svc;
    HostOptions options;
    options.robot = "";
    options.period_s = 10.0;
    if (timer_schedule) options.realtime_ticks = RealtimeTicks::kTimer;
    Host host(bus, options, svc.Definition(/*every_step_triggered=*/timer_schedule));
    bus::Node sender(bus, {.name = "sender"});
    auto pub = sender.Advertise<msg::VelocityCommand>("t");
    host.Start();
    SendCommand(pub);
    PumpUntil(
        host, [] { return false; }, std::chrono::milliseconds(100));
    EXPECT_EQ(*svc.ticks, 0) << "only the timer (10 s) ticks it";
    host.Finish();
  }
}

TEST(Host, ARealtimeStepWhoseTriggerStaysAwayStillTicksOnItsTimer) {
  bus::LocalBus bus(std::chrono::hours(1));
  TriggeredService svc;
  HostOptions options;
  options.robot = "";
  options.period_s = 0.01;  // 15 ms between timer ticks without arrivals
  Host host(bus, options, svc.Definition(true));
  host.Start();
  PumpUntil(
      host, [&] { return *svc.ticks >= 3; }, std::chrono::seconds(5));
  EXPECT_GE(*svc.ticks, 3) << "a service whose data stopped must still tick";
  host.Finish();
}

// Between ticks a realtime host sleeps in the bus's poll until its next timer, however little of a millisecond is
// left: zmq_poll counts whole milliseconds, and a remainder truncated to 0 ms made every Pump return at once, so each
// host spun through the last millisecond before each tick (most of a 16-robot team's CPU, issue 18). Counted in
// Pump calls, not time: spinning makes hundreds a tick, sleeping one or two.
TEST(Host, ARealtimeHostSleepsUntilItsNextTickInsteadOfSpinning) {
  zmq::context_t context(0);
  TriggeredService svc;
  HostOptions options;
  options.robot = "";
  options.bus = "inproc://runtime-test-no-spin";
  options.period_s = 0.02;
  Host host(context, options, svc.Definition(/*every_step_triggered=*/false));  // ticked by its timer
  host.Start();
  std::atomic<bool> stop{false};
  int pumps = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (*svc.ticks < 10 && std::chrono::steady_clock::now() < end) {
    host.Pump(std::chrono::milliseconds(100), stop);
    ++pumps;
  }
  EXPECT_EQ(*svc.ticks, 10);
  EXPECT_LT(pumps, 40) << "a host busy-polled its timer";
  host.Finish();
}

// A team's timers: robots spread evenly over the period whatever their number, a robot's services close after it.
TEST(RealtimePhase, SpreadsATeamsRobotsEvenlyAndKeepsARobotsServicesTogether) {
  auto circular = [](double a, double b) {
    const double d = std::abs(a - b);
    return std::min(d, 1.0 - d);
  };
  for (const int robots : {2, 3, 5, 16}) {
    SCOPED_TRACE(std::to_string(robots) + " robots");
    // Slots of 1/2^ceil(log2 N): N robots at least that far apart (the first N of the bit-reversed sequence).
    double slot = 1.0;
    while (slot * robots > 1.0 + 1e-9) slot /= 2;
    for (int a = 1; a <= robots; ++a) {
      for (int b = a + 1; b <= robots; ++b) {
        const std::string ra = "r" + std::to_string(a), rb = "r" + std::to_string(b);
        EXPECT_GE(circular(RealtimePhase("hwio", ra), RealtimePhase("hwio", rb)), slot - 1e-9) << ra << " " << rb;
      }
    }
  }
  // 16 robots: exactly 1/16 apart; r1 at the start of the period; every phase in [0, 1).
  EXPECT_NEAR(RealtimePhase("hwio", "r5") - RealtimePhase("hwio", "r1"), 1.0 / 8, 1e-12);  // 4 = 001 -> 0.001b
  for (const std::string service : {"hwio", "mapper", "planner", "controller", "affect"}) {
    const double base = RealtimePhase(service, "r1") - RealtimePhase("hwio", "r1");
    EXPECT_LT(std::abs(base), 1.0 / 32) << service << ": a robot's services sit within 1/32 of a period";
    for (const std::string robot : {"r1", "r7", "robot12", "marvin", ""}) {
      const double phase = RealtimePhase(service, robot);
      EXPECT_GE(phase, 0.0);
      EXPECT_LT(phase, 1.0);
      EXPECT_EQ(phase, RealtimePhase(service, robot)) << "the same every run";
    }
  }
  // Not numbered: a hash of the instance, as for a global service.
  EXPECT_NE(RealtimePhase("hwio", "marvin"), RealtimePhase("hwio", "itchy"));
  EXPECT_NE(RealtimePhase("simulator", ""), RealtimePhase("probe", ""));
}

// Timers at their phase on the shared monotonic clock, not counted from each host's start: hosts whose threads start
// several ms apart (a team) keep the spread RealtimePhase gave them.
TEST(RealtimePhase, TheNextTickLiesAtThePhaseOnTheClockWhateverTheStart) {
  using std::chrono::milliseconds;
  using T = std::chrono::steady_clock::time_point;
  const milliseconds period(100), phase(25);
  EXPECT_EQ(NextAtPhase(T(milliseconds(1000)), period, phase), T(milliseconds(1025)));
  EXPECT_EQ(NextAtPhase(T(milliseconds(1025)), period, phase), T(milliseconds(1025))) << "at the phase: now";
  EXPECT_EQ(NextAtPhase(T(milliseconds(1026)), period, phase), T(milliseconds(1125)));
  EXPECT_EQ(NextAtPhase(T(milliseconds(1099)), period, phase), T(milliseconds(1125)));
  EXPECT_EQ(NextAtPhase(T(milliseconds(10)), period, phase), T(milliseconds(25))) << "before the first period";
  EXPECT_EQ(NextAtPhase(T(milliseconds(1026)), milliseconds(0), phase), T(milliseconds(1026))) << "no division by 0";
  // Two hosts of the same phase started 30 ms apart tick together.
  EXPECT_EQ(NextAtPhase(T(milliseconds(4990)), period, phase), NextAtPhase(T(milliseconds(5020)), period, phase));
}

// A period or speedup that is not a positive number is refused before anything runs: NaN passed `period <= 0`
// and would have made every timer and the dynamic window undefined.
TEST(Host, APeriodOrSpeedupThatIsNotAPositiveNumberIsRefused) {
  bus::LocalBus bus(std::chrono::hours(1));
  TriggeredService svc;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const double bad : {0.0, -0.1, nan, inf}) {
    HostOptions options;
    options.robot = "";
    options.period_s = bad;
    EXPECT_THROW(Host(bus, options, svc.Definition(true)), config::ConfigError) << "period " << bad;
    options.period_s = 0.1;
    options.speedup = bad;
    EXPECT_THROW(Host(bus, options, svc.Definition(true)), config::ConfigError) << "speedup " << bad;
  }
}

}  // namespace
}  // namespace limbic::runtime
