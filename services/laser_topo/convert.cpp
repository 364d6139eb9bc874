#include "services/laser_topo/convert.hpp"

namespace limbic::laser {

flatbuffers::Offset<msg::TopoObstacleList> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                 const std::vector<TopoObstacle>& obstacles) {
  std::vector<msg::TopoObstacleEntry> entries;
  entries.reserve(obstacles.size());
  for (const TopoObstacle& o : obstacles) {
    entries.emplace_back(static_cast<int16_t>(o.bearing_min), static_cast<int16_t>(o.bearing_max),
                         static_cast<int16_t>(o.bearing), o.range_cm);
  }
  return msg::CreateTopoObstacleList(fbb, header, fbb.CreateVectorOfStructs(entries));
}

flatbuffers::Offset<msg::TopoFeatureList> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const PerceivedScan& scan) {
  std::vector<msg::TopoFeatureEntry> entries;
  entries.reserve(scan.features.size());
  for (const Feature& f : scan.features) {
    entries.emplace_back(static_cast<uint8_t>(f.a), static_cast<uint8_t>(f.b), f.perspective, f.adjacent, f.bearing_deg,
                         f.length_cm, f.nvb_deg, f.nvr_cm, f.pa.x, f.pa.y, f.pb.x, f.pb.y, f.range_sum_cm);
  }
  return msg::CreateTopoFeatureList(fbb, header, fbb.CreateVectorOfStructs(entries),
                                    static_cast<int16_t>(scan.classified), scan.goal_in_sight);
}

std::vector<Feature> FeaturesFromMsg(const msg::TopoFeatureList& m) {
  std::vector<Feature> out;
  if (m.features() == nullptr) return out;
  out.reserve(m.features()->size());
  for (const msg::TopoFeatureEntry* e : *m.features()) {
    Feature f;
    f.a = e->a();
    f.b = e->b();
    f.perspective = e->perspective();
    f.adjacent = e->adjacent();
    f.bearing_deg = e->bearing_deg();
    f.length_cm = e->length_cm();
    f.nvb_deg = e->nvb_deg();
    f.nvr_cm = e->nvr_cm();
    f.pa = Vec2{e->pa_x_cm(), e->pa_y_cm()};
    f.pb = Vec2{e->pb_x_cm(), e->pb_y_cm()};
    f.range_sum_cm = e->range_sum_cm();
    out.push_back(f);
  }
  return out;
}

flatbuffers::Offset<msg::TopoCurrentNode> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const TopoMapper& mapper) {
  const MapUpdate& u = mapper.last_update();
  return msg::CreateTopoCurrentNode(fbb, header, u.current, u.updated, u.created, u.revisit, u.changed,
                                    u.good_perspective, mapper.offset().x, mapper.offset().y,
                                    static_cast<int32_t>(mapper.map().nodes().size()), mapper.version());
}

MapUpdate UpdateFromMsg(const msg::TopoCurrentNode& m) {
  MapUpdate u;
  u.current = m.node_id();
  u.updated = m.updated();
  u.created = m.new_node();
  u.revisit = m.revisit();
  u.changed = m.changed();
  u.good_perspective = m.good_perspective();
  return u;
}

flatbuffers::Offset<msg::EstimatedPose> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                              const TopoMapper& mapper, Vec2 odom, double heading_deg) {
  const Vec2 p = mapper.Estimate(odom);
  return msg::CreateEstimatedPose(fbb, header, p.x, p.y, heading_deg, odom.x, odom.y,
                                  static_cast<uint32_t>(mapper.corrections()), mapper.corrected_node());
}

Vec2 OffsetFromMsg(const msg::TopoCurrentNode& m) { return Vec2{m.offset_x_cm(), m.offset_y_cm()}; }

namespace {

flatbuffers::Offset<msg::TopoNodeEntry> NodeToMsg(flatbuffers::FlatBufferBuilder& fbb, const TopoNode& n) {
  std::vector<msg::TopoLinkEntry> links;
  links.reserve(n.links.size());
  for (const NodeLink& l : n.links) links.emplace_back(l.to, l.range_cm, l.bearing_deg);
  std::vector<msg::TopoExitEntry> exits;
  exits.reserve(n.exits.size());
  for (const NodeExit& e : n.exits) {
    exits.emplace_back(e.filled, static_cast<int8_t>(e.mask), static_cast<int16_t>(e.tries), e.feature_bearing_deg,
                       e.feature_length_cm, e.bearing_deg, e.range_cm, e.prob, e.proj_seen_cm);
  }
  const auto links_v = fbb.CreateVectorOfStructs(links);
  const auto exits_v = fbb.CreateVectorOfStructs(exits);
  return msg::CreateTopoNodeEntry(fbb, n.id, n.bearing_deg, n.length_cm, n.ref_bearing_deg, n.s_bearing, n.ss_bearing,
                                  n.s_length, n.ss_length, n.n, n.v_bearing, n.v_length, n.north, n.east, n.south,
                                  n.west, n.rel.x, n.rel.y, n.rel_sum.x, n.rel_sum.y, n.rel_n, links_v, exits_v,
                                  n.perspective, n.goal_seen, n.visits, n.calibrated_this_visit);
}

TopoNode NodeFromMsg(const msg::TopoNodeEntry& e) {
  TopoNode n;
  n.id = e.id();
  n.bearing_deg = e.bearing_deg();
  n.length_cm = e.length_cm();
  n.ref_bearing_deg = e.ref_bearing_deg();
  n.s_bearing = e.s_bearing();
  n.ss_bearing = e.ss_bearing();
  n.s_length = e.s_length();
  n.ss_length = e.ss_length();
  n.n = e.n();
  n.v_bearing = e.v_bearing();
  n.v_length = e.v_length();
  n.north = e.north();
  n.east = e.east();
  n.south = e.south();
  n.west = e.west();
  n.rel = Vec2{e.rel_x_cm(), e.rel_y_cm()};
  n.rel_sum = Vec2{e.rel_sum_x_cm(), e.rel_sum_y_cm()};
  n.rel_n = e.rel_n();
  if (e.links()) {
    for (const msg::TopoLinkEntry* l : *e.links()) n.links.push_back({l->to(), l->range_cm(), l->bearing_deg()});
  }
  if (e.exits()) {
    for (flatbuffers::uoffset_t k = 0; k < e.exits()->size() && k < n.exits.size(); ++k) {
      const msg::TopoExitEntry* x = e.exits()->Get(k);
      NodeExit& out = n.exits[k];
      out.filled = x->filled();
      out.mask = x->mask();
      out.tries = x->tries();
      out.feature_bearing_deg = x->feature_bearing_deg();
      out.feature_length_cm = x->feature_length_cm();
      out.bearing_deg = x->bearing_deg();
      out.range_cm = x->range_cm();
      out.prob = x->prob();
      out.proj_seen_cm = x->proj_seen_cm();
    }
  }
  n.perspective = e.perspective();
  n.goal_seen = e.goal_seen();
  n.visits = e.visits();
  n.calibrated_this_visit = e.calibrated_this_visit();
  return n;
}

}  // namespace

flatbuffers::Offset<msg::TopoMapSnapshot> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const TopoMap& map, uint32_t version, uint32_t update_seq) {
  std::vector<flatbuffers::Offset<msg::TopoNodeEntry>> nodes;
  nodes.reserve(map.nodes().size());
  for (const TopoNode& n : map.nodes()) nodes.push_back(NodeToMsg(fbb, n));
  return msg::CreateTopoMapSnapshot(fbb, header, version, map.current(), fbb.CreateVector(nodes), update_seq);
}

std::vector<TopoNode> NodesFromMsg(const msg::TopoMapSnapshot& m) {
  std::vector<TopoNode> nodes;
  if (m.nodes() == nullptr) return nodes;
  nodes.reserve(m.nodes()->size());
  for (const msg::TopoNodeEntry* e : *m.nodes()) nodes.push_back(NodeFromMsg(*e));
  return nodes;
}

flatbuffers::Offset<msg::TopoMapUpdate> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                              const NodeUpdate& update) {
  const auto node = NodeToMsg(fbb, update.node);
  return msg::CreateTopoMapUpdate(fbb, header, update.seq, static_cast<msg::TopoMapOp>(static_cast<int8_t>(update.op)),
                                  node);
}

NodeUpdate NodeUpdateFromMsg(const msg::TopoMapUpdate& m) {
  static_assert(static_cast<int>(msg::TopoMapOp::Create) == static_cast<int>(MapOp::kCreate) &&
                static_cast<int>(msg::TopoMapOp::Update) == static_cast<int>(MapOp::kUpdate) &&
                static_cast<int>(msg::TopoMapOp::MergeRevisit) == static_cast<int>(MapOp::kMergeRevisit));
  NodeUpdate u;
  u.seq = m.seq();
  u.op = static_cast<MapOp>(static_cast<int>(m.op()));  // the value rules hold op to the three
  if (m.node() != nullptr) u.node = NodeFromMsg(*m.node());
  return u;
}

flatbuffers::Offset<msg::TopoPlanRequest> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const PlanRequestOut& r) {
  return msg::CreateTopoPlanRequest(fbb, header, r.request_id, r.current_node, r.goal.x, r.goal.y, r.goal_in_sight,
                                    static_cast<msg::PlanReason>(r.reason));
}

PlanRequestOut PlanRequestFromMsg(const msg::TopoPlanRequest& m) {
  PlanRequestOut r;
  r.request_id = m.request_id();
  r.current_node = m.current_node();
  r.goal = Vec2{m.goal_x_cm(), m.goal_y_cm()};
  r.goal_in_sight = m.goal_in_sight();
  r.reason = static_cast<PlanReason>(static_cast<int>(m.reason()));
  return r;
}

flatbuffers::Offset<msg::TopoPath> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header, uint32_t request_id,
                                         int start_node, const MapPath& path, uint32_t map_version) {
  std::vector<msg::TopoWaypointEntry> wps;
  wps.reserve(path.waypoints.size());
  for (const Waypoint& w : path.waypoints) wps.emplace_back(w.node, w.position.x, w.position.y);
  return msg::CreateTopoPath(fbb, header, request_id, start_node, path.valid, fbb.CreateVectorOfStructs(wps),
                             path.valid ? path.exit_node : -1, static_cast<int8_t>(path.valid ? path.exit_sector : -1),
                             path.weight, map_version);
}

MapPath PathFromMsg(const msg::TopoPath& m) {
  MapPath p;
  p.valid = m.valid();
  p.exit_node = m.exit_node();
  p.exit_sector = m.exit_sector();
  p.weight = m.weight();
  if (m.waypoints()) {
    for (const msg::TopoWaypointEntry* w : *m.waypoints())
      p.waypoints.push_back({w->node_id(), {w->x_cm(), w->y_cm()}});
  }
  return p;
}

flatbuffers::Offset<msg::TopoExitAttempt> ToMsg(flatbuffers::FlatBufferBuilder& fbb, HeaderOffset header,
                                                const ExitAttemptOut& a) {
  return msg::CreateTopoExitAttempt(fbb, header, a.node, static_cast<int8_t>(a.sector),
                                    static_cast<msg::ExitAttemptState>(static_cast<int8_t>(a.outcome)));
}

ExitAttemptOut ExitAttemptFromMsg(const msg::TopoExitAttempt& m) {
  // The value rules (messages/validate.cpp) hold the state to the three of ExitAttemptState.
  static_assert(static_cast<int>(msg::ExitAttemptState::Started) == static_cast<int>(ExitOutcome::kStarted) &&
                static_cast<int>(msg::ExitAttemptState::Reached) == static_cast<int>(ExitOutcome::kReached) &&
                static_cast<int>(msg::ExitAttemptState::Abandoned) == static_cast<int>(ExitOutcome::kAbandoned));
  return {m.node_id(), m.sector(), static_cast<ExitOutcome>(static_cast<int>(m.state()))};
}

}  // namespace limbic::laser
