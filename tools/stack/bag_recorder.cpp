#include "tools/stack/bag_recorder.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <stdexcept>

#include "common/bus/local_bus.hpp"
#include "tools/bag/bag_reader.hpp"

namespace limbic::stack {
namespace {

// Runtime plumbing that is nobody's algorithm output: heartbeats, lockstep handshake, parameters.
bool IsPlumbing(const std::string& topic) {
  return topic == "clock" || topic.rfind("lockstep/", 0) == 0 || topic.rfind("health/", 0) == 0 ||
         topic.rfind("param/", 0) == 0 || topic == "bus/stats";
}

// The fields that measure how long a step took on the wall clock: a property of the run, not of the
// algorithm's result, so they are zeroed on both sides before comparing (everything else is compared
// byte for byte).
void ZeroMeasurements(std::vector<uint8_t>& bytes) {
  const std::string_view id = messages::IdentifierOf(bytes.data(), bytes.size());
  auto* table = flatbuffers::GetMutableRoot<flatbuffers::Table>(bytes.data());
  if (id == messages::Traits<msg::Path>::kIdentifier) {
    table->SetField<double>(msg::Path::VT_PLAN_TIME_S, 0.0, 0.0);
  } else if (id == messages::Traits<msg::VelocityState>::kIdentifier) {
    table->SetField<double>(msg::VelocityState::VT_COMPUTE_TIME_S, 0.0, 0.0);
  } else if (id == messages::Traits<msg::AffectState>::kIdentifier) {
    table->SetField<double>(msg::AffectState::VT_COMPUTE_TIME_S, 0.0, 0.0);
  }
}

struct RecordedMessage {
  std::string topic;
  std::vector<uint8_t> data;
  std::string source;
};

}  // namespace

runtime::ServiceDefinition BagRecorderService(std::shared_ptr<bag::BagWriter> writer) {
  return {"bag_recorder", "writes every message of an in-process run into an MCAP recording",
          [writer](runtime::ServiceContext& ctx) {
            auto now_ns = std::make_shared<uint64_t>(0);
            ctx.OnBind([writer, now_ns](bus::Node& node) {
              node.SubscribeAny("", [writer, now_ns](const bus::RawMessage& m) {
                if (m.topic == "clock" && m.header.stamp_ns() > 0) {
                  *now_ns = std::max(*now_ns, static_cast<uint64_t>(m.header.stamp_ns()));
                }
                writer->Write(m.topic, m.data, m.size, *now_ns);
              });
            });
            ctx.OnStop([writer] { writer->Close(); });
          },
          /*global=*/true};
}

ReplayReport ReplayService(const std::vector<std::string>& files, runtime::HostedService service) {
  service.options.mode = runtime::Mode::kLockstep;
  service.options.coordinate = false;
  service.options.bus = "local://replay";
  ReplayReport report;
  report.instance =
      runtime::InstanceName(service.definition.name, service.definition.global ? "" : service.options.robot);

  // The topics the service subscribes to, asked of an instance of it on a bus of its own.
  std::set<std::string> wanted_topics, output_topics;
  std::vector<RecordedMessage> recording;
  {
    bus::LocalBus probe_bus;
    runtime::Host probe(probe_bus, service.options, service.definition);
    const auto problems = bag::ForEachMessage(files, {}, [&](const bag::BagMessage& m) {
      const msg::Header* header = messages::HeaderOf(m.data.data());
      recording.push_back(
          {m.topic, {m.data.begin(), m.data.end()}, header && header->source() ? header->source()->str() : ""});
      if (probe.node().Wants(m.topic)) wanted_topics.insert(m.topic);
      return true;
    });
    if (!problems.empty()) throw std::runtime_error("recording damaged: " + problems.front());
  }
  // Where the service finished each tick in the run: its acknowledgements.
  std::vector<size_t> tick_ends;
  std::vector<const RecordedMessage*> expected;
  uint64_t incarnation = 0;
  for (size_t i = 0; i < recording.size(); ++i) {
    const auto& m = recording[i];
    if (m.topic == "lockstep/ack") {
      const auto* ack = flatbuffers::GetRoot<msg::LockstepAck>(m.data.data());
      if (ack->participant() && ack->participant()->str() == report.instance) tick_ends.push_back(i);
    } else if (m.source == report.instance && !IsPlumbing(m.topic)) {
      expected.push_back(&m);
      output_topics.insert(m.topic);
      if (incarnation == 0) incarnation = messages::HeaderOf(m.data.data())->incarnation();
    }
  }
  if (tick_ends.empty()) throw std::runtime_error("the recording holds no tick of " + report.instance);
  report.ticks = static_cast<int64_t>(tick_ends.size());
  report.expected = expected.size();
  report.input_topics.assign(wanted_topics.begin(), wanted_topics.end());
  report.output_topics.assign(output_topics.begin(), output_topics.end());

  // The replay: the service, a feeder publishing recorded bytes, and a node catching the outputs.
  service.options.incarnation = incarnation;  // the same header bytes as in the run
  bus::LocalBus bus;
  runtime::Host host(bus, service.options, service.definition);
  bus::Node feeder(bus, {.name = "replay"});
  bus::Node catcher(bus, {.name = "replay-catcher"});
  std::vector<std::vector<uint8_t>> produced;
  // One subscription for all (prefix subscriptions "r1/map" and "r1/map/patch" would both fire).
  catcher.SubscribeAny("", [&](const bus::RawMessage& m) {
    if (output_topics.count(m.topic)) produced.emplace_back(m.data, m.data + m.size);
  });
  const std::atomic<bool> stop{false};
  host.Start();
  auto settle = [&] {
    // Let the service handle everything fed so far (and run its steps) until nothing moves.
    for (bool progress = true; progress;) {
      bus.RunTimers();
      host.Pump(std::chrono::milliseconds(0), stop, &progress);
      progress = catcher.Poll(std::chrono::milliseconds(0), 100000) > 0 || progress;
    }
  };
  size_t next = 0;
  auto feed_until = [&](size_t end) {
    for (; next < end; ++next) {
      const auto& m = recording[next];
      if (m.source == report.instance || !wanted_topics.count(m.topic)) continue;
      feeder.SendRaw(m.topic, m.data.data(), m.data.size());
      ++report.inputs;
    }
    settle();
  };
  for (size_t end : tick_ends) feed_until(end);
  feed_until(recording.size());
  host.Finish();

  report.produced = produced.size();
  for (size_t i = 0; i < std::min(produced.size(), expected.size()); ++i) {
    std::vector<uint8_t> want = expected[i]->data;
    ZeroMeasurements(want);
    ZeroMeasurements(produced[i]);
    if (produced[i] == want) {
      ++report.matching;
    } else if (report.first_difference.empty()) {
      report.first_difference = "output " + std::to_string(i) + " on " + expected[i]->topic + " differs";
    }
  }
  if (report.first_difference.empty() && produced.size() < expected.size()) {
    report.first_difference =
        "only " + std::to_string(produced.size()) + " of " + std::to_string(expected.size()) + " outputs were produced";
  }
  return report;
}

}  // namespace limbic::stack
