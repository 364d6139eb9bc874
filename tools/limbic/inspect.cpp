// limbic topic info | interface show|list | param list|dump|load (issue 22 item 5): introspection as
// `ros2 topic info`, `ros2 interface show` and `ros2 param list|dump|load` users expect it.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "common/bus/curve_keys.hpp"
#include "common/flags/flags.hpp"
#include "common/paths/paths.hpp"
#include "common/regex/regex.hpp"
#include "tools/limbic/commands.hpp"
#include "tools/limbic/session.hpp"

namespace limbic::cli {
namespace {

using namespace std::chrono_literals;

std::string Fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

std::string ShortType(const std::string& type) { return type.rfind("limbic.msg.", 0) == 0 ? type.substr(11) : type; }

// What a service's heartbeat says about it and its topics.
struct ServiceSeen {
  std::string host;
  int pid = 0;
  std::set<std::string> in, out;  // topics it received / published (its own counts)
};

// Listens to every heartbeat for `wait`, keeping the broker's statistics current.
std::map<std::string, ServiceSeen> ListenToHeartbeats(Session& session, std::chrono::milliseconds wait) {
  std::map<std::string, ServiceSeen> services;
  session.node().SubscribeAny("health/", [&](const bus::RawMessage& m) {
    if (m.topic == "health/bus" || std::string_view(m.type.identifier) != "HBT1") return;
    const auto* hb = flatbuffers::GetRoot<msg::Heartbeat>(m.data);
    auto& s = services[hb->service() ? hb->service()->str() : m.topic.substr(7)];
    s.host = hb->host() ? hb->host()->str() : "";
    s.pid = hb->pid();
    if (hb->topics()) {
      for (const auto* t : *hb->topics()) {
        if (!t->topic() || !t->direction()) continue;
        (t->direction()->str() == "in" ? s.in : s.out).insert(t->topic()->str());
      }
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < deadline) session.node().Poll(20ms);
  return services;
}

std::string Where(const std::map<std::string, ServiceSeen>& services, const std::string& name) {
  auto it = services.find(name);
  if (it == services.end()) return "(no heartbeat: a tool or a process outside the runtime)";
  return "host " + (it->second.host.empty() ? std::string("?") : it->second.host) + ", pid " +
         std::to_string(it->second.pid);
}

// ---- parameters -----------------------------------------------------------------------------------

struct ParamValue {
  std::string name, value, type, doc, kind, range;
};

struct ParamReply {
  bool replied = false;
  bool ok = false;
  std::string error;
  std::vector<ParamValue> values;
};

// Request/reply with services (docs/protocol.md §8): one reply subscription and one request publisher
// per service for the whole command (a node cannot take a subscription back), replies matched by id.
class ParamClient {
 public:
  explicit ParamClient(Session& session) : session_(session) {}

  // Re-sent every 0.5 s until answered or `timeout_s` has passed (then replied == false).
  ParamReply Request(const std::string& service, const std::string& name, const std::string& value, bool set,
                     double timeout_s) {
    auto found = publishers_.find(service);
    if (found == publishers_.end()) {
      found = publishers_.emplace(service, session_.node().Advertise<msg::ParameterRequest>("param/" + service)).first;
      session_.node().Subscribe<msg::ParameterReply>(
          "param/" + service + "/reply", [this](const bus::Message<msg::ParameterReply>& m) {
            auto it = pending_.find(m.msg.request_id());
            if (it == pending_.end() || it->second.replied) return;
            ParamReply& reply = it->second;
            auto text = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
            reply.replied = true;
            reply.ok = m.msg.ok();
            reply.error = m.msg.error() ? m.msg.error()->str() : "refused";
            if (m.msg.values()) {
              for (const auto* v : *m.msg.values()) {
                reply.values.push_back({text(v->name()), text(v->value()), text(v->type()), text(v->doc()),
                                        text(v->kind()), text(v->range())});
              }
            }
          });
      std::this_thread::sleep_for(200ms);  // let the new connection and subscription come up
    }
    const uint64_t request_id = (static_cast<uint64_t>(random_()) << 32) | random_();
    const ParamReply& reply = pending_[request_id];
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
    while (!reply.replied && std::chrono::steady_clock::now() < deadline) {
      found->second.Publish(bus::Node::WallNowNs(), -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        return msg::CreateParameterRequestDirect(fbb, header, request_id, name.c_str(), value.c_str(), set);
      });
      const auto retry = std::min(deadline, std::chrono::steady_clock::now() + 500ms);
      while (!reply.replied && std::chrono::steady_clock::now() < retry) session_.node().Poll(20ms);
    }
    ParamReply result = reply;
    pending_.erase(request_id);
    return result;
  }

 private:
  Session& session_;
  std::map<std::string, bus::Publisher<msg::ParameterRequest>> publishers_;
  std::map<uint64_t, ParamReply> pending_;
  std::random_device random_;
};

// Services with a heartbeat topic the broker heard lately (a service that exited drops out within
// kTopicStaleS; its topic may stay in the broker's table for minutes).
std::vector<std::string> LiveServices(const Session& session) {
  std::vector<std::string> names;
  const int64_t now = bus::Node::WallNowNs();
  for (const auto& [topic, info] : session.topics()) {
    if (topic.rfind("health/", 0) != 0 || topic == "health/bus") continue;
    if (info.last_seen_ns > 0 && (now - info.last_seen_ns) * 1e-9 <= kTopicStaleS) names.push_back(topic.substr(7));
  }
  return names;
}

// A value's YAML text as the service gave it, as a YAML node (a plain string if it does not parse).
YAML::Node ValueNode(const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception&) {
    return YAML::Node(text);
  }
}

// A YAML node as the one-line text a ParameterRequest carries ("2.5", "additive", "[1, 2]").
std::string ValueText(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

int ParamList(ParamClient& client, const std::vector<std::string>& services, double timeout) {
  int status = 0;
  for (const auto& service : services) {
    const ParamReply reply = client.Request(service, "", "", false, timeout);
    if (!reply.replied || !reply.ok) {
      std::cerr << "limbic param: " << service << ": "
                << (reply.replied ? reply.error : "no reply within " + Fixed(timeout, 1) + " s") << "\n";
      status = 1;
      continue;
    }
    std::cout << service << ":\n";
    for (const auto& v : reply.values) {
      std::cout << "  " << std::left << std::setw(28) << v.name << std::setw(8) << (v.kind.empty() ? "?" : v.kind)
                << v.type << "\n";
    }
  }
  return status;
}

int ParamDump(ParamClient& client, const std::vector<std::string>& services, double timeout,
              const std::string& out_path) {
  int status = 0;
  size_t written = 0;
  std::ostringstream yaml;
  yaml << "# limbic param dump: live parameters per service (`limbic param load FILE` sets them again).\n"
       << "# Start-up options are listed as comments: they change only with a restart (--set NAME=VALUE).\n";
  for (const auto& service : services) {
    const ParamReply reply = client.Request(service, "", "", false, timeout);
    if (!reply.replied || !reply.ok) {
      std::cerr << "limbic param dump: " << service << ": "
                << (reply.replied ? reply.error : "no reply within " + Fixed(timeout, 1) + " s") << "\n";
      status = 1;
      continue;
    }
    YAML::Emitter live;
    live << YAML::BeginMap;
    std::ostringstream options;
    for (const auto& v : reply.values) {
      if (v.kind == "live") {
        live << YAML::Key << v.name << YAML::Value << YAML::Flow << ValueNode(v.value);
      } else {
        options << "  # " << v.name << ": " << v.value << "  (start-up option)\n";
      }
    }
    live << YAML::EndMap;
    YAML::Emitter entry;
    entry << YAML::BeginMap << YAML::Key << service << YAML::Value << YAML::Load(live.c_str()) << YAML::EndMap;
    std::string text = entry.c_str();
    // An empty map prints as "service: {}": keep it so the file still names the service.
    yaml << text << "\n" << options.str();
    ++written;
  }
  if (out_path.empty()) {
    std::cout << yaml.str();
  } else {
    std::ofstream file(out_path);
    file << yaml.str();
    if (!file) {
      std::cerr << "limbic param dump: cannot write " << out_path << "\n";
      return 1;
    }
    std::cout << "wrote " << written << " service(s) to " << out_path << "\n";
  }
  return status;
}

int ParamLoad(Session& session, ParamClient& client, const std::string& path, double timeout) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    std::cerr << "limbic param load: cannot read " << path << "\n";
    return 2;
  } catch (const YAML::Exception& e) {
    std::cerr << "limbic param load: " << path << ": bad YAML at line " << e.mark.line + 1 << ": " << e.msg << "\n";
    return 2;
  }
  if (!root.IsMap()) {
    std::cerr << "limbic param load: " << path << ": expected a map of services, each a map NAME: VALUE\n";
    return 2;
  }
  for (const auto& service : root) {
    if (!service.second.IsMap() && !service.second.IsNull()) {
      std::cerr << "limbic param load: " << path << ": '" << service.first.as<std::string>()
                << "' must map parameter names to values\n";
      return 2;
    }
  }
  int applied = 0, refused = 0;
  for (const auto& service_entry : root) {
    const std::string service = service_entry.first.as<std::string>();
    if (!session.topics().count("health/" + service)) {
      std::cerr << service << ": no such service on the bus (no heartbeat on health/" << service << ")\n";
      refused += static_cast<int>(service_entry.second.size());
      continue;
    }
    for (const auto& p : service_entry.second) {
      const std::string name = p.first.as<std::string>();
      const ParamReply reply = client.Request(service, name, ValueText(p.second), true, timeout);
      if (reply.replied && reply.ok) {
        ++applied;
        for (const auto& v : reply.values) std::cout << service << ": " << v.name << " = " << v.value << " (applied)\n";
      } else {
        ++refused;
        std::cerr << service << ": " << name
                  << " refused: " << (reply.replied ? reply.error : "no reply within " + Fixed(timeout, 1) + " s")
                  << "\n";
      }
    }
  }
  std::cout << applied << " applied, " << refused << " refused\n";
  return refused > 0 ? 1 : 0;
}

// ---- interfaces ------------------------------------------------------------------------------------

// A definition (table, struct or enum) of a schema file, with the comment lines just above it.
struct Definition {
  std::string file;  // relative to the schema directory
  std::string text;
};

std::map<std::string, Definition> SchemaDefinitions(const std::filesystem::path& dir) {
  std::map<std::string, Definition> defs;
  static const regex::Regex start(R"(^\s*(table|struct|enum|union)\s+([A-Za-z_][A-Za-z0-9_]*))");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".fbs") continue;
    std::ifstream in(entry.path());
    std::vector<std::string> comments;
    std::string line;
    while (std::getline(in, line)) {
      if (const auto m = start.Search(line)) {
        const std::string name = (*m)[2];
        std::string text;
        for (const auto& c : comments) text += c + "\n";
        text += line + "\n";
        bool closed = line.find('}') != std::string::npos;
        while (!closed && std::getline(in, line)) {
          text += line + "\n";
          closed = line.find('}') != std::string::npos;
        }
        defs[name] = {std::filesystem::relative(entry.path(), dir).string(), text};
        comments.clear();
      } else if (line.rfind("//", 0) == 0) {
        comments.push_back(line);
      } else {
        comments.clear();
      }
    }
  }
  return defs;
}

// Type names a definition's fields refer to (`header: Header;`, `beams: [Beam];`, `state: ServiceState;`).
std::vector<std::string> ReferencedTypes(const std::string& text) {
  static const regex::Regex field(R"(^\s*[a-z_][a-z0-9_]*\s*:\s*\[?\s*([A-Za-z_][A-Za-z0-9_.]*))");
  std::vector<std::string> names;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (const auto m = field.Search(line)) names.push_back((*m)[1]);
  }
  return names;
}

}  // namespace

int InterfaceCommand(const Args& args) {
  ArgReader reader(args, {}, {"--help"});
  const auto& pos = reader.positional();
  const bool show = pos.size() == 2 && pos[0] == "show";
  const bool list = pos.size() == 1 && pos[0] == "list";
  if (reader.Has("--help") || (!show && !list)) {
    std::cout << "usage: limbic interface list | limbic interface show TYPE\n\n"
                 "list: every message type with its 4-character identifier.\n"
                 "show: the FlatBuffers schema of TYPE (e.g. NavGoal or limbic.msg.NavGoal) with its comments, then\n"
                 "every table, struct and enum it uses, each with the file it is in. The schemas are read from\n"
                 "$LIMBIC_SCHEMA_DIR, else from the data folder beside the programs (<prefix>/share/limbic/messages;\n"
                 "LIMBIC_DATA_DIR moves the whole data folder).\n\n"
                 "examples:\n"
                 "  limbic interface list\n"
                 "  limbic interface show NavGoal\n";
    return reader.Has("--help") ? 0 : 2;
  }
  if (list) {
    for (const auto& type : messages::AllTypes()) {
      std::cout << std::left << std::setw(24) << ShortType(type.name) << type.identifier << "\n";
    }
    return 0;
  }
  const messages::MessageType* type = messages::FindByName(pos[1]);
  if (type == nullptr) {
    std::cerr << "limbic interface: unknown message type '" << pos[1] << "' (`limbic interface list` lists them)\n";
    return 1;
  }
  std::filesystem::path dir;
  try {
    dir = SchemaDirectory();
  } catch (const paths::DataNotFound& e) {
    std::cerr << "limbic interface: " << e.what() << "\n";
    return 1;
  }
  if (!std::filesystem::is_directory(dir)) {
    std::cerr << "limbic interface: no schema directory at " << dir.string()
              << " (set LIMBIC_SCHEMA_DIR to the messages/ directory)\n";
    return 1;
  }
  const auto defs = SchemaDefinitions(dir);
  const std::string root = ShortType(type->name);
  if (!defs.count(root)) {
    std::cerr << "limbic interface: " << root << " is not defined in any .fbs under " << dir.string() << "\n";
    return 1;
  }
  // The type first, then what it uses, breadth first, each once.
  std::vector<std::string> order{root};
  std::set<std::string> seen{root};
  for (size_t i = 0; i < order.size(); ++i) {
    for (std::string name : ReferencedTypes(defs.at(order[i]).text)) {
      if (name.rfind("limbic.msg.", 0) == 0) name = name.substr(11);
      if (defs.count(name) && seen.insert(name).second) order.push_back(name);
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& d = defs.at(order[i]);
    std::cout << (i ? "\n" : "") << "// " << d.file
              << (i == 0 ? std::string("  (identifier ") + type->identifier + ")" : "") << "\n"
              << d.text;
  }
  return 0;
}

std::filesystem::path SchemaDirectory() {
  // Installed as <prefix>/share/limbic/messages (cmake/Install.cmake); in a build tree share/limbic links
  // to the sources. LIMBIC_SCHEMA_DIR names another folder for the schemas alone.
  return paths::DataPath("messages", "LIMBIC_SCHEMA_DIR");
}

int TopicCommand(const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys", "--wait"}, {"--help"});
  const auto& pos = reader.positional();
  if (reader.Has("--help") || pos.size() != 2 || pos[0] != "info") {
    std::cout << "usage: limbic topic info TOPIC [--wait S] [--bus ADDR] [--curve-keys FILE]\n\n"
                 "What one topic is and who uses it, listened to for --wait S seconds (default 2.5):\n"
                 "  type, rate and bandwidth over the wait, time since its last message (stale after "
              << kTopicStaleS
              << " s),\n"
                 "  messages and drops by reason since the broker started (cumulative; on a direct topic the\n"
                 "  drops its receivers reported in their heartbeats, summed),\n"
                 "  publishers: every header source the broker heard on it in the last 10 s, with host and pid\n"
                 "  from their heartbeats, subscribers: the broker's count of subscriber connections, and the\n"
                 "  services whose heartbeats count it received, with host and pid.\n"
                 "Exits 1 for a topic the broker does not know.\n\n"
                 "example:\n"
                 "  limbic topic info r1/scan\n";
    return reader.Has("--help") ? 0 : 2;
  }
  const std::string topic = pos[1];
  const double wait = flags::ParseFiniteNumber("--wait", reader.Get("--wait", "2.5"));
  if (wait < 0.5 || wait > 60.0) throw flags::FlagValueError("--wait takes seconds in [0.5, 60]");
  Session session(reader.Get("--bus", DefaultBus()), "limbic-topic",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  const auto first = session.topics();
  const auto t0 = std::chrono::steady_clock::now();
  const auto services = ListenToHeartbeats(session, std::chrono::milliseconds(static_cast<int64_t>(wait * 1000.0)));
  session.NextStats(1500ms);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& now = session.topics();
  auto it = now.find(topic);
  if (it == now.end()) {
    std::cerr << "limbic topic info: unknown topic '" << topic << "' (the broker has no traffic on it)";
    const std::vector<std::string> close = session.SimilarTopics(topic);
    if (!close.empty()) {
      std::cerr << "; did you mean";
      for (const auto& c : close) std::cerr << " " << c;
      std::cerr << "?";
    }
    std::cerr << " — `limbic topics` lists what is active\n";
    return 1;
  }
  const TopicInfo& info = it->second;
  const auto before = first.find(topic);
  const uint64_t messages = before == first.end() ? 0 : info.messages - before->second.messages;
  const uint64_t bytes = before == first.end() ? 0 : info.bytes - before->second.bytes;
  const double idle_s = info.last_seen_ns > 0 ? (bus::Node::WallNowNs() - info.last_seen_ns) * 1e-9 : -1.0;
  std::cout << "topic:        " << topic << "\n"
            << "type:         " << (info.type.empty() ? "(not fixed yet)" : ShortType(info.type)) << "\n"
            << "rate:         " << Fixed(messages / dt, 1) << " Hz, " << Fixed(bytes / dt / 1e3, 1) << " kB/s (over "
            << Fixed(dt, 1) << " s)\n"
            << "last message: "
            << (idle_s < 0 ? std::string("never (only drops)")
                           : Fixed(idle_s, 1) + " s ago" + (idle_s > kTopicStaleS ? "  STALE" : ""))
            << "\n"
            << "total:        " << info.messages << " messages, " << info.bytes
            << " bytes since the broker started (cumulative)\n"
            << "drops:        " << info.drops << " since the broker started (cumulative)";
  const std::pair<const char*, uint64_t> reasons[] = {{"invalid", info.drops_invalid},
                                                      {"wrong_type", info.drops_wrong_type},
                                                      {"malformed", info.drops_malformed},
                                                      {"oversize", info.drops_oversize},
                                                      {"fault", info.drops_fault}};
  for (const auto& [name, count] : reasons)
    std::cout << (name == reasons[0].first ? ": " : ", ") << name << " " << count;
  std::cout << "\npublishers:   " << info.publishers.size() << "\n";
  for (const auto& name : info.publishers) {
    std::cout << "  " << std::left << std::setw(24) << name << Where(services, name) << "\n";
  }
  std::vector<std::string> receivers;
  for (const auto& [name, s] : services) {
    if (s.in.count(topic)) receivers.push_back(name);
  }
  std::cout << "subscribers:  " << info.subscribers << " connection(s); services that receive it: " << receivers.size()
            << "\n";
  for (const auto& name : receivers) {
    std::cout << "  " << std::left << std::setw(24) << name << Where(services, name) << "\n";
  }
  return 0;
}

int ParamListDumpLoad(const std::string& verb, const Args& args) {
  ArgReader reader(args, {"--bus", "--curve-keys", "--timeout", "--out"}, {"--help"});
  const auto& pos = reader.positional();  // pos[0] is the verb
  const bool ok =
      (verb == "list" && pos.size() <= 2) || (verb == "dump" && pos.size() <= 2) || (verb == "load" && pos.size() == 2);
  if (reader.Has("--help") || !ok) {
    std::cout << "usage: limbic param list [SERVICE] | limbic param dump [SERVICE] [--out FILE] |\n"
                 "       limbic param load FILE   [--timeout S] [--bus ADDR] [--curve-keys FILE]\n\n"
                 "list: every setting of every running service (or one), with its kind (live | option) and type.\n"
                 "dump: the live parameters as YAML, SERVICE: {NAME: VALUE, ...}; start-up options as comments.\n"
                 "load: sets every NAME: VALUE of a dump-shaped YAML file; each refused value (unknown name,\n"
                 "      invalid value, start-up option, service not running) is reported with the reason, and the\n"
                 "      exit status is 1 if any was refused (2 for a file that cannot be read or is not such YAML).\n\n"
                 "examples:\n"
                 "  limbic param list\n"
                 "  limbic param dump r1/planner --out planner.yaml\n"
                 "  limbic param load planner.yaml\n";
    return reader.Has("--help") ? 0 : 2;
  }
  const double timeout = flags::ParseFiniteNumber("--timeout", reader.Get("--timeout", "3"));
  if (timeout < 0.1 || timeout > 60.0) throw flags::FlagValueError("--timeout takes seconds in [0.1, 60]");
  Session session(reader.Get("--bus", DefaultBus()), "limbic-param",
                  bus::CurveKeysFromFlagOrEnvironment(reader.Get("--curve-keys", "")));
  session.Connect();
  ParamClient client(session);
  if (verb == "load") return ParamLoad(session, client, pos[1], timeout);
  std::vector<std::string> services;
  if (pos.size() == 2) {
    if (!session.topics().count("health/" + pos[1])) {
      std::cerr << "limbic param: no service '" << pos[1] << "' on the bus (no heartbeat on health/" << pos[1] << ")\n";
      return 1;
    }
    services.push_back(pos[1]);
  } else {
    services = LiveServices(session);
    if (services.empty()) {
      std::cerr << "limbic param: no running service on " << session.address() << "\n";
      return 1;
    }
  }
  return verb == "list" ? ParamList(client, services, timeout)
                        : ParamDump(client, services, timeout, reader.Get("--out", ""));
}

}  // namespace limbic::cli
