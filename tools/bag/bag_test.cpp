#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <system_error>
#include <thread>

#include "common/mcap/reader.hpp"
#include "messages/messages.hpp"
#include "tools/bag/bag_player.hpp"
#include "tools/bag/bag_reader.hpp"
#include "tools/bag/bag_writer.hpp"

namespace limbic::bag {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("bag_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::vector<uint8_t> Odometry(int64_t stamp_ns, uint64_t seq, double v) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeader(fbb, stamp_ns, /*tick=*/seq, seq, fbb.CreateString("r1/hwio"), false, 7);
  msg::OdometryBuilder b(fbb);
  b.add_header(header);
  b.add_v(v);
  fbb.Finish(b.Finish(), messages::Traits<msg::Odometry>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

std::vector<uint8_t> ClockMessage(int64_t tick) {
  flatbuffers::FlatBufferBuilder fbb;
  auto header = msg::CreateHeader(fbb, tick * 100'000'000, tick, static_cast<uint64_t>(tick) + 1,
                                  fbb.CreateString("simulator"), false, 9);
  fbb.Finish(msg::CreateClock(fbb, header, 0.1, true), messages::Traits<msg::Clock>::kIdentifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

constexpr uint64_t kT0 = 1'700'000'000'000'000'000ull;

// 10 s of traffic: r1/odom and r2/odom at 10 Hz, clock at 10 Hz.
void WriteSample(BagWriter& w) {
  for (int k = 0; k < 100; ++k) {
    const uint64_t t = kT0 + k * 100'000'000ull;
    const auto odom = Odometry(int64_t{k} * 100'000'000, k + 1, 0.01 * k);
    w.Write("r1/odom", odom.data(), odom.size(), t);
    w.Write("r2/odom", odom.data(), odom.size(), t + 1000);
    const auto clock = ClockMessage(k);
    w.Write("clock", clock.data(), clock.size(), t + 2000);
  }
}

TEST(BagWriter, WritesOneSchemaPerTypeWithTheBinarySchemaAndOneChannelPerTopic) {
  const std::string path = TempPath("types.mcap");
  {
    BagWriter w({.path = path, .compression = mcap::Compression::kLz4});
    WriteSample(w);
    EXPECT_EQ(w.messages(), 300u);
  }
  mcap::Reader r(path);
  ASSERT_TRUE(r.summary());
  const auto& s = *r.summary();
  ASSERT_EQ(s.schemas.size(), 2u);
  const auto bfbs = messages::BinarySchema();
  for (const auto& [id, schema] : s.schemas) {
    EXPECT_EQ(schema.encoding, "flatbuffer");
    EXPECT_TRUE(std::equal(schema.data.begin(), schema.data.end(), bfbs.begin(), bfbs.end()));
  }
  EXPECT_EQ(s.schemas.at(1).name, "limbic.msg.Odometry");
  EXPECT_EQ(s.schemas.at(2).name, "limbic.msg.Clock");
  ASSERT_EQ(s.channels.size(), 3u);
  EXPECT_EQ(s.channels.at(0).topic, "r1/odom");
  EXPECT_EQ(s.channels.at(1).schema_id, 1);  // r2/odom shares the Odometry schema
  EXPECT_EQ(s.channels.at(2).message_encoding, "flatbuffer");
  // Publish time is the header stamp, log time the recording time, sequence the header's.
  int n = 0;
  r.ReadMessages([&](const mcap::MessageView& m) {
    if (m.channel.topic == "clock" && n++ == 5) {
      EXPECT_EQ(m.publish_time, 500'000'000u);
      EXPECT_EQ(m.log_time, kT0 + 500'000'000u + 2000u);
      EXPECT_EQ(m.sequence, 6u);
    }
    return true;
  });
  std::filesystem::remove(path);
}

TEST(BagWriter, WritesChannelsOfOtherSchemasBesideLimbicOnes) {
  const std::string path = TempPath("other.mcap");
  {
    BagWriter w({.path = path});
    WriteSample(w);
    const BagWriter::OtherSchema grid{"foxglove.Grid", "jsonschema", {'{', '}'}};
    const std::string json = R"({"frame_id":"map"})";
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(json.data()), json.size());
    w.WriteOther("/foxglove/map", grid, "json", bytes, kT0 + 5, kT0 + 4);
    w.WriteOther("/foxglove/map", grid, "json", bytes, kT0 + 6, kT0 + 6);
  }
  mcap::Reader r(path);
  ASSERT_TRUE(r.summary());
  EXPECT_EQ(r.summary()->schemas.size(), 3u);
  const auto& s = r.summary()->schemas.at(3);
  EXPECT_EQ(s.name, "foxglove.Grid");
  EXPECT_EQ(s.encoding, "jsonschema");
  EXPECT_EQ(r.summary()->channels.at(3).message_encoding, "json");
  EXPECT_EQ(r.summary()->statistics->channel_message_counts.at(3), 2u);
  std::filesystem::remove(path);
}

TEST(BagWriter, RefusesPayloadsThatAreNoLimbicMessage) {
  const std::string path = TempPath("junk.mcap");
  BagWriter w({.path = path});
  const std::vector<uint8_t> junk(64, 0x41);
  EXPECT_THROW(w.Write("x", junk.data(), junk.size(), 1), std::invalid_argument);
  w.Close();
  std::filesystem::remove(path);
}

TEST(BagWriter, SplitsBySizeIntoCompleteFilesThatReadAsOneRecording) {
  const std::string path = TempPath("split.mcap");
  std::vector<std::string> files;
  {
    BagWriter w({.path = path, .compression = mcap::Compression::kNone, .chunk_size = 4096, .split_bytes = 8000});
    WriteSample(w);
    w.Close();
    files = w.files();
  }
  ASSERT_GE(files.size(), 3u);  // ~300 messages of ~80 bytes (+ schemas of ~13 kB each... per file)
  EXPECT_EQ(files[0], SplitPath(path, 0));
  EXPECT_EQ(ResolveBagFiles(path), files);
  uint64_t total = 0;
  for (const auto& f : files) {
    mcap::Reader r(f);
    ASSERT_TRUE(r.summary()) << f;  // each part is a complete MCAP file
    total += r.summary()->statistics->message_count;
  }
  EXPECT_EQ(total, 300u);
  const BagSummary s = Summarize(files);
  EXPECT_EQ(s.messages, 300u);
  EXPECT_TRUE(s.problems.empty());
  for (const auto& f : files) std::filesystem::remove(f);
  EXPECT_THROW(ResolveBagFiles(path), std::runtime_error);
}

TEST(BagReader, SummaryCountsTypesAndRates) {
  const std::string path = TempPath("summary.mcap");
  {
    BagWriter w({.path = path});
    WriteSample(w);
  }
  const BagSummary s = Summarize({path});
  EXPECT_EQ(s.messages, 300u);
  ASSERT_EQ(s.topics.size(), 3u);
  EXPECT_EQ(s.topics.at("clock").type, "limbic.msg.Clock");
  EXPECT_EQ(s.topics.at("r2/odom").messages, 100u);
  EXPECT_NEAR(s.topics.at("r1/odom").RateHz(), 10.0, 1e-9);  // 99 gaps in 9.9 s
  EXPECT_NEAR(s.DurationS(), 9.9 + 2e-6, 1e-9);
  EXPECT_EQ(s.compressions, std::set<std::string>{"zstd"});
  EXPECT_TRUE(s.problems.empty());
  std::filesystem::remove(path);
}

TEST(BagReader, TruncatedRecordingIsSummarisedUpToTheDamage) {
  const std::string path = TempPath("cut.mcap");
  {
    BagWriter w({.path = path, .chunk_size = 2048});
    WriteSample(w);
  }
  // Cut inside the last chunk (the summary after it holds two copies of the binary schema).
  const auto last = mcap::Reader(path).summary()->chunk_indexes.back();
  std::filesystem::resize_file(path, last.chunk_start_offset + last.chunk_length / 2);
  const BagSummary s = Summarize({path});
  EXPECT_GT(s.messages, 0u);
  EXPECT_LT(s.messages, 300u);
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_NE(s.problems[0].find(path + ": at byte " + std::to_string(last.chunk_start_offset) + ": truncated"),
            std::string::npos)
      << s.problems[0];
  std::filesystem::remove(path);
}

TEST(BagReader, SelectsTopicsAndATimeWindow) {
  const std::string path = TempPath("window.mcap");
  {
    BagWriter w({.path = path});
    WriteSample(w);
  }
  ReadOptions options{.topics = TopicFilter({"*/odom"}), .start_s = 2.0, .end_s = 4.0};
  std::vector<uint64_t> times;
  std::set<std::string> topics;
  const auto problems = ForEachMessage({path}, options, [&](const BagMessage& m) {
    times.push_back(m.log_time);
    topics.insert(m.topic);
    EXPECT_EQ(m.type, "limbic.msg.Odometry");
    return true;
  });
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(topics, (std::set<std::string>{"r1/odom", "r2/odom"}));
  // r1/odom at 2.0, 2.1, ..., 4.0 s (21) and r2/odom 1 µs later up to 3.9 s (20).
  EXPECT_EQ(times.size(), 41u);
  EXPECT_EQ(times.front(), kT0 + 2'000'000'000ull);
  options.start_s = 5.0;
  EXPECT_THROW(ForEachMessage({path}, options, [](const BagMessage&) { return true; }), std::invalid_argument);
  std::filesystem::remove(path);
}

// A record's bytes lie at any offset of their chunk: readers get them aligned for FlatBuffers, with the
// bytes unchanged; the player, which forwards them unread, gets them where they lie.
TEST(BagReader, MessagesArriveAlignedForFlatBuffersUnlessAskedOtherwise) {
  const std::string path = TempPath("aligned.mcap");
  {
    BagWriter w({.path = path, .compression = mcap::Compression::kNone});
    WriteSample(w);
  }
  int read = 0, misaligned = 0, misaligned_raw = 0;
  double v_sum = 0;
  ForEachMessage({path}, {.topics = TopicFilter({"r1/odom"})}, [&](const BagMessage& m) {
    ++read;
    if (reinterpret_cast<uintptr_t>(m.data.data()) % alignof(double) != 0) ++misaligned;
    v_sum += flatbuffers::GetRoot<msg::Odometry>(m.data.data())->v();
    return true;
  });
  EXPECT_EQ(read, 100);
  EXPECT_EQ(misaligned, 0);
  EXPECT_NEAR(v_sum, 0.01 * (99 * 100 / 2), 1e-9);
  ReadOptions raw{.topics = TopicFilter({"r1/odom"})};
  raw.aligned = false;
  std::vector<bool> misaligned_in_file;
  int raw_with_owner = 0;
  ForEachMessage({path}, raw, [&](const BagMessage& m) {
    misaligned_in_file.push_back(reinterpret_cast<uintptr_t>(m.data.data()) % alignof(double) != 0);
    misaligned_raw += misaligned_in_file.back();
    raw_with_owner += m.owner != nullptr;  // the file's mapping: a player may send from it without a copy
    return true;
  });
  // The point of the test: in the file they are not aligned.
  EXPECT_GT(misaligned_raw, 0);
  EXPECT_EQ(raw_with_owner, 100);
  // An aligned copy lasts until the next message: exactly the copied ones come without an owner to keep.
  size_t i = 0;
  ForEachMessage({path}, {.topics = TopicFilter({"r1/odom"})}, [&](const BagMessage& m) {
    EXPECT_EQ(m.owner == nullptr, i < misaligned_in_file.size() && misaligned_in_file[i]) << "message " << i;
    ++i;
    return true;
  });
  EXPECT_EQ(i, misaligned_in_file.size());
  std::filesystem::remove(path);
}

// The channel predicate is asked once per channel (not per message) and leaves channels out;
// reading ahead on a thread delivers the same messages in the same order.
TEST(BagReader, ChannelPredicateIsAskedOncePerChannelAndReadAheadChangesNothing) {
  const std::string path = TempPath("channels.mcap");
  {
    BagWriter w({.path = path, .chunk_size = 4096});  // many chunks, so the thread really runs ahead
    WriteSample(w);
  }
  std::map<std::string, int> asked;
  auto read = [&](mcap::ReadAhead read_ahead) {
    ReadOptions options{.channels =
                            [&](const std::string& topic, const std::string& encoding) {
                              ++asked[topic];
                              EXPECT_EQ(encoding, "flatbuffer");
                              return topic != "r2/odom";
                            },
                        .read_ahead = read_ahead};
    std::vector<std::pair<std::string, uint64_t>> got;
    EXPECT_TRUE(ForEachMessage({path}, options, [&](const BagMessage& m) {
                  got.emplace_back(m.topic, m.log_time);
                  return true;
                }).empty());
    return got;
  };
  const auto inline_messages = read(mcap::ReadAhead::kNone);
  EXPECT_EQ(asked, (std::map<std::string, int>{{"clock", 1}, {"r1/odom", 1}, {"r2/odom", 1}}));
  EXPECT_EQ(inline_messages.size(), 200u);  // r1/odom and clock, 100 each
  EXPECT_EQ(
      std::count_if(inline_messages.begin(), inline_messages.end(), [](const auto& m) { return m.first == "r2/odom"; }),
      0);
  EXPECT_EQ(read(mcap::ReadAhead::kThread), inline_messages);
  // A player's own selection adds to its plumbing rule: clock stays out whatever the caller says.
  std::map<std::string, int> sent;
  Player player(
      {path},
      {.read = {.channels = [](const std::string& topic, const std::string&) { return topic != "r2/odom"; }},
       .rate = 0},
      [&](const std::string& topic, std::span<const uint8_t>, const std::shared_ptr<const void>&) { ++sent[topic]; });
  const std::atomic<bool> stop{false};
  EXPECT_TRUE(player.PlayPass(stop).empty());
  EXPECT_EQ(sent, (std::map<std::string, int>{{"r1/odom", 100}}));
  // Without the read-ahead thread (and with no selection of the caller's): the plumbing still stays out.
  std::map<std::string, int> sent_inline;
  Player inline_player({path}, {.rate = 0, .read_ahead = false},
                       [&](const std::string& topic, std::span<const uint8_t>, const std::shared_ptr<const void>&) {
                         ++sent_inline[topic];
                       });
  EXPECT_TRUE(inline_player.PlayPass(stop).empty());
  EXPECT_EQ(sent_inline, (std::map<std::string, int>{{"r1/odom", 100}, {"r2/odom", 100}}));
  std::filesystem::remove(path);
}

TEST(TopicFilter, GlobsAndTheirSubscriptionPrefixes) {
  const TopicFilter f({"r1/*", "clock", "*/scan"});
  EXPECT_TRUE(f.Matches("r1/odom"));
  EXPECT_TRUE(f.Matches("clock"));
  EXPECT_TRUE(f.Matches("r2/scan"));
  EXPECT_FALSE(f.Matches("r2/odom"));
  EXPECT_FALSE(f.Matches("clockwork"));
  EXPECT_EQ(f.SubscriptionPrefixes(), (std::vector<std::string>{"r1/", "clock", ""}));
  EXPECT_TRUE(TopicFilter().Matches("anything"));
  EXPECT_THROW(TopicFilter({""}), std::invalid_argument);
}

TEST(PlaybackTimer, DividesRecordedGapsByTheRate) {
  PlaybackTimer twice(2.0);
  EXPECT_EQ(twice.DueNs(kT0), 0);
  EXPECT_EQ(twice.DueNs(kT0 + 1'000'000'000), 500'000'000);
  twice.Restart();  // --loop: the next pass starts again at 0
  EXPECT_EQ(twice.DueNs(kT0 + 3'000'000'000ull), 0);
  PlaybackTimer fastest(0.0);
  fastest.DueNs(kT0);
  EXPECT_EQ(fastest.DueNs(kT0 + 5'000'000'000ull), 0);
  EXPECT_THROW(PlaybackTimer(-1.0), std::invalid_argument);
  EXPECT_THROW(PlaybackTimer(std::nan("")), std::invalid_argument);
}

TEST(AsyncRecorder, ASlowDiskDropsAndCountsInsteadOfBlocking) {
  std::atomic<int> writes{0};
  AsyncRecorder recorder(
      [&](const AsyncRecorder::Item&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a disk far slower than the bus
        ++writes;
      },
      /*max_queue_bytes=*/8 * 1024);
  const std::vector<uint8_t> payload(1024, 1);
  int accepted = 0;
  for (int i = 0; i < 200; ++i) accepted += recorder.Push("r1/scan", payload.data(), payload.size(), i);
  // The queue holds 8 messages; the writer can have taken at most a few more meanwhile.
  EXPECT_LT(accepted, 200);
  recorder.Finish();
  EXPECT_EQ(recorder.pushed(), 200u);
  EXPECT_EQ(recorder.written() + recorder.dropped(), 200u);
  EXPECT_EQ(recorder.written(), static_cast<uint64_t>(accepted));
  EXPECT_EQ(writes.load(), accepted);
  EXPECT_FALSE(recorder.error());
}

TEST(AsyncRecorder, AWriteErrorStopsRecordingWithItsMessage) {
  int writes = 0;
  AsyncRecorder recorder([&](const AsyncRecorder::Item&) {
    if (++writes > 3) throw std::system_error(ENOSPC, std::generic_category(), "writing out.mcap");
  });
  const std::vector<uint8_t> payload(10, 1);
  for (int i = 0; i < 10; ++i) recorder.Push("t", payload.data(), payload.size(), i);
  recorder.Finish();
  ASSERT_TRUE(recorder.error());
  EXPECT_NE(recorder.error()->find("No space left on device"), std::string::npos) << *recorder.error();
  EXPECT_EQ(recorder.written(), 3u);
  EXPECT_EQ(recorder.dropped(), 7u);
  EXPECT_FALSE(recorder.Push("t", payload.data(), payload.size(), 11));
}

// limbic play's loop: clock and lockstep plumbing and non-FlatBuffers channels (derived Foxglove
// JSON) are not replayed; --clock ticks once per period of recorded time, counted on across passes;
// a rate paces.
TEST(Player, SendsBusMessagesOnlyAndTicksOncePerRecordedPeriod) {
  const std::string path = TempPath("player.mcap");
  {
    BagWriter w({.path = path});
    WriteSample(w);  // r1/odom, r2/odom, clock at 10 Hz for 10 s
    const std::string json = R"({"timestamp":{"sec":0,"nsec":0}})";
    for (int k = 0; k < 5; ++k) {
      w.WriteOther("foxglove/r1/tf", {.name = "foxglove.FrameTransform", .encoding = "jsonschema", .data = {'{', '}'}},
                   "json", std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size()),
                   kT0 + k * 1'000'000'000ull, kT0);
    }
    const auto ack = Odometry(1, 1, 0.0);  // any payload: the topic alone keeps it out
    w.Write("lockstep/ack", ack.data(), ack.size(), kT0 + 5);
  }
  std::map<std::string, int> sent;
  std::vector<int64_t> ticks;
  Player player(
      {path}, {.rate = 0, .drive_clock = true, .period_ns = 1'000'000'000},
      [&](const std::string& topic, std::span<const uint8_t>, const std::shared_ptr<const void>&) { ++sent[topic]; },
      [&](int64_t t) { ticks.push_back(t); });
  const std::atomic<bool> stop{false};
  EXPECT_TRUE(player.PlayPass(stop).empty());
  EXPECT_EQ(sent, (std::map<std::string, int>{{"r1/odom", 100}, {"r2/odom", 100}}));
  EXPECT_EQ(player.played(), 200u);
  // Recorded times span 0 .. 9.9 s (+1 µs): ticks at 0, 1, ..., 9 s.
  ASSERT_EQ(ticks.size(), 10u);
  EXPECT_EQ(ticks.front(), 0);
  EXPECT_EQ(ticks.back(), 9);
  EXPECT_TRUE(player.PlayPass(stop).empty());  // --loop: the clock carries on
  EXPECT_EQ(ticks.size(), 20u);
  EXPECT_EQ(ticks.back(), 19);
  const std::atomic<bool> stopped{true};
  EXPECT_TRUE(player.PlayPass(stopped).empty());
  EXPECT_EQ(player.played(), 400u);  // a stop before the first message plays nothing

  // Rate 100: 10 s of recording in about 0.1 s, never faster.
  Player paced({path}, {.rate = 100},
               [](const std::string&, std::span<const uint8_t>, const std::shared_ptr<const void>&) {});
  const auto t0 = std::chrono::steady_clock::now();
  paced.PlayPass(stop);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(99));
  EXPECT_THROW(Player({path}, {.rate = -1},
                      [](const std::string&, std::span<const uint8_t>, const std::shared_ptr<const void>&) {}),
               std::invalid_argument);
  EXPECT_THROW(Player({path}, {.drive_clock = true},
                      [](const std::string&, std::span<const uint8_t>, const std::shared_ptr<const void>&) {}),
               std::invalid_argument);  // a clock needs a tick function
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace limbic::bag
