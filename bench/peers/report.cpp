#include "bench/peers/report.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "common/stats/quantile.hpp"

namespace limbic::peers {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

size_t KindIndex(Kind kind) { return kind == Kind::kRoundTrip ? 0 : 1; }
const char* KindKey(Kind kind) { return kind == Kind::kRoundTrip ? "round_trip" : "throughput"; }

// The figure a ratio is formed from: p50 for a round trip, msgs/s for throughput.
double Figure(const Sample& s) { return s.kind == Kind::kRoundTrip ? s.p50_us : s.msgs_per_s; }

std::string Fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Three significant figures for microseconds: 7.41, 52.3, 143.
std::string MicrosLabel(double us) { return Fixed(us, us < 10 ? 2 : us < 100 ? 1 : 0); }

std::string RatioLabel(double ratio) { return std::isnan(ratio) ? "" : " (" + Fixed(ratio, 2) + "×)"; }

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string CsvNumber(double value) {
  if (std::isnan(value)) return "";
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

// The reason shared by every size of a row without any figure ("" if some size has one or the reasons differ).
std::string RowNote(const Summary& summary, size_t contender, Kind kind) {
  std::string note;
  for (size_t z = 0; z < summary.sizes.size(); ++z) {
    const Cell& cell = summary.At(contender, kind, z);
    if (cell.rounds > 0 || (z > 0 && cell.note != note)) return "";
    note = cell.note;
  }
  return note;
}

}  // namespace

Summary Summarize(const std::vector<ContenderInfo>& contenders, const std::vector<size_t>& sizes, int rounds,
                  const std::vector<Sample>& samples) {
  Summary summary;
  summary.sizes = sizes;
  summary.rounds = rounds;
  summary.contenders = contenders;
  summary.cells.assign(contenders.size(), std::vector<std::vector<Cell>>(2, std::vector<Cell>(sizes.size())));
  std::map<std::string, size_t> index;
  for (size_t c = 0; c < contenders.size(); ++c) index[contenders[c].key] = c;
  // The successful samples by (contender, kind, size, round), for the per-round ratios.
  std::map<std::tuple<std::string, size_t, size_t, int>, const Sample*> ok;
  for (const Sample& s : samples) {
    if (s.ok) ok[{s.contender, KindIndex(s.kind), s.size_index, s.round}] = &s;
  }
  for (size_t c = 0; c < contenders.size(); ++c) {
    for (size_t k = 0; k < 2; ++k) {
      for (size_t z = 0; z < sizes.size(); ++z) {
        Cell& cell = summary.cells[c][k][z];
        std::vector<double> values, p99s, ratios;
        for (const Sample& s : samples) {
          if (s.contender != contenders[c].key || KindIndex(s.kind) != k || s.size_index != z) continue;
          if (!s.ok) {
            cell.note = s.note;
            continue;
          }
          values.push_back(Figure(s));
          p99s.push_back(s.p99_us);
          cell.bytes = std::max(cell.bytes, s.bytes);
          if (s.kind == Kind::kThroughput && s.sent > 0) {
            const double lost = s.received >= s.sent ? 0.0 : static_cast<double>(s.sent - s.received);
            cell.worst_loss = std::max(cell.worst_loss, lost / static_cast<double>(s.sent));
          }
          const auto base = ok.find({contenders[c].baseline, k, z, s.round});
          if (!contenders[c].baseline.empty() && base != ok.end() && Figure(*base->second) > 0) {
            ratios.push_back(Figure(s) / Figure(*base->second));
          }
        }
        cell.rounds = values.size();
        cell.value = stats::Median(values);
        cell.p99_us = stats::Median(p99s);
        cell.ratio = ratios.empty() ? kNaN : stats::Median(ratios);
      }
    }
  }
  return summary;
}

std::vector<size_t> RotatedOrder(size_t n, int round) {
  std::vector<size_t> order(n);
  if (n == 0) return order;
  const size_t shift = static_cast<size_t>(round >= 0 ? round : -round) % n;
  for (size_t i = 0; i < n; ++i) order[i] = (i + shift) % n;
  return order;
}

std::string SizeLabel(size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return Fixed(static_cast<double>(bytes) / 1024.0, 1) + " KiB";
}

std::string RateLabel(double msgs_per_s) {
  if (msgs_per_s >= 1e6) return Fixed(msgs_per_s / 1e6, 2) + " M";
  if (msgs_per_s >= 1e3) return Fixed(msgs_per_s / 1e3, msgs_per_s >= 1e5 ? 0 : 1) + " k";
  return Fixed(msgs_per_s, 0);
}

std::string MarkdownReport(const Summary& summary, const ReportContext& context) {
  std::ostringstream out;
  const auto& sizes = summary.sizes;
  out << "# Transport peers";
  if (!context.date.empty()) out << ", " << context.date;
  if (!context.machine.empty()) out << ", " << context.machine;
  out << "\n\n";
  if (!context.command.empty()) out << "`" << context.command << "`\n\n";
  const auto rounds_note = [&](const Cell& cell) {
    return static_cast<int>(cell.rounds) < summary.rounds
               ? " [" + std::to_string(cell.rounds) + "/" + std::to_string(summary.rounds) + " rounds]"
               : std::string();
  };
  const auto name_of = [&](const std::string& key) {
    for (const ContenderInfo& c : summary.contenders)
      if (c.key == key) return c.name;
    return key;
  };
  const auto header = [&](const std::vector<std::string>& extra) {
    out << "| contender | ratio to |";
    for (size_t z : sizes) out << " " << SizeLabel(z) << " |";
    for (const std::string& e : extra) out << " " << e << " |";
    out << "\n|---|---|";
    for (size_t i = 0; i < sizes.size() + extra.size(); ++i) out << "---:|";
    out << "\n";
  };
  const auto row_start = [&](const ContenderInfo& c) {
    out << "| " << c.name << " | " << (c.baseline.empty() || c.baseline == c.key ? "—" : name_of(c.baseline)) << " |";
  };
  const auto unavailable_row = [&](const ContenderInfo& c, size_t columns) {
    row_start(c);
    out << " " << c.unavailable << " |";
    for (size_t i = 1; i < columns; ++i) out << " |";
    out << "\n";
  };

  out << "## Round trip, p50 µs\n\nA → B → A, one message at a time. Median over " << summary.rounds
      << " rounds of each round's p50; (×) is the median over rounds of the per-round ratio to the raw ZeroMQ "
         "PUB/SUB pair in \"ratio to\" (measured in the same round). The p99 columns are medians of each round's "
         "p99.\n\n";
  std::vector<std::string> p99_columns;
  for (size_t z : sizes) p99_columns.push_back("p99 " + SizeLabel(z));
  header(p99_columns);
  for (size_t c = 0; c < summary.contenders.size(); ++c) {
    const ContenderInfo& info = summary.contenders[c];
    if (!info.unavailable.empty()) {
      unavailable_row(info, 2 * sizes.size());
      continue;
    }
    if (std::string note = RowNote(summary, c, Kind::kRoundTrip); !note.empty()) {
      ContenderInfo skipped = info;
      skipped.unavailable = note;
      unavailable_row(skipped, 2 * sizes.size());
      continue;
    }
    row_start(info);
    for (size_t z = 0; z < sizes.size(); ++z) {
      const Cell& cell = summary.At(c, Kind::kRoundTrip, z);
      if (cell.rounds == 0) {
        out << " — " << cell.note << " |";
      } else {
        out << " " << MicrosLabel(cell.value) << RatioLabel(cell.ratio) << rounds_note(cell) << " |";
      }
    }
    for (size_t z = 0; z < sizes.size(); ++z) {
      const Cell& cell = summary.At(c, Kind::kRoundTrip, z);
      out << " " << (cell.rounds == 0 ? "—" : MicrosLabel(cell.p99_us)) << " |";
    }
    out << "\n";
  }

  out << "\n## One-way throughput, messages/s\n\nA blast of messages from A to B as fast as A can send; the rate "
         "is the messages B received over the time from A's first send to B's last receive. Median over rounds; "
         "(×) as above (higher is faster); \"lost\" is the worst round's share of messages sent and never "
         "received.\n\n";
  header({});
  for (size_t c = 0; c < summary.contenders.size(); ++c) {
    const ContenderInfo& info = summary.contenders[c];
    if (!info.unavailable.empty()) {
      unavailable_row(info, sizes.size());
      continue;
    }
    if (std::string note = RowNote(summary, c, Kind::kThroughput); !note.empty()) {
      ContenderInfo skipped = info;
      skipped.unavailable = note;
      unavailable_row(skipped, sizes.size());
      continue;
    }
    row_start(info);
    for (size_t z = 0; z < sizes.size(); ++z) {
      const Cell& cell = summary.At(c, Kind::kThroughput, z);
      if (cell.rounds == 0) {
        out << " — " << cell.note << " |";
        continue;
      }
      out << " " << RateLabel(cell.value) << RatioLabel(cell.ratio);
      if (cell.worst_loss > 0)
        out << ", " << Fixed(100.0 * cell.worst_loss, cell.worst_loss < 0.001 ? 3 : 1) << " % lost";
      out << rounds_note(cell) << " |";
    }
    out << "\n";
  }

  // Contenders whose messages are not the nominal size (limbic's carry a header).
  std::vector<std::string> size_notes;
  for (size_t c = 0; c < summary.contenders.size(); ++c) {
    std::string differing;
    for (size_t z = 0; z < sizes.size(); ++z) {
      for (Kind kind : {Kind::kRoundTrip, Kind::kThroughput}) {
        const Cell& cell = summary.At(c, kind, z);
        if (cell.rounds > 0 && cell.bytes != sizes[z]) {
          differing +=
              (differing.empty() ? "" : ", ") + SizeLabel(sizes[z]) + " → " + std::to_string(cell.bytes) + " B";
          break;
        }
      }
    }
    if (!differing.empty()) size_notes.push_back(summary.contenders[c].name + ": " + differing);
  }
  if (!size_notes.empty()) {
    out << "\nMessage sizes that differ from the nominal one (the real bytes on the wire above the transport):\n\n";
    for (const std::string& note : size_notes) out << "- " << note << "\n";
  }
  return out.str();
}

std::string SummaryCsv(const Summary& summary) {
  std::ostringstream out;
  out << "key,name,kind,size,bytes,rounds,p50_us,p99_us,msgs_per_s,ratio,worst_loss,note\n";
  for (size_t c = 0; c < summary.contenders.size(); ++c) {
    const ContenderInfo& info = summary.contenders[c];
    for (Kind kind : {Kind::kRoundTrip, Kind::kThroughput}) {
      for (size_t z = 0; z < summary.sizes.size(); ++z) {
        const Cell& cell = summary.At(c, kind, z);
        const bool rt = kind == Kind::kRoundTrip;
        const bool have = cell.rounds > 0;
        out << CsvField(info.key) << "," << CsvField(info.name) << "," << KindKey(kind) << "," << summary.sizes[z]
            << "," << (have ? std::to_string(cell.bytes) : "") << "," << cell.rounds << ","
            << (have && rt ? CsvNumber(cell.value) : "") << "," << (have && rt ? CsvNumber(cell.p99_us) : "") << ","
            << (have && !rt ? CsvNumber(cell.value) : "") << "," << (have ? CsvNumber(cell.ratio) : "") << ","
            << (have && !rt ? CsvNumber(cell.worst_loss) : "") << ","
            << CsvField(!info.unavailable.empty() ? info.unavailable
                        : have                    ? ""
                                                  : cell.note)
            << "\n";
      }
    }
  }
  return out.str();
}

std::string SamplesCsv(const std::vector<Sample>& samples, const std::vector<size_t>& sizes) {
  std::ostringstream out;
  out << "round,key,kind,size,ok,bytes,p50_us,p99_us,msgs_per_s,sent,received,note\n";
  for (const Sample& s : samples) {
    const bool rt = s.kind == Kind::kRoundTrip;
    out << s.round << "," << CsvField(s.contender) << "," << KindKey(s.kind) << ","
        << (s.size_index < sizes.size() ? sizes[s.size_index] : 0) << "," << (s.ok ? 1 : 0) << "," << s.bytes << ","
        << (s.ok && rt ? CsvNumber(s.p50_us) : "") << "," << (s.ok && rt ? CsvNumber(s.p99_us) : "") << ","
        << (s.ok && !rt ? CsvNumber(s.msgs_per_s) : "") << "," << (rt ? "" : std::to_string(s.sent)) << ","
        << (rt ? "" : std::to_string(s.received)) << "," << CsvField(s.note) << "\n";
  }
  return out.str();
}

bool MulticastRoutedToLoopback(std::string_view table, uint32_t group) {
  std::istringstream in{std::string(table)};
  std::string line;
  std::getline(in, line);  // the column names
  int best_prefix = -1;
  bool best_is_lo = false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string iface, destination, gateway, flags, refcnt, use, metric, mask;
    if (!(fields >> iface >> destination >> gateway >> flags >> refcnt >> use >> metric >> mask)) continue;
    uint32_t dest = 0, netmask = 0;
    try {
      dest = static_cast<uint32_t>(std::stoul(destination, nullptr, 16));
      netmask = static_cast<uint32_t>(std::stoul(mask, nullptr, 16));
    } catch (const std::exception&) {
      continue;
    }
    // The kernel prints each address as the 32-bit word it holds in network byte order, read natively.
    if constexpr (std::endian::native == std::endian::little) {
      dest = __builtin_bswap32(dest);
      netmask = __builtin_bswap32(netmask);
    }
    if ((group & netmask) != (dest & netmask)) continue;
    const int prefix = std::popcount(netmask);
    if (prefix > best_prefix) {
      best_prefix = prefix;
      best_is_lo = iface == "lo";
    }
  }
  return best_is_lo;
}

}  // namespace limbic::peers
