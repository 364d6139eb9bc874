#include "services/foxglove/convert.hpp"

#include "common/convert/convert.hpp"
#include "messages/messages.hpp"

namespace limbic::foxglove {

namespace {

std::vector<double> Doubles(const flatbuffers::Vector<double>* v) {
  return v ? std::vector<double>(v->begin(), v->end()) : std::vector<double>{};
}

// Emotion names in the order of AffectSnapshot.emotion_maps (affect.fbs: anger, fear, happiness,
// sadness, curiosity, surprise, confusion).
const std::vector<std::string>& EmotionNames() {
  static const std::vector<std::string> names{"anger",     "fear",     "happiness", "sadness",
                                              "curiosity", "surprise", "confusion"};
  return names;
}

}  // namespace

std::vector<DerivedMessage> Derive(DerivedChannels& derived, const Route& route, const uint8_t* data, int64_t stamp_ns,
                                   double now_s) {
  const std::string& robot = route.robot;
  switch (route.source) {
    case DerivedSource::kMap: {
      const auto& m = *flatbuffers::GetRoot<msg::GridMap>(data);
      if (!m.info()) return {};
      return derived.OnMap(robot, convert::FromMsg(*m.info()), Doubles(m.p_o()), Doubles(m.p_e()), stamp_ns, now_s);
    }
    case DerivedSource::kMapPatch: {
      const auto& m = *flatbuffers::GetRoot<msg::GridPatch>(data);
      std::vector<MapCell> cells;
      if (m.cells()) {
        for (const auto* c : *m.cells()) cells.push_back({c->index(), c->p_o(), c->p_e()});
      }
      return derived.OnMapPatch(robot, cells, stamp_ns, now_s);
    }
    case DerivedSource::kEmotionLayer: {
      const auto& m = *flatbuffers::GetRoot<msg::EmotionLayer>(data);
      if (!m.info()) return {};
      return derived.OnEmotionLayer(robot, convert::FromMsg(*m.info()), Doubles(m.cost()), stamp_ns, now_s);
    }
    case DerivedSource::kAffectSnapshot: {
      const auto& m = *flatbuffers::GetRoot<msg::AffectSnapshot>(data);
      if (!m.info() || !m.emotion_maps()) return {};
      std::vector<std::vector<double>> maps;
      for (const auto* e : *m.emotion_maps()) maps.push_back(e ? Doubles(e->values()) : std::vector<double>{});
      return derived.OnEmotionMaps(robot, convert::FromMsg(*m.info()), maps, EmotionNames(), stamp_ns, now_s);
    }
    case DerivedSource::kPath:
      return derived.OnPath(robot, convert::FromMsg(*flatbuffers::GetRoot<msg::Path>(data)), stamp_ns);
    case DerivedSource::kOdometry:
      return derived.OnOdometry(robot, convert::FromMsg(*flatbuffers::GetRoot<msg::Odometry>(data)).pose, stamp_ns,
                                now_s);
    case DerivedSource::kTruth: {
      const auto& m = *flatbuffers::GetRoot<msg::GroundTruth>(data);
      if (!m.pose()) return {};
      return derived.OnTruth(robot, convert::FromMsg(*m.pose()), stamp_ns);
    }
    case DerivedSource::kScan: {
      RangeScan scan;
      convert::BeamsFromMsg(flatbuffers::GetRoot<msg::RangeScan>(data)->beams(), &scan);
      return derived.OnScan(robot, scan, stamp_ns);
    }
    case DerivedSource::kGoal: {
      const auto& m = *flatbuffers::GetRoot<msg::NavGoal>(data);
      return derived.OnGoal(robot, m.active(), m.goal() ? convert::FromMsg(*m.goal()) : geometry::Vec2(0, 0), stamp_ns);
    }
    case DerivedSource::kCollision:
      return derived.OnCollision(robot, convert::FromMsg(*flatbuffers::GetRoot<msg::CollisionEvent>(data)), stamp_ns);
    case DerivedSource::kHumans: {
      const auto& m = *flatbuffers::GetRoot<msg::Humans>(data);
      std::vector<Human> humans;
      if (m.humans()) {
        for (const auto* h : *m.humans()) humans.push_back({h->id(), {h->x(), h->y()}, h->radius()});
      }
      return derived.OnHumans(humans, stamp_ns);
    }
  }
  return {};
}

std::vector<RecordingDeriver::Output> RecordingDeriver::OnMessage(const std::string& topic, const uint8_t* data,
                                                                  size_t size, uint64_t log_time_ns) {
  const messages::MessageType* type = messages::FindByIdentifier(messages::IdentifierOf(data, size));
  if (type == nullptr) return {};
  const auto route = RouteOf(topic, type->name);
  if (!route) return {};
  const msg::Header* header = messages::HeaderOf(data);
  // Derived messages carry their source's stamp; a message without one (stamp 0) its log time.
  const int64_t stamp_ns = header && header->stamp_ns() > 0 ? header->stamp_ns() : static_cast<int64_t>(log_time_ns);
  std::vector<Output> out;
  for (auto& d : Derive(derived_, *route, data, stamp_ns, static_cast<double>(log_time_ns) * 1e-9)) {
    const std::string& schema = JsonSchemaFor(d.schema_name);
    out.push_back(Output{std::move(d), schema});
  }
  return out;
}

}  // namespace limbic::foxglove
