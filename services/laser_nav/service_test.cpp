// The laser simulator and the reactive controller as services on an in-process bus, in lockstep: the
// run ends when the episode does, and it is the same run as the library's loop (same seeds, same ticks).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "common/runtime/in_process.hpp"
#include "services/laser_nav/controllers.hpp"
#include "services/laser_nav/neural_network.hpp"
#include "services/laser_nav/recurrent_network.hpp"
#include "services/laser_nav/wiring.hpp"
#include "services/laser_sim/episode.hpp"
#include "services/laser_sim/office.hpp"
#include "services/laser_sim/wiring.hpp"

namespace limbic::laser {
namespace {

struct Seen {
  std::mutex mutex;
  int64_t truths = 0;
  double x = 0, y = 0, time_s = 0;
  bool done = false, solved = false;
  uint32_t collisions = 0;
  int64_t headings = 0;
  int8_t last_case = -1;
};

runtime::ServiceDefinition Probe(std::shared_ptr<Seen> seen) {
  return {"probe", "records the ground truth", [seen](runtime::ServiceContext& ctx) {
            ctx.OnMessage<msg::LaserTruth>("r1/laser/truth", [seen](const bus::Message<msg::LaserTruth>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->truths;
              seen->x = m.msg.x_cm();
              seen->y = m.msg.y_cm();
              seen->time_s = m.msg.time_s();
              seen->done = m.msg.done();
              seen->solved = m.msg.solved();
              seen->collisions = m.msg.collisions();
            });
            ctx.OnMessage<msg::HeadingCommand>("r1/laser/heading", [seen](const bus::Message<msg::HeadingCommand>& m) {
              std::lock_guard<std::mutex> lock(seen->mutex);
              ++seen->headings;
              seen->last_case = m.msg.active_case();
            });
          }};
}

// One lockstep episode of the laser simulator and the reactive layer in process, watched by the probe: "" when it
// ran to the end, else why not.
std::string RunEpisode(const std::string& bus, const std::vector<std::string>& sim_overrides, int64_t max_ticks,
                       const std::vector<std::string>& nav_overrides, const std::shared_ptr<Seen>& seen,
                       runtime::InProcessStats* stats_out = nullptr) {
  runtime::HostedService sim{LaserSimService(), {}};
  sim.options.period_s = 0.01;
  sim.options.coordinate = true;
  sim.options.participants = {"r1/laser_sim", "r1/laser_nav"};
  sim.options.max_ticks = max_ticks;
  sim.options.overrides = sim_overrides;
  runtime::HostedService nav{LaserNavService(), {}};
  nav.options.period_s = 0.01;
  nav.options.overrides = nav_overrides;
  runtime::HostedService probe{Probe(seen), {}};
  probe.options.robot = "";
  std::atomic<bool> stop{false};
  runtime::InProcessStats stats;
  const int status = runtime::RunInProcess(bus, {sim, nav, probe}, stop, {}, &stats);
  if (stats_out) *stats_out = stats;
  if (status == 0) return "";
  return "status " + std::to_string(status) + (stats.errors.empty() ? "" : ": " + stats.errors.front());
}

TEST(LaserServices, LockstepRunIsTheLibraryLoop) {
  auto seen = std::make_shared<Seen>();
  runtime::InProcessStats stats;
  ASSERT_EQ(RunEpisode("inproc://laser_services",
                       {"density=20", "index=2", "seed=4", "time_limit_s=15", "laser_error=uniform"}, 5000,
                       {"controller=cbr", "seed=9"}, seen, &stats),
            "");

  // The same episode through the library: world, seeds and options as above.
  const World world = GenerateWorld(20, 2);
  EpisodeOptions eo;
  eo.time_limit_s = 15;
  LaserEpisode episode(world, eo, 4);
  CbrOptions co;
  co.seed = 9;
  CaseBasedController controller(co);
  while (!episode.done()) episode.Advance(controller.Step(episode.frame()));
  const EpisodeResult r = episode.Result();

  std::lock_guard<std::mutex> lock(seen->mutex);
  EXPECT_TRUE(seen->done);
  EXPECT_EQ(seen->solved, r.solved);
  EXPECT_DOUBLE_EQ(seen->time_s, r.time_s);
  EXPECT_DOUBLE_EQ(seen->x, episode.truth().x_cm);
  EXPECT_DOUBLE_EQ(seen->y, episode.truth().y_cm);
  EXPECT_EQ(seen->collisions, r.collisions);
  EXPECT_GE(seen->truths, r.cycles);
  EXPECT_GE(seen->last_case, 0);
  EXPECT_LE(stats.ticks, r.cycles + 2);
}

// The evolved network as the reactive layer (controller=nn, network=FILE): the same run as the library's.
TEST(LaserServices, NetworkControllerLockstepRunIsTheLibraryLoop) {
  std::mt19937_64 rng(21);
  Network net;
  for (Neuron& n : net) n = RandomNeuron(rng);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("laser_nn_" + std::to_string(getpid()) + ".txt")).string();
  {
    std::ofstream out(file);
    SaveNetwork(net, out);
  }
  auto seen = std::make_shared<Seen>();
  ASSERT_EQ(RunEpisode("inproc://laser_services_nn",
                       {"density=15", "index=1", "seed=4", "time_limit_s=8", "laser_error=uniform"}, 3000,
                       {"controller=nn", "seed=9", "network=" + file}, seen),
            "");
  std::atomic<bool> stop{false};
  std::filesystem::remove(file);

  const World world = GenerateWorld(15, 1);
  EpisodeOptions eo;
  eo.time_limit_s = 8;
  LaserEpisode episode(world, eo, 4);
  NeuralOptions no;
  no.network = net;
  no.seed = 9;
  NeuralController controller(no);
  while (!episode.done()) episode.Advance(controller.Step(episode.frame()));
  const EpisodeResult r = episode.Result();
  std::lock_guard<std::mutex> lock(seen->mutex);
  EXPECT_TRUE(seen->done);
  EXPECT_EQ(seen->solved, r.solved);
  EXPECT_DOUBLE_EQ(seen->x, episode.truth().x_cm);
  EXPECT_DOUBLE_EQ(seen->y, episode.truth().y_cm);
  EXPECT_EQ(seen->collisions, r.collisions);
  EXPECT_EQ(seen->last_case, -1);  // no cases
  // Without a network file the service refuses to start.
  runtime::HostedService bare{LaserNavService(), {}};
  bare.options.overrides = {"controller=nn"};
  EXPECT_THROW(runtime::RunInProcess("inproc://laser_bad3", {bare}, stop), config::ConfigError);
}

// The recurrent network as the reactive layer (controller=rnn, network=FILE, §2.7): the same run as the library's;
// a missing, unreadable or malformed network file is refused at start with what is wrong.
TEST(LaserServices, RecurrentControllerLockstepRunIsTheLibraryLoop) {
  std::mt19937_64 rng(22);
  RecurrentNetwork net(8);
  for (RecurrentNeuron& n : net) n = RandomRecurrentNeuron(rng);
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string file = (dir / ("laser_rnn_" + std::to_string(getpid()) + ".txt")).string();
  {
    std::ofstream out(file);
    SaveRecurrentNetwork(net, out);
  }
  auto seen = std::make_shared<Seen>();
  ASSERT_EQ(RunEpisode("inproc://laser_services_rnn",
                       {"density=15", "index=1", "seed=4", "time_limit_s=8", "laser_error=uniform"}, 3000,
                       {"controller=rnn", "network=" + file, "sectors=mean", "frame=body"}, seen),
            "");
  std::atomic<bool> stop{false};

  const World world = GenerateWorld(15, 1);
  EpisodeOptions eo;
  eo.time_limit_s = 8;
  LaserEpisode episode(world, eo, 4);
  RecurrentOptions ro;
  ro.network = net;
  ro.sectors = SectorReduction::kMean;
  ro.frame = RnnFrame::kBody;
  RecurrentController controller(ro);
  double path_cm = 0;
  while (!episode.done()) episode.Advance(controller.Step(episode.frame()));
  const EpisodeResult r = episode.Result();
  path_cm = r.path_cm;
  {
    std::lock_guard<std::mutex> lock(seen->mutex);
    EXPECT_TRUE(seen->done);
    EXPECT_EQ(seen->solved, r.solved);
    EXPECT_DOUBLE_EQ(seen->x, episode.truth().x_cm);
    EXPECT_DOUBLE_EQ(seen->y, episode.truth().y_cm);
    EXPECT_EQ(seen->collisions, r.collisions);
    EXPECT_EQ(seen->last_case, -1);  // no cases
  }
  EXPECT_GT(path_cm, 0.0);  // it drove

  // Refused at start, each with a message naming the problem.
  const std::string malformed = (dir / ("laser_rnn_bad_" + std::to_string(getpid()) + ".txt")).string();
  {
    std::ofstream out(malformed);
    out << "recurrent_network 2\nrneuron 70000\n";
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
      {{"controller=rnn"}, "needs --set network=FILE"},
      {{"controller=rnn", "network=" + file + ".missing"}, "cannot open"},
      {{"controller=rnn", "network=" + malformed}, malformed},
      {{"controller=rnn", "network=" + file, "sectors=median"}, "sectors"},
      {{"controller=cbr", "sectors=mean"}, "sectors"},  // an rnn option without the rnn
  };
  for (const auto& [overrides, says] : bad) {
    runtime::HostedService refused{LaserNavService(), {}};
    refused.options.overrides = overrides;
    try {
      runtime::RunInProcess("inproc://laser_bad_rnn", {refused}, stop);
      ADD_FAILURE() << overrides.back() << ": started";
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(file);
  std::filesystem::remove(malformed);
}

// Crossing over (issue 21 item 5): the laser simulator in a set-B office of the hybrid navigator's
// world, the case-based controller on the bus — the same run as the library loop in that office.
TEST(LaserServices, CaseBasedControllerInASetBOfficeOverTheBus) {
  auto seen = std::make_shared<Seen>();
  ASSERT_EQ(
      RunEpisode("inproc://laser_office", {"office=B", "index=13", "seed=7", "time_limit_s=120", "laser_error=uniform"},
                 20000, {"controller=cbr", "seed=7"}, seen),
      "");

  const World world = OfficeLaserWorld('B', 13);
  EpisodeOptions eo;
  eo.time_limit_s = 120;
  LaserEpisode episode(world, eo, 7);
  CbrOptions co;
  co.seed = 7;
  CaseBasedController controller(co);
  while (!episode.done()) episode.Advance(controller.Step(episode.frame()));
  const EpisodeResult r = episode.Result();
  ASSERT_TRUE(r.solved) << "the library loop no longer crosses B-13; pick another office";
  std::lock_guard<std::mutex> lock(seen->mutex);
  EXPECT_TRUE(seen->done);
  EXPECT_TRUE(seen->solved);
  EXPECT_DOUBLE_EQ(seen->time_s, r.time_s);
  EXPECT_DOUBLE_EQ(seen->x, episode.truth().x_cm);
  EXPECT_DOUBLE_EQ(seen->y, episode.truth().y_cm);
  EXPECT_EQ(seen->collisions, r.collisions);
}

TEST(LaserServices, BadOptionsAreRefusedAtStart) {
  runtime::HostedService sim{LaserSimService(), {}};
  sim.options.coordinate = true;
  sim.options.participants = {"r1/laser_sim"};
  sim.options.overrides = {"density=50"};
  std::atomic<bool> stop{false};
  EXPECT_THROW(runtime::RunInProcess("inproc://laser_bad", {sim}, stop), config::ConfigError);
  runtime::HostedService nav{LaserNavService(), {}};
  nav.options.overrides = {"controller=neural"};
  EXPECT_THROW(runtime::RunInProcess("inproc://laser_bad2", {nav}, stop), config::ConfigError);
  for (const std::string office : {"office=D", "office=Q", "office=BB"}) {  // humans; no such set
    runtime::HostedService in_office{LaserSimService(), {}};
    in_office.options.coordinate = true;
    in_office.options.participants = {"r1/laser_sim"};
    in_office.options.overrides = {office};
    EXPECT_THROW(runtime::RunInProcess("inproc://laser_bad4", {in_office}, stop), config::ConfigError) << office;
  }
  runtime::HostedService no_such_office{LaserSimService(), {}};
  no_such_office.options.coordinate = true;
  no_such_office.options.participants = {"r1/laser_sim"};
  no_such_office.options.overrides = {"office=B", "index=20"};
  EXPECT_THROW(runtime::RunInProcess("inproc://laser_bad5", {no_such_office}, stop), config::ConfigError);
}

}  // namespace
}  // namespace limbic::laser
