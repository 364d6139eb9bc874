#include "services/recruiter/wiring.hpp"

#include <map>

#include "common/log/log.hpp"
#include "services/recruiter/convert.hpp"
#include "services/recruiter/recruiter_options.hpp"

namespace limbic::recruit {

runtime::ServiceDefinition RecruiterService() {
  return {
      "recruiter", "one robot's recruiter: the six-message protocol, SHAME, lease handshake, motion",
      [](runtime::ServiceContext& ctx) {
        struct State {
          AgentOptions options;
          std::unique_ptr<RobotAgent> agent;
          std::vector<Message> inbox;
          double state_period_s = 1.0;
          double next_state_s = 0.0;
          std::string last_states;
        };
        auto s = std::make_shared<State>();
        // Default id: the number in the robot name ("r3" -> 3).
        const std::string& robot = ctx.robot();
        if (robot.size() > 1 && robot[0] == 'r' && robot.find_first_not_of("0123456789", 1) == std::string::npos)
          s->options.id = static_cast<RobotId>(std::stoul(robot.substr(1)));
        LoadAgentOptions(ctx.config(), &s->options);
        ctx.config().Optional("state_period_s", &s->state_period_s);
        s->agent = std::make_unique<RobotAgent>(s->options);
        const std::string id = std::to_string(s->options.id);
        LIMBIC_LOG(kInfo) << "recruiter " << id << ": " << (s->options.uav ? "uav" : "ugv") << " at ("
                          << s->options.start.x << ", " << s->options.start.y << "), strategy "
                          << StrategyName(s->options.recruiter.strategy);

        auto tx = ctx.AddOutput<msg::RecruitMessage>("rc/tx/" + id);
        auto state_out = ctx.AddOutput<msg::RecruitState>("rc/state/" + id);
        ctx.OnMessage<msg::RecruitMessage>("rc/rx/" + id, [s](const bus::Message<msg::RecruitMessage>& m) {
          if (s->inbox.size() < 10000) s->inbox.push_back(FromMsg(m.msg));
        });
        ctx.Counter("shame", [s] { return s->agent->recruiter().shame().state().shame; });
        ctx.Counter("times_recruited", [s] { return double(s->agent->recruiter().counters().times_recruited); });
        ctx.Counter("malformed", [s] { return double(s->agent->recruiter().counters().malformed); });
        ctx.Counter("out_of_order", [s] { return double(s->agent->recruiter().counters().out_of_order); });

        ctx.AddStep({.outputs = {}}, [=](const runtime::TickInfo& tick) {
          for (const Message& m : s->inbox) s->agent->OnMessage(m, tick.time_s);
          s->inbox.clear();
          for (const Message& m : s->agent->Step(tick.time_s)) {
            tx->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, m); });
          }
          const AgentTelemetry t = s->agent->Telemetry(tick.time_s);
          const std::string states =
              t.responder_state + "/" + t.requester_state + "/" + t.last_decision + std::to_string(t.helps_received);
          if (states != s->last_states || tick.time_s + 1e-9 >= s->next_state_s) {
            s->last_states = states;
            s->next_state_s = tick.time_s + s->state_period_s;
            state_out->Publish(tick,
                               [&](flatbuffers::FlatBufferBuilder& fbb, auto header) { return ToMsg(fbb, header, t); });
          }
        });
      }};
}

runtime::ServiceDefinition RadioService() {
  runtime::ServiceDefinition d{
      "radio", "the radio between robots: loss, latency, range, unicast copies, counts",
      [](runtime::ServiceContext& ctx) {
        struct State {
          RadioOptions options;
          std::vector<RobotId> team;
          std::unique_ptr<Radio> radio;
          std::map<RobotId, Position> positions;
          std::vector<Message> pending;
          std::map<RobotId, std::shared_ptr<runtime::Output<msg::RecruitMessage>>> rx;
          uint64_t spoofed = 0;
          double next_stats_s = 0.0;
        };
        auto s = std::make_shared<State>();
        LoadRadioOptions(ctx.config(), &s->options, &s->team);
        if (s->team.empty()) throw config::ConfigError("radio: 'robots' (the ids of the team) is required");
        s->radio = std::make_unique<Radio>(s->options);
        LIMBIC_LOG(kInfo) << "radio: " << s->team.size() << " robots, loss " << s->options.loss << ", "
                          << (s->options.unicast ? "unicast" : "broadcast");
        for (RobotId id : s->team) {
          const std::string n = std::to_string(id);
          s->rx[id] = ctx.AddOutput<msg::RecruitMessage>("rc/rx/" + n);
          ctx.OnMessage<msg::RecruitMessage>("rc/tx/" + n, [s, id](const bus::Message<msg::RecruitMessage>& m) {
            Message message = FromMsg(m.msg);
            if (message.sender != id) {
              ++s->spoofed;  // a robot may only transmit as itself
              return;
            }
            if (s->pending.size() < 10000) s->pending.push_back(std::move(message));
          });
          ctx.OnMessage<msg::RecruitState>("rc/state/" + n, [s, id](const bus::Message<msg::RecruitState>& m) {
            s->positions[id] = {m.msg.x(), m.msg.y()};
          });
        }
        auto stats = ctx.AddOutput<msg::RadioStats>("rc/radio");
        ctx.Counter("transmissions", [s] { return double(s->radio->counts().total_attempts()); });
        ctx.Counter("spoofed", [s] { return double(s->spoofed); });
        ctx.AddStep({.outputs = {}}, [=](const runtime::TickInfo& tick) {
          std::vector<std::pair<RobotId, Position>> team;
          for (RobotId id : s->team) team.emplace_back(id, s->positions[id]);
          for (const Message& m : s->pending) s->radio->Transmit(m, tick.time_s, s->positions[m.sender], team);
          s->pending.clear();
          for (const Delivery& copy : s->radio->TakeDue(tick.time_s)) {
            s->rx.at(copy.receiver)->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, copy.message);
            });
          }
          if (tick.time_s + 1e-9 >= s->next_stats_s) {
            s->next_stats_s = tick.time_s + 1.0;
            stats->Publish(tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
              return ToMsg(fbb, header, s->radio->counts(), s->options);
            });
          }
        });
      }};
  d.global = true;
  return d;
}

}  // namespace limbic::recruit
