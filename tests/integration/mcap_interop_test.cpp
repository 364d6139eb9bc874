// limbic's MCAP files against the reference TypeScript implementation, @mcap/core, under node
// (tests/interop/mcap: package.json and package-lock.json; `.ci/run` runs `npm ci` there). Every
// kind of file limbic writes — each compression, and a split recording — is opened, CRC-checked,
// read message by message and decoded through the binary schema in its Schema records; and limbic's
// reader reads a file @mcap/core wrote.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/mcap/reader.hpp"
#include "messages/messages.hpp"
#include "tests/testing/process.hpp"
#include "tools/bag/bag_writer.hpp"
#ifdef LIMBIC_HAVE_FOXGLOVE
#include "tools/bag/bag_derived.hpp"
#endif

namespace limbic {
namespace {

const std::string kInteropDir = std::string(LIMBIC_SOURCE_ROOT) + "/tests/interop/mcap";

// Runs a shell command; returns its exit status and (in *output) what it printed.
int RunShell(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  output->clear();
  while (size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) output->append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

bool NodeAvailable() {
  std::string out;
  return RunShell("node --version", &out) == 0;
}

// Traffic of several types: odometry and scans of a robot, the clock, a heartbeat with nested
// tables.
void WriteTraffic(bag::BagWriter& w, int ticks) {
  flatbuffers::FlatBufferBuilder fbb;
  for (int k = 0; k < ticks; ++k) {
    const int64_t stamp = int64_t{k} * 100'000'000;
    const uint64_t log_time = 1'800'000'000'000'000'000ull + static_cast<uint64_t>(stamp);
    auto header = [&](const char* source) {
      return msg::CreateHeader(fbb, stamp, k, static_cast<uint64_t>(k) + 1, fbb.CreateString(source), false, 42);
    };
    fbb.Clear();
    {
      auto h = header("r1/hwio");
      auto pose = msg::Pose2(0.1 * k, -0.2 * k, 0.01 * k);
      msg::OdometryBuilder b(fbb);
      b.add_header(h);
      b.add_pose(&pose);
      b.add_v(0.5);
      fbb.Finish(b.Finish(), "ODOM");
    }
    w.Write("r1/odom", fbb.GetBufferPointer(), fbb.GetSize(), log_time);
    fbb.Clear();
    {
      auto h = header("r1/hwio");
      std::vector<msg::Beam> beams(60);  // a vector of structs
      auto r = fbb.CreateVectorOfStructs(beams);
      msg::RangeScanBuilder b(fbb);
      b.add_header(h);
      b.add_beams(r);
      fbb.Finish(b.Finish(), "SCAN");
    }
    w.Write("r1/scan", fbb.GetBufferPointer(), fbb.GetSize(), log_time + 10);
    fbb.Clear();
    fbb.Finish(msg::CreateClock(fbb, header("simulator"), 0.1, true), "CLCK");
    w.Write("clock", fbb.GetBufferPointer(), fbb.GetSize(), log_time + 20);
    if (k % 10 == 0) {
      fbb.Clear();
      auto h = header("r1/mapper");
      std::vector<flatbuffers::Offset<msg::Counter>> counters{msg::CreateCounter(fbb, fbb.CreateString("patches"), k)};
      fbb.Finish(
          msg::CreateHeartbeat(fbb, h, fbb.CreateString("r1/mapper"), msg::ServiceState::Running,
                               fbb.CreateString("lockstep"), k, 0.1 * k, 0, 0, 0, 0, 0, fbb.CreateVector(counters)),
          "HBT1");
      w.Write("health/r1/mapper", fbb.GetBufferPointer(), fbb.GetSize(), log_time + 30);
    }
  }
}

class McapInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NodeAvailable()) {
      GTEST_SKIP() << "node is not installed: this test runs @mcap/core under node (Debian: nodejs npm)";
    }
    ASSERT_TRUE(std::filesystem::exists(kInteropDir + "/node_modules/@mcap/core"))
        << "node is installed but the npm packages are not: run `npm ci` in tests/interop/mcap "
           "(.ci/run does)";
  }
  testing::TempDir dir_;
};

TEST_F(McapInterop, ReferenceReaderReadsEveryKindOfFileLimbicWrites) {
  std::vector<std::string> files;
  for (auto c : {mcap::Compression::kNone, mcap::Compression::kZstd, mcap::Compression::kLz4}) {
    const std::string path =
        dir_ / (std::string(c == mcap::Compression::kNone ? "none" : mcap::CompressionName(c)) + ".mcap");
    bag::BagWriter w({.path = path, .compression = c, .chunk_size = 32 * 1024});
    WriteTraffic(w, 300);
    w.Close();
    files.push_back(path);
  }
  {
    bag::BagWriter w({.path = dir_ / "split.mcap",
                      .compression = mcap::Compression::kZstd,
                      .chunk_size = 16 * 1024,
                      .split_bytes = 120'000});
    WriteTraffic(w, 600);
    w.Close();
    ASSERT_GE(w.files().size(), 2u);
    files.insert(files.end(), w.files().begin(), w.files().end());
  }
  std::string command = "node " + kInteropDir + "/interop.js check";
  for (const auto& f : files) command += " " + f;
  std::string output;
  const int status = RunShell(command, &output);
  EXPECT_EQ(status, 0) << output;
  for (const char* expect : {"\"compression\":[\"none\"]", "\"compression\":[\"zstd\"]", "\"compression\":[\"lz4\"]",
                             "\"messages\":930,\"decoded\":930", "\"schemas\":4"}) {
    EXPECT_NE(output.find(expect), std::string::npos) << expect << " not in:\n" << output;
  }
  for (const auto& f : files) EXPECT_NE(output.find(f), std::string::npos) << f << " not checked:\n" << output;
}

TEST_F(McapInterop, LimbicReadsAFileTheReferenceWriterWrote) {
  const std::string ours = dir_ / "ours.mcap";
  {
    bag::BagWriter w({.path = ours, .compression = mcap::Compression::kLz4});
    WriteTraffic(w, 200);
  }
  const std::string theirs = dir_ / "theirs.mcap";
  std::string output;
  ASSERT_EQ(RunShell("node " + kInteropDir + "/interop.js rewrite " + ours + " " + theirs, &output), 0) << output;
  struct Seen {
    std::string topic;
    uint64_t log_time, publish_time;
    uint32_t sequence;
    std::vector<uint8_t> data;
    bool operator==(const Seen&) const = default;
  };
  auto read_all = [](const std::string& path, std::string* library) {
    mcap::Reader r(path);
    *library = r.library();
    EXPECT_TRUE(r.summary()) << path << ": " << (r.summary_error() ? r.summary_error()->what() : "");
    std::vector<Seen> seen;
    messages::AlignedBytes aligned;  // a record's bytes lie at any offset of their chunk
    const auto result = r.ReadMessages([&](const mcap::MessageView& m) {
      const auto schema = r.schemas().find(m.channel.schema_id);
      EXPECT_NE(schema, r.schemas().end());
      const auto* type = messages::FindByName(schema->second.name);
      EXPECT_NE(type, nullptr) << schema->second.name;
      if (type) {
        EXPECT_TRUE(type->verify(aligned.Align(m.data.data(), m.data.size()), m.data.size())) << m.channel.topic;
      }
      seen.push_back({m.channel.topic, m.log_time, m.publish_time, m.sequence, {m.data.begin(), m.data.end()}});
      return true;
    });
    EXPECT_FALSE(result.error) << result.error->what();
    EXPECT_TRUE(result.complete);
    return seen;
  };
  std::string library_ours, library_theirs;
  const auto a = read_all(ours, &library_ours);
  const auto b = read_all(theirs, &library_theirs);
  EXPECT_EQ(library_theirs, "mcap-interop-test");
  EXPECT_EQ(a.size(), 620u);
  EXPECT_TRUE(a == b) << "messages differ after the round trip through @mcap/core";
}

#ifdef LIMBIC_HAVE_FOXGLOVE
// Issue 17: a recording with the derived channels (`limbic record --derived`). @mcap/core reads it,
// and every derived message is parsed as JSON and checked against the JSON Schema its Schema record
// holds (schema encoding jsonschema, message encoding json); one of each Foxglove schema must be
// there.
TEST_F(McapInterop, ReferenceReaderDecodesTheDerivedFoxgloveChannels) {
  const std::string path = dir_ / "derived.mcap";
  bag::BagWriter w({.path = path, .compression = mcap::Compression::kZstd, .chunk_size = 32 * 1024});
  bag::DerivedRecorder derived(w);
  auto record = [&](const std::string& topic, flatbuffers::FlatBufferBuilder& fbb, uint64_t log_time) {
    ASSERT_NE(messages::FindByIdentifier(messages::IdentifierOf(fbb.GetBufferPointer(), fbb.GetSize())), nullptr);
    w.Write(topic, fbb.GetBufferPointer(), fbb.GetSize(), log_time);
    derived.OnRecorded(topic, fbb.GetBufferPointer(), fbb.GetSize(), log_time);
  };
  WriteTraffic(w, 20);  // native channels beside the derived ones
  for (int k = 0; k < 30; ++k) {
    const int64_t stamp = 1'000'000'000 + int64_t{k} * 100'000'000;
    const uint64_t log_time = 1'800'000'000'000'000'000ull + static_cast<uint64_t>(stamp);
    auto header = [&](flatbuffers::FlatBufferBuilder& fbb) {
      return msg::CreateHeader(fbb, stamp, k, static_cast<uint64_t>(k) + 1, fbb.CreateString("test"), false, 42);
    };
    flatbuffers::FlatBufferBuilder fbb;
    const msg::GridInfo info(-1.0, -1.0, 0.5, 4, 3);
    std::vector<double> p_o(12, 0.5), p_e(12, 0.1);
    p_o[5] = 0.9;
    auto h = header(fbb);
    fbb.Finish(msg::CreateGridMap(fbb, h, &info, fbb.CreateVector(p_o), fbb.CreateVector(p_e)),
               messages::Traits<msg::GridMap>::kIdentifier);
    record("r1/map", fbb, log_time);
    fbb.Clear();
    const msg::Pose2 pose(0.1 * k, 0.2, 0.3);
    h = header(fbb);
    fbb.Finish(msg::CreateOdometry(fbb, h, &pose, 0.3, 0.0), messages::Traits<msg::Odometry>::kIdentifier);
    record("r1/odom", fbb, log_time + 1);
    fbb.Clear();
    const std::vector<msg::Vec2> nodes{{0, 0}, {1, 0.5}, {2, 1}};
    h = header(fbb);
    fbb.Finish(msg::CreatePath(fbb, h, true, false, fbb.CreateVectorOfStructs(nodes)),
               messages::Traits<msg::Path>::kIdentifier);
    record("r1/path", fbb, log_time + 2);
    fbb.Clear();
    std::vector<msg::Beam> beams;
    for (int b = 0; b < 8; ++b) beams.emplace_back(b, 0.0, 0.0, b * 0.785, 0.05, 3.0, 1.0 + 0.1 * b, true);
    h = header(fbb);
    fbb.Finish(msg::CreateRangeScan(fbb, h, fbb.CreateVectorOfStructs(beams)),
               messages::Traits<msg::RangeScan>::kIdentifier);
    record("r1/scan", fbb, log_time + 3);
    fbb.Clear();
    const std::vector<msg::HumanState> people{msg::HumanState(3, 1.0, 2.0, 0.3, 0, 0)};
    h = header(fbb);
    fbb.Finish(msg::CreateHumans(fbb, h, fbb.CreateVectorOfStructs(people)),
               messages::Traits<msg::Humans>::kIdentifier);
    record("humans", fbb, log_time + 4);
  }
  w.Close();
  EXPECT_GT(derived.derived_messages(), 60u);
  std::string output;
  EXPECT_EQ(RunShell("node " + kInteropDir + "/interop.js check " + path, &output), 0) << output;
  for (const char* expect :
       {"\"foxglove.Grid\":", "\"foxglove.PosesInFrame\":", "\"foxglove.FrameTransform\":", "\"foxglove.LaserScan\":",
        "\"foxglove.SceneUpdate\":", "\"foxglove/r1/map\"", "\"foxglove/humans\""}) {
    EXPECT_NE(output.find(expect), std::string::npos) << expect << " not in:\n" << output;
  }
  // limbic's own reader and `limbic play` take it too: the derived channels are not bus messages.
  mcap::Reader r(path);
  uint64_t json_messages = 0;
  EXPECT_TRUE(r.ReadMessages([&](const mcap::MessageView& m) {
                 json_messages += m.channel.message_encoding == "json";
                 return true;
               }).complete);
  EXPECT_EQ(json_messages, derived.derived_messages());
}
#endif

}  // namespace
}  // namespace limbic
