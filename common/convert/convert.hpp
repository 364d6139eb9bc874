// Conversions between FlatBuffers messages and limbic's value types, shared by the services. Only
// this file and the services' convert/wiring files see both worlds.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/geometry/geometry.hpp"
#include "common/types/control_parameters.hpp"
#include "common/types/navigation.hpp"
#include "common/types/sensing.hpp"
#include "messages/messages.hpp"

namespace limbic::convert {

using FBB = flatbuffers::FlatBufferBuilder;
template <typename T>
using Offset = flatbuffers::Offset<T>;

inline geometry::Vec2 FromMsg(const msg::Vec2& v) { return {v.x(), v.y()}; }
inline msg::Vec2 ToMsg(const geometry::Vec2& v) { return msg::Vec2(v.x(), v.y()); }
inline geometry::Pose2 FromMsg(const msg::Pose2& p) { return {p.x(), p.y(), p.theta()}; }
inline msg::Pose2 ToMsg(const geometry::Pose2& p) { return msg::Pose2(p.x, p.y, p.theta); }
inline geometry::GridSpec FromMsg(const msg::GridInfo& g) {
  return {{g.origin_x(), g.origin_y()}, g.resolution(), g.width(), g.height()};
}
inline msg::GridInfo ToMsg(const geometry::GridSpec& g) {
  return msg::GridInfo(g.origin.x(), g.origin.y(), g.resolution, g.width, g.height);
}

std::vector<geometry::Vec2> FromMsg(const flatbuffers::Vector<const msg::Vec2*>* points);
Offset<flatbuffers::Vector<const msg::Vec2*>> ToMsg(FBB& fbb, const std::vector<geometry::Vec2>& points);

// Beams (RawRanges and RangeScan share the Beam struct).
void BeamsFromMsg(const flatbuffers::Vector<const msg::Beam*>* beams, RangeScan* scan);
Offset<flatbuffers::Vector<const msg::Beam*>> BeamsToMsg(FBB& fbb, const RangeScan& scan);

CollisionEvent FromMsg(const msg::CollisionEvent& m);
Offset<msg::CollisionEvent> ToMsg(FBB& fbb, Offset<msg::Header> header, const CollisionEvent& e, uint64_t count);

OdometryEstimate FromMsg(const msg::Odometry& m);
Offset<msg::Odometry> ToMsg(FBB& fbb, Offset<msg::Header> header, const OdometryEstimate& o);

ControlParameters FromMsg(const msg::ControlParams& m);
Offset<msg::ControlParams> ToMsg(FBB& fbb, Offset<msg::Header> header, const ControlParameters& p);

PlannedPath FromMsg(const msg::Path& m);
MapUpdateStats FromMsg(const msg::MapStats& m);

NavigationGoal FromMsg(const msg::NavGoal& m);

// What consumers need of the world geometry, decoded.
struct WorldInfo {
  char set = '?';
  int index = 0;
  uint64_t seed = 0;
  geometry::Vec2 min{0, 0};
  geometry::Vec2 max{0, 0};
  geometry::Vec2 start{0, 0};
  geometry::Vec2 goal{0, 0};
  struct Polygon {
    std::vector<geometry::Vec2> vertices;
    bool detectable = true;  // false: limited visibility (or floor) — the IR sensors miss it
    bool wall = false;
  };
  std::vector<Polygon> polygons;
  uint64_t geometry_hash = 0;
  // The team (issue 18): each robot's start and goal, by name. Empty from a simulator that predates teams.
  struct Robot {
    std::string name;
    geometry::Pose2 start;
    geometry::Vec2 goal{0, 0};
  };
  std::vector<Robot> robots;
  // `robot`'s start and goal: its entry in `robots`, else (a world without that entry) the world's own.
  std::pair<geometry::Vec2, geometry::Vec2> StartAndGoalOf(const std::string& robot) const {
    for (const Robot& r : robots) {
      if (r.name == robot) return {r.start.Position(), r.goal};
    }
    return {start, goal};
  }
};
WorldInfo FromMsg(const msg::WorldGeometry& m);

}  // namespace limbic::convert
