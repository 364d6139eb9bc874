// Live recruitment (issue 20 items 5 and 6): a broker, the radio and one limbic-recruiter process per
// robot in realtime (sped up). A responder is killed with kill -9 after it was chosen and before the
// lease handshake completed; the requester must not wait forever: its ARRIVAL deadline (ETA + 15 s,
// spec §10 item 17) restarts the protocol and the other UGV is recruited. Another is killed while it
// holds its lease (ON_TASK): the requester, whose task outlasts one lease (task_s), gets no renewal
// ARRIVAL by the lease's end + 15 s and recruits the other UGV. Malformed and out-of-order protocol
// messages injected on a robot's receive topic are counted and ignored, and garbage payloads are
// dropped by the bus without harming the process.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include "common/bus/bus.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class RecruitLiveTest : public ::testing::Test {
 protected:
  std::unique_ptr<testing::ChildProcess> Start(const std::string& name, std::vector<std::string> args) {
    args.insert(args.begin(), testing::Bin(name));
    return std::make_unique<testing::ChildProcess>(args, dir_ / (name + std::to_string(started_++) + ".log"));
  }
  std::unique_ptr<testing::ChildProcess> Robot(const std::string& robot, std::vector<std::string> sets) {
    std::vector<std::string> args{"--bus", bus_, "--robot", robot, "--speedup", kSpeedup, "--log-level", "warning"};
    for (const auto& s : sets) {
      args.push_back("--set");
      args.push_back(s);
    }
    return Start("limbic-recruiter", args);
  }
  template <typename Done>
  bool PollUntil(bus::Node& node, Done done, std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      node.Poll(10ms);
      if (done()) return true;
    }
    return done();
  }

  static constexpr const char* kSpeedup = "8";
  testing::TempDir dir_;
  std::string bus_ = "ipc://" + dir_ / "bus";
  zmq::context_t context_;
  int started_ = 0;
};

struct Seen {
  std::string responder_state, requester_state;
  uint64_t times_recruited = 0, episodes = 0, malformed = 0, out_of_order = 0, restarts = 0, lease_lapses = 0;
};

// Keeps the latest RecruitState of robots `ids`.
void WatchStates(bus::Node& node, std::map<int, Seen>& seen, std::vector<int> ids) {
  for (int id : ids) {
    node.Subscribe<msg::RecruitState>("rc/state/" + std::to_string(id), [&seen, id](const auto& m) {
      Seen& s = seen[id];
      s.responder_state = m.msg.responder_state()->str();
      s.requester_state = m.msg.requester_state()->str();
      s.times_recruited = m.msg.times_recruited();
      s.episodes = m.msg.episodes_completed();
      s.malformed = m.msg.malformed();
      s.out_of_order = m.msg.out_of_order();
      s.restarts = m.msg.restarts();
      s.lease_lapses = m.msg.lease_lapses();
    });
  }
}

TEST_F(RecruitLiveTest, KilledResponderIsReplacedAndBadMessagesAreCountedAndIgnored) {
  auto broker = Start("limbic-bus", {"--bus", bus_});
  std::this_thread::sleep_for(200ms);
  auto radio = Start("limbic-radio", {"--bus", bus_, "--robot", "", "--speedup", kSpeedup, "--log-level", "warning",
                                      "--set", "robots=[0, 1, 2]"});
  // r1 is nearest (ETA 10 s) and is chosen; r2 is the only one left after r1 dies (ETA 25 s).
  auto r1 = Robot("r1", {"x=50", "y=40", "strategy=greedy"});
  auto r2 = Robot("r2", {"x=50", "y=75", "strategy=greedy"});
  bus::Node node(context_, bus_, {.name = "watcher", .curve = {}});
  std::map<int, Seen> seen;
  WatchStates(node, seen, {0, 1, 2});
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen.count(1) && seen.count(2); }, 20s))
      << r1->Log() << r2->Log();

  // Bad input on r2's receive topic: an ACCEPT with a NaN ETA (refused at the bus boundary as `invalid`,
  // issue 15: it never reaches the recruiter; the protocol layer's own malformed-message counting is
  // unit-tested in Recruiter.*), an AGREE nobody asked for (out of order), and bytes that are not a
  // message at all (dropped by the bus).
  auto inject = node.Advertise<msg::RecruitMessage>("rc/rx/2");
  uint64_t seq = 0;
  const auto send = [&](msg::RecruitType type, double eta) {
    inject.Publish(0, -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      msg::RecruitMessageBuilder b(fbb);
      b.add_header(header);
      b.add_type(type);
      b.add_sender_id(9);
      b.add_recipient_id(2);
      b.add_request_id(9ull << 32 | 1);
      b.add_msg_id(9ull << 32 | ++seq);
      b.add_eta_s(eta);
      return b.Finish();
    });
  };
  ASSERT_TRUE(PollUntil(
      node,
      [&] {
        {
          flatbuffers::FlatBufferBuilder fbb;
          const auto header = msg::CreateHeader(fbb, 0, -1, ++seq, fbb.CreateString("test"));
          msg::RecruitMessageBuilder b(fbb);
          b.add_header(header);
          b.add_type(msg::RecruitType::ACCEPT);
          b.add_sender_id(9);
          b.add_recipient_id(2);
          b.add_eta_s(std::nan(""));
          fbb.Finish(b.Finish(), "RCMS");
          node.SendRaw("rc/rx/2", fbb.GetBufferPointer(), fbb.GetSize());
        }
        send(msg::RecruitType::AGREE, 0.0);
        node.SendRaw("rc/rx/2", "garbage", 7);
        return seen[2].out_of_order >= 1;
      },
      20s))
      << r2->Log();
  EXPECT_EQ(seen[2].responder_state, "AVAILABLE") << "bad messages must change nothing";

  // The UAV asks for help once; kill -9 r1 as soon as it is on its way.
  auto uav = Robot("r0", {"role=uav", "x=50", "y=50", "strategy=greedy", "episodes=1", "first_request_s=1"});
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen[1].responder_state == "EN_ROUTE"; }, 30s))
      << uav->Log() << r1->Log();
  r1->Signal(SIGKILL);
  EXPECT_EQ(r1->Wait(5s), 128 + SIGKILL);
  // Restart at ETA + 15 s after RESPONDER (26.5 s simulated), r2 then drives 25 units: ~52 s simulated.
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen[0].episodes >= 1; }, 60s))
      << "the requester waited forever\n"
      << uav->Log() << r2->Log() << radio->Log();
  EXPECT_GE(seen[0].restarts, 1u);
  EXPECT_EQ(seen[0].requester_state, "IDLE");
  EXPECT_EQ(seen[2].times_recruited, 1u);
  EXPECT_TRUE(r2->Running()) << r2->Log();
  EXPECT_TRUE(uav->Running());
  EXPECT_TRUE(radio->Running());
}

TEST_F(RecruitLiveTest, ResponderKilledDuringItsLeaseIsReplacedAfterTheLeasePlusFifteenSeconds) {
  auto broker = Start("limbic-bus", {"--bus", bus_});
  std::this_thread::sleep_for(200ms);
  auto radio = Start("limbic-radio", {"--bus", bus_, "--robot", "", "--speedup", kSpeedup, "--log-level", "warning",
                                      "--set", "robots=[0, 1, 2]"});
  // r1 is nearest (ETA 5 s) and is chosen; r2 (ETA 12 s) replaces it. Leases of 10 s, renewed while
  // the robot lives; the UAV's task at the site needs a robot for 60 s, so it holds the lease.
  const std::vector<std::string> ugv{"strategy=greedy", "lease_s=10", "lease_renewals=20"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), ugv.begin(), ugv.end());
    return extra;
  };
  auto r1 = Robot("r1", with({"x=50", "y=45"}));
  auto r2 = Robot("r2", with({"x=50", "y=62"}));
  bus::Node node(context_, bus_, {.name = "watcher", .curve = {}});
  std::map<int, Seen> seen;
  WatchStates(node, seen, {0, 1, 2});
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen.count(1) && seen.count(2); }, 20s))
      << r1->Log() << r2->Log();
  auto uav =
      Robot("r0", {"role=uav", "x=50", "y=50", "strategy=greedy", "episodes=1", "first_request_s=1", "task_s=60"});

  // Kill r1 once its own status says it holds the lease, and the requester's says it holds it too.
  const auto leased = [&] { return seen[1].responder_state == "ON_TASK" && seen[0].requester_state == "LEASED"; };
  ASSERT_TRUE(PollUntil(node, leased, 30s)) << uav->Log() << r1->Log();
  ASSERT_EQ(seen[0].episodes, 1u);
  ASSERT_EQ(seen[1].times_recruited, 1u);
  r1->Signal(SIGKILL);
  const auto killed = Clock::now();
  EXPECT_EQ(r1->Wait(5s), 128 + SIGKILL);
  EXPECT_EQ(seen[1].responder_state, "ON_TASK") << "r1 was in its lease when killed";

  // The lease (10 s) ends and no renewal ARRIVAL comes within 15 s: the requester asks again. Wall time
  // is simulated time / 8; it cannot be sooner than the 15 s grace, nor much later than lease + 15 s.
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen[0].lease_lapses >= 1; }, 30s))
      << "the requester waited forever for a dead responder\n"
      << uav->Log() << radio->Log();
  const double lapse_wall_s = std::chrono::duration<double>(Clock::now() - killed).count();
  const double speedup = std::stod(kSpeedup);
  std::printf("re-recruitment began %.2f s (wall) after kill -9; expected %.2f..%.2f s\n", lapse_wall_s, 15.0 / speedup,
              25.0 / speedup);
  EXPECT_GE(lapse_wall_s, 15.0 / speedup - 0.3);
  EXPECT_LE(lapse_wall_s, (10.0 + 15.0) / speedup + 3.0);
  // r2 is recruited (a second episode), serves the rest of the task with its renewals, and the
  // requester is free again: task end = first ACKACK + 60 s, ~32 s simulated after r2's ACKACK.
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen[0].episodes >= 2; }, 30s))
      << uav->Log() << r2->Log();
  EXPECT_EQ(seen[2].times_recruited, 1u);
  EXPECT_EQ(seen[2].responder_state, "ON_TASK");
  ASSERT_TRUE(PollUntil(
      node, [&] { return seen[0].requester_state == "IDLE"; }, 30s))
      << uav->Log();
  EXPECT_EQ(seen[0].lease_lapses, 1u);
  EXPECT_EQ(seen[0].episodes, 2u);
  EXPECT_TRUE(r2->Running()) << r2->Log();
  EXPECT_TRUE(uav->Running());
  EXPECT_TRUE(radio->Running());
}

// Spec §9.8: the same cell live and in the lockstep simulator (`limbic recruit crosscheck`). Without loss
// the counts per type and the responders must be equal; with 10 % loss within the simulator's spread.
// One episode (lossless) and two (10 % loss) of the 13-robot team keep it short (~40 s); the full cell is
// the documented command (services/recruiter/README.md).
TEST(RecruitCrosscheck, LiveRunAgreesWithTheLockstepSimulator) {
  testing::TempDir dir;
  for (const std::string loss : {"0", "0.1"}) {
    const bool lossless = loss == "0";
    testing::ChildProcess check(
        {testing::Bin("limbic-recruit"), "crosscheck", "--strategy", lossless ? "greedy" : "affective", "--loss", loss,
         "--episodes", lossless ? "1" : "2", "--draws", "500", "--bus", "ipc://" + dir / ("bus" + loss)},
        dir / ("crosscheck" + loss + ".log"));
    const int status = check.Wait(90s);
    const std::string log = check.Log();
    std::printf("%s\n", log.c_str());
    ASSERT_NE(status, -1) << "crosscheck still running after 90 s:\n" << log;
    EXPECT_EQ(status, 0) << log;
    EXPECT_NE(log.find("AGREE: the live run agrees"), std::string::npos) << log;
    EXPECT_NE(log.find("13/13 robots up"), std::string::npos) << log;
  }
}

// `limbic recruit demo` killed with kill -9 leaves no process behind (its launcher has PR_SET_PDEATHSIG,
// as `limbic demo`'s has; tests/system/supervision_test.cpp checks that one). Every pid the launcher
// started (its events file) must be gone or a zombie within 15 s.
bool Alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

std::vector<int> StartedPids(const std::string& events_path) {
  std::vector<int> pids;
  std::ifstream in(events_path);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"event\": \"started\"") == std::string::npos) continue;
    const auto at = line.find("\"pid\": ");
    if (at != std::string::npos) pids.push_back(std::stoi(line.substr(at + 7)));
  }
  return pids;
}

TEST(RecruitDemo, KillNineOfTheDemoLeavesNoRecruiterProcess) {
  testing::TempDir dir;
  const int port = testing::FreeTcpPortPair();
  testing::ChildProcess demo({testing::Bin("limbic-recruit"), "demo", "--bus", "ipc://" + dir / "bus", "--metrics",
                              "127.0.0.1:" + std::to_string(port), "--duration", "120", "--speedup", "2"},
                             dir / "demo.log");
  const std::string events = "/tmp/limbic-recruit-demo-" + std::to_string(demo.pid()) + "/events.jsonl";
  std::vector<int> pids;
  const auto deadline = Clock::now() + 30s;
  // deploy/recruit_demo.yaml: bus, metrics, radio, r0..r6.
  while ((pids = StartedPids(events)).size() < 10 && Clock::now() < deadline) std::this_thread::sleep_for(100ms);
  ASSERT_EQ(pids.size(), 10u) << "not every process started:\n" << demo.Log();
  for (int pid : pids) ASSERT_TRUE(Alive(pid)) << pid;
  demo.Signal(SIGKILL);
  EXPECT_EQ(demo.Wait(10s), 128 + SIGKILL);
  std::vector<int> left;
  const auto until = Clock::now() + 15s;
  do {
    left.clear();
    for (int pid : pids)
      if (Alive(pid)) left.push_back(pid);
    if (left.empty()) break;
    std::this_thread::sleep_for(50ms);
  } while (Clock::now() < until);
  EXPECT_TRUE(left.empty()) << left.size() << " processes outlived limbic recruit demo (first pid " << left.front()
                            << ")";
  std::filesystem::remove_all("/tmp/limbic-recruit-demo-" + std::to_string(demo.pid()));
}

}  // namespace
}  // namespace limbic
