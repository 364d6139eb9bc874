// limbic record, bag info, bag echo and play against a real broker and a real publisher.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "common/bus/bus.hpp"
#include "common/mcap/reader.hpp"
#include "messages/messages.hpp"
#include "tests/testing/process.hpp"
#include "tools/bag/bag_reader.hpp"

namespace limbic {
namespace {

using namespace std::chrono_literals;

struct Recorded {
  std::string topic;
  std::string type;
  std::vector<uint8_t> data;
};

std::vector<Recorded> ReadRecording(const std::string& path) {
  mcap::Reader r(path);
  std::vector<Recorded> out;
  const auto result = r.ReadMessages([&](const mcap::MessageView& m) {
    out.push_back({m.channel.topic, r.schemas().at(m.channel.schema_id).name, {m.data.begin(), m.data.end()}});
    return true;
  });
  EXPECT_FALSE(result.error) << result.error->what();
  return out;
}

class RecordPlay : public ::testing::Test {
 protected:
  std::unique_ptr<testing::ChildProcess> Start(const std::string& log, std::vector<std::string> argv) {
    return std::make_unique<testing::ChildProcess>(std::move(argv), dir_ / log);
  }
  std::vector<std::string> Limbic(std::vector<std::string> args) {
    args.insert(args.begin(), testing::Bin("limbic"));
    args.push_back("--bus");
    args.push_back(bus_);
    return args;
  }
  // The toy talker publishing `chatter` at `period`. On the direct path (the default; not the ctest entry
  // record_play_test_broker_path) it publishes odometry, a state type: a direct node sends only state directly and
  // events such as the talker's default velocity command through the broker (docs/protocol.md section 13, "First
  // messages"), which would leave the direct path untested.
  static bool DirectPath() { return bus::DefaultDataPath() == bus::DataPath::kDirect; }
  std::vector<std::string> Talker(const std::string& period) {
    std::vector<std::string> argv{
        testing::Bin("limbic-toy"), "talker", "--bus", bus_, "--robot", "", "--period", period};
    if (DirectPath()) argv.insert(argv.end(), {"--set", "state=true"});
    return argv;
  }
  static std::string ChatterType() { return DirectPath() ? "limbic.msg.Odometry" : "limbic.msg.VelocityCommand"; }
  // Runs a limbic command to its end; returns the exit status, the output in *log.
  // `args` with or without the executable (Limbic() adds it and --bus).
  int RunLimbic(const std::string& name, std::vector<std::string> args, std::string* log) {
    if (args.empty() || args[0] != testing::Bin("limbic")) args.insert(args.begin(), testing::Bin("limbic"));
    testing::ChildProcess p(args, dir_ / (name + ".log"));
    const int status = p.Wait(60s);
    *log = p.Log();
    return status;
  }

  testing::TempDir dir_;
  std::string bus_ = "ipc://" + (dir_ / "bus");
};

TEST_F(RecordPlay, RecordsInspectsAndPlaysBackTheSameBytes) {
  auto broker = Start("bus.log", {testing::Bin("limbic-bus"), "--bus", bus_});
  auto talker = Start("talker.log", Talker("0.02"));
  const std::string a = dir_ / "a.mcap";
  std::string log;
  ASSERT_EQ(
      RunLimbic("record_a", Limbic({"record", "chatter", "--out", a, "--duration", "2", "--compression", "lz4"}), &log),
      0)
      << log;
  EXPECT_NE(log.find("dropped 0"), std::string::npos) << log;
  talker->Signal(SIGTERM);
  talker->Wait(10s);
  const auto recorded = ReadRecording(a);
  ASSERT_GE(recorded.size(), 40u);  // 50 Hz for 2 s, after the recorder's own start-up
  for (const auto& m : recorded) {
    EXPECT_EQ(m.topic, "chatter");
    EXPECT_EQ(m.type, ChatterType());
  }

  ASSERT_EQ(RunLimbic("info", {"bag", "info", a}, &log), 0) << log;
  EXPECT_NE(log.find(ChatterType()), std::string::npos) << log;
  EXPECT_NE(log.find("messages:    " + std::to_string(recorded.size())), std::string::npos) << log;
  EXPECT_NE(log.find("(lz4)"), std::string::npos) << log;
  ASSERT_EQ(RunLimbic("echo", {"bag", "echo", a, "chatter", "--count", "2", "--compact"}, &log), 0) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2) << log;
  EXPECT_NE(log.find("\"source\": \"talker\""), std::string::npos) << log;
  EXPECT_NE(RunLimbic("echo_missing", {"bag", "echo", a, "nope"}, &log), 0);
  EXPECT_NE(log.find("no topic 'nope'"), std::string::npos) << log;
  // Bad flag values are usage errors (exit 2) naming the flag, not a count cast from 1e30 or a NaN rate.
  EXPECT_EQ(RunLimbic("echo_count", {"bag", "echo", a, "chatter", "--count", "1e30"}, &log), 2) << log;
  EXPECT_NE(log.find("--count needs an integer >= -1, got '1e30'"), std::string::npos) << log;
  EXPECT_EQ(RunLimbic("play_rate", {"play", a, "--rate", "nan"}, &log), 2) << log;
  EXPECT_NE(log.find("--rate needs a finite number"), std::string::npos) << log;

  // Play it back as fast as possible while a second recorder listens: the same bytes arrive.
  const std::string b = dir_ / "b.mcap";
  auto recorder = Start("record_b.log", Limbic({"record", "--all", "--out", b, "--duration", "8"}));
  ASSERT_TRUE(testing::WaitFor([&] { return recorder->Log().find("recording every topic") != std::string::npos; }, 10s))
      << recorder->Log();
  ASSERT_EQ(RunLimbic("play", Limbic({"play", a, "--rate", "0"}), &log), 0) << log;
  EXPECT_NE(log.find("limbic play: " + std::to_string(recorded.size()) + " messages"), std::string::npos) << log;
  recorder->Signal(SIGINT);
  ASSERT_EQ(recorder->Wait(20s), 0) << recorder->Log();
  std::vector<Recorded> replayed;
  for (auto& m : ReadRecording(b)) {
    if (m.topic == "chatter") replayed.push_back(std::move(m));
  }
  ASSERT_EQ(replayed.size(), recorded.size());
  for (size_t i = 0; i < recorded.size(); ++i) EXPECT_EQ(replayed[i].data, recorded[i].data) << "message " << i;
}

// `limbic record --derived` (issue 17): beside the bus messages, the channels the Foxglove bridge
// derives from them, in Foxglove's schemas (json / jsonschema); `limbic play` of that file sends
// the bus messages only.
TEST_F(RecordPlay, RecordsTheDerivedFoxgloveChannelsWhenAsked) {
  auto broker = Start("bus.log", {testing::Bin("limbic-bus"), "--bus", bus_});
  const std::string a = dir_ / "derived.mcap";
  std::string log;
  EXPECT_EQ(RunLimbic("help", {"record", "--help"}, &log), 0);
  if (log.find("--derived") == std::string::npos) GTEST_SKIP() << "limbic built without the Foxglove bridge";
  auto recorder = Start("record.log", Limbic({"record", "--all", "--derived", "--out", a, "--duration", "6"}));
  ASSERT_TRUE(testing::WaitFor([&] { return recorder->Log().find("recording every topic") != std::string::npos; }, 10s))
      << recorder->Log();
  ASSERT_EQ(RunLimbic("pub",
                      Limbic({"pub", "r1/odom", R"({"pose": {"x": 1.5, "y": -2, "theta": 0.5}, "v": 0.2})", "--type",
                              "Odometry", "--rate", "20", "--count", "20"}),
                      &log),
            0)
      << log;
  recorder->Signal(SIGINT);
  ASSERT_EQ(recorder->Wait(20s), 0) << recorder->Log();
  mcap::Reader r(a);
  int odom = 0, tf = 0,
      bus_messages = 0;  // bus messages: odometry, and the broker's and the tools' own
  const auto result = r.ReadMessages([&](const mcap::MessageView& m) {
    if (m.channel.topic == "r1/odom") ++odom;
    if (m.channel.message_encoding == "flatbuffer" && m.channel.topic != "clock" &&
        m.channel.topic.rfind("lockstep/", 0) != 0)
      ++bus_messages;
    if (m.channel.topic == "foxglove/r1/tf") {
      ++tf;
      EXPECT_EQ(m.channel.message_encoding, "json");
      const auto& schema = r.schemas().at(m.channel.schema_id);
      EXPECT_EQ(schema.name, "foxglove.FrameTransform");
      EXPECT_EQ(schema.encoding, "jsonschema");
      const std::string json(m.data.begin(), m.data.end());
      EXPECT_NE(json.find("\"x\":1.5"), std::string::npos) << json;
      EXPECT_NE(json.find("\"child_frame_id\":\"r1/base_link\""), std::string::npos) << json;
    }
    return true;
  });
  EXPECT_FALSE(result.error) << result.error->what();
  EXPECT_EQ(odom, 20);
  EXPECT_EQ(tf, 20);
  ASSERT_EQ(RunLimbic("play", Limbic({"play", a, "--rate", "0"}), &log), 0) << log;
  // The JSON channels stay in the file.
  EXPECT_NE(log.find("limbic play: " + std::to_string(bus_messages) + " messages"), std::string::npos) << log;
}

TEST_F(RecordPlay, PlayDrivesTheLockstepClockWhenAsked) {
  auto broker = Start("bus.log", {testing::Bin("limbic-bus"), "--bus", bus_});
  const std::string a = dir_ / "a.mcap";
  std::string log;
  {
    auto talker = Start("talker.log", Talker("0.02"));
    ASSERT_EQ(RunLimbic("record_a", Limbic({"record", "chatter", "--out", a, "--duration", "2"}), &log), 0) << log;
  }
  const double duration = bag::Summarize({a}).DurationS();
  ASSERT_GT(duration, 1.0);
  const std::string b = dir_ / "clock.mcap";
  auto recorder = Start("record_b.log", Limbic({"record", "clock", "--out", b, "--duration", "8"}));
  ASSERT_TRUE(testing::WaitFor([&] { return recorder->Log().find("recording matching") != std::string::npos; }, 10s))
      << recorder->Log();
  ASSERT_EQ(RunLimbic("play", Limbic({"play", a, "--rate", "0", "--clock", "--period", "0.5"}), &log), 0) << log;
  recorder->Signal(SIGINT);
  ASSERT_EQ(recorder->Wait(20s), 0) << recorder->Log();
  // One lockstep tick per 0.5 s of recorded time: ticks 0, 1, ... up to the last message.
  std::vector<int64_t> ticks;
  mcap::Reader r(b);
  messages::AlignedBytes aligned;  // a record's bytes lie at any offset of their chunk
  r.ReadMessages([&](const mcap::MessageView& m) {
    const auto* clock = flatbuffers::GetRoot<msg::Clock>(aligned.Align(m.data.data(), m.data.size()));
    EXPECT_TRUE(clock->lockstep());
    EXPECT_DOUBLE_EQ(clock->period_s(), 0.5);
    EXPECT_EQ(clock->header()->stamp_ns(), clock->header()->tick() * 500'000'000);
    ticks.push_back(clock->header()->tick());
    return true;
  });
  ASSERT_EQ(ticks.size(), static_cast<size_t>(duration / 0.5) + 1) << "recording of " << duration << " s";
  for (size_t i = 0; i < ticks.size(); ++i) EXPECT_EQ(ticks[i], static_cast<int64_t>(i));
}

TEST_F(RecordPlay, DamagedFilesAndBadFlagsGetClearErrors) {
  std::string log;
  // A recording cut short: info summarises what it can read and names the offset.
  const std::string a = dir_ / "a.mcap";
  {
    auto broker = Start("bus.log", {testing::Bin("limbic-bus"), "--bus", bus_});
    auto talker =
        Start("talker.log", {testing::Bin("limbic-toy"), "talker", "--bus", bus_, "--robot", "", "--period", "0.01"});
    ASSERT_EQ(RunLimbic("record",
                        Limbic({"record", "--all", "--out", a, "--duration", "2", "--compression", "none", "--chunk-kb",
                                "4"}),
                        &log),
              0)
        << log;
    // A full disk is a clear error, and a non-zero exit.
    EXPECT_NE(RunLimbic("record_full", Limbic({"record", "--all", "--out", "/dev/full", "--duration", "1"}), &log), 0);
    EXPECT_NE(log.find("No space left on device"), std::string::npos) << log;
  }
  mcap::Reader whole(a);
  ASSERT_TRUE(whole.summary());
  const auto& chunks = whole.summary()->chunk_indexes;
  ASSERT_GE(chunks.size(), 3u);
  std::filesystem::resize_file(a, chunks.back().chunk_start_offset + 100);
  EXPECT_EQ(RunLimbic("info_cut", {"bag", "info", a}, &log), 1) << log;
  EXPECT_NE(log.find("at byte " + std::to_string(chunks.back().chunk_start_offset) + ": truncated"), std::string::npos)
      << log;
  EXPECT_NE(log.find("chatter"), std::string::npos) << log;  // what came before is still summarised
  // Not a recording at all.
  std::ofstream(dir_ / "text.mcap") << "hello\n";
  EXPECT_EQ(RunLimbic("info_text", {"bag", "info", dir_ / "text.mcap"}, &log), 1);
  EXPECT_NE(log.find("not an MCAP file"), std::string::npos) << log;
  EXPECT_EQ(RunLimbic("info_missing", {"bag", "info", dir_ / "missing.mcap"}, &log), 1);
  EXPECT_NE(log.find("no recording at"), std::string::npos) << log;
  EXPECT_NE(RunLimbic("bad_rate", {"play", a, "--rate", "-2", "--bus", bus_}, &log), 0);
  EXPECT_NE(log.find("--rate"), std::string::npos) << log;
  EXPECT_NE(RunLimbic("bad_compression", {"record", "--all", "--out", dir_ / "x.mcap", "--compression", "gzip"}, &log),
            0);
  EXPECT_NE(log.find("unknown compression 'gzip'"), std::string::npos) << log;
  EXPECT_NE(RunLimbic("no_out", {"record", "--all"}, &log), 0);
  EXPECT_NE(log.find("--out"), std::string::npos) << log;
}

}  // namespace
}  // namespace limbic
