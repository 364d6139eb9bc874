// Recording an in-process run to MCAP, and replaying one service of it.
//
// BagRecorderService: a host on the run's bus (not a lockstep participant: it never holds a tick up)
// that writes every message into a bag::BagWriter as it is published. Log times are the run's
// simulated time (the last clock tick's stamp), so a lockstep run gives the same file every time.
//
// ReplayService: the debugging path of issue 17 — re-run one service of a recorded lockstep run alone
// (under a debugger, with logging, with a fix) and check its outputs against the recording. The
// service sees what it saw in the run: for each tick, the recorded messages on the topics it
// subscribes to (the clock included) that were published before it finished that tick in the run
// (before its recorded LockstepAck), in recorded order; nothing else runs. Outputs are compared byte
// for byte, header included (the replayed node takes the recorded incarnation), except the fields that
// measure a step's wall-clock compute time (Path.plan_time_s, VelocityState.compute_time_s,
// AffectState.compute_time_s), which are zeroed on both sides.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/runtime/in_process.hpp"
#include "tools/bag/bag_writer.hpp"

namespace limbic::stack {

runtime::ServiceDefinition BagRecorderService(std::shared_ptr<bag::BagWriter> writer);

struct ReplayReport {
  std::string instance;  // e.g. "r1/controller"
  std::vector<std::string> input_topics;
  std::vector<std::string> output_topics;
  uint64_t inputs = 0;           // recorded messages fed to the service
  uint64_t expected = 0;         // recorded outputs of the service
  uint64_t produced = 0;         // outputs of the replayed service
  uint64_t matching = 0;         // outputs equal byte for byte to the recorded one at the same place
  int64_t ticks = 0;             // ticks replayed (recorded acks of the service)
  std::string first_difference;  // where the outputs first differ ("" if they never do)
  bool Identical() const { return expected > 0 && matching == expected && produced >= expected; }
};

// Replays `files` (a recording of a lockstep run with every topic, e.g. from StackSpec::bag) into a
// fresh instance of `service` — a single-step lockstep service such as the mapper, planner, controller
// or affect engine, with the options of the run. Throws std::runtime_error if the recording holds no
// tick of that service.
ReplayReport ReplayService(const std::vector<std::string>& files, runtime::HostedService service);

}  // namespace limbic::stack
