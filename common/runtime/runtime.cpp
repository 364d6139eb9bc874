#include "common/runtime/runtime.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "common/hash/fnv1a.hpp"
#include "common/log/log.hpp"
#include "common/runtime/liveness.hpp"

namespace limbic::runtime {

using Clock = std::chrono::steady_clock;

namespace {

// The process's liveness notifier (NOTIFY_SOCKET, set by `limbic launch` or systemd), shared by every service the
// process hosts; null without one. A malformed address is the supervisor's mistake: said once, and the services
// run on, their hangs then judged by bus heartbeats only.
LivenessNotifier* ProcessLiveness() {
  static const std::unique_ptr<LivenessNotifier> notifier = []() -> std::unique_ptr<LivenessNotifier> {
    try {
      return LivenessNotifier::FromEnvironment();
    } catch (const std::exception& e) {
      LIMBIC_LOG(kError) << e.what() << "; no local liveness pings";
      return nullptr;
    }
  }();
  return notifier.get();
}
}  // namespace

double ThreadCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

using namespace std::chrono_literals;

std::string InstanceName(const std::string& service, const std::string& robot) {
  return robot.empty() ? service : robot + "/" + service;
}

std::string RobotTopic(const std::string& robot, const std::string& name) {
  if (!name.empty() && name.front() == '/') return name.substr(1);
  return robot.empty() ? name : robot + "/" + name;
}

// ---------------------------------------------------------------------------------------------------
// Inputs

bool InputBase::HasTick(int64_t tick) const {
  for (auto it = buffer_.rbegin(); it != buffer_.rend(); ++it) {
    if (it->tick == tick) return true;
  }
  return false;
}

double InputBase::AgeS() const {
  if (buffer_.empty()) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(Clock::now() - last_arrival_).count();
}

void InputBase::Store(int64_t tick, const uint8_t* data, size_t size,
                      const std::shared_ptr<const std::vector<uint8_t>>* shared) {
  if (shared != nullptr && *shared != nullptr && (*shared)->data() == data && (*shared)->size() == size) {
    buffer_.push_back(Entry{tick, *shared});  // in process: the delivery's buffer, shared with other readers
  } else {
    buffer_.push_back(Entry{tick, std::make_shared<const std::vector<uint8_t>>(data, data + size)});
  }
  last_arrival_ = Clock::now();
  ++received_;
  // Bound memory if nobody ticks (e.g. a lockstep participant waiting to start).
  while (buffer_.size() > 64 && &buffer_.front() != selected_) buffer_.pop_front();
}

void InputBase::Select(Mode mode, int64_t tick) {
  selected_ = nullptr;
  if (buffer_.empty()) return;
  if (mode == Mode::kRealtime) {
    while (buffer_.size() > 1) buffer_.pop_front();
    selected_ = &buffer_.back();
    return;
  }
  // Lockstep: same-tick -> the (last) entry stamped `tick`; feedback -> the newest stamped <= tick-1.
  // Messages not tied to a tick (-1) count as earlier than any tick.
  const int64_t limit = timing_ == Timing::kSameTick ? tick : tick - 1;
  std::optional<size_t> chosen;
  for (size_t i = 0; i < buffer_.size(); ++i) {
    const int64_t t = buffer_[i].tick;
    if (timing_ == Timing::kSameTick ? t == limit : t <= limit) chosen = i;
  }
  if (!chosen) {
    // Nothing eligible: drop what can never be chosen again.
    while (!buffer_.empty() && buffer_.front().tick >= 0 && buffer_.front().tick < limit) buffer_.pop_front();
    return;
  }
  for (size_t i = 0; i < *chosen; ++i) buffer_.pop_front();
  selected_ = &buffer_.front();
}

// ---------------------------------------------------------------------------------------------------
// ServiceContext

Valid<std::string> OneOf(std::vector<std::string> choices) {
  std::string range;
  for (const auto& c : choices) range += (range.empty() ? "" : " | ") + c;
  return {range,
          [choices](const std::string& v) { return std::find(choices.begin(), choices.end(), v) != choices.end(); }};
}

ServiceContext::ServiceContext(const HostOptions& options, config::StrictMap* config)
    : options_(options), config_(config) {}

std::string ServiceContext::Topic(const std::string& name) const { return RobotTopic(options_.robot, name); }

void ServiceContext::AddStep(StepSpec spec, std::function<void(const TickInfo&)> fn) {
  steps_.push_back(Step{std::move(spec), std::move(fn)});
}

// ---------------------------------------------------------------------------------------------------
// Host

struct Host::StepState {
  std::string participant;
  std::vector<InputBase*> waits_for;
  std::vector<std::string> outputs;
  int64_t done_tick = -1;
};

struct Host::Coordinator {
  std::set<std::string> expected;
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> joined;
  // Probe (its header.seq) -> who answered it: the participants, and "" for the coordinator's own host. The run
  // starts on a probe every one of them answered (see Host::AnswerProbe); the last kProbesKept are kept.
  std::map<uint64_t, std::set<std::string>> answers;
  std::set<std::string> any_probe;  // joins that name no probe (a client that predates the field)
  static constexpr size_t kProbesKept = 4096;
  std::set<std::string> acked;
  bool running = false;
  bool finished = false;
  bool failed = false;
  bool stop_requested = false;
  std::string abort_reason;  // a participant's step failed: end the run now, without waiting for acks
  int64_t tick = -1;
  Clock::time_point next_probe{};
  Clock::time_point tick_started{};
  Clock::time_point last_stall_warning{};
  std::set<std::string> unknown_logged;
  std::set<std::string> stop_sources;  // who asked to end the run (HostOptions::stop_quorum)
};

Host::Host(zmq::context_t& zmq_context, HostOptions options, const ServiceDefinition& definition)
    : options_(std::move(options)), definition_(definition) {
  Configure();
  bus::NodeOptions node_options{.name = context_->instance(),
                                .latched_resend = options_.latched_resend,
                                .curve = options_.curve,
                                .incarnation = options_.incarnation};
  if (options_.shm) {
    std::string why;
    // A RouDi started beside this process (limbic launch) may still be reserving its memory: a few seconds.
    node_options.shm = bus::ShmRuntime::Connect(context_->instance(), &why, options_.shm_wait);
    node_options.shm_options.mirror_to_socket = !options_.shm_only;
    if (node_options.shm) {
      LIMBIC_LOG(kInfo) << "shared memory: on for this host's large messages"
                        << (options_.shm_only ? " (only: no socket copy for readers without it)"
                                              : " (and a socket copy for readers without it)");
    } else {
      LIMBIC_LOG(kWarning) << "shared memory asked for, not available: " << why << "; every topic uses the socket path";
    }
  }
  node_ = std::make_unique<bus::Node>(zmq_context, options_.bus, std::move(node_options));
  loop_buckets_.assign(std::size(kLoopTimeBucketsS) + 1, 0);
  watch_bus_ = true;
  Bind();
}

Host::Host(bus::LocalBus& local_bus, HostOptions options, const ServiceDefinition& definition)
    : options_(std::move(options)), definition_(definition) {
  Configure();
  node_ = std::make_unique<bus::Node>(local_bus, bus::NodeOptions{.name = context_->instance(),
                                                                  .latched_resend = options_.latched_resend,
                                                                  .incarnation = options_.incarnation});
  loop_buckets_.assign(std::size(kLoopTimeBucketsS) + 1, 0);
  Bind();
}

double RealtimePhase(const std::string& service, const std::string& robot) {
  size_t digits = robot.size();
  while (digits > 0 && robot[digits - 1] >= '0' && robot[digits - 1] <= '9') --digits;
  const size_t count = robot.size() - digits;
  // A hash spread 16 robots' timers at random: in the measured run four robots' scans fell within 3 ms of each
  // other, and their chains queued (issue 18: most of the 16-robot p99).
  if (count == 0 || count > 9) return static_cast<double>(hash::Fnv1a(InstanceName(service, robot)) % 1024) / 1024.0;
  const uint64_t k = std::stoull(robot.substr(digits));
  // The van der Corput sequence: robot k at the bits of k-1 mirrored about the binary point.
  double phase = 0.0, bit = 0.5;
  for (uint64_t n = k > 0 ? k - 1 : 0; n != 0; n >>= 1, bit /= 2) {
    if (n & 1) phase += bit;
  }
  phase += static_cast<double>(hash::Fnv1a(service) % 1024) / 1024.0 / 32.0;
  return phase >= 1.0 ? phase - 1.0 : phase;
}

Clock::time_point NextAtPhase(Clock::time_point t, Clock::duration period, Clock::duration phase) {
  if (period <= Clock::duration::zero()) return t;      // a speedup so large that a period rounds to 0 ns: no phases
  auto past = (t.time_since_epoch() - phase) % period;  // how far t is past the last instant at the phase
  if (past < Clock::duration::zero()) past += period;
  return past == Clock::duration::zero() ? t : t + (period - past);
}

void CheckHostOptions(const HostOptions& options) {
  // Written so that NaN fails too (every use of the period — timers, the dynamic window — would be undefined).
  if (!(options.period_s > 0) || !std::isfinite(options.period_s))
    throw config::ConfigError("--period must be a positive number of seconds");
  if (!(options.speedup > 0) || !std::isfinite(options.speedup))
    throw config::ConfigError("--speedup must be a positive number");
}

void Host::Configure() {
  if (options_.service.empty()) options_.service = definition_.name;
  if (definition_.global) options_.robot.clear();
  CheckHostOptions(options_);
  config_root_ =
      options_.config_path.empty() ? YAML::Node(YAML::NodeType::Map) : config::LoadFile(options_.config_path);
  for (const auto& assignment : options_.overrides) config::ApplyOverride(config_root_, assignment);
  const std::string source = options_.config_path.empty() ? "--set" : options_.config_path;
  config_ = std::make_unique<config::StrictMap>(config_root_, source);
  context_ = std::make_unique<ServiceContext>(options_, config_.get());
  definition_.setup(*context_);
  config_->Finish();  // every key of the service's YAML must have been used
}

Host::~Host() = default;

void Host::Bind() {
  bus::Node& node = *node_;
  const std::string instance = context_->instance();
  for (auto& bind : context_->outputs_) bind(node);
  for (auto& binding : context_->inputs_) binding.subscribe(node);
  for (auto& bind : context_->handlers_) bind(node);
  heartbeat_pub_ = node.Advertise<msg::Heartbeat>("health/" + instance);
  param_reply_pub_ = node.Advertise<msg::ParameterReply>("param/" + instance + "/reply");
  if (watch_bus_) {
    node.Subscribe<msg::Heartbeat>("health/" + instance, [this](const auto&) { bus_reached_ = true; });
  }
  node.Subscribe<msg::ParameterRequest>("param/" + instance,
                                        [this](const auto& request) { HandleParameterRequest(request); });
  // Process fault (issue 8): a kill_service naming this instance ("r1/planner") or this service ("planner",
  // on this robot if the command names one) ends the process at once, as kill -9 would; `limbic launch`
  // restarts it. In-process runs share one process: the whole process goes.
  node.Subscribe<msg::FaultCommand>("faults", [this](const bus::Message<msg::FaultCommand>& m) {
    if (m.msg.kind() != msg::FaultKind::KillService || m.msg.clear() || m.msg.service() == nullptr) return;
    const std::string target = m.msg.service()->str();
    const std::string robot = m.msg.robot() ? m.msg.robot()->str() : "";
    const bool named =
        target == context_->instance() || (target == options_.service && (robot.empty() || robot == options_.robot));
    if (!named) return;
    LIMBIC_LOG(kWarning) << "kill_service fault from " << m.header.source()->str() << ": exiting as if killed";
    std::fflush(nullptr);
    raise(SIGKILL);
  });
  for (auto& step : context_->steps_) {
    StepState state;
    state.participant = step.spec.name.empty() ? instance : instance + "." + step.spec.name;
    if (step.spec.waits_for.empty()) {
      for (auto& binding : context_->inputs_) {
        if (binding.input->timing() == Timing::kSameTick) state.waits_for.push_back(binding.input.get());
      }
    } else {
      state.waits_for = step.spec.waits_for;
    }
    state.outputs = step.spec.outputs;
    steps_.push_back(std::move(state));
  }
  // Ticks start on arrivals only when every step says what it reacts to: a tick runs all of a host's steps, and a
  // step without a trigger (hwio's sensing) keeps the pace of its timer.
  if (options_.mode == Mode::kRealtime && options_.realtime_ticks == RealtimeTicks::kInput) {
    for (const auto& step : context_->steps_) {
      if (!step.spec.realtime_trigger) {
        triggers_.clear();
        break;
      }
      triggers_.push_back(step.spec.realtime_trigger);
    }
  }
  if (options_.mode == Mode::kLockstep) {
    // Its welcomes say it reports every tick it finishes on its direct topics (RunReadyLockstepSteps).
    node.MarkLockstepTicks();
    join_pub_ = node.Advertise<msg::LockstepJoin>("lockstep/join");
    ack_pub_ = node.Advertise<msg::LockstepAck>("lockstep/ack");
    stop_request_pub_ = node.Advertise<msg::Clock>("lockstep/stop");
    if (options_.coordinate) {
      coordinator_ = std::make_unique<Coordinator>();
      coordinator_->expected.insert(options_.participants.begin(), options_.participants.end());
      if (coordinator_->expected.empty()) throw config::ConfigError("--coordinate needs --participants");
      clock_pub_ = node.Advertise<msg::Clock>("clock");
      node.Subscribe<msg::LockstepJoin>("lockstep/join", [this](const bus::Message<msg::LockstepJoin>& m) {
        auto& c = *coordinator_;
        const std::string who = m.msg.participant() ? m.msg.participant()->str() : "";
        if (!c.expected.count(who)) {
          if (c.unknown_logged.insert(who).second) {
            LIMBIC_LOG(kWarning) << "lockstep: '" << who << "' joined but is not a listed participant; ignored";
          }
          return;
        }
        std::vector<std::string> waits, outs;
        if (m.msg.waits_for())
          for (const auto* t : *m.msg.waits_for()) waits.push_back(t->str());
        if (m.msg.outputs())
          for (const auto* t : *m.msg.outputs()) outs.push_back(t->str());
        c.joined[who] = {waits, outs};
        if (m.msg.probe() == 0) {
          c.any_probe.insert(who);
        } else {
          c.answers[m.msg.probe()].insert(who);
          if (c.answers.size() > Coordinator::kProbesKept) c.answers.erase(c.answers.begin());
        }
      });
      node.Subscribe<msg::LockstepAck>("lockstep/ack", [this](const bus::Message<msg::LockstepAck>& m) {
        auto& c = *coordinator_;
        if (c.running && m.msg.tick() == c.tick && m.msg.participant()) c.acked.insert(m.msg.participant()->str());
      });
      node.Subscribe<msg::Clock>("lockstep/stop", [this](const bus::Message<msg::Clock>& m) {
        const bool failed = m.msg.error() && m.msg.error()->size() > 0;
        coordinator_->stop_sources.insert(m.header.source() ? m.header.source()->str() : "");
        if (failed || static_cast<int>(coordinator_->stop_sources.size()) >= options_.stop_quorum) {
          coordinator_->stop_requested = true;
        }
        if (failed && coordinator_->abort_reason.empty()) {
          coordinator_->abort_reason = m.header.source()->str() + ": " + m.msg.error()->str();
        }
      });
    }
  }
  // Subscribed last: once a lockstep probe arrives on `clock` (always through the broker, bus::kControlTopics),
  // every earlier subscription is registered at the broker, and every directory entry the broker sent before the
  // probe has arrived; the host answers once the direct links those entries name can deliver (AnswerProbe).
  node.Subscribe<msg::Clock>("clock", [this](const bus::Message<msg::Clock>& m) { HandleClock(m.msg); });
}

TickInfo Host::MakeTick(int64_t tick) const {
  TickInfo info;
  info.tick = tick;
  if (options_.mode == Mode::kLockstep) {
    info.time_s = static_cast<double>(tick) * options_.period_s;
    info.stamp_ns = std::llround(info.time_s * 1e9);
  } else {
    info.time_s = std::chrono::duration<double>(Clock::now() - started_).count() * options_.speedup;
    info.stamp_ns = bus::Node::WallNowNs();
  }
  return info;
}

void Host::RunStep(size_t index, const TickInfo& tick) {
  for (auto& binding : context_->inputs_) binding.input->Select(options_.mode, tick.tick);
  const auto begin = Clock::now();
  const double cpu_begin = ThreadCpuSeconds();
  try {
    context_->steps_[index].fn(tick);
    ++successes_since_failure_;
    consecutive_failures_ = 0;
  } catch (const std::exception& e) {
    // Never silent (issue 15, finding 7). Realtime: the service keeps running, Degraded with the error
    // text (Failing when it keeps throwing). Lockstep: an experiment must not record a broken run as
    // data, so the run ends here: a stop request goes to the coordinator before this tick's ack, and
    // the host exits with a failure status and the message (runtime::RunInProcess reports it).
    ++step_errors_;
    ++consecutive_failures_;
    successes_since_failure_ = 0;
    failure_reported_ = false;
    last_error_ =
        "step " + steps_[index].participant + " failed at tick " + std::to_string(tick.tick) + ": " + e.what();
    uint64_t suppressed = 0;
    if (step_error_log_.Allow(&suppressed)) {
      LIMBIC_LOG(kError) << last_error_ << (suppressed ? " (" + std::to_string(suppressed) + " more)" : "");
    }
    if (options_.mode == Mode::kLockstep && status_ == 0) {
      status_ = 3;
      context_->RequestRunStop();
      LIMBIC_LOG(kError) << "lockstep: ending the run: " << last_error_;
    }
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  step_cpu_s_ += std::max(0.0, ThreadCpuSeconds() - cpu_begin);
  loop_last_s_ = elapsed;
  loop_sum_s_ += elapsed;
  loop_max_s_ = std::max(loop_max_s_, elapsed);
  ++loop_count_;
  size_t bucket = 0;
  while (bucket < std::size(kLoopTimeBucketsS) && elapsed > kLoopTimeBucketsS[bucket]) ++bucket;
  ++loop_buckets_[bucket];
}

msg::ServiceState Host::health() const {
  if (run_stopped_) return msg::ServiceState::Stopping;
  if (consecutive_failures_ >= kFailingAfter) return msg::ServiceState::Failing;
  const bool step_failure = step_errors_ > 0 && (!failure_reported_ || successes_since_failure_ < kRecoveredAfter);
  if (step_failure || !context_->degraded_reason_.empty() || !context_->unreported_degraded_reason_.empty()) {
    return msg::ServiceState::Degraded;
  }
  return msg::ServiceState::Running;
}

std::string Host::health_reason() const {
  std::string reason;
  switch (health()) {
    case msg::ServiceState::Failing:
      reason = "failing (" + std::to_string(consecutive_failures_) + " ticks in a row): " + last_error_;
      break;
    case msg::ServiceState::Degraded:
      reason = context_->degraded_reason_;
      if (reason.empty() && !context_->unreported_degraded_reason_.empty()) {
        reason = context_->unreported_degraded_reason_ + " (since recovered)";
      }
      if (step_errors_ > 0 && (!failure_reported_ || successes_since_failure_ < kRecoveredAfter)) {
        reason += (reason.empty() ? "" : "; ") + last_error_;
      }
      break;
    default:
      break;
  }
  return reason;
}

void Host::RunRealtimeTick() {
  // A service whose required inputs (e.g. the world) have not arrived yet does not tick.
  for (const auto& binding : context_->inputs_) {
    if (binding.input->required() && !binding.input->HasAny()) return;
  }
  ++tick_;
  const TickInfo tick = MakeTick(tick_);
  const auto begin = Clock::now();
  for (size_t i = 0; i < steps_.size(); ++i) RunStep(i, tick);
  if (Clock::now() - begin > std::chrono::duration<double>(options_.period_s / options_.speedup)) ++overruns_;
}

void Host::SendJoins(uint64_t probe) {
  for (const auto& step : steps_) {
    join_pub_.Publish(0, -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      std::vector<std::string> waits;
      for (const auto* input : step.waits_for) waits.push_back(input->topic());
      return msg::CreateLockstepJoin(fbb, header, fbb.CreateString(step.participant), fbb.CreateVectorOfStrings(waits),
                                     fbb.CreateVectorOfStrings(step.outputs), probe);
    });
  }
}

// Why a join waits for the direct links (docs/protocol.md §13, "Lockstep"): on the direct path a producer's tick-0
// output goes from its own socket to each subscriber connected and subscribed there by then; a consumer that joined
// before that would wait for it for ever. A publisher announces its topics when it advertises them, before it
// subscribes `clock`, so the broker has sent every subscriber the directory entries of a participant before it sends
// that participant any probe; a probe reaches everyone through the broker behind the entries sent before it. So when
// every participant (and the coordinator's host, for the acknowledgements) answers one and the same probe k, each
// had the entries of every other participant when it answered, and answered only once the links they name were
// proven (bus::Node::DirectLinksReady): tick 0, sent after k, reaches everyone.
void Host::AnswerProbe() {
  if (probe_seen_ == probe_answered_ || started_lockstep_) return;
  std::string waiting;
  // The broker path as well: what this host sends there (`faults`, latched values, topics a fault moved) leaves its
  // PUB, which drops everything until the broker's subscription has reached it. The join itself, received, proves
  // that (joins take the broker path on every node, bus::kControlTopics); the host waits for its own heartbeat back
  // through the broker as well, sent every 20 ms until then, so that it knows before it answers (a faulter's tick-0
  // `faults` was lost so once, when a direct node's joins went direct).
  const bool broker_reached = bus_reached_ || !watch_bus_;
  const bool links_ready = node_->DirectLinksReady(&waiting);
  if (!broker_reached || !links_ready) {
    const auto now = Clock::now();
    // Pump sends the heartbeat when due.
    if (!broker_reached) next_heartbeat_ = std::min(next_heartbeat_, now + std::chrono::milliseconds(20));
    if (!broker_reached)
      waiting += (waiting.empty() ? "" : "; ") + std::string("its own heartbeat back from the broker");
    if (next_links_warning_ == Clock::time_point{}) {
      next_links_warning_ = now + options_.stall_warning;
    } else if (now >= next_links_warning_) {
      LIMBIC_LOG(kWarning) << "lockstep: not joining yet: waiting for " << waiting;
      next_links_warning_ = now + options_.stall_warning;
    }
    return;
  }
  probe_answered_ = probe_seen_;
  SendJoins(probe_answered_);
  if (coordinator_) {
    auto& answers = coordinator_->answers;
    answers[probe_answered_].insert("");
    if (answers.size() > Coordinator::kProbesKept) answers.erase(answers.begin());
  }
}

void Host::HandleClock(const msg::Clock& clock) {
  if (options_.mode != Mode::kLockstep) return;
  if (clock.probe()) {
    probe_seen_ = clock.header()->seq();
    AnswerProbe();
    return;
  }
  if (clock.stop()) {
    run_stopped_ = true;
    return;
  }
  const int64_t tick = clock.header()->tick();
  if (tick <= tick_) return;  // a re-sent clock we have already started
  tick_ = tick;
  started_lockstep_ = true;
}

bool Host::EarlierTicksArrived() {
  if (earlier_ticks_arrived_ == tick_ || tick_ == 0) return true;
  std::string waiting;
  bool arrived = true;
  for (const auto& binding : context_->inputs_) {
    if (binding.input->timing() != Timing::kPreviousTick) continue;
    arrived = node_->TickDone(binding.input->topic(), tick_ - 1, &waiting) && arrived;
  }
  if (arrived) {
    earlier_ticks_arrived_ = tick_;
    next_tick_report_warning_ = Clock::time_point{};
    return true;
  }
  const auto now = Clock::now();
  if (next_tick_report_warning_ == Clock::time_point{}) {
    next_tick_report_warning_ = now + options_.stall_warning;
  } else if (now >= next_tick_report_warning_) {
    LIMBIC_LOG(kWarning) << "lockstep: tick " << tick_ << " waiting for tick reports of " << waiting;
    next_tick_report_warning_ = now + options_.stall_warning;
  }
  return false;
}

bool Host::RunReadyLockstepSteps() {
  if (tick_ < 0) return false;
  // Every step reads every input (RunStep selects them all): none starts before the earlier-tick inputs are complete.
  if (!EarlierTicksArrived()) return false;
  bool progress = false;
  bool again = true;
  while (again) {
    again = false;
    for (size_t i = 0; i < steps_.size(); ++i) {
      StepState& step = steps_[i];
      if (step.done_tick >= tick_) continue;
      const bool ready = std::all_of(step.waits_for.begin(), step.waits_for.end(),
                                     [&](InputBase* in) { return in->HasTick(tick_); }) &&
                         std::all_of(context_->inputs_.begin(), context_->inputs_.end(),
                                     [](const auto& b) { return !b.input->required() || b.input->HasAny(); });
      if (!ready) continue;
      RunStep(i, MakeTick(tick_));
      step.done_tick = tick_;
      // A stop request goes out before the ack, so the coordinator has it when the tick completes and
      // never starts another one (the number of ticks does not depend on thread timing).
      PublishRunStopRequest();
      ack_pub_.Publish(MakeTick(tick_).stamp_ns, tick_, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
        return msg::CreateLockstepAck(fbb, header, fbb.CreateString(step.participant), tick_);
      });
      progress = again = true;
    }
  }
  // The tick's last word on each direct topic, behind its data (bus::Node::SendTickDone): a consumer of an output as
  // an earlier tick's value steps k+1 only once it has arrived, whichever pipe brought the clock first.
  if (progress && std::all_of(steps_.begin(), steps_.end(), [&](const StepState& s) { return s.done_tick >= tick_; })) {
    node_->SendTickDone(tick_);
  }
  PublishRunStopRequest();
  return progress;
}

void Host::PublishRunStopRequest() {
  if (!context_->run_stop_requested_) return;
  context_->run_stop_requested_ = false;
  // After a step failure (status_ != 0) the request carries the error: the coordinator then ends the
  // run at once, since participants waiting for the failed step's outputs would never acknowledge.
  const std::string error = status_ != 0 ? last_error_ : "";
  stop_request_pub_.Publish(0, tick_, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    return msg::CreateClockDirect(fbb, header, 0.1, true, true, false, error.empty() ? nullptr : error.c_str());
  });
}

namespace {

// The host this process runs on, for `limbic nodes` and `limbic topic info` (Heartbeat.host).
const std::string& HostName() {
  static const std::string name = [] {
    char buffer[256] = {};
    return gethostname(buffer, sizeof(buffer) - 1) == 0 ? std::string(buffer) : std::string("?");
  }();
  return name;
}

// Finds a cycle among same-tick dependencies; returns the participants on it (empty: none).
std::vector<std::string> FindCycle(const std::map<std::string, std::vector<std::string>>& edges) {
  std::map<std::string, int> color;  // 0 white, 1 grey, 2 black
  std::vector<std::string> stack, cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& n) {
    color[n] = 1;
    stack.push_back(n);
    auto it = edges.find(n);
    if (it != edges.end()) {
      for (const auto& m : it->second) {
        if (color[m] == 1) {
          auto pos = std::find(stack.begin(), stack.end(), m);
          cycle.assign(pos, stack.end());
          return true;
        }
        if (color[m] == 0 && visit(m)) return true;
      }
    }
    stack.pop_back();
    color[n] = 2;
    return false;
  };
  for (const auto& [n, _] : edges) {
    if (color[n] == 0 && visit(n)) return cycle;
  }
  return {};
}
}  // namespace

void Host::CoordinatorPoll() {
  auto& c = *coordinator_;
  const auto now = Clock::now();
  if (c.finished || c.failed) return;
  auto publish_clock = [&](int64_t tick, bool stop, bool probe) {
    const double t = tick >= 0 ? tick * options_.period_s : 0.0;
    clock_pub_.Publish(std::llround(t * 1e9), tick, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
      return msg::CreateClock(fbb, header, options_.period_s, true, stop, probe);
    });
  };
  if (!c.running) {
    AnswerProbe();  // the links this host's node waited for may have been proven since the probe came
    // A probe every participant and this host answered (joins that name none count for any).
    bool answered = false;
    for (auto it = c.answers.rbegin(); it != c.answers.rend() && !answered; ++it) {
      answered = it->second.count("") && std::all_of(c.expected.begin(), c.expected.end(), [&](const auto& who) {
                   return it->second.count(who) || c.any_probe.count(who);
                 });
    }
    if (c.joined.size() == c.expected.size() && answered) {
      // Same-tick dependency graph: producer -> consumer. A cycle would deadlock: refuse it.
      std::map<std::string, std::string> producer;
      for (const auto& [who, io] : c.joined)
        for (const auto& t : io.second) producer[t] = who;
      std::map<std::string, std::vector<std::string>> edges;
      for (const auto& [who, io] : c.joined) {
        for (const auto& t : io.first) {
          auto p = producer.find(t);
          if (p == producer.end()) {
            LIMBIC_LOG(kError) << "lockstep: '" << who << "' waits for '" << t
                               << "' in the same tick, but no participant publishes it every tick";
            c.failed = true;
            return;
          }
          edges[p->second].push_back(who);
        }
      }
      const auto cycle = FindCycle(edges);
      if (!cycle.empty()) {
        std::string text;
        for (const auto& n : cycle) text += n + " -> ";
        LIMBIC_LOG(kError) << "lockstep: undeclared feedback loop among same-tick inputs: " << text << cycle.front()
                           << " (declare one of these inputs Timing::kPreviousTick)";
        c.failed = true;
        return;
      }
      c.running = true;
      c.tick = 0;
      c.tick_started = now;
      LIMBIC_LOG(kInfo) << "lockstep: all " << c.expected.size() << " participants joined; starting";
      publish_clock(0, false, false);
    } else if (now >= c.next_probe) {
      publish_clock(-1, false, true);
      c.next_probe = now + options_.probe_period;
    }
    return;
  }
  if (!c.abort_reason.empty()) {
    c.finished = true;
    publish_clock(c.tick, true, false);
    LIMBIC_LOG(kError) << "lockstep: run ended at tick " << c.tick << " by a failing step of " << c.abort_reason;
    return;
  }
  if (c.acked.size() < c.expected.size()) {
    if (now - c.tick_started > options_.stall_warning && now - c.last_stall_warning > options_.stall_warning) {
      std::string missing;
      for (const auto& p : c.expected)
        if (!c.acked.count(p)) missing += " " + p;
      LIMBIC_LOG(kWarning) << "lockstep: tick " << c.tick << " waiting for:" << missing;
      c.last_stall_warning = now;
    }
    return;
  }
  c.acked.clear();
  if (c.stop_requested || (options_.max_ticks >= 0 && c.tick + 1 >= options_.max_ticks)) {
    c.finished = true;
    publish_clock(c.tick, true, false);
    LIMBIC_LOG(kInfo) << "lockstep: run finished after " << c.tick + 1 << " ticks";
    return;
  }
  ++c.tick;
  c.tick_started = now;
  publish_clock(c.tick, false, false);
}

void Host::PublishHeartbeat() {
  // Before the bus: the supervisor on this host hears it however slow the bus is.
  if (LivenessNotifier* liveness = ProcessLiveness()) liveness->Notify();
  const double uptime = std::chrono::duration<double>(Clock::now() - started_).count();
  heartbeat_pub_.Publish(bus::Node::WallNowNs(), tick_, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    std::vector<flatbuffers::Offset<msg::Counter>> counters;
    for (const auto& [name, fn] : context_->counters_)
      counters.push_back(msg::CreateCounterDirect(fbb, name.c_str(), fn()));
    counters.push_back(msg::CreateCounterDirect(fbb, "bus_drops", static_cast<double>(node_->TotalDrops())));
    counters.push_back(msg::CreateCounterDirect(fbb, "step_errors", static_cast<double>(step_errors_)));
    // CPU seconds its steps have used since start (their thread's CPU clock, so one process hosting many
    // services still tells them apart): the exploration task manager's resource feedback reads it.
    counters.push_back(msg::CreateCounterDirect(fbb, "step_cpu_s", step_cpu_s_));
    if (LivenessNotifier* liveness = ProcessLiveness()) {
      counters.push_back(msg::CreateCounterDirect(fbb, "liveness_failed", static_cast<double>(liveness->failed())));
    }
    // Shared memory (issue 23 item 2): what went through it, so a user sees that it carries the large messages.
    if (const bus::ShmEndpoint* shm = node_->shm()) {
      const bus::ShmCounters& c = shm->counters();
      counters.push_back(msg::CreateCounterDirect(fbb, "shm_active", shm->active() ? 1.0 : 0.0));
      counters.push_back(msg::CreateCounterDirect(fbb, "shm_sent", static_cast<double>(c.sent)));
      counters.push_back(msg::CreateCounterDirect(fbb, "shm_received", static_cast<double>(c.received)));
      counters.push_back(msg::CreateCounterDirect(fbb, "shm_fallbacks", static_cast<double>(c.fallbacks)));
      counters.push_back(msg::CreateCounterDirect(fbb, "shm_malformed", static_cast<double>(c.malformed)));
    }
    // Set by `limbic launch` for the processes it starts: how often this one was restarted.
    if (const char* restarts = std::getenv("LIMBIC_RESTARTS")) {
      counters.push_back(msg::CreateCounterDirect(fbb, "restarts", std::atof(restarts)));
    }
    std::vector<flatbuffers::Offset<msg::TopicStats>> topics;
    auto add = [&](const std::map<std::string, bus::TopicCounters>& map, const char* direction) {
      for (const auto& [topic, c] : map) {
        if (topic.rfind("health/", 0) == 0 || topic.rfind("lockstep/", 0) == 0) continue;
        topics.push_back(msg::CreateTopicStatsDirect(fbb, topic.c_str(), nullptr, direction, c.messages, c.bytes,
                                                     c.drops_malformed, c.drops_wrong_type, c.drops_oversize,
                                                     c.drops_gap, c.duplicates, c.last_seen_ns, 0, 0, 0, 0,
                                                     c.drops_invalid, nullptr, 0, c.drops_tail));
      }
    };
    add(node_->received(), "in");
    add(node_->sent(), "out");
    const double mean = loop_count_ ? loop_sum_s_ / loop_count_ : 0.0;
    const std::string reason = health_reason();
    return msg::CreateHeartbeatDirect(
        fbb, header, context_->instance().c_str(), health(), options_.mode == Mode::kLockstep ? "lockstep" : "realtime",
        tick_, uptime, loop_last_s_, mean, loop_max_s_, &loop_buckets_, overruns_, &counters, &topics,
        static_cast<int>(getpid()), reason.c_str(), last_error_.c_str(), step_errors_, HostName().c_str());
  });
  failure_reported_ = true;
  context_->unreported_degraded_reason_.clear();
}

void Host::HandleParameterRequest(const bus::Message<msg::ParameterRequest>& request) {
  const std::string name = request.msg.name() ? request.msg.name()->str() : "";
  bool ok = true;
  std::string error;
  std::vector<const Parameter*> shown;
  for (const auto& p : context_->parameters_) {
    if (name.empty() || p.name == name) shown.push_back(&p);
  }
  if (!name.empty() && shown.empty()) {
    ok = false;
    std::string known;
    for (const auto& p : context_->parameters_) known += (known.empty() ? "" : ", ") + p.name;
    error =
        "no parameter '" + name + "' in " + context_->instance() + (known.empty() ? "" : " (it has: " + known + ")");
  } else if (request.msg.set() && name.empty()) {
    ok = false;
    error = "a set names the parameter";
  } else if (request.msg.set()) {
    const std::string text = request.msg.value() ? request.msg.value()->str() : "";
    try {
      YAML::Node node;
      try {
        node = YAML::Load(text);
      } catch (const YAML::Exception&) {
        throw config::ConfigError("'" + name + "': cannot read '" + text + "' as YAML");
      }
      const std::string applied = shown.front()->set(node);
      LIMBIC_LOG(kInfo) << "parameter " << name << " set to " << applied << " (applied)";
    } catch (const std::exception& e) {
      ok = false;
      error = e.what();
      LIMBIC_LOG(kWarning) << "parameter set refused: " << error;
    }
  }
  param_reply_pub_.Publish(bus::Node::WallNowNs(), -1, [&](flatbuffers::FlatBufferBuilder& fbb, auto header) {
    std::vector<flatbuffers::Offset<msg::ParameterValue>> values;
    for (const auto* p : shown) {
      values.push_back(
          msg::CreateParameterValueDirect(fbb, p->name.c_str(), p->get().c_str(), p->type.c_str(), p->doc.c_str(),
                                          p->kind == ParameterKind::kLive ? "live" : "option", p->range.c_str()));
    }
    return msg::CreateParameterReplyDirect(fbb, header, request.msg.request_id(), ok, error.c_str(), &values);
  });
}

namespace {
// A service that cannot reach its bus says so this soon, and again this often while it keeps trying.
constexpr auto kBusWarningPeriod = std::chrono::seconds(4);
}  // namespace

void Host::CheckBusReached(Clock::time_point now) {
  if (!watch_bus_) return;
  if (bus_reached_) {
    if (next_bus_warning_ != Clock::time_point{}) {
      LIMBIC_LOG(kInfo) << "reached the bus at " << options_.bus;
      next_bus_warning_ = {};
    }
    watch_bus_ = false;
    return;
  }
  if (now - started_ < kBusWarningPeriod || now < next_bus_warning_) return;
  const double waited = std::chrono::duration<double>(now - started_).count();
  LIMBIC_LOG(kWarning) << "cannot reach the bus at " << options_.bus << " after " << std::llround(waited)
                       << " s (nothing came back through a broker: is limbic-bus running there, is the address "
                          "right?); still trying";
  next_bus_warning_ = now + kBusWarningPeriod;
}

void Host::Start() {
  log::SetThreadTag(context_->instance());
  started_ = Clock::now();
  period_ =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.period_s / options_.speedup));
  // Realtime timers fire at a phase of their own (RealtimePhase): hosts started in the same instant — a team in one
  // process, a launch file — would otherwise all tick at once every period and queue behind each other on the CPUs,
  // each robot's command waiting for every other robot's work. The phase counts on the monotonic clock itself, which
  // every thread and process on the machine shares: counted from each host's start, the threads' start-up (several
  // ms apart for a team) scattered the spread phases again.
  phase_ = std::chrono::duration_cast<Clock::duration>(period_ * RealtimePhase(options_.service, options_.robot));
  next_tick_ = NextAtPhase(started_ + period_, period_, phase_);
  next_heartbeat_ = started_;
  for (auto& fn : context_->on_start_) fn(MakeTick(-1));
}

bool Host::Pump(std::chrono::milliseconds max_wait, const std::atomic<bool>& stop, bool* progress) {
  if (progress) *progress = false;
  if (stop.load() || context_->stop_requested_) return false;
  if (options_.mode == Mode::kLockstep && run_stopped_ && options_.exit_on_stop) return false;
  if (coordinator_ && coordinator_->failed) {
    status_ = 2;
    return false;
  }
  auto now = Clock::now();
  Clock::time_point wake = next_heartbeat_;
  if (options_.mode == Mode::kRealtime) wake = std::min(wake, next_tick_);
  if (coordinator_ && !coordinator_->running) wake = std::min(wake, coordinator_->next_probe);
  // Rounded up: zmq_poll counts whole milliseconds, and a remainder truncated to 0 ms returned at once, so every host
  // spun through up to 1 ms before each tick and heartbeat (60 % of a 16-robot realtime team's CPU, holding a core
  // that a chain's mapper or controller was waiting for). Waking up to 1 ms late is far inside the period.
  auto timeout = std::chrono::ceil<std::chrono::milliseconds>(wake - now);
  // Lockstep waits for messages only: every step is started by one (clock, inputs, acks).
  const int handled = node_->Poll(std::clamp(timeout, 0ms, max_wait));
  bool did = handled > 0;
  if (options_.mode == Mode::kRealtime) {
    PumpRealtime(&did);
  } else {
    // Drain everything that is ready without sleeping: lockstep runs as fast as the CPUs allow.
    bool inbox_empty = handled == 0;  // known empty: no need to look again before a step runs
    while (true) {
      if (!started_lockstep_) AnswerProbe();
      const bool stepped = RunReadyLockstepSteps();
      if (coordinator_) CoordinatorPoll();
      if (stepped) {
        did = true;
        inbox_empty = false;
        continue;
      }
      if (inbox_empty || node_->Poll(0ms) == 0) break;
      did = true;
    }
  }
  if (Clock::now() >= next_heartbeat_) {
    PublishHeartbeat();
    next_heartbeat_ = Clock::now() + options_.heartbeat_period;
  }
  CheckBusReached(Clock::now());
  if (progress) *progress = did;
  return true;
}

void Host::PumpRealtime(bool* did) {
  const auto now = Clock::now();
  if (triggers_.empty()) {
    if (now < next_tick_) return;
    RunRealtimeTick();
    *did = true;
    next_tick_ += period_;
    // Fell behind: skip, don't burst, and keep the phase.
    if (Clock::now() > next_tick_ + period_) next_tick_ = NextAtPhase(Clock::now(), period_, phase_);
    return;
  }
  uint64_t arrivals = 0;
  for (const InputBase* trigger : triggers_) arrivals += trigger->received();
  if (arrivals != trigger_arrivals_seen_) {
    // A trigger arrived: tick now, but not sooner than half a period after the last tick — a burst of arrivals (a
    // faster sensor, a backlog after a stall) must not run the steps faster than the period their algorithms assume
    // (the dynamic window's reachable velocities are per period).
    next_tick_ = std::min(next_tick_, std::max(now, last_tick_at_ + period_ / 2));
  }
  if (now < next_tick_) return;
  trigger_arrivals_seen_ = arrivals;
  last_tick_at_ = now;
  RunRealtimeTick();
  *did = true;
  // Without an arrival, the timer after 1.5 periods: later than the next arrival of a trigger on the same period
  // (whose phase jitters), soon enough that a service whose data stopped notices it.
  next_tick_ = now + period_ + period_ / 2;
}

int Host::Finish() {
  for (auto& fn : context_->on_stop_) fn();
  PublishHeartbeat();
  return status_;
}

int Host::Run(const std::atomic<bool>& stop) {
  Start();
  while (Pump(100ms, stop)) {
  }
  return Finish();
}

}  // namespace limbic::runtime
