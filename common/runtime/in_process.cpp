#include "common/runtime/in_process.hpp"

#include <exception>
#include <mutex>
#include <thread>

namespace limbic::runtime {

int RunInProcess(const std::string& address, std::vector<HostedService> services, const std::atomic<bool>& stop,
                 Mode mode) {
  zmq::context_t context;
  bus::BrokerOptions broker_options;
  broker_options.address = address;
  broker_options.send_hwm = broker_options.receive_hwm = 0;  // in-process lockstep: never drop
  bus::Broker broker(context, broker_options);
  std::atomic<bool> broker_stop{false};
  std::thread broker_thread([&] {
    log::SetThreadTag("bus");
    broker.Run(broker_stop);
  });
  // Build every host first so a bad configuration fails before anything runs.
  std::vector<std::unique_ptr<Host>> hosts;
  std::exception_ptr error;
  try {
    for (auto& s : services) {
      s.options.bus = address;
      s.options.mode = mode;
      hosts.push_back(std::make_unique<Host>(context, s.options, s.definition));
    }
  } catch (...) {
    error = std::current_exception();
  }
  std::vector<int> statuses(hosts.size(), 0);
  std::atomic<bool> any_failed{false};
  std::atomic<bool> group_stop{false};
  std::vector<std::thread> threads;
  if (!error) {
    for (size_t i = 0; i < hosts.size(); ++i) {
      threads.emplace_back([&, i] {
        statuses[i] = hosts[i]->Run(group_stop);
        if (statuses[i] != 0) {
          any_failed = true;
          group_stop = true;  // a failed coordinator would leave everyone waiting
        }
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
  }
  hosts.clear();
  broker_stop = true;
  broker_thread.join();
  if (error) std::rethrow_exception(error);
  int worst = 0;
  for (int s : statuses) worst = std::max(worst, s);
  return worst;
}

}  // namespace limbic::runtime
