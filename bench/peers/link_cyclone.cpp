// Cyclone DDS for transport_peers: one participant per end in a domain of its own, reliable with KEEP_ALL history
// at both ends (Cyclone's readers are best-effort by default; reliable and keep-all is its lossless setting),
// otherwise Cyclone's defaults. Its traffic stays on lo: the domain's configuration names lo, turns multicast off
// and gives 127.0.0.1 as the discovery peer (its default would discover by multicast on the machine's network).
#include <dds/dds.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/peers/link.hpp"
#include "peers_blob.h"

namespace limbic::peers {
namespace {

using Clock = std::chrono::steady_clock;

dds_entity_t Check(dds_entity_t entity, const char* what) {
  if (entity < 0) throw std::runtime_error(std::string("Cyclone DDS: ") + what + ": " + dds_strretcode(entity));
  return entity;
}

class CycloneLink : public Link {
 public:
  CycloneLink(Side side, const Rendezvous& r) {
    const std::string config =
        "<CycloneDDS><Domain><General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces>"
        "<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>"
        "<Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery></Domain></CycloneDDS>";
    const auto domain_id = static_cast<dds_domainid_t>(r.domain);
    domain_ = Check(dds_create_domain(domain_id, config.c_str()), "create_domain");
    const dds_entity_t participant = Check(dds_create_participant(domain_id, nullptr, nullptr), "create_participant");
    const std::string out = r.tag + (side == Side::kA ? "_ping" : "_pong");
    const std::string in = r.tag + (side == Side::kA ? "_pong" : "_ping");
    const dds_entity_t out_topic =
        Check(dds_create_topic(participant, &limbic_peers_Blob_desc, out.c_str(), nullptr, nullptr), "create_topic");
    const dds_entity_t in_topic =
        Check(dds_create_topic(participant, &limbic_peers_Blob_desc, in.c_str(), nullptr, nullptr), "create_topic");
    dds_qos_t* qos = dds_create_qos();
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
    dds_qset_history(qos, DDS_HISTORY_KEEP_ALL, 0);
    writer_ = dds_create_writer(participant, out_topic, qos, nullptr);
    reader_ = dds_create_reader(participant, in_topic, qos, nullptr);
    dds_delete_qos(qos);
    Check(writer_, "create_writer");
    Check(reader_, "create_reader");
    waitset_ = Check(dds_create_waitset(participant), "create_waitset");
    const dds_entity_t condition = Check(dds_create_readcondition(reader_, DDS_ANY_STATE), "create_readcondition");
    Check(dds_waitset_attach(waitset_, condition, reader_), "waitset_attach");
  }
  ~CycloneLink() override { dds_delete(domain_); }  // and everything in it

  size_t Send(uint64_t seq, size_t bytes) override {
    buffer_.resize(std::max<size_t>(bytes, sizeof seq));
    std::memcpy(buffer_.data(), &seq, sizeof seq);
    limbic_peers_Blob sample{};
    sample.data._buffer = buffer_.data();
    sample.data._length = sample.data._maximum = static_cast<uint32_t>(buffer_.size());
    sample.data._release = false;
    Check(dds_write(writer_, &sample), "write");
    return buffer_.size();
  }

  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      void* samples[1] = {nullptr};
      dds_sample_info_t info[1];
      const dds_return_t n = dds_take(reader_, samples, info, 1, 1);
      if (n < 0) Check(n, "take");
      if (n > 0) {
        std::optional<Received> r;
        const auto* blob = static_cast<const limbic_peers_Blob*>(samples[0]);
        if (info[0].valid_data && blob->data._length >= sizeof(uint64_t)) {
          r = Received{};
          std::memcpy(&r->seq, blob->data._buffer, sizeof r->seq);
          r->bytes = blob->data._length;
        }
        dds_return_loan(reader_, samples, n);
        if (r) return r;
        continue;
      }
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) return std::nullopt;
      dds_waitset_wait(waitset_, nullptr, 0, std::chrono::duration_cast<std::chrono::nanoseconds>(left).count());
    }
  }

 private:
  dds_entity_t domain_ = 0;
  dds_entity_t writer_ = 0;
  dds_entity_t reader_ = 0;
  dds_entity_t waitset_ = 0;
  std::vector<uint8_t> buffer_;
};

}  // namespace

std::unique_ptr<Link> OpenCycloneLink(Side side, const Rendezvous& r) { return std::make_unique<CycloneLink>(side, r); }

}  // namespace limbic::peers
