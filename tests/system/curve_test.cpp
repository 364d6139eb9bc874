// The bus over tcp with ZeroMQ CURVE (issue 8): keys from `limbic keys generate`, a broker admitting two
// clients. Admitted clients publish and subscribe; a client whose key is not admitted (or one without
// CURVE) can neither publish (nothing it sends arrives) nor subscribe (it receives nothing).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "common/bus/bus.hpp"
#include "common/bus/curve_keys.hpp"
#include "common/config/config.hpp"
#include "tests/testing/process.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using bus::LoadCurveClientKeys;

void Publish(bus::Publisher<msg::VelocityCommand>& pub, double v) {
  pub.Publish(0, -1, [v](auto& fbb, auto header) { return msg::CreateVelocityCommand(fbb, header, v, 0.0); });
}

TEST(CurveTest, OnlyAdmittedKeysPublishAndSubscribe) {
  testing::TempDir dir;
  {
    testing::ChildProcess keys(
        {testing::Bin("limbic"), "keys", "generate", "--out", dir / "keys", "bus", "robot", "workstation"},
        dir / "keys.log");
    ASSERT_EQ(keys.Wait(10s), 0) << keys.Log();
  }
  struct stat st {};
  ASSERT_EQ(stat((dir / "keys/robot.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((dir / "keys/robot.pub").c_str(), &st), 0);
  const bus::CurveClientKeys robot = LoadCurveClientKeys(dir / "keys/robot.client.yaml");
  const bus::CurveClientKeys workstation = LoadCurveClientKeys(dir / "keys/workstation.client.yaml");
  EXPECT_EQ(robot.server_public, workstation.server_public);
  EXPECT_EQ(robot.client_public.size(), 40u);
  // An intruder who knows the server's public key but whose own key is not admitted.
  char intruder_public[41] = {}, intruder_secret[41] = {};
  ASSERT_EQ(zmq_curve_keypair(intruder_public, intruder_secret), 0);
  const bus::CurveClientKeys intruder{robot.server_public, intruder_public, intruder_secret};

  const int port = testing::FreeTcpPortPair();
  const std::string bus = "tcp://127.0.0.1:" + std::to_string(port);
  testing::ChildProcess broker(
      {testing::Bin("limbic-bus"), "--bus", bus, "--curve-server", dir / "keys/bus.server.yaml"}, dir / "bus.log");
  zmq::context_t context;
  bus::Node good_pub(context, bus, {.name = "robot", .curve = robot});
  bus::Node good_sub(context, bus, {.name = "workstation", .curve = workstation});
  bus::Node bad(context, bus, {.name = "intruder", .curve = intruder});
  bus::Node plain(context, bus, {.name = "plain", .curve = {}});
  int good_heard = 0, bad_heard = 0, plain_heard = 0, intruder_heard = 0, plain_pub_heard = 0;
  good_sub.Subscribe<msg::VelocityCommand>("chatter", [&](const auto&) { ++good_heard; });
  good_sub.Subscribe<msg::VelocityCommand>("intruder", [&](const auto&) { ++intruder_heard; });
  good_sub.Subscribe<msg::VelocityCommand>("plain", [&](const auto&) { ++plain_pub_heard; });
  bad.Subscribe<msg::VelocityCommand>("chatter", [&](const auto&) { ++bad_heard; });
  bad.SubscribeAny("", [&](const auto&) { ++bad_heard; });
  plain.SubscribeAny("", [&](const auto&) { ++plain_heard; });
  auto chatter = good_pub.Advertise<msg::VelocityCommand>("chatter");
  auto intrusion = bad.Advertise<msg::VelocityCommand>("intruder");
  auto plain_pub = plain.Advertise<msg::VelocityCommand>("plain");

  const auto deadline = Clock::now() + 6s;
  while (Clock::now() < deadline) {
    Publish(chatter, 1.0);
    Publish(intrusion, 2.0);
    Publish(plain_pub, 3.0);
    for (bus::Node* n : {&good_pub, &good_sub, &bad, &plain}) n->Poll(10ms);
    if (good_heard >= 50) break;
  }
  // Keep going a little after the admitted pair talks, so the others had every chance.
  for (int i = 0; i < 50; ++i) {
    Publish(intrusion, 2.0);
    Publish(plain_pub, 3.0);
    for (bus::Node* n : {&good_pub, &good_sub, &bad, &plain}) n->Poll(10ms);
  }
  EXPECT_GE(good_heard, 50) << broker.Log();
  EXPECT_EQ(intruder_heard, 0);   // the intruder cannot publish
  EXPECT_EQ(plain_pub_heard, 0);  // nor can a client without CURVE
  EXPECT_EQ(bad_heard, 0);        // the intruder receives nothing (not even bus/stats)
  EXPECT_EQ(plain_heard, 0);
  EXPECT_NE(broker.Log().find("rejected a CURVE client"), std::string::npos) << broker.Log();
}

TEST(CurveTest, KeyFileErrorsNameTheFileAndTheKey) {
  testing::TempDir dir;
  EXPECT_THROW(LoadCurveClientKeys(dir / "missing.yaml"), config::ConfigError);
  { std::ofstream(dir / "partial.yaml") << "server_public: abc\nclient_public: def\n"; }
  try {
    LoadCurveClientKeys(dir / "partial.yaml");
    ADD_FAILURE() << "a key file without client_secret was accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("client_secret"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("partial.yaml"), std::string::npos) << e.what();
  }
}

// The introspection commands on a CURVE broker: with the keys they list topics; without them they say
// they cannot reach the bus and point at the keys, exiting non-zero.
TEST(CurveTest, CliCommandsUseCurveKeys) {
  testing::TempDir dir;
  {
    testing::ChildProcess keys({testing::Bin("limbic"), "keys", "generate", "--out", dir / "keys", "bus", "robot"},
                               dir / "keys.log");
    ASSERT_EQ(keys.Wait(10s), 0) << keys.Log();
  }
  const int port = testing::FreeTcpPortPair();
  const std::string bus = "tcp://127.0.0.1:" + std::to_string(port);
  testing::ChildProcess broker(
      {testing::Bin("limbic-bus"), "--bus", bus, "--curve-server", dir / "keys/bus.server.yaml"}, dir / "bus.log");
  zmq::context_t context;
  bus::Node talker(context, bus, {.name = "robot", .curve = LoadCurveClientKeys(dir / "keys/robot.client.yaml")});
  auto chatter = talker.Advertise<msg::VelocityCommand>("chatter");
  // Keep the topic alive while the CLI looks at it.
  std::atomic<bool> done{false};
  std::thread pump([&] {
    while (!done) {
      Publish(chatter, 1.0);
      talker.Poll(20ms);
    }
  });

  testing::ChildProcess with_keys(
      {testing::Bin("limbic"), "topics", "--bus", bus, "--curve-keys", dir / "keys/robot.client.yaml"},
      dir / "with.log");
  const int with_rc = with_keys.Wait(20s);
  testing::ChildProcess without_keys({testing::Bin("limbic"), "topics", "--bus", bus}, dir / "without.log");
  const int without_rc = without_keys.Wait(20s);
  done = true;
  pump.join();

  EXPECT_EQ(with_rc, 0) << with_keys.Log();
  EXPECT_NE(with_keys.Log().find("chatter"), std::string::npos) << with_keys.Log();
  EXPECT_NE(with_keys.Log().find("VelocityCommand"), std::string::npos) << with_keys.Log();
  EXPECT_NE(without_rc, 0) << without_keys.Log();
  EXPECT_NE(without_rc, -1) << "limbic topics without keys hung";
  EXPECT_NE(without_keys.Log().find("cannot reach the bus"), std::string::npos) << without_keys.Log();
  EXPECT_NE(without_keys.Log().find("--curve-keys"), std::string::npos) << without_keys.Log();
}

}  // namespace
}  // namespace limbic
