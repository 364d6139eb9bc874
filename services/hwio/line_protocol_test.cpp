#include "services/hwio/line_protocol.hpp"

#include <gtest/gtest.h>

namespace limbic::hwio {
namespace {

// Appends "*HH" computed by hand-checked LineChecksum.
std::string WithChecksum(const std::string& body) {
  char digits[3];
  std::snprintf(digits, sizeof digits, "%02X", LineChecksum(body));
  return "$" + body + "*" + digits + "\n";
}

TEST(LineProtocolTest, ChecksumIsNmeaXor) {
  // A published NMEA sentence and its checksum.
  EXPECT_EQ(LineChecksum("GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,"), 0x76);
  EXPECT_EQ(LineChecksum("B 2 5"), 'B' ^ ' ' ^ '2' ^ ' ' ^ '5');
}

TEST(LineProtocolTest, FormatsWheelLine) {
  ProtocolMessage m{.type = LineType::kWheels, .seq = 0, .left_mm_s = 250, .right_mm_s = -100};
  EXPECT_EQ(FormatLine(m), "$W 0 250 -100*6C\n");
}

TEST(LineProtocolTest, EveryTypeRoundTrips) {
  const ProtocolMessage messages[] = {
      {.type = LineType::kWheels, .seq = 7, .left_mm_s = -1600, .right_mm_s = 1600},
      {.type = LineType::kEncoders,
       .seq = 8,
       .board_time_ms = 4294967295u,
       .ticks_left = -2147483647 - 1,
       .ticks_right = 2147483647},
      {.type = LineType::kRanges, .seq = 9, .ranges_mm = {0, 400, 65535}},
      {.type = LineType::kBumpers, .seq = 10, .bumper_bits = 255},
  };
  for (const ProtocolMessage& m : messages) {
    std::string line = FormatLine(m);
    line.pop_back();  // '\n'
    LineError error{};
    const std::optional<ProtocolMessage> parsed = ParseLine(line, &error);
    ASSERT_TRUE(parsed.has_value()) << line;
    EXPECT_EQ(*parsed, m) << line;
  }
}

TEST(LineProtocolTest, ClassifiesBadLines) {
  auto error_of = [](const std::string& line) {
    LineError error{};
    EXPECT_FALSE(ParseLine(line, &error).has_value()) << line;
    return error;
  };
  EXPECT_EQ(error_of("$B 2 5*44"), LineError::kBadChecksum);  // correct is 45
  EXPECT_EQ(error_of("$B 2 5*4"), LineError::kTruncated);
  EXPECT_EQ(error_of("$B 2 5"), LineError::kTruncated);
  EXPECT_EQ(error_of("B 2 5*45"), LineError::kTruncated);
  EXPECT_EQ(error_of("$B 2 5*4G"), LineError::kMalformed);
  std::string w3 = WithChecksum("W 1 250");  // one speed missing
  w3.pop_back();
  EXPECT_EQ(error_of(w3), LineError::kMalformed);
  std::string r = WithChecksum("R 1 3 100 200");  // says 3, has 2
  r.pop_back();
  EXPECT_EQ(error_of(r), LineError::kMalformed);
  std::string b = WithChecksum("B 1 256");
  b.pop_back();
  EXPECT_EQ(error_of(b), LineError::kMalformed);
  std::string nan = WithChecksum("E 1 10 x 2");
  nan.pop_back();
  EXPECT_EQ(error_of(nan), LineError::kMalformed);
  std::string x = WithChecksum("X 1 2");
  x.pop_back();
  EXPECT_EQ(error_of(x), LineError::kUnknownType);
}

TEST(LineProtocolTest, AcceptsCarriageReturnAndLowercaseHex) {
  LineError error{};
  EXPECT_TRUE(ParseLine("$W 0 250 -100*6c\r", &error).has_value());
}

// A stream with good and bad lines, fed in awkward chunks: the counts do not depend on chunking.
TEST(LineProtocolTest, ParserCountsAndSkipsInAnyChunking) {
  std::string stream;
  stream += WithChecksum("E 0 0 0 0");      // ok
  stream += "$B 1 5*00\n";                  // bad checksum
  stream += "$E 2 100 5";                   // truncated, cut by the next '$'
  stream += WithChecksum("E 3 100 50 50");  // ok (gap: 1 and 2 not accepted)
  stream += "noise without start\r\n";      // truncated (no '$')
  stream += "\n\r\n";                       // blank lines: ignored
  stream += WithChecksum("Q 4 1");          // unknown type
  stream += WithChecksum("R 5 2 400 0");    // ok
  stream += "$W 6 1 2*";                    // truncated at the checksum
  stream += "\n";
  stream += WithChecksum("B 7 3");  // ok
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, stream.size()}) {
    LineProtocolParser parser;
    std::vector<ProtocolMessage> got;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      for (auto& m : parser.Feed(std::string_view(stream).substr(i, chunk))) got.push_back(m);
    }
    ASSERT_EQ(got.size(), 4u) << "chunk " << chunk;
    EXPECT_EQ(got[0].seq, 0u);
    EXPECT_EQ(got[1].ticks_left, 50);
    EXPECT_EQ(got[2].ranges_mm, (std::vector<int32_t>{400, 0}));
    EXPECT_EQ(got[3].bumper_bits, 3u);
    const LineParserCounters& c = parser.counters();
    EXPECT_EQ(c.accepted, 4);
    EXPECT_EQ(c.bad_checksum, 1);
    EXPECT_EQ(c.truncated, 3);
    EXPECT_EQ(c.unknown_type, 1);
    EXPECT_EQ(c.malformed, 0);
    EXPECT_EQ(c.rejected(), 5);
    EXPECT_EQ(c.sequence_gaps, 2 + 1 + 1);  // 0→3, 3→5, 5→7
    EXPECT_EQ(c.bytes, static_cast<int64_t>(stream.size()));
  }
}

TEST(LineProtocolTest, OverlongLineIsDroppedAndNextLineParsed) {
  LineProtocolParser parser(LineParserOptions{.max_line_length = 16});
  std::string stream = "$R 1 9 " + std::string(40, '1') + "*00\n" + WithChecksum("B 2 1");
  const auto got = parser.Feed(stream);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].bumper_bits, 1u);
  EXPECT_EQ(parser.counters().overlong, 1);
  EXPECT_EQ(parser.counters().rejected(), 1);
}

TEST(LineProtocolTest, SequenceWrapIsNotAGapButRestartIsAReset) {
  LineProtocolParser parser;
  parser.Feed(WithChecksum("B 4294967295 0") + WithChecksum("B 0 0"));
  EXPECT_EQ(parser.counters().sequence_gaps, 0);
  EXPECT_EQ(parser.counters().sequence_resets, 0);
  parser.Feed(WithChecksum("B 0 0"));
  EXPECT_EQ(parser.counters().sequence_resets, 1);
}

}  // namespace
}  // namespace limbic::hwio
