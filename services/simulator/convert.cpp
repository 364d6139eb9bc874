#include "services/simulator/convert.hpp"

namespace limbic::simulator {

flatbuffers::Offset<msg::WorldGeometry> WorldToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                   flatbuffers::Offset<msg::Header> header,
                                                   const sim::Environment& env) {
  std::vector<flatbuffers::Offset<msg::Polygon>> polygons;
  for (const auto& o : env.objects) {
    polygons.push_back(msg::CreatePolygon(fbb, o.id, static_cast<msg::ObjectProperty>(o.property),
                                          fbb.CreateString(o.kind == sim::ObjectKind::kWall ? "wall" : "obstacle"),
                                          convert::ToMsg(fbb, o.vertices)));
  }
  const msg::Vec2 min(0, 0), max(env.width, env.height), start = convert::ToMsg(env.start),
      goal = convert::ToMsg(env.goal);
  const char set[2] = {env.set, 0};
  return msg::CreateWorldGeometry(fbb, header, fbb.CreateString(set), env.index, env.seed, &min, &max,
                                  env.block_size, fbb.CreateVector(polygons), &start, &goal, sim::GeometryHash(env));
}

}  // namespace limbic::simulator
