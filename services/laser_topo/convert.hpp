// Map layer values ⇄ FlatBuffers messages (messages/laser/topo_*.fbs, spec reactive-topological §5.2). With the
// wiring files the only map layer code that sees the wire format. Doubles cross unchanged, so a map rebuilt
// from a snapshot plans exactly as the mapper's own.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <vector>

#include "messages/messages.hpp"
#include "services/laser_topo/map_services.hpp"

namespace limbic::laser {

using HeaderOffset = flatbuffers::Offset<msg::Header>;

flatbuffers::Offset<msg::TopoObstacleList> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                 const std::vector<TopoObstacle>& obstacles);
flatbuffers::Offset<msg::TopoFeatureList> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const PerceivedScan& scan);
std::vector<Feature> FeaturesFromMsg(const msg::TopoFeatureList& m);

flatbuffers::Offset<msg::TopoCurrentNode> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const TopoMapper& mapper);
MapUpdate UpdateFromMsg(const msg::TopoCurrentNode& m);

// §5.2 EstimatedPose: the mapper's corrected pose for odometry `odom` (compass heading `heading_deg`).
flatbuffers::Offset<msg::EstimatedPose> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                              const TopoMapper& mapper, Vec2 odom, double heading_deg);
Vec2 OffsetFromMsg(const msg::TopoCurrentNode& m);

// The whole map (nodes with statistics, links, exits) as the mapper holds it, including the map updates up to
// `update_seq`.
flatbuffers::Offset<msg::TopoMapSnapshot> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const TopoMap& map, uint32_t version, uint32_t update_seq = 0);
// The nodes of a snapshot (the planner needs no current node: a request names its start).
std::vector<TopoNode> NodesFromMsg(const msg::TopoMapSnapshot& m);

// One changed node (§5.2 TopoMapUpdate), every field as the mapper holds it.
flatbuffers::Offset<msg::TopoMapUpdate> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                              const NodeUpdate& update);
NodeUpdate NodeUpdateFromMsg(const msg::TopoMapUpdate& m);

flatbuffers::Offset<msg::TopoPlanRequest> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const PlanRequestOut& request);
PlanRequestOut PlanRequestFromMsg(const msg::TopoPlanRequest& m);
flatbuffers::Offset<msg::TopoPath> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header, uint32_t request_id,
                                         int start_node, const MapPath& path, uint32_t map_version);
MapPath PathFromMsg(const msg::TopoPath& m);

flatbuffers::Offset<msg::TopoExitAttempt> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const ExitAttemptOut& attempt);
ExitAttemptOut ExitAttemptFromMsg(const msg::TopoExitAttempt& m);

}  // namespace limbic::laser
