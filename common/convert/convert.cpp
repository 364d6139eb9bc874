#include "common/convert/convert.hpp"

namespace limbic::convert {

std::vector<geometry::Vec2> FromMsg(const flatbuffers::Vector<const msg::Vec2*>* points) {
  std::vector<geometry::Vec2> out;
  if (points == nullptr) return out;
  out.reserve(points->size());
  for (const auto* p : *points) out.push_back(FromMsg(*p));
  return out;
}

Offset<flatbuffers::Vector<const msg::Vec2*>> ToMsg(FBB& fbb, const std::vector<geometry::Vec2>& points) {
  std::vector<msg::Vec2> out;
  out.reserve(points.size());
  for (const auto& p : points) out.push_back(ToMsg(p));
  return fbb.CreateVectorOfStructs(out);
}

void BeamsFromMsg(const flatbuffers::Vector<const msg::Beam*>* beams, RangeScan* scan) {
  scan->beams.clear();
  if (beams == nullptr) return;
  scan->beams.reserve(beams->size());
  for (const auto* b : *beams) {
    scan->beams.push_back(RangeBeam{
        b->sensor_id(), {b->origin_x(), b->origin_y()}, b->angle(), b->d_min(), b->d_max(), b->range(), b->valid()});
  }
}

Offset<flatbuffers::Vector<const msg::Beam*>> BeamsToMsg(FBB& fbb, const RangeScan& scan) {
  std::vector<msg::Beam> beams;
  beams.reserve(scan.beams.size());
  for (const auto& b : scan.beams) {
    beams.emplace_back(b.sensor_id, b.origin_local.x(), b.origin_local.y(), b.angle_local, b.d_min, b.d_max, b.range,
                       b.valid);
  }
  return fbb.CreateVectorOfStructs(beams);
}

CollisionEvent FromMsg(const msg::CollisionEvent& m) {
  CollisionEvent e;
  e.occurred = m.occurred();
  e.new_event = m.new_event();
  if (m.switches()) e.sensor_ids.assign(m.switches()->begin(), m.switches()->end());
  if (m.contact_point()) e.contact_point = FromMsg(*m.contact_point());
  e.speed_before = m.speed_before();
  return e;
}

Offset<msg::CollisionEvent> ToMsg(FBB& fbb, Offset<msg::Header> header, const CollisionEvent& e, uint64_t count) {
  const msg::Vec2 contact = ToMsg(e.contact_point);
  return msg::CreateCollisionEvent(fbb, header, e.occurred, e.new_event, fbb.CreateVector(e.sensor_ids), &contact,
                                   e.speed_before, count);
}

OdometryEstimate FromMsg(const msg::Odometry& m) {
  OdometryEstimate o;
  if (m.pose()) o.pose = FromMsg(*m.pose());
  o.v = m.v();
  o.omega = m.omega();
  return o;
}

Offset<msg::Odometry> ToMsg(FBB& fbb, Offset<msg::Header> header, const OdometryEstimate& o) {
  const msg::Pose2 pose = ToMsg(o.pose);
  return msg::CreateOdometry(fbb, header, &pose, o.v, o.omega);
}

ControlParameters FromMsg(const msg::ControlParams& m) {
  ControlParameters p;
#define LIMBIC_FROM(type, name) p.name = m.name();
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FROM)
#undef LIMBIC_FROM
  return p;
}

Offset<msg::ControlParams> ToMsg(FBB& fbb, Offset<msg::Header> header, const ControlParameters& p) {
  msg::ControlParamsBuilder b(fbb);
  b.add_header(header);
#define LIMBIC_TO(type, name) b.add_##name(p.name);
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_TO)
#undef LIMBIC_TO
  return b.Finish();
}

PlannedPath FromMsg(const msg::Path& m) {
  PlannedPath p;
  p.success = m.success();
  p.nodes = FromMsg(m.nodes());
  if (m.node_costs()) p.node_costs.assign(m.node_costs()->begin(), m.node_costs()->end());
  p.max_cost = m.max_cost();
  p.planned_at = m.planned_at_s();
  return p;
}

MapUpdateStats FromMsg(const msg::MapStats& m) {
  MapUpdateStats s;
  if (m.updated()) {
    s.updated_cells.reserve(m.updated()->size());
    for (const auto* c : *m.updated()) s.updated_cells.push_back(UpdatedCell{c->index(), c->s_o(), c->p_o_before()});
  }
  s.mean_p_e = m.mean_p_e();
  s.density = m.density();
  return s;
}

NavigationGoal FromMsg(const msg::NavGoal& m) {
  NavigationGoal g;
  if (m.goal()) g.goal = FromMsg(*m.goal());
  g.instruction_id = m.instruction_id();
  g.received_at = m.received_at_s();
  g.distance_at_start = m.distance_at_start();
  return g;
}

WorldInfo FromMsg(const msg::WorldGeometry& m) {
  WorldInfo w;
  w.set = m.env_set() && m.env_set()->size() > 0 ? m.env_set()->c_str()[0] : '?';
  w.index = m.env_index();
  w.seed = m.seed();
  if (m.min()) w.min = FromMsg(*m.min());
  if (m.max()) w.max = FromMsg(*m.max());
  if (m.start()) w.start = FromMsg(*m.start());
  if (m.goal()) w.goal = FromMsg(*m.goal());
  if (m.polygons()) {
    for (const auto* p : *m.polygons()) {
      const bool detectable =
          p->property() != msg::ObjectProperty::LimitedVisibility && p->property() != msg::ObjectProperty::Floor;
      w.polygons.push_back({FromMsg(p->vertices()), detectable, p->kind() && p->kind()->str() == "wall"});
    }
  }
  w.geometry_hash = m.geometry_hash();
  if (m.robots()) {
    for (const auto* r : *m.robots()) {
      WorldInfo::Robot robot;
      robot.name = r->name() ? r->name()->str() : "";
      if (r->start()) robot.start = {r->start()->x(), r->start()->y(), r->start()->theta()};
      if (r->goal()) robot.goal = FromMsg(*r->goal());
      w.robots.push_back(std::move(robot));
    }
  }
  return w;
}

}  // namespace limbic::convert
