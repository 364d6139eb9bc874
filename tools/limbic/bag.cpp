// limbic record | play | bag info | bag echo: bus traffic to MCAP files and back (tools/bag).
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "common/bus/curve_keys.hpp"
#include "common/flags/flags.hpp"
#include "tools/bag/bag_player.hpp"
#include "tools/bag/bag_reader.hpp"
#include "tools/bag/bag_writer.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/json_codec.hpp"
#include "tools/limbic/session.hpp"
#ifdef LIMBIC_HAVE_FOXGLOVE
#include "tools/bag/bag_derived.hpp"
#endif

namespace limbic::cli {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};
void OnBagSignal(int) { g_stop = true; }

std::string HumanBytes(double bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  if (bytes >= 1e9)
    out << bytes / 1e9 << " GB";
  else if (bytes >= 1e6)
    out << bytes / 1e6 << " MB";
  else if (bytes >= 1e3)
    out << bytes / 1e3 << " kB";
  else
    out << bytes << " B";
  return out.str();
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

const char* kRecordUsage =
    R"(usage: limbic record (--all | PATTERN...) --out FILE.mcap [--duration S] [--split-size MB]
                     [--compression zstd|lz4|none] [--chunk-kb KB] [--queue-mb N] [--bus ADDR]
                     [--curve-keys FILE] [--connect-timeout S] [--derived]

Writes bus traffic to an MCAP file (https://mcap.dev): one schema per message type carrying limbic's
binary FlatBuffers schema, one channel per topic, compressed chunks, indexes and a summary, so the file
opens in Foxglove and reads back with `limbic bag info` and `limbic play`. PATTERNs are shell globs
(`r1/*`, `*/scan`). Stops on Ctrl-C or after --duration seconds.

The bus is never slowed: messages go through a bounded queue (--queue-mb, default 64) to a writer
thread; when the disk cannot keep up, messages are dropped and counted. A full disk stops the recording
with an error; the file reads back up to its last complete chunk. --split-size starts a new file
(FILE_000.mcap, FILE_001.mcap, ...) every MB megabytes. Chunks hold --chunk-kb (default 1024) kB of
records before compression: what a crash can lose at most.

--derived also writes the channels the Foxglove bridge derives from the recorded topics, in Foxglove's
own schemas (message encoding json, schema encoding jsonschema): foxglove/<robot>/map and emotion grids
(foxglove.Grid), path (PosesInFrame), tf (FrameTransform), scan (LaserScan), robot, goal and bumps, and
foxglove/humans (SceneUpdate), so Foxglove's 3D panel shows a recording with no plugin. `limbic play`
leaves them out (they are not bus messages).

examples:
  limbic record --all --out run.mcap --duration 60
  limbic record --all --derived --out look.mcap --duration 30
  limbic record 'r1/*' clock --out r1.mcap --compression lz4
  limbic record --all --out long.mcap --split-size 512
)";

const char* kPlayUsage =
    R"(usage: limbic play FILE [--rate R] [--loop] [--topics PATTERN,...] [--start S] [--end S]
                   [--clock] [--period S] [--bus ADDR] [--curve-keys FILE]

Publishes a recording onto the bus with its recorded timing (FILE, or FILE_000.mcap... of a split
recording). --rate 2 plays twice as fast, --rate 0 as fast as possible. --start/--end are seconds
after the recording's first message. The recorded lockstep plumbing (clock, lockstep/*) is never
replayed; --clock publishes a lockstep clock instead, one tick every --period (default 0.1) seconds of
recorded time, so services started with --mode lockstep step along with the recording.

examples:
  limbic play run.mcap
  limbic play run.mcap --rate 0 --topics 'r1/scan,r1/odom'
  limbic play run.mcap --start 10 --end 20 --loop
)";

const char* kBagUsage = R"(usage: limbic bag info FILE
       limbic bag echo FILE TOPIC [--count N] [--compact]

info: files, size, compression, duration, and per topic its type, message count and rate. Every CRC is
      checked; a damaged file is summarised up to the damage, which is named with its byte offset (exit 1).
echo: the messages of TOPIC as JSON, decoded through limbic's binary schema.

examples:
  limbic bag info run.mcap
  limbic bag echo run.mcap r1/affect --count 3
)";

int Record(const Args& args) {
  ArgReader reader(args,
                   {"--out", "--duration", "--split-size", "--chunk-kb", "--compression", "--queue-mb", "--bus",
                    "--curve-keys", "--connect-timeout"},
                   {"--help", "--all", "--derived"});
  if (reader.Has("--help")) {
    std::cout << kRecordUsage;
    return 0;
  }
  if (!reader.Has("--out")) throw std::invalid_argument("--out FILE.mcap is required (see --help)");
  if (reader.Has("--all") == !reader.positional().empty()) {
    throw std::invalid_argument("give --all or topic patterns, not both and not neither (see --help)");
  }
  const bag::TopicFilter filter(reader.positional());
  const double duration = flags::ParseFiniteNumber("--duration", reader.Get("--duration", "0"));
  const double split_mb = flags::ParseFiniteNumber("--split-size", reader.Get("--split-size", "0"));
  const double queue_mb = flags::ParseFiniteNumber("--queue-mb", reader.Get("--queue-mb", "64"));
  const double chunk_kb = flags::ParseFiniteNumber("--chunk-kb", reader.Get("--chunk-kb", "1024"));
  if (duration < 0 || split_mb < 0 || queue_mb <= 0 || chunk_kb <= 0) {
    throw std::invalid_argument("--duration, --split-size, --chunk-kb and --queue-mb must be positive");
  }
  bag::BagOptions options{.path = reader.Get("--out"),
                          .compression = mcap::ParseCompression(reader.Get("--compression", "zstd")),
                          .chunk_size = static_cast<size_t>(chunk_kb * 1024),
                          .split_bytes = static_cast<uint64_t>(split_mb * 1e6)};

  const double connect_s = flags::ParseFiniteNumber("--connect-timeout", reader.Get("--connect-timeout", "3"));
  Session session(reader.Get("--bus", DefaultBus()), "limbic-record",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect(std::chrono::milliseconds(static_cast<int64_t>(connect_s * 1000)));
  bag::BagWriter writer(options);
#ifdef LIMBIC_HAVE_FOXGLOVE
  std::optional<bag::DerivedRecorder> derived;
  if (reader.Has("--derived")) derived.emplace(writer);
#else
  if (reader.Has("--derived"))
    throw std::invalid_argument("--derived: this limbic was built without the Foxglove bridge (services/foxglove)");
#endif
  // Derived channels are computed on the writer thread, like the writing itself: never on the
  // bus's.
  bag::AsyncRecorder recorder(
      [&](const bag::AsyncRecorder::Item& item) {
        writer.Write(item.topic, item.payload.data(), item.payload.size(), item.log_time_ns);
#ifdef LIMBIC_HAVE_FOXGLOVE
        if (derived) derived->OnRecorded(item.topic, item.payload.data(), item.payload.size(), item.log_time_ns);
#endif
      },
      static_cast<size_t>(queue_mb * 1e6));
  for (const auto& prefix : filter.SubscriptionPrefixes()) {
    session.node().SubscribeAny(prefix, [&](const bus::RawMessage& m) {
      if (!filter.Matches(m.topic)) return;
      recorder.Push(m.topic, m.data, m.size, static_cast<uint64_t>(bus::Node::WallNowNs()));
    });
  }
  std::signal(SIGINT, OnBagSignal);
  std::signal(SIGTERM, OnBagSignal);
  std::cerr << "limbic record: recording " << (filter.all() ? "every topic" : "matching topics") << " to "
            << options.path << " (Ctrl-C to stop)\n";
  const auto start = SteadyClock::now();
  const double cpu_start = CpuSeconds();
  auto next_report = start + 5s;
  while (!g_stop && !recorder.error()) {
    session.node().Poll(50ms, 10000);
    const auto now = SteadyClock::now();
    if (duration > 0 && std::chrono::duration<double>(now - start).count() >= duration) break;
    if (now >= next_report) {
      next_report += 5s;
      std::cerr << "limbic record: " << recorder.written() << " messages, " << HumanBytes(writer.bytes())
                << ", dropped " << recorder.dropped() << "\n";
    }
  }
  recorder.Finish();
  std::optional<std::string> error = recorder.error();
  try {
    writer.Close();
  } catch (const std::exception& e) {
    if (!error) error = e.what();
  }
  const double wall = std::chrono::duration<double>(SteadyClock::now() - start).count();
  const double cpu = CpuSeconds() - cpu_start;
  std::ostringstream files;
  for (const auto& f : writer.files()) files << (files.tellp() > 0 ? ", " : "") << f;
  // Lost before they reached the recorder (the bus drops for a slow subscriber rather than wait):
  // sequence gaps seen by its node.
  uint64_t gaps = 0;
  for (const auto& [topic, c] : session.node().received()) gaps += c.drops_gap;
  std::cerr << "limbic record: " << recorder.written() << " messages (" << HumanBytes(writer.bytes()) << ") in "
            << files.str() << "; dropped " << recorder.dropped() << " (disk too slow or failed), " << gaps
            << " lost on the bus (sequence gaps); " << std::fixed << std::setprecision(2) << cpu << " s CPU in " << wall
            << " s (" << std::setprecision(1) << (wall > 0 ? 100.0 * cpu / wall : 0.0) << " % of a core)\n";
  if (error) {
    std::cerr << "limbic record: stopped: " << *error << "; " << writer.files().back()
              << " reads back up to its last complete chunk\n";
    return 1;
  }
  return 0;
}

int Play(const Args& args) {
  ArgReader reader(args, {"--rate", "--topics", "--start", "--end", "--period", "--bus", "--curve-keys"},
                   {"--help", "--loop", "--clock"});
  if (reader.Has("--help")) {
    std::cout << kPlayUsage;
    return 0;
  }
  if (reader.positional().size() != 1) throw std::invalid_argument("give one recording FILE (see --help)");
  const auto files = bag::ResolveBagFiles(reader.positional()[0]);
  bag::ReadOptions options{.topics = bag::TopicFilter(SplitCommas(reader.Get("--topics", "")))};
  if (reader.Has("--start")) options.start_s = flags::ParseFiniteNumber("--start", reader.Get("--start"));
  if (reader.Has("--end")) options.end_s = flags::ParseFiniteNumber("--end", reader.Get("--end"));
  if (options.start_s && options.end_s && *options.start_s > *options.end_s) {
    throw std::invalid_argument("--start is after --end");
  }
  const double period = flags::ParseFiniteNumber("--period", reader.Get("--period", "0.1"));
  if (period <= 0) throw std::invalid_argument("--period must be > 0");
  bag::PlayOptions play{.read = options,
                        .rate = flags::ParseFiniteNumber("--rate", reader.Get("--rate", "1")),
                        .drive_clock = reader.Has("--clock"),
                        .period_ns = std::llround(period * 1e9)};
  bag::Player::CheckOptions(play);  // a bad flag is an error before any connection

  // No high-water mark: at --rate 0 the player outruns the broker, and ZeroMQ would drop silently.
  zmq::context_t context(1);
  Session session(reader.Get("--bus", DefaultBus()), "limbic-play",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  bus::Node node(context, session.address(),
                 {.name = "limbic-play",
                  .send_hwm = 0,
                  .curve = bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")),
                  // Through the broker: a replay starts at once, before direct subscribers could have connected.
                  .data_path = bus::DataPath::kBroker});
  auto clock_pub = node.Advertise<msg::Clock>("clock");
  bag::Player player(
      files, play,
      // Sent from the decompressed chunk where it lies, no copy per message (issue 17).
      [&](const std::string& topic, std::span<const uint8_t> data, const std::shared_ptr<const void>& owner) {
        node.SendShared(topic, data, owner);
      },
      [&](int64_t tick) {
        clock_pub.Publish(tick * play.period_ns, tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
          return msg::CreateClock(fbb, header, period, /*lockstep=*/true);
        });
      });
  std::this_thread::sleep_for(200ms);  // let the PUB socket connect before the first message
  std::signal(SIGINT, OnBagSignal);
  std::signal(SIGTERM, OnBagSignal);

  const auto begin = SteadyClock::now();
  do {
    for (const auto& p : player.PlayPass(g_stop)) std::cerr << "limbic play: " << p << " (played what came before)\n";
  } while (reader.Has("--loop") && !g_stop);
  const double seconds = std::chrono::duration<double>(SteadyClock::now() - begin).count();
  const uint64_t played = player.played();
  // The node's sockets close with linger 0: give ZeroMQ a moment to hand over what is still queued.
  std::this_thread::sleep_for(500ms);
  std::cerr << "limbic play: " << played << " messages in " << std::fixed << std::setprecision(2) << seconds << " s ("
            << std::setprecision(0) << (seconds > 0 ? played / seconds : 0.0) << " msg/s)\n";
  return 0;
}

int Info(const std::string& path) {
  const auto files = bag::ResolveBagFiles(path);
  const bag::BagSummary s = bag::Summarize(files);
  std::ostringstream compressions;
  for (const auto& c : s.compressions) compressions << (compressions.tellp() > 0 ? ", " : "") << c;
  std::cout << "files:       ";
  for (size_t i = 0; i < files.size(); ++i) std::cout << (i ? ", " : "") << files[i];
  std::cout << "\nsize:        " << HumanBytes(static_cast<double>(s.size_bytes))
            << (compressions.tellp() > 0 ? " (" + compressions.str() + ")" : "") << "\n"
            << "duration:    " << std::fixed << std::setprecision(2) << s.DurationS() << " s\n"
            << "messages:    " << s.messages << " in " << s.chunks << " chunks\n"
            << "topics:      " << s.topics.size() << "\n\n";
  std::cout << std::left << std::setw(30) << "TOPIC" << std::setw(30) << "TYPE" << std::right << std::setw(10)
            << "COUNT" << std::setw(12) << "RATE" << std::setw(12) << "SIZE"
            << "\n";
  for (const auto& [topic, t] : s.topics) {
    std::ostringstream rate;
    rate << std::fixed << std::setprecision(1) << t.RateHz() << " Hz";
    std::cout << std::left << std::setw(30) << topic << std::setw(30) << t.type << std::right << std::setw(10)
              << t.messages << std::setw(12) << rate.str() << std::setw(12) << HumanBytes(static_cast<double>(t.bytes))
              << "\n";
  }
  for (const auto& p : s.problems) {
    std::cerr << "limbic bag info: damaged: " << p << "\n  (the figures above cover what could be read before it)\n";
  }
  return s.problems.empty() ? 0 : 1;
}

int Echo(const std::string& path, const std::string& topic, const ArgReader& reader) {
  const auto files = bag::ResolveBagFiles(path);
  const long count = flags::ParseInteger("--count", reader.Get("--count", "-1"), -1);
  JsonCodec codec;
  long printed = 0;
  uint64_t bad = 0;
  bool seen_topic = false;
  const auto problems =
      bag::ForEachMessage(files, {.topics = bag::TopicFilter({topic})}, [&](const bag::BagMessage& m) {
        if (m.topic != topic) return true;  // a glob character in TOPIC: echo exact names only
        seen_topic = true;
        const messages::MessageType* type = messages::FindByName(m.type);
        // Nothing read from a file is trusted: the payload must verify as the type its schema
        // names.
        if (type == nullptr || !type->verify(m.data.data(), m.data.size())) {
          if (bad++ == 0)
            std::cerr << "limbic bag echo: a message on " << topic << " does not verify as " << m.type << "; skipped\n";
          return true;
        }
        std::cout << codec.ToJson(*type, m.data.data(), m.data.size(), reader.Has("--compact")) << std::endl;
        ++printed;
        return count < 0 || printed < count;
      });
  for (const auto& p : problems) std::cerr << "limbic bag echo: damaged: " << p << "\n";
  if (!seen_topic) {
    const bag::BagSummary s = bag::Summarize(files);
    std::cerr << "limbic bag echo: no topic '" << topic << "' in " << path << "; it has:";
    for (const auto& [name, t] : s.topics) std::cerr << " " << name;
    std::cerr << "\n";
    return 1;
  }
  return problems.empty() && bad == 0 ? 0 : 1;
}

}  // namespace

int RecordCommand(const Args& args) { return Record(args); }
int PlayCommand(const Args& args) { return Play(args); }

int BagCommand(const Args& args) {
  ArgReader reader(args, {"--count"}, {"--help", "--compact"});
  const auto& pos = reader.positional();
  if (reader.Has("--help") || pos.empty()) {
    std::cout << kBagUsage;
    return reader.Has("--help") ? 0 : 2;
  }
  if (pos[0] == "info" && pos.size() == 2) return Info(pos[1]);
  if (pos[0] == "echo" && pos.size() == 3) return Echo(pos[1], pos[2], reader);
  std::cerr << "limbic bag: expected `info FILE` or `echo FILE TOPIC` (see limbic bag --help)\n";
  return 2;
}

}  // namespace limbic::cli
