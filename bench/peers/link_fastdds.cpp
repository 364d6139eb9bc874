// Fast DDS for transport_peers: one participant per end, a hand-written TopicDataType for a byte sequence (CDR
// little-endian: encapsulation, length, bytes; Debian has no fastddsgen-generated type to use), reliable with
// KEEP_ALL history at both ends (Fast DDS's readers are best-effort by default). Transports as Fast DDS's defaults
// (shared memory and UDPv4) but UDP kept to 127.0.0.1 with 127.0.0.1 as the discovery peer, so that nothing is
// sent on the machine's network.
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastdds/rtps/transport/shared_mem/SharedMemTransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

#include <algorithm>
#include <cstring>
#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/peers/link.hpp"

namespace limbic::peers {
namespace {

namespace dds = eprosima::fastdds::dds;
using eprosima::fastrtps::rtps::SerializedPayload_t;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kHeaderBytes = 8;  // encapsulation (4) + sequence length (4)

struct Bytes {
  std::vector<uint8_t> data;
};

class BytesType : public dds::TopicDataType {
 public:
  explicit BytesType(uint32_t max_bytes) {
    setName("limbic_peers::Bytes");
    m_typeSize = kHeaderBytes + max_bytes;
    m_isGetKeyDefined = false;
  }
  bool serialize(void* data, SerializedPayload_t* payload) override {
    const auto& bytes = static_cast<Bytes*>(data)->data;
    const auto n = static_cast<uint32_t>(bytes.size());
    if (kHeaderBytes + n > payload->max_size) return false;
    const uint8_t encapsulation[4] = {0x00, 0x01, 0x00, 0x00};  // CDR_LE, no options
    std::memcpy(payload->data, encapsulation, 4);
    std::memcpy(payload->data + 4, &n, 4);  // little-endian machines only (x86-64, arm64)
    std::memcpy(payload->data + kHeaderBytes, bytes.data(), n);
    payload->length = kHeaderBytes + n;
    payload->encapsulation = CDR_LE;
    return true;
  }
  bool deserialize(SerializedPayload_t* payload, void* data) override {
    if (payload->length < kHeaderBytes) return false;
    uint32_t n = 0;
    std::memcpy(&n, payload->data + 4, 4);
    if (n > payload->length - kHeaderBytes) return false;
    static_cast<Bytes*>(data)->data.assign(payload->data + kHeaderBytes, payload->data + kHeaderBytes + n);
    return true;
  }
  std::function<uint32_t()> getSerializedSizeProvider(void* data) override {
    return [data] { return kHeaderBytes + static_cast<uint32_t>(static_cast<Bytes*>(data)->data.size()); };
  }
  void* createData() override { return new Bytes; }
  void deleteData(void* data) override { delete static_cast<Bytes*>(data); }
  bool getKey(void*, eprosima::fastrtps::rtps::InstanceHandle_t*, bool) override { return false; }
};

template <typename T>
T* Check(T* entity, const char* what) {
  if (entity == nullptr) throw std::runtime_error(std::string("Fast DDS: cannot create the ") + what);
  return entity;
}

class FastDdsLink : public Link {
 public:
  FastDdsLink(Side side, const Rendezvous& r) {
    dds::DomainParticipantQos participant_qos;
    participant_qos.transport().use_builtin_transports = false;
    participant_qos.transport().user_transports.push_back(
        std::make_shared<eprosima::fastdds::rtps::SharedMemTransportDescriptor>());
    auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
    udp->interfaceWhiteList.push_back("127.0.0.1");
    participant_qos.transport().user_transports.push_back(udp);
    eprosima::fastrtps::rtps::Locator_t peer;
    eprosima::fastrtps::rtps::IPLocator::setIPv4(peer, 127, 0, 0, 1);
    participant_qos.wire_protocol().builtin.initialPeersList.push_back(peer);
    participant_ = Check(dds::DomainParticipantFactory::get_instance()->create_participant(r.domain, participant_qos),
                         "participant");
    dds::TypeSupport type(new BytesType(16u << 20));
    type.register_type(participant_);
    const std::string out = r.tag + (side == Side::kA ? "_ping" : "_pong");
    const std::string in = r.tag + (side == Side::kA ? "_pong" : "_ping");
    dds::Topic* out_topic =
        Check(participant_->create_topic(out, type.get_type_name(), dds::TOPIC_QOS_DEFAULT), "topic");
    dds::Topic* in_topic = Check(participant_->create_topic(in, type.get_type_name(), dds::TOPIC_QOS_DEFAULT), "topic");
    dds::Publisher* publisher = Check(participant_->create_publisher(dds::PUBLISHER_QOS_DEFAULT), "publisher");
    dds::Subscriber* subscriber = Check(participant_->create_subscriber(dds::SUBSCRIBER_QOS_DEFAULT), "subscriber");
    dds::DataWriterQos writer_qos = dds::DATAWRITER_QOS_DEFAULT;
    writer_qos.reliability().kind = dds::RELIABLE_RELIABILITY_QOS;
    writer_qos.history().kind = dds::KEEP_ALL_HISTORY_QOS;
    writer_ = Check(publisher->create_datawriter(out_topic, writer_qos), "writer");
    dds::DataReaderQos reader_qos = dds::DATAREADER_QOS_DEFAULT;
    reader_qos.reliability().kind = dds::RELIABLE_RELIABILITY_QOS;
    reader_qos.history().kind = dds::KEEP_ALL_HISTORY_QOS;
    reader_ = Check(subscriber->create_datareader(in_topic, reader_qos), "reader");
  }
  ~FastDdsLink() override {
    participant_->delete_contained_entities();
    dds::DomainParticipantFactory::get_instance()->delete_participant(participant_);
  }

  size_t Send(uint64_t seq, size_t bytes) override {
    sample_.data.resize(std::max<size_t>(bytes, sizeof seq));
    std::memcpy(sample_.data.data(), &seq, sizeof seq);
    // A full KEEP_ALL history makes write wait (max_blocking_time, 100 ms) and then refuse: try again.
    for (int attempt = 0; !writer_->write(&sample_); ++attempt) {
      if (attempt == 100) throw std::runtime_error("Fast DDS: write refused for 10 s");
    }
    return sample_.data.size();
  }

  std::optional<Received> Receive(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      dds::SampleInfo info;
      if (reader_->take_next_sample(&received_, &info) == eprosima::fastrtps::types::ReturnCode_t::RETCODE_OK) {
        if (!info.valid_data || received_.data.size() < sizeof(uint64_t)) continue;
        Received r;
        std::memcpy(&r.seq, received_.data.data(), sizeof r.seq);
        r.bytes = received_.data.size();
        return r;
      }
      const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now()).count();
      if (left <= 0) return std::nullopt;
      reader_->wait_for_unread_message(eprosima::fastrtps::Duration_t(static_cast<int32_t>(left / 1000000000),
                                                                      static_cast<uint32_t>(left % 1000000000)));
    }
  }

 private:
  dds::DomainParticipant* participant_ = nullptr;
  dds::DataWriter* writer_ = nullptr;
  dds::DataReader* reader_ = nullptr;
  Bytes sample_;
  Bytes received_;
};

}  // namespace

std::unique_ptr<Link> OpenFastDdsLink(Side side, const Rendezvous& r) { return std::make_unique<FastDdsLink>(side, r); }

}  // namespace limbic::peers
