// End-to-end tests of SerialBackend against an emulated board on a pseudo-terminal. Every wait is a
// bounded poll on a file descriptor; no test depends on how fast a thread runs.
#include "services/hwio/serial_backend.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "services/hwio/testing/fake_board.hpp"

namespace limbic::hwio {
namespace {

using testing::FakeBoard;

std::string Line(const std::string& body) {
  char digits[3];
  std::snprintf(digits, sizeof digits, "%02X", LineChecksum(body));
  return "$" + body + "*" + digits + "\n";
}

SerialBackendOptions OptionsFor(const FakeBoard& board) {
  SerialBackendOptions options;
  options.device = board.device();
  options.ticks_per_metre = 10000.0;
  options.wheel_assignment = WheelAssignment::kWheel1IsRight;  // a physical board: CCW-positive ω
  return options;
}

// Polls until `done` holds or 3 s pass; each wait is a bounded poll on the port.
template <typename Done>
void PollUntil(SerialBackend& backend, double now, Done done, std::vector<SensorFrame>* frames) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    backend.WaitForInput(0.2);
    if (auto frame = backend.Poll(now)) frames->push_back(*frame);
  }
}

TEST(SerialBackendTest, AcceptsValidLinesAndCountsGarbledAndTruncated) {
  FakeBoard board;
  SerialBackend backend(OptionsFor(board));
  std::string stream;
  stream += Line("E 0 1000 0 0");        // accepted: odometry baseline
  stream += Line("R 1 3 400 0 2500");    // accepted: 3 beams
  stream += "$B 2 5*00\n";               // bad checksum
  stream += "$E 3 1100 5";               // truncated (cut by the next line's '$')
  stream += Line("E 4 1100 500 500");    // accepted: +0.05 m on both wheels in 100 ms
  stream += "#@!garbage\n";              // truncated (no '$')
  stream += Line("B 5 5");               // accepted: switches 0 and 2
  stream += Line("E 6 1200 1000 1500");  // accepted: left +0.05, right +0.10
  stream += "$R 7 2 100 200";            // truncated at the very end of a burst...
  stream += "\n";                        // ...by a line end
  stream += Line("B 8 0");               // accepted: sentinel
  board.Send(stream, 7);

  std::vector<SensorFrame> frames;
  PollUntil(
      backend, 0.0, [&] { return backend.counters().parser.accepted + backend.counters().parser.rejected() >= 10; },
      &frames);
  const SerialBackendCounters& c = backend.counters();
  EXPECT_EQ(c.parser.accepted, 6);
  EXPECT_EQ(c.parser.bad_checksum, 1);
  EXPECT_EQ(c.parser.truncated, 3);
  EXPECT_EQ(c.parser.rejected(), 4);
  const BackendStatus status = backend.Status(0.0);
  EXPECT_EQ(status.accepted_inputs, 6);
  EXPECT_EQ(status.rejected_inputs, 4);
  EXPECT_FALSE(status.stale);
  EXPECT_TRUE(status.connected);

  bool saw_scan = false, saw_contact = false;
  for (const SensorFrame& f : frames) {
    if (f.has_scan) {
      saw_scan = true;
      ASSERT_EQ(f.scan.beams.size(), 3u);
      EXPECT_DOUBLE_EQ(f.scan.beams[0].range, 0.4);
      EXPECT_TRUE(f.scan.beams[0].valid);
      EXPECT_FALSE(f.scan.beams[1].valid);  // 0 = nothing in range
      EXPECT_DOUBLE_EQ(f.scan.beams[1].range, 3.0);
      EXPECT_DOUBLE_EQ(f.scan.beams[2].range, 2.5);
    }
    if (f.has_contact && f.contact.occurred) {
      saw_contact = true;
      EXPECT_EQ(f.contact.sensor_ids, (std::vector<int>{0, 2}));
      // Raw switches only: the contact point is CollisionEventDetector's to place (one place places it).
      EXPECT_EQ(f.contact.contact_point, geometry::Vec2::Zero());
    }
  }
  EXPECT_TRUE(saw_scan);
  EXPECT_TRUE(saw_contact);

  // Odometry: 0.05 m straight, then left 0.05 / right 0.10 → Δs = 0.075, Δθ = 0.05/0.6 over 100 ms.
  const OdometryEstimate& odo = backend.odometry();
  const geometry::Pose2 expected = geometry::IntegrateArc({0.05, 0.0, 0.0}, 0.075, 0.05 / 0.6, 1.0);
  EXPECT_NEAR(odo.pose.x, expected.x, 1e-12);
  EXPECT_NEAR(odo.pose.y, expected.y, 1e-12);
  EXPECT_NEAR(odo.pose.theta, 0.05 / 0.6, 1e-12);
  EXPECT_NEAR(odo.v, 0.75, 1e-12);
  EXPECT_NEAR(odo.omega, 0.05 / 0.6 / 0.1, 1e-12);
}

TEST(SerialBackendTest, EncoderCounterWrapIsHandled) {
  FakeBoard board;
  SerialBackend backend(OptionsFor(board));
  board.Send(Line("E 0 4294967200 2147483600 -2147483600"));
  board.Send(Line("E 1 4 -2147483596 2147483596"));  // +100 ms, left +100 ticks, right −100 ticks (wrapped)
  std::vector<SensorFrame> frames;
  PollUntil(
      backend, 0.0, [&] { return backend.counters().parser.accepted >= 2; }, &frames);
  EXPECT_NEAR(backend.odometry().v, 0.0, 1e-12);
  EXPECT_NEAR(backend.odometry().omega, (-0.01 - 0.01) / 0.6 / 0.1, 1e-12);  // right − left
}

TEST(SerialBackendTest, WheelCommandsArriveAtBoardAndStaleBoardGetsZeros) {
  FakeBoard board;
  SerialBackend backend(OptionsFor(board));
  board.Send(Line("E 0 0 0 0"));
  std::vector<SensorFrame> frames;
  PollUntil(
      backend, 0.0, [&] { return !frames.empty(); }, &frames);
  ASSERT_EQ(frames.size(), 1u);

  backend.SendWheels(0.125, {.v_left = 0.25, .v_right = -0.1});
  std::vector<ProtocolMessage> got = board.ReadHost(1, 2000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].type, LineType::kWheels);
  EXPECT_EQ(got[0].seq, 0u);
  EXPECT_EQ(got[0].left_mm_s, 250);
  EXPECT_EQ(got[0].right_mm_s, -100);

  // Board silent since t = 0: at 0.3 s (= stale_timeout) the backend is stale and sends zeros.
  backend.SendWheels(0.3, {.v_left = 0.25, .v_right = 0.25});
  got = board.ReadHost(1, 2000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].seq, 1u);
  EXPECT_EQ(got[0].left_mm_s, 0);
  EXPECT_EQ(got[0].right_mm_s, 0);
  EXPECT_EQ(backend.counters().zero_forced, 1);
  EXPECT_TRUE(backend.Status(0.3).stale);
  EXPECT_EQ(board.host_counters().rejected(), 0);
}

// A board thread answers each wheel line with an encoder line (integrating the commanded speeds), then
// falls silent after kReplies. The host cycles every 0.125 s; the backend must go stale 0.25 s after the
// last reply and from then on send only zeros.
TEST(SerialBackendTest, SilentBoardTripsTheLinkWatchdog) {
  FakeBoard board;
  SerialBackendOptions options = OptionsFor(board);
  options.stale_timeout = 0.25;
  SerialBackend backend(options);
  constexpr int kReplies = 4;
  constexpr int kCycles = kReplies + 4;
  constexpr double kPeriod = 0.125;

  std::atomic<bool> stop{false};
  std::vector<ProtocolMessage> received;  // owned by the board thread until join
  std::atomic<int64_t> lines_seen{0};
  std::thread emulator([&] {
    uint32_t seq = 0, time_ms = 0;
    int32_t left = 0, right = 0;
    board.Send(Line("E " + std::to_string(seq++) + " 0 0 0"));  // hello: the link is alive
    while (!stop.load()) {
      for (const ProtocolMessage& m : board.ReadHost(1, 50)) {
        received.push_back(m);
        ++lines_seen;
        if (static_cast<int>(received.size()) > kReplies) continue;  // silent from now on
        time_ms += 125;
        left += m.left_mm_s * 125 * 10 / 1000;  // mm/s · s · ticks/mm (10000 ticks/m)
        right += m.right_mm_s * 125 * 10 / 1000;
        board.Send(ProtocolMessage{.type = LineType::kEncoders,
                                   .seq = seq++,
                                   .board_time_ms = time_ms,
                                   .ticks_left = left,
                                   .ticks_right = right});
      }
    }
  });

  std::vector<SensorFrame> frames;
  PollUntil(
      backend, 0.0, [&] { return !frames.empty(); }, &frames);
  ASSERT_EQ(frames.size(), 1u) << "no hello from the board";
  int64_t expected_lines = 0;
  for (int k = 1; k <= kCycles; ++k) {
    const double now = k * kPeriod;
    backend.SendWheels(now, {.v_left = 0.2, .v_right = 0.2});
    ++expected_lines;
    if (k <= kReplies) {
      const size_t before = frames.size();
      PollUntil(
          backend, now, [&] { return frames.size() > before; }, &frames);
      ASSERT_EQ(frames.size(), before + 1) << "no reply in cycle " << k;
    } else {
      EXPECT_FALSE(backend.WaitForInput(0.05));
      EXPECT_FALSE(backend.Poll(now).has_value());
    }
    const BackendStatus status = backend.Status(now);
    // Last data at kReplies·T; stale once now − that ≥ 0.25 s, i.e. from cycle kReplies + 2.
    EXPECT_EQ(status.stale, k >= kReplies + 2) << "cycle " << k;
  }
  // Wait until the board has read every wheel line, then stop it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < deadline) {
    backend.WaitForInput(0.02);  // also a bounded pause for the board thread
    if (lines_seen.load() >= expected_lines) break;
  }
  stop = true;
  emulator.join();

  ASSERT_EQ(static_cast<int>(received.size()), kCycles);
  for (int k = 1; k <= kCycles; ++k) {
    const bool fresh = k < kReplies + 2;  // at cycle k the newest data is from cycle min(k − 1, kReplies)
    EXPECT_EQ(received[k - 1].left_mm_s, fresh ? 200 : 0) << "cycle " << k;
    EXPECT_EQ(received[k - 1].right_mm_s, fresh ? 200 : 0) << "cycle " << k;
  }
  const BackendStatus status = backend.Status(kCycles * kPeriod);
  EXPECT_EQ(status.stale_trips, 1);
  EXPECT_EQ(backend.counters().zero_forced, kCycles - kReplies - 1);
  // kReplies × 0.2 m/s × 0.125 s = 0.1 m straight ahead.
  EXPECT_NEAR(backend.odometry().pose.x, kReplies * 0.025, 1e-12);
  EXPECT_NEAR(backend.odometry().v, 0.2, 1e-12);
}

TEST(SerialBackendTest, MissingDeviceThrowsNamingIt) {
  SerialBackendOptions options;
  options.device = "/dev/does-not-exist-limbic";
  try {
    SerialBackend backend(options);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/does-not-exist-limbic"), std::string::npos);
  }
}

TEST(SerialBackendTest, RangeLineWithWrongBeamCountIsDropped) {
  FakeBoard board;
  SerialBackendOptions options = OptionsFor(board);
  options.beam_layout.resize(2);
  options.beam_layout[1].d_max = 0.75;
  SerialBackend backend(options);
  board.Send(Line("R 0 3 1 2 3") + Line("R 1 2 500 800"));
  std::vector<SensorFrame> frames;
  PollUntil(
      backend, 0.0, [&] { return backend.counters().parser.accepted >= 2; }, &frames);
  EXPECT_EQ(backend.counters().layout_mismatches, 1);
  ASSERT_FALSE(frames.empty());
  const RangeScan& scan = frames.back().scan;
  ASSERT_EQ(scan.beams.size(), 2u);
  EXPECT_DOUBLE_EQ(scan.beams[0].range, 0.5);
  EXPECT_FALSE(scan.beams[1].valid);  // 0.8 m ≥ d_max 0.75
}

}  // namespace
}  // namespace limbic::hwio
