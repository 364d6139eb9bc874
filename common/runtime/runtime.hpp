// The service host. A service is written once — a setup function that declares its inputs, outputs,
// parameters and tick steps — and runs either as its own process (RunServiceMain) or as a thread of a
// shared process over inproc:// (Host), under one of two schedulers:
//
//  realtime  wall clock; every period each step runs with the latest value of each input — or, for a service
//            that names a trigger input (mapper: scan, controller: obstacles), as that input arrives
//            (RealtimeTicks), so a command follows its scan by the stack's work, not by the phase of two timers.
//  lockstep  a coordinator owns the clock; tick k+1 starts only when every participant finished tick k.
//            A step waits for its same-tick inputs stamped k; previous-tick (feedback) inputs give the
//            newest value stamped <= k-1. Inputs are chosen by the tick in their header, never by arrival
//            order, so runs are bit-identical for a seed whatever the processes, hosts and transports.
#pragma once

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common/bus/bus.hpp"
#include "common/config/config.hpp"

namespace limbic::runtime {

enum class Mode { kRealtime, kLockstep };
// Realtime: what starts a tick of a service whose step names a trigger input (StepSpec::realtime_trigger).
//  kInput  the trigger's arrival (the mapper on a scan, the controller on its obstacles), so a command follows its
//          scan by the stack's work instead of by the phase between independent timers; its own timer only when
//          the trigger stays away (1.5 periods), so a service whose data stopped still ticks and can see it is stale.
//  kTimer  every period on the wall clock, whatever arrived (every service without a trigger does this anyway).
enum class RealtimeTicks { kInput, kTimer };
enum class Timing {
  kSameTick,      // produced upstream in the same tick: awaited
  kPreviousTick,  // feedback: the newest value from an earlier tick
};

// Upper bounds (s) of the loop-time histogram in heartbeats; a final +Inf bucket follows.
inline constexpr double kLoopTimeBucketsS[] = {0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5};

std::string InstanceName(const std::string& service, const std::string& robot);
std::string RobotTopic(const std::string& robot, const std::string& name);

struct HostOptions {
  std::string service;       // e.g. "mapper"
  std::string robot = "r1";  // topic namespace; "" for global services
  std::string bus = "ipc:///tmp/limbic/bus";
  Mode mode = Mode::kRealtime;
  double period_s = 0.1;               // T
  double speedup = 1.0;                // realtime: simulated seconds per wall second
  std::string config_path;             // YAML options of this service ("" = defaults)
  std::vector<std::string> overrides;  // key.path=value
  // Lockstep coordination (one host of a run does it; by convention the simulator).
  bool coordinate = false;
  std::vector<std::string> participants;
  int64_t max_ticks = -1;  // stop after this many ticks (-1: until asked)
  // Lockstep coordinator: how many distinct sources must ask to end the run before it ends (a team of N
  // robots: every robot's mission, issue 18). A request that carries a step error ends it at once.
  int stop_quorum = 1;
  std::chrono::milliseconds stall_warning{5000};  // name the laggards when a tick takes this long
  std::chrono::milliseconds probe_period{50};     // coordinator: re-probe for joins this often
  bool exit_on_stop = true;
  bus::CurveClientKeys curve;
  std::chrono::milliseconds heartbeat_period{1000};
  // The bus node re-sends its latched values this often (bus::NodeOptions::latched_resend).
  std::chrono::milliseconds latched_resend{1000};
  uint64_t incarnation = 0;  // of the host's bus node; 0 = random (see bus::NodeOptions)
  // Large messages through shared memory on this host (common/bus/shm.hpp; --shm or LIMBIC_SHM=1, which
  // `limbic launch` sets with `shared_memory: true`). Without a RouDi the host says so once and uses the socket path.
  bool shm = false;
  // ... and not also over the sockets (--shm-only, LIMBIC_SHM=only): readers without shared memory get none of them.
  bool shm_only = false;
  std::chrono::milliseconds shm_wait{3000};  // for a RouDi that is still starting, before the socket path only
  RealtimeTicks realtime_ticks = RealtimeTicks::kInput;  // --realtime-ticks input|timer
};

// Realtime: where in each period a host's timer fires, as a fraction of the period. A team's robots ("r1" ... "rN":
// a name ending in its number k) are spread evenly, robot k at the bit-reversed fraction of k-1 (0, 1/2, 1/4, 3/4,
// 1/8 ...: any first N robots as far apart as N slots allow, exactly 1/N for N a power of two), and a robot's services
// within 1/32 of a period after it by a hash of the service's name; so one robot's sensor-to-command chain does not
// queue behind another's on the CPUs and the broker. Other hosts (global services, robots named otherwise): a hash of
// the instance name. The same for the same names every run.
double RealtimePhase(const std::string& service, const std::string& robot);

// CPU time of the calling thread (s); 0 where the clock is not available. A system call on Linux (no vDSO path for
// CLOCK_THREAD_CPUTIME_ID): about a microsecond on a VM.
double ThreadCpuSeconds();

// The first instant at or after `t` that lies `phase` past a multiple of `period` on the monotonic clock (which every
// thread and process of the machine shares, so hosts started at different moments keep their phases apart).
std::chrono::steady_clock::time_point NextAtPhase(std::chrono::steady_clock::time_point t,
                                                  std::chrono::steady_clock::duration period,
                                                  std::chrono::steady_clock::duration phase);

// Throws config::ConfigError for options no host can run with (a period or speedup that is not a positive
// number). Host's constructor and `--check` both ask it.
void CheckHostOptions(const HostOptions& options);

struct TickInfo {
  int64_t tick = 0;
  double time_s = 0.0;   // simulated (lockstep) or scaled monotonic (realtime) seconds
  int64_t stamp_ns = 0;  // header stamp for outputs
};

class ServiceContext;
class Host;

// Common part of typed inputs: buffered payloads with the tick from their header.
class InputBase {
 public:
  virtual ~InputBase() = default;
  const std::string& topic() const { return topic_; }
  Timing timing() const { return timing_; }
  bool required() const { return required_; }
  // Has a value with exactly this tick arrived?
  bool HasTick(int64_t tick) const;
  // Any value at all?
  bool HasAny() const { return !buffer_.empty(); }
  // Wall-clock age of the newest message in seconds (infinity if none).
  double AgeS() const;
  uint64_t received() const { return received_; }
  // Called by the host's subscription for each verified message on the topic. `shared` (a LocalBus's
  // delivery, which holds `data`) is kept instead of a copy.
  void Store(int64_t tick, const uint8_t* data, size_t size,
             const std::shared_ptr<const std::vector<uint8_t>>* shared = nullptr);
  // Chooses the entry a step sees at `tick` (lockstep) or the newest (realtime); prunes old ones.
  void Select(Mode mode, int64_t tick);

 protected:
  struct Entry {
    int64_t tick;
    std::shared_ptr<const std::vector<uint8_t>> bytes;  // never null
  };
  InputBase(std::string topic, Timing timing, bool required)
      : topic_(std::move(topic)), timing_(timing), required_(required) {}
  const Entry* selected() const { return selected_; }

 private:
  friend class Host;
  std::string topic_;
  Timing timing_;
  bool required_;
  std::deque<Entry> buffer_;
  const Entry* selected_ = nullptr;
  std::chrono::steady_clock::time_point last_arrival_{};
  uint64_t received_ = 0;
};

template <typename T>
class Input : public InputBase {
 public:
  Input(std::string topic, Timing timing, bool required) : InputBase(std::move(topic), timing, required) {}
  // The message this tick sees, or nullptr if none yet.
  const T* Get() const { return selected() ? flatbuffers::GetRoot<T>(selected()->bytes->data()) : nullptr; }
  const T* operator->() const { return Get(); }
  explicit operator bool() const { return Get() != nullptr; }
  int64_t tick() const { return selected() ? selected()->tick : -1; }
};

// A typed output bound to the host's node.
template <typename T>
class Output {
 public:
  Output() = default;
  // `build(fbb, header)` returns flatbuffers::Offset<T>; the header carries the current tick and stamp.
  template <typename Build>
  void Publish(const TickInfo& tick, Build&& build) {
    publisher_.Publish(tick.stamp_ns, tick.tick, std::forward<Build>(build));
  }
  const std::string& topic() const { return topic_; }

 private:
  friend class ServiceContext;
  friend class Host;
  std::string topic_;
  bool latched_ = false;
  bus::Publisher<T> publisher_;
};

// A start-up option is read once (YAML, --set) and fixed for the life of the process; a live parameter
// can be changed while the service runs (`limbic param set`): it is validated, then applied to the
// algorithm object (issue 15, STYLE.md item 13). The runtime owns the stored value of both, so nothing
// a service registers can dangle (a pointer to a local once crashed hwio on `param get`).
enum class ParameterKind { kOption, kLive };

// The values a setting accepts: `accepts` decides, `range` says it to a person ("or | additive",
// "[0.05, 5]"). An empty `accepts` takes any value of the type. Numbers must also be finite.
template <typename V>
struct Valid {
  std::string range;
  std::function<bool(const V&)> accepts;
};
Valid<std::string> OneOf(std::vector<std::string> choices);
template <typename V>
Valid<V> InRange(V low, V high) {
  std::ostringstream text;
  text << "[" << low << ", " << high << "]";
  return {text.str(), [low, high](const V& v) { return v >= low && v <= high; }};
}
template <typename V>
Valid<V> AtLeast(V low) {
  std::ostringstream text;
  text << ">= " << low;
  return {text.str(), [low](const V& v) { return v >= low; }};
}
template <typename V>
Valid<V> Positive() {
  return {"> 0", [](const V& v) { return v > V{}; }};
}

// One setting as `limbic param get` and `--help` list it.
struct Parameter {
  std::string name;
  std::string type;
  std::string doc;
  ParameterKind kind = ParameterKind::kOption;
  std::string range;  // "" = any value of the type
  std::function<std::string()> get;
  // Live: parses, validates and applies a new value and returns it as applied. Throws
  // config::ConfigError with a message a person can act on (the valid range, or how to change an option).
  std::function<std::string(const YAML::Node&)> set;
};

struct StepSpec {
  std::string name;                   // "" -> the instance name; else instance.name
  std::vector<InputBase*> waits_for;  // empty: every same-tick input of the service
  std::vector<std::string> outputs;   // topics it publishes every tick (lockstep graph check)
  // Realtime with RealtimeTicks::kInput: the input whose arrival starts the host's tick (see RealtimeTicks).
  // Lockstep ignores it (every step is started by its clock and inputs).
  InputBase* realtime_trigger = nullptr;
};

// What a service's setup function sees. Declarations only; the host binds them to the bus.
class ServiceContext {
 public:
  ServiceContext(const HostOptions& options, config::StrictMap* config);

  const HostOptions& options() const { return options_; }
  Mode mode() const { return options_.mode; }
  double period_s() const { return options_.period_s; }
  const std::string& robot() const { return options_.robot; }
  std::string instance() const { return InstanceName(options_.service, options_.robot); }
  // `name` inside this robot's namespace ("scan" -> "r1/scan"); names starting with '/' are global.
  std::string Topic(const std::string& name) const;
  config::StrictMap& config() { return *config_; }

  template <typename T>
  std::shared_ptr<Input<T>> AddInput(const std::string& topic, Timing timing, bool required = false) {
    auto input = std::make_shared<Input<T>>(topic, timing, required);
    inputs_.push_back(Binding{input, [input](bus::Node& node) {
                                node.Subscribe<T>(input->topic(), [raw = input.get()](const bus::Message<T>& m) {
                                  raw->Store(m.header.tick(), m.data, m.size, m.shared);
                                });
                              }});
    return input;
  }

  template <typename T>
  std::shared_ptr<Output<T>> AddOutput(const std::string& topic, bool latched = false) {
    auto output = std::make_shared<Output<T>>();
    output->topic_ = topic;
    output->latched_ = latched;
    outputs_.push_back(
        [output](bus::Node& node) { output->publisher_ = node.Advertise<T>(output->topic_, output->latched_); });
    return output;
  }

  // A handler called as each message arrives (not tick-driven: commands, faults, goals in realtime).
  template <typename T>
  void OnMessage(const std::string& topic, std::function<void(const bus::Message<T>&)> handler) {
    handlers_.push_back([topic, handler = std::move(handler)](bus::Node& node) { node.Subscribe<T>(topic, handler); });
  }

  // A step: called once per tick. In lockstep it is a participant that acknowledges each tick.
  void AddStep(StepSpec spec, std::function<void(const TickInfo&)> fn);
  // Called once when the host starts (after binding to the bus), e.g. to publish latched values.
  void OnStart(std::function<void(const TickInfo&)> fn) { on_start_.push_back(std::move(fn)); }
  // Called once on clean shutdown.
  void OnStop(std::function<void()> fn) { on_stop_.push_back(std::move(fn)); }
  // Called with the host's bus node once it is bound: for tools that handle raw payloads of any type
  // (the in-process recorder). Services use inputs, outputs and OnMessage.
  void OnBind(std::function<void(bus::Node&)> fn) { handlers_.push_back(std::move(fn)); }

  // A start-up option: `name` from the service's YAML/--set, else `default_value`; refused at start
  // (config::ConfigError) when `valid` rejects it. Returns the value; a live set of it is refused with
  // how to change it (restart with --set name=VALUE).
  template <typename V>
  V Option(const std::string& name, V default_value, const std::string& doc, Valid<V> valid = {});
  // A live parameter: its initial value as for Option (returned). On `limbic param set` the new value
  // is validated, then `apply(value)` reaches the algorithm object (on the service's thread, between
  // steps); if apply throws, the set is refused and the old value stays.
  template <typename V>
  V LiveParam(const std::string& name, V default_value, const std::string& doc, Valid<V> valid,
              std::function<void(const V&)> apply);
  // Service-specific numbers for the heartbeat (and so for Prometheus).
  void Counter(const std::string& name, std::function<double()> value) {
    counters_.emplace_back(name, std::move(value));
  }
  // Health (issue 15). A service that keeps working with a problem — a non-finite state it refused and
  // replaced with its last good one, an input it cannot use — says so: the heartbeat then carries
  // state Degraded with `reason` (the demo's status line, `limbic nodes`, limbic_service_degraded).
  // Clear it when the problem is gone. A step that throws is reported by the host itself. A problem that
  // lasted less than a heartbeat period is still reported by the next heartbeat (as "... (since
  // recovered)"): one refused cycle must not vanish between two heartbeats.
  void SetDegraded(const std::string& reason) {
    degraded_reason_ = reason.empty() ? "degraded" : reason;
    unreported_degraded_reason_ = degraded_reason_;
  }
  void ClearDegraded() { degraded_reason_.clear(); }
  // The per-cycle report of an algorithm object's `fault()` (empty: this cycle was good): degraded with
  // "who: fault", or cleared. One place for what every service's step does after its algorithm ran.
  void ReportFault(const std::string& who, const std::string& fault) {
    if (fault.empty())
      ClearDegraded();
    else
      SetDegraded(who + ": " + fault);
  }
  const std::string& degraded_reason() const { return degraded_reason_; }
  // Requests a clean stop of this host (e.g. a mission that has finished).
  void RequestStop() { stop_requested_ = true; }
  // Lockstep: ask the coordinator to end the run after this tick.
  void RequestRunStop() { run_stop_requested_ = true; }

  const std::vector<Parameter>& parameters() const { return parameters_; }

 private:
  friend class Host;
  struct Binding {
    std::shared_ptr<InputBase> input;
    std::function<void(bus::Node&)> subscribe;
  };
  struct Step {
    StepSpec spec;
    std::function<void(const TickInfo&)> fn;
  };

  HostOptions options_;
  config::StrictMap* config_;
  std::vector<Binding> inputs_;
  std::vector<std::function<void(bus::Node&)>> outputs_;
  std::vector<std::function<void(bus::Node&)>> handlers_;
  std::vector<Step> steps_;
  std::vector<std::function<void(const TickInfo&)>> on_start_;
  std::vector<std::function<void()>> on_stop_;
  std::vector<Parameter> parameters_;
  std::vector<std::pair<std::string, std::function<double()>>> counters_;
  bool stop_requested_ = false;
  bool run_stop_requested_ = false;
  std::string degraded_reason_;
  std::string unreported_degraded_reason_;  // the last SetDegraded until a heartbeat has carried it
};

// A service: its name, one line on what it does, and the setup function that declares it.
struct ServiceDefinition {
  std::string name;
  std::string summary;
  std::function<void(ServiceContext&)> setup;
  bool global = false;  // one instance for all robots (simulator, metrics): no robot namespace
  // Printed by --help after the Settings table: settings the service reads from its YAML itself
  // (nested sections such as hwio's), which the table cannot list.
  std::string more_help;
};

// Hosts one service on one bus node. Not thread-safe; one thread per Host.
class Host {
 public:
  Host(zmq::context_t& context, HostOptions options, const ServiceDefinition& definition);
  // On an in-memory bus shared with the other hosts of this thread (options.bus is then only a label).
  Host(bus::LocalBus& bus, HostOptions options, const ServiceDefinition& definition);
  ~Host();
  // Runs until `stop` becomes true, the service asks to stop, or (lockstep) the run ends.
  // Returns 0 on a clean stop, non-zero on failure.
  int Run(const std::atomic<bool>& stop);
  ServiceContext& context() { return *context_; }
  bus::Node& node() { return *node_; }

  // Cooperative hosting: Run() is Start(), then Pump() until it returns false, then Finish(). A
  // caller that runs several hosts (and the broker) on one thread calls these itself with
  // `max_wait` 0 (runtime::RunInProcess). Pump handles what has arrived, waiting up to `max_wait`
  // (less if a timer is due) only when nothing had; it runs every step that is ready and sets
  // *progress when it handled a message or ran a step. It returns false when the host should stop.
  void Start();
  bool Pump(std::chrono::milliseconds max_wait, const std::atomic<bool>& stop, bool* progress = nullptr);
  int Finish();  // stop hooks and a last heartbeat; the exit status Run would return
  // Lockstep: the tick in progress (the coordinator: the last tick it started); -1 before the first.
  int64_t tick() const { return tick_; }

  // Health as the heartbeat reports it (issue 15): Running (ok), Degraded (the service said so, or a
  // step threw recently) or Failing (steps threw kFailingAfter ticks in a row).
  msg::ServiceState health() const;
  std::string health_reason() const;
  // The last step failure ("step r1/controller failed at tick 12: ..."), "" if none ever.
  const std::string& last_error() const { return last_error_; }
  uint64_t step_errors() const { return step_errors_; }
  // Consecutive failing ticks after which a realtime service reports Failing instead of Degraded.
  static constexpr int kFailingAfter = 10;
  // Successful ticks (after a heartbeat has reported the failure) before a step failure stops counting
  // as Degraded.
  static constexpr int kRecoveredAfter = 10;

 private:
  struct StepState;
  struct Coordinator;

  void Configure();  // options and YAML: everything up to the bus node
  void Bind();
  void RunRealtimeTick();
  void PumpRealtime(bool* did);
  void HandleClock(const msg::Clock& clock);
  bool RunReadyLockstepSteps();
  // Lockstep: have the earlier-tick (Timing::kPreviousTick) inputs' tick reports for tick_ - 1 arrived from every
  // direct publisher that marks ticks (bus::Node::TickDone)? Warns, naming them, when that takes stall_warning.
  bool EarlierTicksArrived();
  int64_t earlier_ticks_arrived_ = -1;  // the last tick for which they had
  std::chrono::steady_clock::time_point next_tick_report_warning_{};
  void PublishRunStopRequest();
  void RunStep(size_t index, const TickInfo& tick);
  void PublishHeartbeat();
  void CheckBusReached(std::chrono::steady_clock::time_point now);
  void HandleParameterRequest(const bus::Message<msg::ParameterRequest>& request);
  void SendJoins(uint64_t probe);
  // Lockstep, before the run: answers the last probe received once every direct link of this host's node can
  // deliver (bus::Node::DirectLinksReady): a join from each step, and the coordinator's own readiness.
  void AnswerProbe();
  TickInfo MakeTick(int64_t tick) const;
  void CoordinatorPoll();

  HostOptions options_;
  ServiceDefinition definition_;
  YAML::Node config_root_;
  std::unique_ptr<config::StrictMap> config_;
  std::unique_ptr<ServiceContext> context_;
  std::unique_ptr<bus::Node> node_;
  std::vector<StepState> steps_;
  std::unique_ptr<Coordinator> coordinator_;
  bus::Publisher<msg::Heartbeat> heartbeat_pub_;
  bus::Publisher<msg::LockstepJoin> join_pub_;
  bus::Publisher<msg::LockstepAck> ack_pub_;
  bus::Publisher<msg::Clock> clock_pub_;
  bus::Publisher<msg::Clock> stop_request_pub_;
  bus::Publisher<msg::ParameterReply> param_reply_pub_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point next_tick_;
  std::chrono::steady_clock::duration phase_{};  // realtime timer: RealtimePhase's share of period_
  std::chrono::steady_clock::time_point next_heartbeat_;
  // Realtime ticks started by arrivals (RealtimeTicks::kInput): the trigger inputs, their arrivals at the last tick.
  std::vector<const InputBase*> triggers_;
  uint64_t trigger_arrivals_seen_ = 0;
  std::chrono::steady_clock::time_point last_tick_at_{};
  int64_t tick_ = -1;         // realtime: ticks done; lockstep: tick in progress
  bool run_stopped_ = false;  // lockstep: coordinator said stop
  bool started_lockstep_ = false;
  uint64_t probe_seen_ = 0;      // lockstep: header.seq of the last probe received (0: none yet)
  uint64_t probe_answered_ = 0;  // ... and of the last one answered
  std::chrono::steady_clock::time_point next_links_warning_{};
  int status_ = 0;
  std::chrono::steady_clock::duration period_{};
  // Loop-time statistics over all steps.
  double loop_last_s_ = 0, loop_sum_s_ = 0, loop_max_s_ = 0;
  uint64_t loop_count_ = 0, overruns_ = 0;
  double step_cpu_s_ = 0;  // CPU time of the steps (heartbeat counter step_cpu_s)
  std::vector<uint64_t> loop_buckets_;
  uint64_t step_errors_ = 0;
  log::RateLimiter step_error_log_;
  // Reaching the bus (ZeroMQ nodes): proven by this host's own heartbeat coming back through the
  // broker; until then a warning every kBusWarningPeriod (issue 15 item 4). An in-memory bus is always reached.
  bool watch_bus_ = false;
  bool bus_reached_ = false;
  std::chrono::steady_clock::time_point next_bus_warning_{};
  std::string last_error_;
  int consecutive_failures_ = 0;
  int successes_since_failure_ = 0;
  bool failure_reported_ = false;  // a heartbeat has carried the current failure
};

// Parses the common flags, builds the host and runs it until SIGINT/SIGTERM. Exit code for main().
int RunServiceMain(int argc, char** argv, const ServiceDefinition& definition);

// Converts a YAML scalar for a live set; specialised for the types parameters use.
template <typename V>
V ParseParam(const std::string& name, const YAML::Node& node) {
  try {
    return node.as<V>();
  } catch (const YAML::Exception&) {
    throw config::ConfigError("parameter '" + name + "': cannot read '" + YAML::Dump(node) + "'");
  }
}

namespace detail {
template <typename V>
std::string TypeName() {
  return std::is_same_v<V, bool>          ? "bool"
         : std::is_integral_v<V>          ? "int"
         : std::is_floating_point_v<V>    ? "double"
         : std::is_same_v<V, std::string> ? "string"
                                          : "list";
}
template <typename V>
std::string Emit(const V& value) {
  if constexpr (std::is_floating_point_v<V>) {
    // The shortest text that reads back as the same double (issue 22: yaml-cpp's 17 digits showed
    // `goal_tolerance = 0.34999999999999998` for 0.35). Non-finite values never pass Check.
    char text[64];
    const auto [end, ec] = std::to_chars(text, text + sizeof(text), static_cast<double>(value));
    if (ec == std::errc()) return std::string(text, end);
  }
  YAML::Emitter out;
  out << value;
  return std::string(out.c_str());
}
// "" if `value` is acceptable, else why not (with the valid range).
template <typename V>
std::string Check(const std::string& name, const V& value, const Valid<V>& valid) {
  if constexpr (std::is_floating_point_v<V>) {
    if (!std::isfinite(value)) {
      return "'" + name + "' must be a finite number" + (valid.range.empty() ? "" : " in " + valid.range);
    }
  }
  if (valid.accepts && !valid.accepts(value)) {
    return "'" + name + "' cannot be " + Emit(value) + " (valid: " + valid.range + ")";
  }
  return "";
}
}  // namespace detail

template <typename V>
V ServiceContext::Option(const std::string& name, V default_value, const std::string& doc, Valid<V> valid) {
  auto value = std::make_shared<V>(std::move(default_value));
  if (config_ != nullptr) config_->Optional(name, value.get());
  if (const std::string why = detail::Check(name, *value, valid); !why.empty()) throw config::ConfigError(why);
  const std::string instance = this->instance();
  parameters_.push_back(Parameter{
      name, detail::TypeName<V>(), doc, ParameterKind::kOption, valid.range, [value] { return detail::Emit(*value); },
      [name, instance](const YAML::Node&) -> std::string {
        throw config::ConfigError("'" + name + "' is a start-up option of " + instance +
                                  ", read once at start; to change it, restart the service with --set " + name +
                                  "=VALUE (or in its --config file)");
      }});
  return *value;
}

template <typename V>
V ServiceContext::LiveParam(const std::string& name, V default_value, const std::string& doc, Valid<V> valid,
                            std::function<void(const V&)> apply) {
  auto value = std::make_shared<V>(std::move(default_value));
  if (config_ != nullptr) config_->Optional(name, value.get());
  if (const std::string why = detail::Check(name, *value, valid); !why.empty()) throw config::ConfigError(why);
  parameters_.push_back(Parameter{
      name, detail::TypeName<V>(), doc, ParameterKind::kLive, valid.range, [value] { return detail::Emit(*value); },
      [name, value, valid, apply](const YAML::Node& node) -> std::string {
        const V candidate = ParseParam<V>(name, node);
        if (const std::string why = detail::Check(name, candidate, valid); !why.empty()) {
          throw config::ConfigError(why);
        }
        try {
          if (apply) apply(candidate);
        } catch (const config::ConfigError&) {
          throw;
        } catch (const std::exception& e) {
          throw config::ConfigError("'" + name + "' cannot be " + detail::Emit(candidate) + ": " + e.what());
        }
        *value = candidate;
        return detail::Emit(*value);
      }});
  return *value;
}

}  // namespace limbic::runtime
