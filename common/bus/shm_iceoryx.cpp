// shm.hpp over iceoryx 2.0 (Debian libiceoryx-posh-dev): untyped publishers and subscribers, a Listener thread
// that only wakes the node's poll through an eventfd, and RouDi watched by its socket and its shared memory.
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "common/bus/shm.hpp"
#include "common/log/log.hpp"
#include "iceoryx_posh/iceoryx_posh_types.hpp"
#include "iceoryx_posh/mepoo/chunk_header.hpp"
#include "iceoryx_posh/popo/listener.hpp"
#include "iceoryx_posh/popo/untyped_publisher.hpp"
#include "iceoryx_posh/popo/untyped_subscriber.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"

namespace limbic::bus {
namespace {

// Where iceoryx 2.0's RouDi listens and keeps its management memory (fixed names in this version: one RouDi
// per host, no domains).
std::string RouDiSocketPath() {
  return std::string(iox::platform::IOX_UDS_SOCKET_PATH_PREFIX) + iox::roudi::IPC_CHANNEL_ROUDI_NAME;
}
std::string RouDiShmPath() { return std::string("/dev/shm/") + iox::roudi::SHM_NAME; }

// Does a process answer on RouDi's socket? (A socket file left by a killed RouDi refuses the connection.)
bool RouDiAnswers() {
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = RouDiSocketPath();
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  const bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return ok;
}

// RouDi's management memory as a file identity: a restarted RouDi makes a new one.
std::optional<std::pair<dev_t, ino_t>> RouDiMemory() {
  struct stat st {};
  if (stat(RouDiShmPath().c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

iox::capro::IdString_t IdString(const std::string& text) {
  return iox::capro::IdString_t(iox::cxx::TruncateToCapacity, text.c_str());
}

const char* AllocationErrorText(iox::popo::AllocationError e) {
  switch (e) {
    case iox::popo::AllocationError::NO_MEMPOOLS_AVAILABLE:
      return "no memory pool has chunks that large";
    case iox::popo::AllocationError::RUNNING_OUT_OF_CHUNKS:
      return "the memory pool ran out of chunks";
    case iox::popo::AllocationError::TOO_MANY_CHUNKS_ALLOCATED_IN_PARALLEL:
      return "too many chunks loaned at once";
    default:
      return "iceoryx refused the loan";
  }
}

std::mutex g_runtime_mutex;
std::shared_ptr<ShmRuntime> g_runtime;  // iceoryx's runtime cannot be made twice in a process: kept to the end

}  // namespace

struct ShmRuntime::Impl {
  std::pair<dev_t, ino_t> memory;
};

ShmRuntime::ShmRuntime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ShmRuntime::~ShmRuntime() = default;

std::shared_ptr<ShmRuntime> ShmRuntime::Connect(const std::string& name, std::string* why,
                                                std::chrono::milliseconds wait) {
  std::lock_guard<std::mutex> lock(g_runtime_mutex);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!g_runtime && !RouDiRunning() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (g_runtime) {
    if (g_runtime->RouDiAlive()) return g_runtime;
    if (why) *why = "RouDi stopped or restarted since this process connected (iceoryx 2.0 cannot reconnect)";
    return nullptr;
  }
  // initRuntime waits up to a minute for a RouDi and then ends the process: ask first.
  const auto memory = RouDiMemory();
  if (!RouDiAnswers() || !memory) {
    if (why) *why = "no RouDi on this host (nothing answers at " + RouDiSocketPath() + "; start iox-roudi)";
    return nullptr;
  }
  // The name becomes a socket file name (/tmp/NAME): "r1/mapper" -> "r1_mapper-PID".
  std::string unique = name + "-" + std::to_string(getpid());
  for (char& c : unique) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  iox::runtime::PoshRuntime::initRuntime(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, unique.c_str()));
  auto impl = std::make_unique<Impl>();
  impl->memory = *memory;
  g_runtime.reset(new ShmRuntime(std::move(impl)));
  return g_runtime;
}

bool ShmRuntime::RouDiRunning() { return RouDiAnswers() && RouDiMemory().has_value(); }

bool ShmRuntime::RouDiAlive() const { return RouDiAnswers() && RouDiMemory() == impl_->memory; }

struct ShmEndpoint::Ports {
  struct Publisher final : ChunkSource {
    Publisher(const iox::capro::ServiceDescription& service, const iox::popo::PublisherOptions& options, size_t max)
        : port(service, options), max_bytes(max) {}
    uint8_t* Loan(size_t size) override {
      if (size > max_bytes) {
        throw ShmLoanError("message of " + std::to_string(size) + " bytes or more is over max_message_bytes (" +
                           std::to_string(max_bytes) + ")");
      }
      auto loaned = port.loan(static_cast<uint32_t>(size), 8, sizeof(ShmFrame), alignof(ShmFrame));
      if (loaned.has_error()) {
        throw ShmLoanError(std::string(AllocationErrorText(loaned.get_error())) + " (" + std::to_string(size) +
                           " bytes)");
      }
      return static_cast<uint8_t*>(loaned.value());
    }
    void Release(uint8_t* chunk) override { port.release(chunk); }
    iox::popo::UntypedPublisher port;
    size_t max_bytes;
    size_t last_size = 0;
  };
  struct Subscriber {
    Subscriber(const iox::capro::ServiceDescription& service, const iox::popo::SubscriberOptions& options,
               std::string name)
        : port(service, options), topic(std::move(name)) {}
    iox::popo::UntypedSubscriber port;
    std::string topic;
  };
  std::deque<Publisher> publishers;
  std::deque<Subscriber> subscribers;
  std::optional<iox::popo::Listener> listener;  // destroyed first (it watches the subscribers)
  size_t next_subscriber = 0;                   // Drain starts here: no topic starves the others
};

namespace {
// The Listener's thread: only wakes the node's poll.
void OnData(iox::popo::UntypedSubscriber* /*subscriber*/, int* wake_fd) {
  const uint64_t one = 1;
  (void)!write(*wake_fd, &one, sizeof one);
}
}  // namespace

ShmEndpoint::ShmEndpoint(std::shared_ptr<ShmRuntime> runtime, const std::string& bus_address, ShmOptions options)
    : runtime_(std::move(runtime)),
      options_(std::move(options)),
      service_(ShmServiceName(bus_address)),
      active_(runtime_ != nullptr),
      ports_(std::make_unique<Ports>()) {
  next_check_ = std::chrono::steady_clock::now() + options_.roudi_check;
}

ShmEndpoint::~ShmEndpoint() {
  if (ports_->listener) {
    for (auto& s : ports_->subscribers)
      ports_->listener->detachEvent(s.port, iox::popo::SubscriberEvent::DATA_RECEIVED);
  }
  ports_.reset();  // the listener, then subscribers and publishers (members in reverse order)
  if (wake_fd_ >= 0) close(wake_fd_);
}

int ShmEndpoint::AddPublisher(const std::string& topic, std::string_view identifier) {
  if (!Takes(topic, identifier)) return -1;
  iox::popo::PublisherOptions options;
  options.subscriberTooSlowPolicy = iox::popo::ConsumerTooSlowPolicy::DISCARD_OLDEST_DATA;  // never block
  ports_->publishers.emplace_back(
      iox::capro::ServiceDescription{IdString(service_), IdString(topic), IdString(std::string(identifier))}, options,
      options_.max_message_bytes);
  return static_cast<int>(ports_->publishers.size() - 1);
}

bool ShmEndpoint::AddSubscriber(const std::string& topic, std::string_view identifier) {
  if (!Takes(topic, identifier)) return false;
  if (wake_fd_ < 0) {
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
      LIMBIC_LOG(kError) << "shared memory: eventfd: " << std::strerror(errno) << "; '" << topic
                         << "' only over the socket path";
      return false;
    }
  }
  iox::popo::SubscriberOptions options;
  options.queueCapacity = options_.subscriber_queue;
  options.queueFullPolicy = iox::popo::QueueFullPolicy::DISCARD_OLDEST_DATA;
  ports_->subscribers.emplace_back(
      iox::capro::ServiceDescription{IdString(service_), IdString(topic), IdString(std::string(identifier))}, options,
      topic);
  if (!ports_->listener) ports_->listener.emplace();
  bool attached = true;
  ports_->listener
      ->attachEvent(ports_->subscribers.back().port, iox::popo::SubscriberEvent::DATA_RECEIVED,
                    iox::popo::createNotificationCallback(OnData, wake_fd_))
      .or_else([&](auto) { attached = false; });
  if (!attached) {
    LIMBIC_LOG(kError) << "shared memory: cannot watch '" << topic << "' (listener full); it is read when Poll runs";
  }
  return true;
}

ChunkSource& ShmEndpoint::Source(int index) { return ports_->publishers[static_cast<size_t>(index)]; }

size_t ShmEndpoint::InitialSize(int index) const {
  return InitialChunkSize(ports_->publishers[static_cast<size_t>(index)].last_size);
}

void ShmEndpoint::Publish(int index, uint8_t* chunk, size_t offset, size_t size, int loans) {
  auto& p = ports_->publishers[static_cast<size_t>(index)];
  auto* frame = static_cast<ShmFrame*>(iox::mepoo::ChunkHeader::fromUserPayload(chunk)->userHeader());
  *frame = ShmFrame{ShmFrame::kMagic, static_cast<uint32_t>(offset), static_cast<uint32_t>(size), 0};
  p.port.publish(chunk);
  p.last_size = size;
  ++counters_.sent;
  if (loans > 1) counters_.extra_loans += static_cast<uint64_t>(loans - 1);
}

int ShmEndpoint::Drain(int max, const Deliver& deliver) {
  if (ports_->subscribers.empty() || max <= 0) return 0;
  uint64_t pending = 0;
  (void)!read(wake_fd_, &pending, sizeof pending);  // reset before taking: a chunk arriving later wakes again
  int taken = 0;
  const size_t n = ports_->subscribers.size();
  for (size_t k = 0; k < n && taken < max; ++k) {
    auto& s = ports_->subscribers[(ports_->next_subscriber + k) % n];
    while (taken < max) {
      auto result = s.port.take();
      if (result.has_error()) break;  // nothing queued (or too many held, which Drain never does)
      const void* payload = result.value();
      ++taken;
      ++counters_.received;
      const auto* chunk = iox::mepoo::ChunkHeader::fromUserPayload(payload);
      const uint32_t header_size = chunk->userHeaderSize();
      const ChunkView view = ReadChunk(static_cast<const uint8_t*>(payload), chunk->userPayloadSize(),
                                       header_size > 0 ? chunk->userHeader() : nullptr, header_size);
      if (view.error) ++counters_.malformed;
      try {
        deliver(s.topic, view.data, view.size, view.error);
      } catch (...) {
        s.port.release(payload);
        throw;
      }
      s.port.release(payload);  // after the handlers: they read the message where it lies
    }
  }
  ports_->next_subscriber = (ports_->next_subscriber + 1) % n;
  if (taken == max && HasData()) {
    const uint64_t one = 1;  // more may be queued: the next poll must not sleep on them
    (void)!write(wake_fd_, &one, sizeof one);
  }
  return taken;
}

bool ShmEndpoint::HasData() const {
  for (const auto& s : ports_->subscribers) {
    if (s.port.hasData()) return true;
  }
  return false;
}

bool ShmEndpoint::CheckRouDi(std::chrono::steady_clock::time_point now) {
  if (!active_ || now < next_check_) return false;
  next_check_ = now + options_.roudi_check;
  if (runtime_->RouDiAlive()) return false;
  active_ = false;
  LIMBIC_LOG(kWarning) << "shared memory: RouDi stopped or restarted; this node's topics continue over the socket "
                          "path (iceoryx 2.0 cannot reconnect: restart the process to use shared memory again)";
  return true;
}

}  // namespace limbic::bus
