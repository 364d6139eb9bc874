// The ASCII line protocol between hwio and a motor/sensor board (see PROTOCOL.md): formatting and parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace limbic::hwio {

enum class LineType : char {
  kWheels = 'W',    // host → board: wheel speed targets
  kEncoders = 'E',  // board → host: cumulative encoder ticks
  kRanges = 'R',    // board → host: one range per beam
  kBumpers = 'B',   // board → host: bumper switch mask
};

// One decoded line. Only the fields of `type` are meaningful.
struct ProtocolMessage {
  LineType type = LineType::kWheels;
  uint32_t seq = 0;                  // sender's line counter, +1 per line, wraps at 2^32
  int32_t left_mm_s = 0;             // W
  int32_t right_mm_s = 0;            // W
  uint32_t board_time_ms = 0;        // E: board clock, wraps at 2^32
  int32_t ticks_left = 0;            // E: cumulative, wraps at 2^32
  int32_t ticks_right = 0;           // E
  std::vector<int32_t> ranges_mm{};  // R: 0 = nothing within range, else 1..65535
  uint32_t bumper_bits = 0;          // B: bit i = switch i, 0..255

  bool operator==(const ProtocolMessage&) const = default;
};

// Why a line was rejected.
enum class LineError {
  kTruncated,    // no '$' start, no '*', fewer than two checksum digits, or cut by the next '$'
  kBadChecksum,  // checksum digits do not match the body
  kMalformed,    // checksum fine but fields wrong (count, range, not a number, trailing characters)
  kUnknownType,  // checksum fine but the type letter is not W/E/R/B
  kOverlong,     // no line end within max_line_length bytes
};

// XOR of every byte of `body` (the text between '$' and '*'), as in NMEA 0183.
uint8_t LineChecksum(std::string_view body);
// "$<body>*HH\n" for a message; the inverse of ParseLine.
std::string FormatLine(const ProtocolMessage& message);
// Parses one line without its '\n' (a trailing '\r' is allowed). On failure returns nullopt and sets *error.
std::optional<ProtocolMessage> ParseLine(std::string_view line, LineError* error);

struct LineParserOptions {
  size_t max_line_length = 1024;  // bytes before a line is dropped as overlong (R with 60 beams ≈ 370 bytes)
};

struct LineParserCounters {
  int64_t bytes = 0;
  int64_t accepted = 0;
  int64_t truncated = 0;
  int64_t bad_checksum = 0;
  int64_t malformed = 0;
  int64_t unknown_type = 0;
  int64_t overlong = 0;
  int64_t sequence_gaps = 0;    // lines missing between accepted sequence numbers
  int64_t sequence_resets = 0;  // accepted seq not after the previous one (board restart, reordering)

  int64_t rejected() const { return truncated + bad_checksum + malformed + unknown_type + overlong; }
};

// Splits a byte stream into lines, checks and decodes them, and counts what it skips. A '$' always starts a
// new line, so a truncated line never swallows the valid line after it. Blank lines are ignored.
//
// Inputs:  arbitrary chunks of bytes as they come off the wire.
// Outputs: the accepted messages in order; counters().
class LineProtocolParser {
 public:
  explicit LineProtocolParser(LineParserOptions options = {}) : options_(options) {}

  std::vector<ProtocolMessage> Feed(std::string_view bytes);
  const LineParserCounters& counters() const { return counters_; }

 private:
  void Finish(std::vector<ProtocolMessage>& out);
  void Count(LineError error);

  LineParserOptions options_;
  LineParserCounters counters_;
  std::string line_;
  bool discarding_ = false;  // an overlong line is being skipped up to its end
  std::optional<uint32_t> last_seq_;
};

}  // namespace limbic::hwio
