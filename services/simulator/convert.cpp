#include "services/simulator/convert.hpp"

namespace limbic::simulator {

flatbuffers::Offset<msg::WorldGeometry> WorldToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                   flatbuffers::Offset<msg::Header> header, const sim::Environment& env,
                                                   const std::vector<std::string>& robot_names,
                                                   const std::vector<sim::Placement>& placements) {
  std::vector<flatbuffers::Offset<msg::Polygon>> polygons;
  for (const auto& o : env.objects) {
    polygons.push_back(msg::CreatePolygon(fbb, o.id, static_cast<msg::ObjectProperty>(o.property),
                                          fbb.CreateString(o.kind == sim::ObjectKind::kWall ? "wall" : "obstacle"),
                                          convert::ToMsg(fbb, o.vertices)));
  }
  const msg::Vec2 min(0, 0), max(env.width, env.height), start = convert::ToMsg(env.start),
                                                         goal = convert::ToMsg(env.goal);
  const char set[2] = {env.set, 0};
  std::vector<flatbuffers::Offset<msg::RobotPlacement>> robots;
  for (size_t i = 0; i < robot_names.size() && i < placements.size(); ++i) {
    const msg::Pose2 robot_start = convert::ToMsg(placements[i].start);
    const msg::Vec2 robot_goal = convert::ToMsg(placements[i].goal);
    robots.push_back(msg::CreateRobotPlacement(fbb, fbb.CreateString(robot_names[i]), &robot_start, &robot_goal));
  }
  return msg::CreateWorldGeometry(fbb, header, fbb.CreateString(set), env.index, env.seed, &min, &max, env.block_size,
                                  fbb.CreateVector(polygons), &start, &goal, sim::GeometryHash(env),
                                  robots.empty() ? 0 : fbb.CreateVector(robots));
}

}  // namespace limbic::simulator
