// The message contract: generated FlatBuffers types plus a registry that maps each root type to its
// 4-character identifier, its fully qualified name and its verifier.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "messages/affect_generated.h"
#include "messages/common_generated.h"
#include "messages/core_generated.h"
#include "messages/crowd_generated.h"
#include "messages/explore_generated.h"
#include "messages/laser_generated.h"
#include "messages/mission_generated.h"
#include "messages/navigation_generated.h"
#include "messages/recruitment_generated.h"
#include "messages/sensing_generated.h"
#include "messages/world_generated.h"

// X(Type, "IDNT") for every root table; the identifiers must match the schema's `identifier`
// attributes (checked against the binary schema by messages_test).
#define LIMBIC_MESSAGE_TYPES(X) \
  X(Clock, "CLCK")              \
  X(LockstepJoin, "LSJN")       \
  X(LockstepAck, "LSAK")        \
  X(Heartbeat, "HBT1")          \
  X(BusStats, "BUSS")           \
  X(ParameterRequest, "PREQ")   \
  X(ParameterReply, "PREP")     \
  X(FaultCommand, "FALT")       \
  X(WorldGeometry, "WRLD")      \
  X(Humans, "HUMN")             \
  X(GroundTruth, "TRUE")        \
  X(RawRanges, "RAWR")          \
  X(RangeScan, "SCAN")          \
  X(Bumpers, "BUMP")            \
  X(CollisionEvent, "COLL")     \
  X(Odometry, "ODOM")           \
  X(WheelCommand, "WHEL")       \
  X(VelocityCommand, "CMDV")    \
  X(GridMap, "GMAP")            \
  X(GridPatch, "GPAT")          \
  X(MapStats, "MSTA")           \
  X(ObstacleSet, "OBST")        \
  X(NavGoal, "GOAL")            \
  X(Path, "PATH")               \
  X(DirectionalState, "DIRS")   \
  X(VelocityState, "VELS")      \
  X(ControlParams, "CPAR")      \
  X(AffectState, "AFCT")        \
  X(EmotionLayer, "EMOL")       \
  X(AffectSnapshot, "AFSN")     \
  X(RunMetrics, "RUNM")         \
  X(MissionStatus, "MSTS")      \
  X(RecruitMessage, "RCMS")     \
  X(RecruitState, "RCST")       \
  X(RadioStats, "RCRS")         \
  X(LaserScan, "LSCN")          \
  X(LaserOdometry, "LODO")      \
  X(LaserGoal, "LGOL")          \
  X(HeadingCommand, "LHDG")     \
  X(LaserTruth, "LTRU")         \
  X(TopoObstacleList, "LOBS")   \
  X(TopoFeatureList, "LFEA")    \
  X(TopoCurrentNode, "LCND")    \
  X(TopoMapSnapshot, "LMAP")    \
  X(TopoPlanRequest, "LPRQ")    \
  X(TopoPath, "LPTH")           \
  X(TopoExitAttempt, "LEXA")    \
  X(CrowdState, "CRST")         \
  X(CrowdNeighbours, "CRNB")    \
  X(ExploreTask, "EXTK")        \
  X(ExploreReport, "EXRP")      \
  X(ExploreCall, "EXCL")        \
  X(ExploreBid, "EXBD")         \
  X(TopoMapUpdate, "LMUP")      \
  X(EstimatedPose, "LEPO")      \
  X(HighWaterReport, "HWMR")

namespace limbic::messages {

// Upper bound on any payload the bus accepts (a 1000x1000 full map is ~17 MB; ours are far smaller).
inline constexpr size_t kMaxPayloadBytes = 32u << 20;

template <typename T>
struct Traits;

#define LIMBIC_DECLARE_TRAITS(Type, Id)                       \
  template <>                                                 \
  struct Traits<msg::Type> {                                  \
    static constexpr const char* kIdentifier = Id;            \
    static constexpr const char* kName = "limbic.msg." #Type; \
  };
LIMBIC_MESSAGE_TYPES(LIMBIC_DECLARE_TRAITS)
#undef LIMBIC_DECLARE_TRAITS

struct MessageType {
  const char* identifier;  // 4 characters
  const char* name;        // fully qualified, e.g. "limbic.msg.Clock"
  bool (*verify)(const uint8_t* data, size_t size);
};

std::span<const MessageType> AllTypes();
const MessageType* FindByIdentifier(std::string_view identifier);
const MessageType* FindByName(std::string_view name);  // accepts "Clock" or "limbic.msg.Clock"

// The type a topic carries by limbic's naming convention ("clock", "faults", "world", "health/<x>",
// "<robot>/goal", "<robot>/map/patch", ...), or nullptr for a topic outside it. The broker treats these
// as declared types (issue 15): a topic's first publisher cannot give it another type.
const MessageType* ConventionalType(std::string_view topic);

// The buffer's identifier (bytes 4..8) as a string view, or empty if the buffer is too small.
std::string_view IdentifierOf(const uint8_t* data, size_t size);

// Checks size cap, identifier and the full flatbuffers::Verifier for type T.
template <typename T>
bool Verify(const uint8_t* data, size_t size) {
  if (size < 8 || size > kMaxPayloadBytes) return false;
  if (!flatbuffers::BufferHasIdentifier(data, Traits<T>::kIdentifier)) return false;
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, /*max_tables=*/10'000'000);
  return verifier.VerifyBuffer<T>(Traits<T>::kIdentifier);
}

// Header of any verified limbic message (every root table's field 0 is its Header).
const msg::Header* HeaderOf(const uint8_t* verified_data);

// FlatBuffers reads scalars in place and needs them aligned to their size (8 bytes at most: limbic's schemas use
// no force_align). ZeroMQ hands frames out at any address (a small frame lives inside the message object, a large
// one may point into the receive buffer), and an MCAP record's bytes sit at any offset of their chunk: reading
// them where they lie is undefined behaviour (UBSan: "load of misaligned address"), harmless on x86 by luck
// only. Whoever receives bytes from outside passes them through one of these before verifying or reading.
class AlignedBytes {
 public:
  static constexpr size_t kAlignment = 8;
  // `data` itself when it is aligned, else a copy that stays valid until the next call.
  const uint8_t* Align(const uint8_t* data, size_t size);
  size_t copies() const { return copies_; }

 private:
  std::vector<uint64_t> storage_;
  size_t copies_ = 0;
};

// The embedded binary schema (limbic.bfbs) describing every message type.
std::span<const uint8_t> BinarySchema();

}  // namespace limbic::messages
