#include "common/runtime/in_process.hpp"

#include <exception>
#include <optional>
#include <thread>
#include <unordered_map>

namespace limbic::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Lockstep on one thread: broker and hosts take turns until every host has stopped. Between two
// hosts the broker forwards what the first one published, so a tick's chain of same-tick inputs
// mostly completes in one round. Looking at an idle ZeroMQ socket costs a poll(2), so a host gets a
// turn only when a node on this thread has sent a topic it subscribes to since its last turn. A
// round without progress is followed by a turn for everyone (timers: the coordinator's probe while
// joining, heartbeats, the broker's own messages); if that does nothing either, the thread sleeps
// in the broker's poll for up to 1 ms.
// The bus of one thread's hosts, seen from the loop that takes turns: ZeroMQ with a broker, or a LocalBus.
struct SharedBus {
  bus::Broker* broker = nullptr;
  bus::LocalBus* local = nullptr;
  // Handles what has arrived (broker) or what timers have due (both), waiting up to `timeout` if
  // nothing had. Returns the number of messages handled.
  int RunOnce(std::chrono::milliseconds timeout) {
    if (broker) return broker->RunOnce(timeout);
    const int handled = local->RunTimers();
    if (handled == 0 && timeout.count() > 0) std::this_thread::sleep_for(timeout);
    return handled;
  }
};

void RunCooperatively(SharedBus broker, std::vector<std::unique_ptr<Host>>& hosts, std::vector<int>& statuses,
                      const std::atomic<bool>& stop, const Host* coordinator, Clock::time_point begin,
                      InProcessStats* stats) {
  std::atomic<bool> group_stop{false};
  std::vector<bool> pending(hosts.size(), true);
  std::unordered_map<std::string, std::vector<size_t>> readers;  // topic -> hosts that receive it
  for (auto& host : hosts) {
    host->node().SetSendObserver([&](const std::string& topic, void** cache) {
      // A typed publisher's topic is looked up once: its readers are kept in the publisher's cache (issue 18: a hash
      // of the topic per message sent, 1-1.5 % of a 16-robot run). The entries of `readers` stay where they are.
      const std::vector<size_t>* who = cache != nullptr ? static_cast<const std::vector<size_t>*>(*cache) : nullptr;
      if (who == nullptr) {
        auto it = readers.find(topic);
        if (it == readers.end()) {
          std::vector<size_t> wanting;
          for (size_t j = 0; j < hosts.size(); ++j) {
            if (hosts[j]->node().Wants(topic)) wanting.push_back(j);
          }
          it = readers.emplace(topic, std::move(wanting)).first;
        }
        who = &it->second;
        if (cache != nullptr) *cache = &it->second;
      }
      for (size_t j : *who) pending[j] = true;
    });
  }
  for (auto& host : hosts) host->Start();
  std::vector<bool> running(hosts.size(), true);
  size_t alive = hosts.size();
  bool started = false;
  Clock::time_point first_tick;
  double first_tick_cpu = 0.0;
  bool everyone = true;  // give every host a turn this round
  while (alive > 0) {
    if (stop.load()) group_stop = true;
    if (group_stop.load()) everyone = true;
    bool progress = broker.RunOnce(0ms) > 0;
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (!running[i] || !(everyone || pending[i])) continue;
      pending[i] = false;
      bool host_progress = false;
      if (!hosts[i]->Pump(0ms, group_stop, &host_progress)) {
        running[i] = false;
        --alive;
        statuses[i] = hosts[i]->Finish();
        if (statuses[i] != 0) group_stop = true;  // a failed coordinator would leave everyone waiting
        host_progress = true;
      }
      if (host_progress) {
        progress = true;
        broker.RunOnce(0ms);
      }
    }
    if (!started && coordinator != nullptr && coordinator->tick() >= 0) {
      started = true;
      first_tick = Clock::now();
      first_tick_cpu = ThreadCpuSeconds();
      if (stats) stats->startup_s = Seconds(first_tick - begin);
    }
    if (progress) {
      everyone = false;
    } else if (!everyone) {
      everyone = true;
    } else {
      broker.RunOnce(1ms);
    }
  }
  if (stats && started) {
    stats->run_s = Seconds(Clock::now() - first_tick);
    stats->run_cpu_s = ThreadCpuSeconds() - first_tick_cpu;
  }
  for (auto& host : hosts) host->node().SetSendObserver({});
}

void RunThreaded(bus::Broker& broker, std::vector<std::unique_ptr<Host>>& hosts, std::vector<int>& statuses,
                 const std::atomic<bool>& stop) {
  std::atomic<bool> broker_stop{false};
  std::thread broker_thread([&] {
    log::SetThreadTag("bus");
    broker.Run(broker_stop);
  });
  std::atomic<bool> group_stop{false};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < hosts.size(); ++i) {
    threads.emplace_back([&, i] {
      statuses[i] = hosts[i]->Run(group_stop);
      if (statuses[i] != 0) group_stop = true;  // a failed coordinator would leave everyone waiting
    });
  }
  std::thread watcher([&] {
    while (!group_stop.load()) {
      if (stop.load()) group_stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  for (auto& t : threads) t.join();
  group_stop = true;
  watcher.join();
  broker_stop = true;
  broker_thread.join();
}

}  // namespace

int RunInProcess(const std::string& address, std::vector<HostedService> services, const std::atomic<bool>& stop,
                 const InProcessOptions& options, InProcessStats* stats) {
  const auto begin = Clock::now();
  const bool direct =
      options.transport == InProcessTransport::kDirect && options.mode == Mode::kLockstep && options.single_thread;
  // inproc:// needs no I/O thread.
  zmq::context_t context(address.rfind("inproc://", 0) == 0 ? 0 : 1);
  std::optional<bus::Broker> broker;
  std::optional<bus::LocalBus> local_bus;
  if (direct) {
    local_bus.emplace(options.bus_stats_period);
  } else {
    bus::BrokerOptions broker_options;
    broker_options.address = address;
    broker_options.send_hwm = broker_options.receive_hwm = 0;  // in-process lockstep: never drop
    broker.emplace(context, broker_options);
  }
  SharedBus shared{broker ? &*broker : nullptr, local_bus ? &*local_bus : nullptr};
  // Build every host first so a bad configuration fails before anything runs.
  std::vector<std::unique_ptr<Host>> hosts;
  std::exception_ptr error;
  const Host* coordinator = nullptr;
  try {
    for (auto& s : services) {
      s.options.bus = address;
      s.options.mode = options.mode;
      s.options.probe_period = options.probe_period;
      hosts.push_back(direct ? std::make_unique<Host>(*local_bus, s.options, s.definition)
                             : std::make_unique<Host>(context, s.options, s.definition));
      if (s.options.coordinate) coordinator = hosts.back().get();
    }
  } catch (...) {
    error = std::current_exception();
  }
  std::vector<int> statuses(hosts.size(), 0);
  if (!error) {
    // Connections and subscriptions take effect before any host starts: values a service publishes
    // in OnStart (latched maps, goals) reach the broker and their subscribers instead of waiting
    // for the next latched re-send.
    for (int i = 0; i < 2; ++i) {
      shared.RunOnce(0ms);
      for (auto& host : hosts) host->node().ProcessPending();
    }
    if (options.mode == Mode::kLockstep && options.single_thread) {
      RunCooperatively(shared, hosts, statuses, stop, coordinator, begin, stats);
    } else {
      RunThreaded(*broker, hosts, statuses, stop);
    }
  }
  if (stats && coordinator) stats->ticks = coordinator->tick() + 1;
  if (stats) {
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (statuses[i] != 0 && !hosts[i]->last_error().empty()) stats->errors.push_back(hosts[i]->last_error());
    }
  }
  hosts.clear();
  if (error) std::rethrow_exception(error);
  if (stats) stats->total_s = Seconds(Clock::now() - begin);
  int worst = 0;
  for (int s : statuses) worst = std::max(worst, s);
  return worst;
}

int RunInProcess(const std::string& address, std::vector<HostedService> services, const std::atomic<bool>& stop,
                 Mode mode) {
  InProcessOptions options;
  options.mode = mode;
  return RunInProcess(address, std::move(services), stop, options);
}

}  // namespace limbic::runtime
