// What transport_peers measures, over any Link (link.hpp), in the two processes of one measurement. Each end
// writes its results as lines on `out` for the harness to read:
//   rtt  SIZE_INDEX BYTES P50_US P99_US SAMPLES   (ping: round trips of one message at a time)
//   sent SIZE_INDEX BYTES T0_NS COUNT              (blast: steady-clock time of its first send)
//   recv SIZE_INDEX BYTES COUNT LAST_NS            (sink: messages counted, steady-clock time of the last)
//   fail SIZE_INDEX REASON...                      (SIZE_INDEX -1: the whole run)
// Both ends read the same steady clock (CLOCK_MONOTONIC, one per machine), so a blast's rate is the sink's count
// over (sink's LAST_NS − blast's T0_NS). Every receive has a timeout: a silent peer ends the run with a fail line.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "bench/peers/link.hpp"

namespace limbic::peers {

struct ExchangeOptions {
  std::vector<size_t> sizes;  // nominal message sizes, bytes
  int samples = 1000;         // round trips measured per size (after `warmup` unmeasured ones)
  int warmup = 50;
  uint64_t messages = 50000;                   // blast: messages per size ...
  uint64_t blast_bytes = 128u << 20;           // ... but at most this many bytes of them
  std::chrono::milliseconds discovery{10000};  // for the first answer of each size (DDS discovery, slow joiners)
  std::chrono::milliseconds receive_timeout{1000};
  // A sink ends a size at the blast's end marker, or this long after its last message if the marker was lost
  // (LCM); long enough for a reliable transport that stalls while it waits for acknowledgements (Fast DDS).
  std::chrono::milliseconds sink_idle{5000};
};

// The number of messages blasted at size index `z`.
uint64_t BlastCount(const ExchangeOptions& options, size_t z);

// Each returns the process's exit status (0: all sizes done).
int RunPing(Link& link, const ExchangeOptions& options, std::ostream& out);
int RunEcho(Link& link, const ExchangeOptions& options, std::ostream& out);
int RunBlast(Link& link, const ExchangeOptions& options, std::ostream& out);
int RunSink(Link& link, const ExchangeOptions& options, std::ostream& out);

}  // namespace limbic::peers
