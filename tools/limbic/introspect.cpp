// limbic topics | echo | hz | pub | param: looking at and poking a running bus.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "common/bus/curve_keys.hpp"
#include "common/flags/flags.hpp"
#include "messages/validate.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/json_codec.hpp"
#include "tools/limbic/session.hpp"
#include "tools/limbic/topic_groups.hpp"

namespace limbic::cli {
namespace {

using namespace std::chrono_literals;
std::atomic<bool> g_interrupted{false};
void OnIntrospectSignal(int) { g_interrupted = true; }
void InstallSignals() {
  std::signal(SIGINT, OnIntrospectSignal);
  std::signal(SIGTERM, OnIntrospectSignal);
}

std::string HumanRate(double bytes_per_s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  if (bytes_per_s >= 1e6)
    out << bytes_per_s / 1e6 << " MB/s";
  else if (bytes_per_s >= 1e3)
    out << bytes_per_s / 1e3 << " kB/s";
  else
    out << bytes_per_s << " B/s";
  return out.str();
}

std::string DropReasons(const TopicInfo& info) {
  std::string out;
  const std::pair<const char*, uint64_t> reasons[] = {{"invalid", info.drops_invalid},
                                                      {"wrong_type", info.drops_wrong_type},
                                                      {"malformed", info.drops_malformed},
                                                      {"oversize", info.drops_oversize},
                                                      {"fault", info.drops_fault}};
  for (const auto& [name, count] : reasons) {
    if (count > 0) out += (out.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(count);
  }
  return out;
}

// Topic must exist on the bus (seen by the broker); prints a helpful error otherwise.
bool CheckTopicKnown(Session& session, const std::string& topic, const std::string& command) {
  if (session.topics().count(topic)) return true;
  std::cerr << "limbic " << command << ": unknown topic '" << topic << "' (no traffic on it yet)";
  const std::vector<std::string> close = session.SimilarTopics(topic);
  if (!close.empty()) {
    std::cerr << "; did you mean";
    for (const auto& c : close) std::cerr << " " << c;
    std::cerr << "?";
  }
  std::cerr << " — `limbic topics` lists what is active\n";
  return false;
}

}  // namespace

ArgReader::ArgReader(const Args& args, std::vector<std::string> flags_with_values, std::vector<std::string> switches) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string inline_value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      inline_value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_inline = true;
    }
    if (std::find(flags_with_values.begin(), flags_with_values.end(), arg) != flags_with_values.end()) {
      if (!has_inline && i + 1 >= args.size()) throw std::invalid_argument(arg + " needs a value");
      values_.emplace_back(arg, has_inline ? inline_value : args[++i]);
    } else if (std::find(switches.begin(), switches.end(), arg) != switches.end()) {
      values_.emplace_back(arg, "");
    } else if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      throw std::invalid_argument("unknown option '" + arg + "' (see --help)");
    } else {
      positional_.push_back(args[i]);
    }
  }
}

bool ArgReader::Has(const std::string& flag) const {
  return std::any_of(values_.begin(), values_.end(), [&](const auto& v) { return v.first == flag; });
}

std::string ArgReader::Get(const std::string& flag, const std::string& fallback) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
    if (it->first == flag) return it->second;
  }
  return fallback;
}

int TopicsCommand(const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys"}, {"--help", "--all"});
  if (reader.Has("--help")) {
    std::cout
        << "usage: limbic topics [--all] [--bus ADDR] [--curve-keys FILE]\n\nLists every topic the broker has "
           "seen: message type, rate and\n"
           "bandwidth over about one second, and payloads it dropped since it started (DROPS(TOTAL), cumulative;\n"
           "on a direct topic, which the broker does not carry, those its receivers dropped, summed over their\n"
           "heartbeats: a bad message two receivers dropped counts twice), by reason: malformed, wrong_type (not\n"
           "the topic's type, fixed by its first publisher), oversize, invalid (a value out of its declared\n"
           "range, e.g. a NaN goal), fault (an injected communication fault). LOST RECEIVING: messages the\n"
           "services receiving the topic never got (sequence gaps and tail losses from the publishers'\n"
           "high-water reports, summed over their latest heartbeats; - when none reported it; docs/protocol.md,\n"
           "Losses). With more than one robot on the\n"
           "bus (limbic demo --robots N) the global topics come first, then each robot's under its name.\n"
           "A topic without a message for 5 s is marked STALE (with how long); after 60 s it is left out\n"
           "(its publisher has stopped or exited), unless --all. `limbic topic info TOPIC` shows one topic.\n\n"
           "Every bus command takes --curve-keys FILE (default: $LIMBIC_CURVE_KEYS): client keys from\n"
           "`limbic keys generate` for a broker that requires CURVE.\n";
    return 0;
  }
  Session session(reader.Get("--bus", DefaultBus()), "limbic-cli",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.WatchReceiveLosses();
  session.Connect();
  const auto first = session.topics();
  const auto t0 = std::chrono::steady_clock::now();
  session.NextStats(2500ms);
  const std::map<std::string, uint64_t> lost_receiving = session.ReceiveLosses();
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& second = session.topics();
  std::cout << std::left << std::setw(28) << "TOPIC" << std::setw(30) << "TYPE" << std::right << std::setw(10) << "RATE"
            << std::setw(14) << "BANDWIDTH" << std::setw(14) << "DROPS(TOTAL)" << std::setw(16) << "LOST RECEIVING"
            << "  REASONS (TOTAL)\n";
  // Stale topics (issue 22 item 5): marked, then left out, so an exited process's topics do not stay
  // listed at 0.0 Hz for the broker's whole topic lifetime (ForwardingLimits::topic_ttl_s).
  const int64_t now_ns = bus::Node::WallNowNs();
  auto idle_s = [&](const TopicInfo& info) {
    return info.last_seen_ns > 0 ? (now_ns - info.last_seen_ns) * 1e-9 : 0.0;
  };
  // Grouped by robot (issue 18): global topics first, then each robot's under a heading.
  std::vector<std::string> names;
  size_t hidden = 0;
  for (const auto& [topic, info] : second) {
    // The publishers' high-water reports (docs/protocol.md, "Losses") are bus plumbing: shown with --all.
    if (!reader.Has("--all") && (idle_s(info) > kTopicHiddenS || topic.starts_with(bus::kHighWaterPrefix))) {
      ++hidden;
      continue;
    }
    names.push_back(topic);
  }
  const auto groups = GroupTopicsByRobot(names);
  for (const auto& [group, topics] : groups) {
    if (groups.size() > 1) {
      std::cout << (group.empty() ? "-- global" : "-- robot " + group) << " (" << topics.size() << " topics)\n";
    }
    for (const auto& topic : topics) {
      const auto& info = second.at(topic);
      const auto it = first.find(topic);
      const double rate = it == first.end() ? 0.0 : (info.messages - it->second.messages) / dt;
      const double bw = it == first.end() ? 0.0 : (info.bytes - it->second.bytes) / dt;
      std::string type = info.type.rfind("limbic.msg.", 0) == 0 ? info.type.substr(11) : info.type;
      std::ostringstream r;
      r << std::fixed << std::setprecision(1) << rate << " Hz";
      const double idle = idle_s(info);
      std::string reasons = DropReasons(info);
      if (idle > kTopicStaleS) {
        std::ostringstream stale;
        stale << "STALE " << std::fixed << std::setprecision(0) << idle << " s";
        reasons = stale.str() + (reasons.empty() ? "" : "; " + reasons);
      }
      std::cout << std::left << std::setw(28) << topic << std::setw(30) << type << std::right << std::setw(10)
                << r.str() << std::setw(14) << HumanRate(bw) << std::setw(14) << info.drops << std::setw(16)
                << (lost_receiving.count(topic) ? std::to_string(lost_receiving.at(topic)) : "-") << "  " << reasons
                << "\n";
    }
  }
  if (hidden > 0) {
    std::cout << hidden << " topic(s) without traffic for over " << kTopicHiddenS
              << " s not shown (--all shows them)\n";
  }
  return 0;
}

int NodesCommand(const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys", "--wait"}, {"--help"});
  if (reader.Has("--help")) {
    std::cout << "usage: limbic nodes [--wait S] [--bus ADDR] [--curve-keys FILE]\n\n"
                 "One line per service from its heartbeats (health/<service>, 1 Hz), listened to for --wait S\n"
                 "seconds (default 2.5, at most 3600):\n"
                 "  STATE     ok | degraded | failing | stopping | starting, or silent (no heartbeat for 3 s)\n"
                 "  RATE      ticks per second between two heartbeats\n"
                 "  RESTARTS  restarts by `limbic launch` (- when not started by it)\n"
                 "  PID, HOST the process and the host it runs on (- before its first heartbeat)\n"
                 "  DETAIL    why it is degraded or failing, else its last step error (if any)\n"
                 "Exits 1 when a service is degraded, failing or silent.\n\n"
                 "examples:\n"
                 "  limbic nodes                      # the bus of $LIMBIC_BUS (limbic demo prints its address)\n"
                 "  limbic nodes --wait 5\n";
    return 0;
  }
  const std::string wait_text = reader.Get("--wait", "2.5");
  double wait = std::nan("");
  try {
    size_t used = 0;
    wait = std::stod(wait_text, &used);
    if (used != wait_text.size()) wait = std::nan("");
  } catch (const std::exception&) {
  }
  if (!(wait > 0.0 && wait <= 3600.0)) {
    throw std::invalid_argument("--wait needs a number of seconds in (0, 3600] (got '" + wait_text + "')");
  }
  Session session(reader.Get("--bus", DefaultBus()), "limbic-nodes",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  struct Seen {
    msg::ServiceState state = msg::ServiceState::Starting;
    std::string reason, last_error, host;
    int pid = 0;
    double restarts = -1;
    int64_t first_tick = 0, last_tick = 0;
    std::chrono::steady_clock::time_point first, last;
    int heartbeats = 0;
  };
  std::map<std::string, Seen> nodes;
  session.node().SubscribeAny("health/", [&](const bus::RawMessage& m) {
    if (m.topic == "health/bus" || std::string_view(m.type.identifier) != "HBT1") return;
    const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(m.data);
    auto& n = nodes[hb->service() ? hb->service()->str() : m.topic.substr(7)];
    const auto now = std::chrono::steady_clock::now();
    if (n.heartbeats++ == 0 || hb->tick() < n.last_tick) {
      n.first = now;
      n.first_tick = hb->tick();
    }
    n.last = now;
    n.last_tick = hb->tick();
    n.state = hb->state();
    n.reason = hb->status_reason() ? hb->status_reason()->str() : "";
    n.last_error = hb->last_error() ? hb->last_error()->str() : "";
    n.host = hb->host() ? hb->host()->str() : "";
    n.pid = hb->pid();
    n.restarts = -1;
    if (hb->counters()) {
      for (const auto* c : *hb->counters()) {
        if (c->name() && c->name()->str() == "restarts") n.restarts = c->value();
      }
    }
  });
  session.Connect();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait);
  while (std::chrono::steady_clock::now() < deadline) session.node().Poll(20ms);
  // Services the broker has seen a heartbeat topic of, but that stayed silent during the wait.
  for (const auto& [topic, info] : session.topics()) {
    if (topic.rfind("health/", 0) == 0 && topic != "health/bus") nodes.try_emplace(topic.substr(7));
  }
  if (nodes.empty()) {
    std::cerr << "limbic nodes: no service heartbeats on " << session.address() << "\n";
    return 1;
  }
  std::cout << std::left << std::setw(22) << "SERVICE" << std::setw(10) << "STATE" << std::right << std::setw(9)
            << "RATE" << std::setw(10) << "RESTARTS" << std::setw(9) << "PID"
            << "  " << std::left << std::setw(16) << "HOST"
            << "DETAIL\n";
  int unhealthy = 0;
  for (const auto& [name, n] : nodes) {
    std::string state = "silent";
    if (n.heartbeats > 0) {
      switch (n.state) {
        case msg::ServiceState::Running:
          state = "ok";
          break;
        case msg::ServiceState::Degraded:
          state = "degraded";
          break;
        case msg::ServiceState::Failing:
          state = "failing";
          break;
        case msg::ServiceState::Stopping:
          state = "stopping";
          break;
        default:
          state = "starting";
          break;
      }
    }
    if (state == "degraded" || state == "failing" || state == "silent") ++unhealthy;
    std::ostringstream rate;
    const double dt = std::chrono::duration<double>(n.last - n.first).count();
    if (n.heartbeats >= 2 && dt > 0)
      rate << std::fixed << std::setprecision(1) << (n.last_tick - n.first_tick) / dt << " Hz";
    else
      rate << "-";
    const std::string detail =
        !n.reason.empty() ? n.reason : (n.last_error.empty() ? "" : "last error: " + n.last_error);
    std::cout << std::left << std::setw(22) << name << std::setw(10) << state << std::right << std::setw(9)
              << rate.str() << std::setw(10) << (n.restarts >= 0 ? std::to_string(static_cast<int>(n.restarts)) : "-")
              << std::setw(9) << (n.pid > 0 ? std::to_string(n.pid) : "-") << "  " << std::left << std::setw(16)
              << (n.host.empty() ? "-" : n.host) << detail << "\n";
  }
  return unhealthy > 0 ? 1 : 0;
}

int EchoCommand(const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys", "--count", "--timeout"}, {"--help", "--compact"});
  if (reader.Has("--help") || reader.positional().size() != 1) {
    std::cout << "usage: limbic echo TOPIC [--count N] [--timeout S] [--compact] [--raw] [--bus ADDR] [--curve-keys "
                 "FILE]\n\n"
                 "Prints each message on TOPIC as JSON, decoded through the binary schema. Arrays whose elements\n"
                 "the schema names (AffectState's stimuli, emotions, moods and drives) print as objects with those\n"
                 "names, as the metrics label them; --raw prints them as plain arrays (the form `limbic pub` takes).\n"
                 "With --timeout S it waits up to S seconds for the first message, also on a topic with no traffic\n"
                 "yet (exit 1 if none came); without it, an unknown topic is an error at once.\n\n"
                 "examples:\n"
                 "  limbic echo r1/affect --count 1\n"
                 "  limbic echo r1/goal --count 1 --timeout 5\n";
    return reader.Has("--help") ? 0 : 2;
  }
  const std::string topic = reader.positional()[0];
  const long count = static_cast<long>(flags::ParseInteger("--count", reader.Get("--count", "-1"), -1));
  const double timeout = flags::ParseFiniteNumber("--timeout", reader.Get("--timeout", "0"));
  if (timeout < 0) throw flags::FlagValueError("--timeout takes seconds >= 0");
  Session session(reader.Get("--bus", DefaultBus()), "limbic-echo",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  // With a timeout, a topic nobody has published on yet is waited for (issue 22 item 5).
  if (timeout <= 0 && !CheckTopicKnown(session, topic, "echo")) return 1;
  JsonCodec codec;
  long printed = 0;
  const bool named = !reader.Has("--raw");
  session.node().SubscribeAny(topic, [&](const bus::RawMessage& m) {
    if (m.topic != topic || (count >= 0 && printed >= count)) return;
    std::string json = codec.ToJson(m.type, m.data, m.size, reader.Has("--compact"));
    if (named) json = NameArrayElements(m.type, json);
    std::cout << json << std::endl;
    ++printed;
  });
  InstallSignals();
  const auto start = std::chrono::steady_clock::now();
  while (!g_interrupted && (count < 0 || printed < count)) {
    session.node().Poll(50ms);
    if (timeout > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout) break;
  }
  if (printed == 0 && timeout > 0) {
    std::cerr << "limbic echo: no message on '" << topic << "' within " << timeout << " s\n";
    return 1;
  }
  return 0;
}

int HzCommand(const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys", "--duration", "--window"}, {"--help"});
  if (reader.Has("--help") || reader.positional().size() != 1) {
    std::cout << "usage: limbic hz TOPIC [--duration S] [--bus ADDR] [--curve-keys FILE]\n\n"
                 "Prints the rate of TOPIC every second: mean, min/max interval and jitter.\n";
    return reader.Has("--help") ? 0 : 2;
  }
  const std::string topic = reader.positional()[0];
  const double duration = std::stod(reader.Get("--duration", "0"));
  Session session(reader.Get("--bus", DefaultBus()), "limbic-hz",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  if (!CheckTopicKnown(session, topic, "hz")) return 1;
  std::vector<double> intervals;
  std::chrono::steady_clock::time_point last{};
  uint64_t total = 0;
  session.node().SubscribeAny(topic, [&](const bus::RawMessage& m) {
    if (m.topic != topic) return;
    const auto now = std::chrono::steady_clock::now();
    if (last != std::chrono::steady_clock::time_point{})
      intervals.push_back(std::chrono::duration<double>(now - last).count());
    last = now;
    ++total;
  });
  InstallSignals();
  const auto start = std::chrono::steady_clock::now();
  auto next_report = start + 1s;
  while (!g_interrupted) {
    session.node().Poll(20ms);
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_report) {
      if (intervals.empty()) {
        std::cout << topic << ": no messages" << std::endl;
      } else {
        double sum = 0, sq = 0;
        for (double x : intervals) sum += x;
        const double mean = sum / intervals.size();
        for (double x : intervals) sq += (x - mean) * (x - mean);
        const auto [mn, mx] = std::minmax_element(intervals.begin(), intervals.end());
        std::cout << std::fixed << std::setprecision(2) << topic << ": " << 1.0 / mean << " Hz  (min " << *mn * 1e3
                  << " ms, max " << *mx * 1e3 << " ms, std " << std::sqrt(sq / intervals.size()) * 1e3 << " ms, "
                  << intervals.size() << " intervals)" << std::endl;
      }
      intervals.clear();
      next_report += 1s;
    }
    if (duration > 0 && std::chrono::duration<double>(now - start).count() >= duration) break;
  }
  return total > 0 ? 0 : 1;
}

int PubCommand(const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys", "--type", "--rate", "--count"}, {"--help", "--latched"});
  if (reader.Has("--help") || reader.positional().size() != 2) {
    std::cout
        << "usage: limbic pub TOPIC JSON [--type TYPE] [--rate HZ] [--count N] [--latched] [--bus ADDR] [--curve-keys "
           "FILE]\n\n"
           "Publishes JSON as a message on TOPIC (once by default). TYPE defaults to the type the broker\n"
           "has seen on the topic; the header is filled in unless the JSON has one. A message whose values\n"
           "break its type's rules (NaN, out of range, mis-sized vectors) is refused, naming the field. Example:\n"
           "  limbic pub r1/goal '{\"active\": true, \"goal\": {\"x\": 3, \"y\": 2}}' --type NavGoal\n";
    return reader.Has("--help") ? 0 : 2;
  }
  const std::string topic = reader.positional()[0];
  const std::string json = reader.positional()[1];
  Session session(reader.Get("--bus", DefaultBus()), "limbic-pub",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  std::string type_name = reader.Get("--type");
  if (type_name.empty()) {
    auto it = session.topics().find(topic);
    if (it == session.topics().end() || it->second.type.empty()) {
      std::cerr << "limbic pub: topic '" << topic << "' has no traffic yet, so its type is unknown: pass --type\n";
      return 2;
    }
    type_name = it->second.type;
  }
  const messages::MessageType* type = messages::FindByName(type_name);
  if (type == nullptr) {
    std::cerr << "limbic pub: unknown message type '" << type_name << "'\n";
    return 2;
  }
  // The broker drops a payload of another type than the topic's (issue 15): say so before sending.
  const auto seen = session.topics().find(topic);
  const messages::MessageType* carried = seen != session.topics().end() && !seen->second.type.empty()
                                             ? messages::FindByName(seen->second.type)
                                             : messages::ConventionalType(topic);
  if (carried != nullptr && carried != type) {
    std::cerr << "limbic pub: topic '" << topic << "' carries " << carried->name << ", not " << type->name
              << " (the broker would drop it as wrong_type)\n";
    return 2;
  }
  JsonCodec codec;
  std::random_device rd;
  const uint64_t incarnation = (static_cast<uint64_t>(rd()) << 32) | rd();
  const bool latched = reader.Has("--latched");
  const double rate = std::stod(reader.Get("--rate", "0"));
  const long count = std::stol(reader.Get("--count", rate > 0 ? "-1" : "1"));
  std::vector<uint8_t> first;
  try {
    first = codec.FromJson(*type, json, 1, "limbic-pub", incarnation, latched);
  } catch (const std::exception& e) {
    std::cerr << "limbic pub: " << e.what() << "\n";
    return 2;
  }
  // The same rules every receiver applies (issue 15): a NaN goal verified and disabled the robot.
  if (const std::string invalid = messages::VerifyAndValidate(*type, first.data(), first.size()); !invalid.empty()) {
    std::cerr << "limbic pub: refusing an invalid message: " << invalid
              << "\n  (every receiver would drop it; the rules are in messages/validate.cpp)\n";
    return 2;
  }
  // Watch our own message come back through the broker: proof it was delivered.
  uint64_t echoed = 0;
  session.node().SubscribeAny(topic, [&](const bus::RawMessage& m) {
    if (m.topic == topic && m.header.incarnation() == incarnation) ++echoed;
  });
  std::this_thread::sleep_for(200ms);  // let the publishing connection come up
  InstallSignals();
  long sent = 0;
  for (uint64_t seq = 1; !g_interrupted && (count < 0 || sent < count); ++seq) {
    const auto bytes = seq == 1 ? first : codec.FromJson(*type, json, seq, "limbic-pub", incarnation, latched);
    session.node().SendRaw(topic, bytes.data(), bytes.size());
    ++sent;
    if (rate > 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(1.0 / rate);
      while (std::chrono::steady_clock::now() < until) session.node().Poll(5ms);
    }
  }
  const bool delivered = [&] {
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    while (echoed == 0 && std::chrono::steady_clock::now() < deadline) session.node().Poll(20ms);
    return echoed > 0;
  }();
  if (!delivered) {
    std::cerr << "limbic pub: sent " << sent << " message(s) on '" << topic << "' but none came back through the bus\n";
    return 1;
  }
  std::cout << "published " << sent << " " << type->name << " on " << topic << "\n";
  return 0;
}

int ParamCommand(const Args& args) {
  if (!args.empty() && (args[0] == "list" || args[0] == "dump" || args[0] == "load")) {
    return ParamListDumpLoad(args[0], args);
  }
  ArgReader reader(args, {"--bus", "--curve-keys", "--timeout"}, {"--help"});
  const auto& pos = reader.positional();
  const bool get = pos.size() >= 2 && pos[0] == "get" && pos.size() <= 3;
  const bool set = pos.size() == 4 && pos[0] == "set";
  if (reader.Has("--help") || (!get && !set)) {
    std::cout << "usage: limbic param get SERVICE [NAME] | limbic param set SERVICE NAME VALUE [--bus ADDR] "
                 "[--curve-keys FILE]\n"
                 "       limbic param list|dump|load ...   (limbic param list --help)\n\n"
                 "Lists the settings of a running service, or changes a live one. SERVICE is its instance name as\n"
                 "in `limbic topics` (health/SERVICE), e.g. r1/planner. VALUE is YAML (2.5, true, [1, 2]).\n"
                 "Each setting is either live (changed while running: validated, then applied to the algorithm)\n"
                 "or a start-up option (read once: a set is refused; restart the service with --set NAME=VALUE).\n"
                 "A refused set (unknown name, invalid value, option) exits 1 with the reason and the valid range.\n\n"
                 "examples:\n"
                 "  limbic param get r1/planner\n"
                 "  limbic param set r1/planner fusion additive\n"
                 "  limbic param set r1/controller tie_break closest\n";
    return reader.Has("--help") ? 0 : 2;
  }
  const std::string service = pos[1];
  const std::string name = pos.size() >= 3 ? pos[2] : "";
  Session session(reader.Get("--bus", DefaultBus()), "limbic-param",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  if (!session.topics().count("health/" + service)) {
    std::cerr << "limbic param: no service '" << service << "' on the bus (no heartbeat on health/" << service << ")\n";
    return 1;
  }
  std::random_device rd;
  const uint64_t request_id = (static_cast<uint64_t>(rd()) << 32) | rd();
  auto request = session.node().Advertise<msg::ParameterRequest>("param/" + service);
  bool replied = false;
  int status = 0;
  session.node().Subscribe<msg::ParameterReply>(
      "param/" + service + "/reply", [&](const bus::Message<msg::ParameterReply>& m) {
        if (m.msg.request_id() != request_id || replied) return;
        replied = true;
        if (!m.msg.ok()) {
          std::cerr << "limbic param: " << (m.msg.error() ? m.msg.error()->str() : "refused") << "\n";
          status = 1;
          return;
        }
        if (m.msg.values()) {
          auto text = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
          for (const auto* v : *m.msg.values()) {
            if (set) {
              // What the service applied (its value after the set), not what was asked.
              std::cout << service << ": " << text(v->name()) << " = " << text(v->value()) << " (applied)\n";
              continue;
            }
            const std::string kind = text(v->kind());
            const std::string range = text(v->range());
            std::cout << text(v->name()) << " = " << text(v->value()) << "  [" << (kind.empty() ? "?" : kind)
                      << (range.empty() ? "" : ": " + range) << "]";
            if (name.empty()) std::cout << "  (" << text(v->type()) << ") " << text(v->doc());
            std::cout << "\n";
          }
        }
      });
  std::this_thread::sleep_for(200ms);
  const double timeout = std::stod(reader.Get("--timeout", "3"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  while (!replied && std::chrono::steady_clock::now() < deadline) {
    request.Publish(bus::Node::WallNowNs(), -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreateParameterRequestDirect(fbb, header, request_id, name.c_str(), set ? pos[3].c_str() : "", set);
    });
    const auto retry = std::chrono::steady_clock::now() + 500ms;
    while (!replied && std::chrono::steady_clock::now() < retry) session.node().Poll(20ms);
  }
  if (!replied) {
    std::cerr << "limbic param: no reply from '" << service << "' within " << timeout << " s\n";
    return 1;
  }
  return status;
}

}  // namespace limbic::cli
