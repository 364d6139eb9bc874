#include "services/crowd/convert.hpp"

#include <cmath>

namespace limbic::crowd {

flatbuffers::Offset<msg::CrowdState> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                           const CrowdStateValues& v) {
  const auto emotion = fbb.CreateString(v.emotion_name);
  const auto activations = fbb.CreateVector(v.emotion.activation);
  const InternalState& mu = v.step.mu;
  const BNavParams& p = v.step.params;
  return msg::CreateCrowdState(fbb, header, mu.efficacy, mu.free_space, mu.nearby_frustration, mu.task_delay,
                               mu.extra_rotations, emotion, v.visible, activations, p.caution, p.margin,
                               p.optimal_speed, p.half_fov, p.horizon, v.radius, v.step.decision.desired_heading,
                               v.step.decision.desired_speed, static_cast<uint32_t>(v.neighbours), v.has_goal,
                               static_cast<uint32_t>(v.remembered));
}

flatbuffers::Offset<msg::CrowdNeighbours> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                flatbuffers::Offset<msg::Header> header,
                                                const geometry::Pose2& observer,
                                                const std::vector<SensedNeighbour>& seen) {
  const double c = std::cos(observer.theta), s = std::sin(observer.theta);
  std::vector<flatbuffers::Offset<msg::CrowdNeighbour>> items;
  for (const SensedNeighbour& n : seen) {
    const Vec2 d = n.pose.Position() - observer.Position();
    // World → observer frame: rotate by −θ.
    const double x = c * d.x() + s * d.y(), y = -s * d.x() + c * d.y();
    const double vx = c * n.velocity.x() + s * n.velocity.y(), vy = -s * n.velocity.x() + c * n.velocity.y();
    items.push_back(msg::CreateCrowdNeighbour(fbb, x, y, vx, vy, n.radius, fbb.CreateString(n.emotion), n.id));
  }
  return msg::CreateCrowdNeighbours(fbb, header, fbb.CreateVector(items));
}

SensedNeighbours FromMsg(const msg::CrowdNeighbours& m, const geometry::Pose2& observer, const EmotionTable& table) {
  SensedNeighbours out;
  if (m.neighbours() == nullptr) return out;
  const double c = std::cos(observer.theta), s = std::sin(observer.theta);
  for (const msg::CrowdNeighbour* n : *m.neighbours()) {
    Neighbour neighbour;
    neighbour.position = observer.Position() + Vec2(c * n->x() - s * n->y(), s * n->x() + c * n->y());
    neighbour.velocity = Vec2(c * n->vx() - s * n->vy(), s * n->vx() + c * n->vy());
    neighbour.radius = n->radius();
    out.neighbours.push_back(neighbour);
    out.emotions.push_back(n->emotion() != nullptr && n->emotion()->size() > 0 ? table.Find(n->emotion()->str()) : -1);
    out.ids.push_back(n->id());
  }
  return out;
}

std::vector<geometry::Segment> WallsOf(const convert::WorldInfo& world) {
  std::vector<geometry::Segment> walls;
  for (const auto& polygon : world.polygons) {
    if (!polygon.detectable || polygon.vertices.size() < 2) continue;
    for (size_t i = 0; i < polygon.vertices.size(); ++i)
      walls.push_back({polygon.vertices[i], polygon.vertices[(i + 1) % polygon.vertices.size()]});
  }
  return walls;
}

}  // namespace limbic::crowd
