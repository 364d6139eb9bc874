// Derived channels: limbic's values re-expressed in Foxglove's own schemas (JSON encoding,
// jsonschema) so Foxglove's 3D panel shows map, path, robot, range ring, people, goal and bumper
// hits with no plugin. Topic (schema) <- source:
//
//   foxglove/<robot>/map (Grid, fields p_o, p_e)        <- GridMap + GridPatch
//   foxglove/<robot>/emotion_layer (Grid, cost)          <- EmotionLayer
//   foxglove/<robot>/emotion_maps (Grid, one per emotion) <- AffectSnapshot
//   foxglove/<robot>/path (PosesInFrame)                 <- Path
//   foxglove/<robot>/tf (FrameTransform world -> <robot>/base_link) <- Odometry
//   foxglove/<robot>/tf_true (FrameTransform world -> <robot>/true) <- GroundTruth
//   foxglove/<robot>/scan (LaserScan)                    <- RangeScan
//   foxglove/<robot>/robot (SceneUpdate: the body)       <- Odometry, about once a second
//   foxglove/<robot>/goal (SceneUpdate)                  <- NavGoal
//   foxglove/<robot>/bumps (SceneUpdate)                 <- CollisionEvent (new hits)
//   foxglove/humans (SceneUpdate)                        <- Humans
//
// Inputs are limbic value types and stamps; time for throttling comes in as a value (no clock
// here).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/robot/robot_description.hpp"
#include "common/types/navigation.hpp"
#include "common/types/sensing.hpp"

namespace limbic::foxglove {

// Which bus messages feed derived channels: "<robot>/<name>" with the expected type, or "humans".
enum class DerivedSource {
  kMap,
  kMapPatch,
  kEmotionLayer,
  kAffectSnapshot,
  kPath,
  kOdometry,
  kTruth,
  kScan,
  kGoal,
  kCollision,
  kHumans
};
struct Route {
  DerivedSource source;
  std::string robot;  // "" for global topics
};
// nullopt: the topic feeds no derived channel (or carries another type than expected there).
std::optional<Route> RouteOf(const std::string& topic, const std::string& schema_name);

struct DerivedMessage {
  std::string topic;
  std::string schema_name;  // e.g. "foxglove.Grid"
  std::string json;
};

// The JSON schema (jsonschema) advertised with each Foxglove schema this file writes. Throws
// std::invalid_argument for a name it does not write.
const std::string& JsonSchemaFor(const std::string& schema_name);

struct DerivedOptions {
  std::string world_frame = "world";
  double grid_period_s = 1.0;  // grids are large: at most one per map and period
  int scan_bins = 360;         // LaserScan angular bins over a full turn (the ring's beams are not evenly spaced)
  size_t max_bumps = 50;       // bumper hits kept on screen
  double robot_radius = robot::RobotDescription{}.body.circumscribed_radius();  // r_R (MARVIN; issue 18)
  double robot_period_s = 1.0;  // robot body re-sent this often (late joiners see it)
};

struct MapCell {
  int index = 0;
  double p_o = 0.0;
  double p_e = 0.0;
};

struct Human {
  int id = 0;
  geometry::Vec2 position{0, 0};
  double radius = 0.25;
};

class DerivedChannels {
 public:
  explicit DerivedChannels(DerivedOptions options) : options_(std::move(options)) {}

  // Each returns what to publish now (often nothing: throttled, or not enough known yet). `now_s`
  // is any monotonic clock of the caller, used only for throttling.
  std::vector<DerivedMessage> OnMap(const std::string& robot, const geometry::GridSpec& spec,
                                    const std::vector<double>& p_o, const std::vector<double>& p_e, int64_t stamp_ns,
                                    double now_s);
  // Cells changed since the last full map (ignored until a full map arrived; out-of-grid indices
  // skipped).
  std::vector<DerivedMessage> OnMapPatch(const std::string& robot, const std::vector<MapCell>& cells, int64_t stamp_ns,
                                         double now_s);
  std::vector<DerivedMessage> OnEmotionLayer(const std::string& robot, const geometry::GridSpec& spec,
                                             const std::vector<double>& cost, int64_t stamp_ns, double now_s);
  // `maps[k]` is emotion k's map in grid order (`names[k]` names the Grid field).
  std::vector<DerivedMessage> OnEmotionMaps(const std::string& robot, const geometry::GridSpec& spec,
                                            const std::vector<std::vector<double>>& maps,
                                            const std::vector<std::string>& names, int64_t stamp_ns, double now_s);
  std::vector<DerivedMessage> OnPath(const std::string& robot, const PlannedPath& path, int64_t stamp_ns);
  std::vector<DerivedMessage> OnOdometry(const std::string& robot, const geometry::Pose2& pose, int64_t stamp_ns,
                                         double now_s);
  std::vector<DerivedMessage> OnTruth(const std::string& robot, const geometry::Pose2& pose, int64_t stamp_ns);
  std::vector<DerivedMessage> OnScan(const std::string& robot, const RangeScan& scan, int64_t stamp_ns);
  std::vector<DerivedMessage> OnGoal(const std::string& robot, bool active, const geometry::Vec2& goal,
                                     int64_t stamp_ns);
  std::vector<DerivedMessage> OnCollision(const std::string& robot, const CollisionEvent& event, int64_t stamp_ns);
  std::vector<DerivedMessage> OnHumans(const std::vector<Human>& humans, int64_t stamp_ns);

  // Messages refused for non-finite or inconsistent values (a NaN pose, a grid whose size
  // disagrees).
  uint64_t rejected() const { return rejected_; }

  static std::string Topic(const std::string& robot, const std::string& name);

 private:
  struct MapState {
    geometry::GridSpec spec;
    std::vector<double> p_o, p_e;
    bool dirty = false;
    std::optional<double> last_sent_s;
  };
  std::vector<DerivedMessage> MaybeSendMap(const std::string& robot, MapState& map, int64_t stamp_ns, double now_s);
  bool Due(std::optional<double>& last_s, double period_s, double now_s);

  DerivedOptions options_;
  std::map<std::string, MapState> maps_;
  std::map<std::string, std::optional<double>> last_sent_;  // throttles by topic
  std::map<std::string, std::vector<geometry::Vec2>> bumps_;
  std::map<std::string, uint64_t> bump_count_;
  uint64_t rejected_ = 0;
};

}  // namespace limbic::foxglove
