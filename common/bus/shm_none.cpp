// shm.hpp in a build without iceoryx (libiceoryx-posh-dev not found): no runtime ever connects, so every node
// uses the socket path; the endpoint below is never constructed.
#include <cstdlib>

#include "common/bus/shm.hpp"

namespace limbic::bus {

struct ShmRuntime::Impl {};
struct ShmEndpoint::Ports {};

ShmRuntime::ShmRuntime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ShmRuntime::~ShmRuntime() = default;

std::shared_ptr<ShmRuntime> ShmRuntime::Connect(const std::string& /*name*/, std::string* why,
                                                std::chrono::milliseconds /*wait*/) {
  if (why) *why = "this build has no shared-memory transport (libiceoryx-posh-dev was not found when configuring)";
  return nullptr;
}
bool ShmRuntime::RouDiAlive() const { return false; }
bool ShmRuntime::RouDiRunning() { return false; }

ShmEndpoint::ShmEndpoint(std::shared_ptr<ShmRuntime> runtime, const std::string& /*bus_address*/, ShmOptions options)
    : runtime_(std::move(runtime)), options_(std::move(options)), active_(false) {}
ShmEndpoint::~ShmEndpoint() = default;
int ShmEndpoint::AddPublisher(const std::string&, std::string_view) { return -1; }
bool ShmEndpoint::AddSubscriber(const std::string&, std::string_view) { return false; }
ChunkSource& ShmEndpoint::Source(int) { std::abort(); }  // no publisher exists in this build
size_t ShmEndpoint::InitialSize(int) const { return 0; }
void ShmEndpoint::Publish(int, uint8_t*, size_t, size_t, int) { std::abort(); }
int ShmEndpoint::Drain(int, const Deliver&) { return 0; }
bool ShmEndpoint::HasData() const { return false; }
bool ShmEndpoint::CheckRouDi(std::chrono::steady_clock::time_point) { return false; }

}  // namespace limbic::bus
