// limbic-bus: the broker. Verifies, counts and forwards every message; keeps latched topics for late
// joiners. Restartable at any time: clients reconnect by themselves.
#include <sys/resource.h>

#include <asio.hpp>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "common/bus/broker.hpp"
#include "common/bus/curve_keys.hpp"
#include "common/config/config.hpp"
#include "common/runtime/stop_signals.hpp"

namespace {
const char* kHelp = R"(limbic-bus: the limbic message broker (XSUB in for publishers, ROUTER out for subscribers).

usage: limbic-bus [--bus ADDR] [--hwm N] [--max-payload BYTES] [--curve-server FILE] [--log-level L]
                  [--queue-bytes BYTES] [--state-queue-bytes BYTES] [--latched-bytes BYTES]
                  [--latched-topic-bytes BYTES]
                  [--handshake-timeout-ms MS]

  --bus ADDR            address to serve: ipc://PATH, tcp://HOST:PORT (binds PORT and PORT+1) or
                        inproc://NAME (default: $LIMBIC_BUS or ipc:///tmp/limbic/bus). tcp binds exactly
                        HOST: 127.0.0.1 or localhost = loopback, tcp://[::1]:PORT = IPv6 loopback, a
                        name = the address it resolves to, tcp://0.0.0.0:PORT = every interface (warned
                        about without --curve-server). An unresolvable HOST exits with status 2.
  --hwm N               at most N messages queued from publishers before ZeroMQ drops (10000); 0 also
                        lifts the --queue-bytes bound (an in-process lockstep run never drops)
  --queue-bytes BYTES   bytes the broker holds for one subscriber (payloads, topics and 128 bytes per
                        message, until written to its socket); beyond it messages for that subscriber
                        alone are dropped and counted (default 67108864); freed when it leaves
  --state-queue-bytes BYTES
                        of those, at most BYTES of state messages (odometry, scans, maps, paths,
                        heartbeats, statistics ...: only the latest matters); a subscriber that falls
                        behind loses state first, events only when its whole queue is full (default
                        8388608; docs/protocol.md, Losses)
  --latched-bytes BYTES latched values kept in total; the oldest are evicted (default 67108864)
  --latched-topic-bytes BYTES
                        largest latched value kept per topic; a larger one is forwarded, not kept
                        (default 8388608)
  --handshake-timeout-ms MS
                        a connection that has not completed its handshake in MS is closed (2000)
  --max-payload BYTES   largest payload accepted (default 33554432)
  --curve-server FILE   YAML with server_secret and allowed_clients (list of public keys): only
                        those clients may publish or subscribe (tcp)
  --log-level LEVEL     debug | info | warning | error

The broker raises its open-file limit to the hard limit (LimitNOFILE in deploy/two-host/*.service).

examples:
  limbic-bus --bus ipc:///tmp/limbic/bus
  limbic-bus --bus tcp://127.0.0.1:7400                        # loopback only
  limbic-bus --bus tcp://[::1]:7400 --queue-bytes 8388608       # IPv6 loopback, 8 MiB per subscriber
  limbic-bus --bus ipc:///tmp/limbic/bus --state-queue-bytes 2097152  # 2 MiB of state per subscriber
  limbic-bus --bus tcp://0.0.0.0:7400 --curve-server keys/bus.server.yaml
)";

// Each connection holds a descriptor until its handshake times out: the soft limit (often 1,024) is
// raised to the hard limit so a connection flood meets the handshake timeout before the limit.
void RaiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    LIMBIC_LOG(kWarning) << "could not raise the open-file limit";
  }
}

size_t ParseBytes(const std::string& flag, const std::string& text) {
  size_t used = 0;
  const unsigned long long value = std::stoull(text, &used);
  if (used != text.size() || value == 0) throw std::invalid_argument(flag + " needs a positive number of bytes");
  return static_cast<size_t>(value);
}
}  // namespace

int main(int argc, char** argv) {
  limbic::bus::BrokerOptions options;
  if (const char* bus = std::getenv("LIMBIC_BUS"))
    options.address = bus;
  else
    options.address = "ipc:///tmp/limbic/bus";
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--help" || arg == "-h") {
        std::cout << kHelp;
        return 0;
      } else if (arg == "--bus") {
        options.address = next();
      } else if (arg == "--hwm") {
        options.send_hwm = options.receive_hwm = std::stoi(next());
      } else if (arg == "--max-payload") {
        options.max_payload = std::stoull(next());
      } else if (arg == "--queue-bytes") {
        options.queue_bytes = ParseBytes(arg, next());
      } else if (arg == "--state-queue-bytes") {
        options.state_queue_bytes = ParseBytes(arg, next());
      } else if (arg == "--latched-bytes") {
        options.limits.latched_total_bytes = ParseBytes(arg, next());
      } else if (arg == "--latched-topic-bytes") {
        options.limits.latched_topic_bytes = ParseBytes(arg, next());
      } else if (arg == "--handshake-timeout-ms") {
        options.handshake_timeout = std::chrono::milliseconds(ParseBytes(arg, next()));
      } else if (arg == "--log-level") {
        limbic::log::SetLevel(limbic::log::ParseLevel(next()));
      } else if (arg == "--curve-server") {
        const std::string file = next();
        options.curve = limbic::bus::LoadCurveServerKeys(file);
      } else {
        throw std::invalid_argument("unknown option '" + arg + "' (see --help)");
      }
    }
    (void)limbic::bus::ResolveBindAddress(options.address);  // a bad or unresolvable address: exit 2
  } catch (const std::exception& e) {
    std::cerr << "limbic-bus: " << e.what() << "\n";
    return 2;
  }
  limbic::log::SetThreadTag("bus");
  RaiseFileLimit();
  std::atomic<bool> stop{false};
  limbic::runtime::StopSignals signals([&stop](int) { stop = true; });
  int status = 0;
  try {
    zmq::context_t context;
    limbic::bus::Broker broker(context, options);
    LIMBIC_LOG(kInfo) << "serving " << options.address << " (publishers " << broker.endpoints().frontend
                      << ", subscribers " << broker.endpoints().backend << ")";
    broker.Run(stop);
    LIMBIC_LOG(kInfo) << "stopped after forwarding " << broker.forwarded() << " messages";
  } catch (const std::exception& e) {
    std::cerr << "limbic-bus: " << e.what() << "\n";
    status = 1;
  }
  return status;
}
