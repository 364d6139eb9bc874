#include "bench/peers/exchange.hpp"

#include <algorithm>
#include <ostream>

#include "common/stats/quantile.hpp"

namespace limbic::peers {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr size_t kControlBytes = 16;
constexpr int kMaxLostEchoes = 10;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Sends `probe` every 20 ms until a message with sequence `answer` arrives or `limit` passes.
bool Handshake(Link& link, uint64_t probe, size_t bytes, uint64_t answer, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    link.Send(probe, bytes);
    const auto until = Clock::now() + 20ms;
    while (Clock::now() < until) {
      const auto r = link.Receive(std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()));
      if (r && r->seq == answer) return true;
    }
  }
  return false;
}

// Discards what arrives until nothing has for 20 ms (extra answers to a handshake's probes).
void Drain(Link& link) {
  while (link.Receive(20ms)) {
  }
}

}  // namespace

uint64_t BlastCount(const ExchangeOptions& options, size_t z) {
  const uint64_t size = std::max<uint64_t>(options.sizes[z], 1);
  return std::max<uint64_t>(1, std::min(options.messages, options.blast_bytes / size));
}

int RunPing(Link& link, const ExchangeOptions& options, std::ostream& out) {
  for (size_t z = 0; z < options.sizes.size(); ++z) {
    if (!Handshake(link, kWarmup, options.sizes[z], kWarmup, options.discovery)) {
      out << "fail " << z << " no echo within " << options.discovery.count() << " ms" << std::endl;
      return 1;
    }
    Drain(link);
    std::vector<double> rtts;
    size_t bytes = 0;
    int lost = 0;
    for (int i = 0; i < options.warmup + options.samples; ++i) {
      const uint64_t seq = z * kSizeStride + static_cast<uint64_t>(i);
      const int64_t t0 = NowNs();
      bytes = link.Send(seq, options.sizes[z]);
      for (;;) {
        const auto r = link.Receive(options.receive_timeout);
        if (!r) {
          ++lost;
          break;
        }
        if (r->seq != seq) continue;  // a late echo of an earlier one
        if (i >= options.warmup) rtts.push_back(static_cast<double>(NowNs() - t0) * 1e-3);
        break;
      }
      if (lost > kMaxLostEchoes) {
        out << "fail " << z << " more than " << kMaxLostEchoes << " echoes lost (" << options.receive_timeout.count()
            << " ms each)" << std::endl;
        return 1;
      }
    }
    out << "rtt " << z << " " << bytes << " " << stats::Quantile(rtts, 0.5) << " " << stats::Quantile(rtts, 0.99) << " "
        << rtts.size() << std::endl;
  }
  for (int i = 0; i < 3; ++i) link.Send(kStop, kControlBytes);
  return 0;
}

int RunEcho(Link& link, const ExchangeOptions& options, std::ostream& out) {
  const auto idle = std::max<std::chrono::milliseconds>(20s, options.discovery * 2);
  for (;;) {
    const auto r = link.Receive(idle);
    if (!r) {
      out << "fail -1 echo: nothing received for " << idle.count() << " ms" << std::endl;
      return 1;
    }
    if (r->seq == kStop) return 0;
    link.Send(r->seq, r->bytes);
  }
}

int RunBlast(Link& link, const ExchangeOptions& options, std::ostream& out) {
  for (size_t z = 0; z < options.sizes.size(); ++z) {
    if (!Handshake(link, kWarmup, kControlBytes, kReady, options.discovery)) {
      out << "fail " << z << " the sink did not answer within " << options.discovery.count() << " ms" << std::endl;
      return 1;
    }
    Drain(link);
    const uint64_t count = BlastCount(options, z);
    size_t bytes = 0;
    const int64_t t0 = NowNs();
    for (uint64_t i = 0; i < count; ++i) bytes = link.Send(z * kSizeStride + i, options.sizes[z]);
    for (int i = 0; i < 3; ++i) link.Send(kEnd, kControlBytes);  // three: one may be lost (LCM)
    bool done = false;
    const auto deadline = Clock::now() + 60s;
    while (!done && Clock::now() < deadline) {
      const auto r = link.Receive(options.receive_timeout);
      done = r && r->seq == kDone;
    }
    if (!done) {
      out << "fail " << z << " the sink never reported" << std::endl;
      return 1;
    }
    out << "sent " << z << " " << bytes << " " << t0 << " " << count << std::endl;
  }
  for (int i = 0; i < 3; ++i) link.Send(kStop, kControlBytes);
  return 0;
}

int RunSink(Link& link, const ExchangeOptions& options, std::ostream& out) {
  const auto first_wait = std::max<std::chrono::milliseconds>(30s, options.discovery * 2);
  for (size_t z = 0; z < options.sizes.size(); ++z) {
    const uint64_t expected = BlastCount(options, z);
    uint64_t count = 0;
    int64_t last_ns = 0;
    size_t bytes = 0;
    for (;;) {
      const auto r = link.Receive(count > 0 ? options.sink_idle : first_wait);
      if (!r) {
        if (count == 0) {
          out << "fail " << z << " sink: no data within " << first_wait.count() << " ms" << std::endl;
          return 1;
        }
        break;  // the rest was lost
      }
      if (r->seq == kWarmup && count == 0) link.Send(kReady, kControlBytes);
      if (r->seq == kEnd && count > 0) break;  // (with none counted: a copy left over from the size before)
      if (r->seq >= kControl || r->seq / kSizeStride != z) continue;
      ++count;
      last_ns = NowNs();
      bytes = r->bytes;
      if (count == expected) break;
    }
    for (int i = 0; i < 3; ++i) link.Send(kDone, kControlBytes);
    out << "recv " << z << " " << bytes << " " << count << " " << last_ns << std::endl;
  }
  return 0;
}

}  // namespace limbic::peers
