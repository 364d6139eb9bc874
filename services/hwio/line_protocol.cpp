#include "services/hwio/line_protocol.hpp"

#include <charconv>
#include <cstdio>

namespace limbic::hwio {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Splits on single or repeated spaces.
std::vector<std::string_view> Tokens(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

template <typename T>
bool ParseNumber(std::string_view token, T* out) {
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

uint8_t LineChecksum(std::string_view body) {
  uint8_t sum = 0;
  for (char c : body) sum ^= static_cast<uint8_t>(c);
  return sum;
}

std::string FormatLine(const ProtocolMessage& m) {
  std::string body;
  body += static_cast<char>(m.type);
  body += ' ' + std::to_string(m.seq);
  switch (m.type) {
    case LineType::kWheels:
      body += ' ' + std::to_string(m.left_mm_s) + ' ' + std::to_string(m.right_mm_s);
      break;
    case LineType::kEncoders:
      body += ' ' + std::to_string(m.board_time_ms) + ' ' + std::to_string(m.ticks_left) + ' ' +
              std::to_string(m.ticks_right);
      break;
    case LineType::kRanges:
      body += ' ' + std::to_string(m.ranges_mm.size());
      for (int32_t r : m.ranges_mm) body += ' ' + std::to_string(r);
      break;
    case LineType::kBumpers:
      body += ' ' + std::to_string(m.bumper_bits);
      break;
  }
  char checksum[4];
  std::snprintf(checksum, sizeof checksum, "%02X", LineChecksum(body));
  return "$" + body + "*" + checksum + "\n";
}

std::optional<ProtocolMessage> ParseLine(std::string_view line, LineError* error) {
  auto fail = [&](LineError e) -> std::optional<ProtocolMessage> {
    if (error) *error = e;
    return std::nullopt;
  };
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line.front() != '$') return fail(LineError::kTruncated);
  const size_t star = line.rfind('*');
  if (star == std::string_view::npos) return fail(LineError::kTruncated);
  const std::string_view body = line.substr(1, star - 1);
  const std::string_view digits = line.substr(star + 1);
  if (digits.size() < 2) return fail(LineError::kTruncated);
  if (digits.size() > 2 || HexValue(digits[0]) < 0 || HexValue(digits[1]) < 0) return fail(LineError::kMalformed);
  const int expected = HexValue(digits[0]) * 16 + HexValue(digits[1]);
  if (LineChecksum(body) != expected) return fail(LineError::kBadChecksum);

  const std::vector<std::string_view> t = Tokens(body);
  if (t.empty() || t[0].size() != 1) return fail(LineError::kMalformed);
  ProtocolMessage m;
  const char type = t[0][0];
  if (type != 'W' && type != 'E' && type != 'R' && type != 'B') return fail(LineError::kUnknownType);
  m.type = static_cast<LineType>(type);
  if (t.size() < 2 || !ParseNumber(t[1], &m.seq)) return fail(LineError::kMalformed);

  switch (m.type) {
    case LineType::kWheels:
      if (t.size() != 4 || !ParseNumber(t[2], &m.left_mm_s) || !ParseNumber(t[3], &m.right_mm_s))
        return fail(LineError::kMalformed);
      break;
    case LineType::kEncoders:
      if (t.size() != 5 || !ParseNumber(t[2], &m.board_time_ms) || !ParseNumber(t[3], &m.ticks_left) ||
          !ParseNumber(t[4], &m.ticks_right))
        return fail(LineError::kMalformed);
      break;
    case LineType::kRanges: {
      uint32_t n = 0;
      if (t.size() < 3 || !ParseNumber(t[2], &n) || n > 1024 || t.size() != 3 + n) return fail(LineError::kMalformed);
      m.ranges_mm.resize(n);
      for (uint32_t i = 0; i < n; ++i) {
        if (!ParseNumber(t[3 + i], &m.ranges_mm[i]) || m.ranges_mm[i] < 0 || m.ranges_mm[i] > 65535)
          return fail(LineError::kMalformed);
      }
      break;
    }
    case LineType::kBumpers:
      if (t.size() != 3 || !ParseNumber(t[2], &m.bumper_bits) || m.bumper_bits > 255)
        return fail(LineError::kMalformed);
      break;
  }
  return m;
}

void LineProtocolParser::Count(LineError error) {
  switch (error) {
    case LineError::kTruncated:
      ++counters_.truncated;
      break;
    case LineError::kBadChecksum:
      ++counters_.bad_checksum;
      break;
    case LineError::kMalformed:
      ++counters_.malformed;
      break;
    case LineError::kUnknownType:
      ++counters_.unknown_type;
      break;
    case LineError::kOverlong:
      ++counters_.overlong;
      break;
  }
}

void LineProtocolParser::Finish(std::vector<ProtocolMessage>& out) {
  std::string_view line = line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return;  // blank line
  LineError error{};
  std::optional<ProtocolMessage> m = ParseLine(line, &error);
  if (!m) {
    Count(error);
    return;
  }
  ++counters_.accepted;
  if (last_seq_) {
    const uint32_t step = m->seq - *last_seq_;  // modulo 2^32
    if (step == 0 || step > 0x7fffffffu) {
      ++counters_.sequence_resets;
    } else {
      counters_.sequence_gaps += step - 1;
    }
  }
  last_seq_ = m->seq;
  out.push_back(std::move(*m));
}

std::vector<ProtocolMessage> LineProtocolParser::Feed(std::string_view bytes) {
  std::vector<ProtocolMessage> out;
  counters_.bytes += static_cast<int64_t>(bytes.size());
  for (char c : bytes) {
    if (c == '$') {
      if (discarding_) {
        discarding_ = false;
      } else if (!line_.empty()) {
        Count(LineError::kTruncated);  // a new line started before this one ended
      }
      line_.assign(1, '$');
      continue;
    }
    if (c == '\n') {
      if (!discarding_) Finish(out);
      discarding_ = false;
      line_.clear();
      continue;
    }
    if (discarding_) continue;
    line_ += c;
    if (line_.size() > options_.max_line_length) {
      Count(LineError::kOverlong);
      discarding_ = true;
      line_.clear();
    }
  }
  return out;
}

}  // namespace limbic::hwio
