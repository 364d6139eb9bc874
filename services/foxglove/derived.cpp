#include "services/foxglove/derived.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "services/foxglove/protocol.hpp"

namespace limbic::foxglove {

using nlohmann::json;

namespace {

static_assert(std::endian::native == std::endian::little, "Grid data is written as little-endian float32");

// --- JSON schemas (the subset of each Foxglove schema this bridge fills; field names and meanings
// as in Foxglove's schema reference, docs.foxglove.dev "Message schemas") ---
json Num() { return {{"type", "number"}}; }
json Int() { return {{"type", "integer"}}; }
json Str() { return {{"type", "string"}}; }
json Bool() { return {{"type", "boolean"}}; }
json Arr(json items) { return {{"type", "array"}, {"items", std::move(items)}}; }
json Obj(const std::string& title, json properties) {
  return {{"title", title}, {"type", "object"}, {"properties", std::move(properties)}};
}
json TimeS() { return Obj("time", {{"sec", Int()}, {"nsec", Int()}}); }
json DurationS() { return Obj("duration", {{"sec", Int()}, {"nsec", Int()}}); }
json Vec3S() { return Obj("foxglove.Vector3", {{"x", Num()}, {"y", Num()}, {"z", Num()}}); }
json QuatS() { return Obj("foxglove.Quaternion", {{"x", Num()}, {"y", Num()}, {"z", Num()}, {"w", Num()}}); }
json PoseS() { return Obj("foxglove.Pose", {{"position", Vec3S()}, {"orientation", QuatS()}}); }
json ColorS() { return Obj("foxglove.Color", {{"r", Num()}, {"g", Num()}, {"b", Num()}, {"a", Num()}}); }
json Point3S() { return Obj("foxglove.Point3", {{"x", Num()}, {"y", Num()}, {"z", Num()}}); }

json SceneUpdateSchema() {
  const json sphere = Obj("foxglove.SpherePrimitive", {{"pose", PoseS()}, {"size", Vec3S()}, {"color", ColorS()}});
  const json cube = Obj("foxglove.CubePrimitive", {{"pose", PoseS()}, {"size", Vec3S()}, {"color", ColorS()}});
  const json cylinder =
      Obj("foxglove.CylinderPrimitive",
          {{"pose", PoseS()}, {"size", Vec3S()}, {"bottom_scale", Num()}, {"top_scale", Num()}, {"color", ColorS()}});
  const json arrow = Obj("foxglove.ArrowPrimitive", {{"pose", PoseS()},
                                                     {"shaft_length", Num()},
                                                     {"shaft_diameter", Num()},
                                                     {"head_length", Num()},
                                                     {"head_diameter", Num()},
                                                     {"color", ColorS()}});
  const json line = Obj("foxglove.LinePrimitive", {{"type", Int()},
                                                   {"pose", PoseS()},
                                                   {"thickness", Num()},
                                                   {"scale_invariant", Bool()},
                                                   {"points", Arr(Point3S())},
                                                   {"color", ColorS()},
                                                   {"colors", Arr(ColorS())},
                                                   {"indices", Arr(Int())}});
  const json triangle = Obj("foxglove.TriangleListPrimitive", {{"pose", PoseS()},
                                                               {"points", Arr(Point3S())},
                                                               {"color", ColorS()},
                                                               {"colors", Arr(ColorS())},
                                                               {"indices", Arr(Int())}});
  const json text = Obj("foxglove.TextPrimitive", {{"pose", PoseS()},
                                                   {"billboard", Bool()},
                                                   {"font_size", Num()},
                                                   {"scale_invariant", Bool()},
                                                   {"color", ColorS()},
                                                   {"text", Str()}});
  const json model = Obj("foxglove.ModelPrimitive", {{"pose", PoseS()},
                                                     {"scale", Vec3S()},
                                                     {"color", ColorS()},
                                                     {"override_color", Bool()},
                                                     {"url", Str()},
                                                     {"media_type", Str()},
                                                     {"data", {{"type", "string"}, {"contentEncoding", "base64"}}}});
  const json entity =
      Obj("foxglove.SceneEntity", {{"timestamp", TimeS()},
                                   {"frame_id", Str()},
                                   {"id", Str()},
                                   {"lifetime", DurationS()},
                                   {"frame_locked", Bool()},
                                   {"metadata", Arr(Obj("foxglove.KeyValuePair", {{"key", Str()}, {"value", Str()}}))},
                                   {"arrows", Arr(arrow)},
                                   {"cubes", Arr(cube)},
                                   {"spheres", Arr(sphere)},
                                   {"cylinders", Arr(cylinder)},
                                   {"lines", Arr(line)},
                                   {"triangles", Arr(triangle)},
                                   {"texts", Arr(text)},
                                   {"models", Arr(model)}});
  const json deletion = Obj("foxglove.SceneEntityDeletion", {{"timestamp", TimeS()}, {"type", Int()}, {"id", Str()}});
  return Obj("foxglove.SceneUpdate", {{"deletions", Arr(deletion)}, {"entities", Arr(entity)}});
}

json SchemaJson(const std::string& name) {
  if (name == "foxglove.Grid") {
    const json field = Obj("foxglove.PackedElementField", {{"name", Str()}, {"offset", Int()}, {"type", Int()}});
    return Obj("foxglove.Grid", {{"timestamp", TimeS()},
                                 {"frame_id", Str()},
                                 {"pose", PoseS()},
                                 {"column_count", Int()},
                                 {"cell_size", Obj("foxglove.Vector2", {{"x", Num()}, {"y", Num()}})},
                                 {"row_stride", Int()},
                                 {"cell_stride", Int()},
                                 {"fields", Arr(field)},
                                 {"data", {{"type", "string"}, {"contentEncoding", "base64"}}}});
  }
  if (name == "foxglove.PosesInFrame") {
    return Obj(name, {{"timestamp", TimeS()}, {"frame_id", Str()}, {"poses", Arr(PoseS())}});
  }
  if (name == "foxglove.FrameTransform") {
    return Obj(name, {{"timestamp", TimeS()},
                      {"parent_frame_id", Str()},
                      {"child_frame_id", Str()},
                      {"translation", Vec3S()},
                      {"rotation", QuatS()}});
  }
  if (name == "foxglove.LaserScan") {
    return Obj(name, {{"timestamp", TimeS()},
                      {"frame_id", Str()},
                      {"pose", PoseS()},
                      {"start_angle", Num()},
                      {"end_angle", Num()},
                      {"ranges", Arr(Num())},
                      {"intensities", Arr(Num())}});
  }
  if (name == "foxglove.SceneUpdate") return SceneUpdateSchema();
  throw std::invalid_argument("no JSON schema for '" + name + "'");
}

// --- message pieces ---
json Time(int64_t ns) {
  const int64_t sec = ns >= 0 ? ns / 1'000'000'000 : (ns - 999'999'999) / 1'000'000'000;
  return {{"sec", sec}, {"nsec", ns - sec * 1'000'000'000}};
}
json Vec3(double x, double y, double z) { return {{"x", x}, {"y", y}, {"z", z}}; }
// Rotation about z by `yaw` (rad) as a unit quaternion.
json Yaw(double yaw) { return {{"x", 0.0}, {"y", 0.0}, {"z", std::sin(yaw / 2)}, {"w", std::cos(yaw / 2)}}; }
json Pose(double x, double y, double z, double yaw) { return {{"position", Vec3(x, y, z)}, {"orientation", Yaw(yaw)}}; }
json Color(double r, double g, double b, double a) { return {{"r", r}, {"g", g}, {"b", b}, {"a", a}}; }

json Entity(const std::string& frame, const std::string& id, int64_t stamp_ns, bool frame_locked) {
  return {{"timestamp", Time(stamp_ns)},
          {"frame_id", frame},
          {"id", id},
          {"lifetime", {{"sec", 0}, {"nsec", 0}}},  // 0: until replaced or deleted
          {"frame_locked", frame_locked},
          {"metadata", json::array()},
          {"arrows", json::array()},
          {"cubes", json::array()},
          {"spheres", json::array()},
          {"cylinders", json::array()},
          {"lines", json::array()},
          {"triangles", json::array()},
          {"texts", json::array()},
          {"models", json::array()}};
}
json Cylinder(double x, double y, double z, double diameter, double height, json color) {
  return {{"pose", Pose(x, y, z, 0)},
          {"size", Vec3(diameter, diameter, height)},
          {"bottom_scale", 1.0},
          {"top_scale", 1.0},
          {"color", std::move(color)}};
}
json Sphere(double x, double y, double z, double diameter, json color) {
  return {{"pose", Pose(x, y, z, 0)}, {"size", Vec3(diameter, diameter, diameter)}, {"color", std::move(color)}};
}
json Text(double x, double y, double z, const std::string& text) {
  return {{"pose", Pose(x, y, z, 0)}, {"billboard", true},          {"font_size", 14.0},
          {"scale_invariant", true},  {"color", Color(1, 1, 1, 1)}, {"text", text}};
}
json DeleteAll(int64_t stamp_ns) { return {{"timestamp", Time(stamp_ns)}, {"type", 1}, {"id", ""}}; }

DerivedMessage Make(std::string topic, const char* schema, const json& body) {
  return {std::move(topic), schema, body.dump(-1, ' ', false, json::error_handler_t::replace)};
}

bool Finite(const geometry::Pose2& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.theta); }
bool Finite(const geometry::Vec2& v) { return std::isfinite(v.x()) && std::isfinite(v.y()); }
bool ValidSpec(const geometry::GridSpec& s) {
  return s.width > 0 && s.height > 0 && std::isfinite(s.resolution) && s.resolution > 0 && Finite(s.origin) &&
         static_cast<int64_t>(s.width) * s.height <= (int64_t{1} << 26);
}

// A Grid with float32 fields, cell (0,0)'s lower-left corner at the spec's origin, rows along +y
// (the grid index iy·width + ix is Foxglove's row-major order). Non-finite values are written as 0.
json GridJson(const std::string& frame, const geometry::GridSpec& spec,
              const std::vector<const std::vector<double>*>& layers, const std::vector<std::string>& names,
              int64_t stamp_ns) {
  const size_t cells = static_cast<size_t>(spec.CellCount());
  const size_t stride = 4 * layers.size();
  std::vector<uint8_t> data(cells * stride);
  for (size_t k = 0; k < layers.size(); ++k) {
    const auto& layer = *layers[k];
    for (size_t i = 0; i < cells; ++i) {
      const float v = std::isfinite(layer[i]) ? static_cast<float>(layer[i]) : 0.0f;
      std::memcpy(&data[i * stride + 4 * k], &v, 4);
    }
  }
  json fields = json::array();
  for (size_t k = 0; k < names.size(); ++k)
    fields.push_back({{"name", names[k]}, {"offset", 4 * k}, {"type", 7}});  // FLOAT32
  return {{"timestamp", Time(stamp_ns)},
          {"frame_id", frame},
          {"pose", Pose(spec.origin.x(), spec.origin.y(), 0, 0)},
          {"column_count", spec.width},
          {"cell_size", {{"x", spec.resolution}, {"y", spec.resolution}}},
          {"row_stride", stride * spec.width},
          {"cell_stride", stride},
          {"fields", fields},
          {"data", Base64(data.data(), data.size())}};
}

}  // namespace

const std::string& JsonSchemaFor(const std::string& schema_name) {
  static const std::map<std::string, std::string> schemas = [] {
    std::map<std::string, std::string> m;
    for (const char* n : {"foxglove.Grid", "foxglove.PosesInFrame", "foxglove.FrameTransform", "foxglove.LaserScan",
                          "foxglove.SceneUpdate"}) {
      m[n] = SchemaJson(n).dump();
    }
    return m;
  }();
  auto it = schemas.find(schema_name);
  if (it == schemas.end()) throw std::invalid_argument("no JSON schema for '" + schema_name + "'");
  return it->second;
}

std::optional<Route> RouteOf(const std::string& topic, const std::string& schema_name) {
  struct Entry {
    const char* name;
    const char* schema;
    DerivedSource source;
  };
  static constexpr Entry kRoutes[] = {
      {"map", "limbic.msg.GridMap", DerivedSource::kMap},
      {"map/patch", "limbic.msg.GridPatch", DerivedSource::kMapPatch},
      {"emotion_layer", "limbic.msg.EmotionLayer", DerivedSource::kEmotionLayer},
      {"affect/snapshot", "limbic.msg.AffectSnapshot", DerivedSource::kAffectSnapshot},
      {"path", "limbic.msg.Path", DerivedSource::kPath},
      {"odom", "limbic.msg.Odometry", DerivedSource::kOdometry},
      {"truth", "limbic.msg.GroundTruth", DerivedSource::kTruth},
      {"scan", "limbic.msg.RangeScan", DerivedSource::kScan},
      {"goal", "limbic.msg.NavGoal", DerivedSource::kGoal},
      {"collision", "limbic.msg.CollisionEvent", DerivedSource::kCollision},
  };
  if (topic == "humans") {
    if (schema_name != "limbic.msg.Humans") return std::nullopt;
    return Route{DerivedSource::kHumans, ""};
  }
  const auto slash = topic.find('/');
  if (slash == 0 || slash == std::string::npos) return std::nullopt;
  const std::string robot = topic.substr(0, slash);
  const std::string name = topic.substr(slash + 1);
  for (const auto& r : kRoutes) {
    if (name == r.name && schema_name == r.schema) return Route{r.source, robot};
  }
  return std::nullopt;
}

std::string DerivedChannels::Topic(const std::string& robot, const std::string& name) {
  return robot.empty() ? "foxglove/" + name : "foxglove/" + robot + "/" + name;
}

bool DerivedChannels::Due(std::optional<double>& last_s, double period_s, double now_s) {
  if (last_s && now_s - *last_s < period_s) return false;
  last_s = now_s;
  return true;
}

std::vector<DerivedMessage> DerivedChannels::OnMap(const std::string& robot, const geometry::GridSpec& spec,
                                                   const std::vector<double>& p_o, const std::vector<double>& p_e,
                                                   int64_t stamp_ns, double now_s) {
  const size_t cells = static_cast<size_t>(spec.CellCount());
  if (!ValidSpec(spec) || p_o.size() != cells || (p_e.size() != cells && !p_e.empty())) {
    ++rejected_;
    return {};
  }
  MapState& map = maps_[robot];
  map.spec = spec;
  map.p_o = p_o;
  map.p_e = p_e.empty() ? std::vector<double>(cells, 0.0) : p_e;
  map.dirty = true;
  return MaybeSendMap(robot, map, stamp_ns, now_s);
}

std::vector<DerivedMessage> DerivedChannels::OnMapPatch(const std::string& robot, const std::vector<MapCell>& cells,
                                                        int64_t stamp_ns, double now_s) {
  auto it = maps_.find(robot);
  if (it == maps_.end()) return {};  // no full map yet: the next latched one brings everything
  MapState& map = it->second;
  for (const auto& c : cells) {
    if (c.index < 0 || static_cast<size_t>(c.index) >= map.p_o.size()) {
      ++rejected_;
      continue;
    }
    map.p_o[c.index] = c.p_o;
    map.p_e[c.index] = c.p_e;
    map.dirty = true;
  }
  return MaybeSendMap(robot, map, stamp_ns, now_s);
}

std::vector<DerivedMessage> DerivedChannels::MaybeSendMap(const std::string& robot, MapState& map, int64_t stamp_ns,
                                                          double now_s) {
  if (!map.dirty || !Due(map.last_sent_s, options_.grid_period_s, now_s)) return {};
  map.dirty = false;
  return {Make(Topic(robot, "map"), "foxglove.Grid",
               GridJson(options_.world_frame, map.spec, {&map.p_o, &map.p_e}, {"p_o", "p_e"}, stamp_ns))};
}

std::vector<DerivedMessage> DerivedChannels::OnEmotionLayer(const std::string& robot, const geometry::GridSpec& spec,
                                                            const std::vector<double>& cost, int64_t stamp_ns,
                                                            double now_s) {
  if (!ValidSpec(spec) || cost.size() != static_cast<size_t>(spec.CellCount())) {
    ++rejected_;
    return {};
  }
  const std::string topic = Topic(robot, "emotion_layer");
  if (!Due(last_sent_[topic], options_.grid_period_s, now_s)) return {};
  return {Make(topic, "foxglove.Grid", GridJson(options_.world_frame, spec, {&cost}, {"cost"}, stamp_ns))};
}

std::vector<DerivedMessage> DerivedChannels::OnEmotionMaps(const std::string& robot, const geometry::GridSpec& spec,
                                                           const std::vector<std::vector<double>>& maps,
                                                           const std::vector<std::string>& names, int64_t stamp_ns,
                                                           double now_s) {
  std::vector<const std::vector<double>*> layers;
  std::vector<std::string> fields;
  for (size_t k = 0; k < maps.size(); ++k) {
    if (maps[k].size() != static_cast<size_t>(spec.CellCount())) {
      ++rejected_;
      return {};
    }
    layers.push_back(&maps[k]);
    fields.push_back(k < names.size() ? names[k] : "emotion" + std::to_string(k));
  }
  if (!ValidSpec(spec) || layers.empty()) {
    ++rejected_;
    return {};
  }
  const std::string topic = Topic(robot, "emotion_maps");
  if (!Due(last_sent_[topic], options_.grid_period_s, now_s)) return {};
  return {Make(topic, "foxglove.Grid", GridJson(options_.world_frame, spec, layers, fields, stamp_ns))};
}

std::vector<DerivedMessage> DerivedChannels::OnPath(const std::string& robot, const PlannedPath& path,
                                                    int64_t stamp_ns) {
  json poses = json::array();
  for (size_t i = 0; i < path.nodes.size(); ++i) {
    const auto& p = path.nodes[i];
    if (!Finite(p)) {
      ++rejected_;
      return {};
    }
    // Each pose faces the next node (the last keeps the previous heading).
    const auto& q = i + 1 < path.nodes.size() ? path.nodes[i + 1] : p;
    const auto& r = i + 1 < path.nodes.size() ? p : (i > 0 ? path.nodes[i - 1] : p);
    const double yaw = (q - r).norm() > 0 ? std::atan2(q.y() - r.y(), q.x() - r.x()) : 0.0;
    poses.push_back(Pose(p.x(), p.y(), 0.05, yaw));
  }
  return {Make(Topic(robot, "path"), "foxglove.PosesInFrame",
               json{{"timestamp", Time(stamp_ns)}, {"frame_id", options_.world_frame}, {"poses", poses}})};
}

std::vector<DerivedMessage> DerivedChannels::OnOdometry(const std::string& robot, const geometry::Pose2& pose,
                                                        int64_t stamp_ns, double now_s) {
  if (!Finite(pose)) {
    ++rejected_;
    return {};
  }
  const std::string frame = robot + "/base_link";
  std::vector<DerivedMessage> out{Make(Topic(robot, "tf"), "foxglove.FrameTransform",
                                       json{{"timestamp", Time(stamp_ns)},
                                            {"parent_frame_id", options_.world_frame},
                                            {"child_frame_id", frame},
                                            {"translation", Vec3(pose.x, pose.y, 0)},
                                            {"rotation", Yaw(pose.theta)}})};
  const std::string body_topic = Topic(robot, "robot");
  if (Due(last_sent_[body_topic], options_.robot_period_s, now_s)) {
    // The body is locked to the robot's frame: sent now and then, it follows every transform.
    json body = Entity(frame, robot, stamp_ns, /*frame_locked=*/true);
    const double r = options_.robot_radius;
    body["cylinders"].push_back(Cylinder(0, 0, 0.15, 2 * r, 0.3, Color(0.2, 0.5, 1.0, 0.9)));
    body["arrows"].push_back({{"pose", Pose(0, 0, 0.32, 0)},
                              {"shaft_length", r},
                              {"shaft_diameter", 0.05},
                              {"head_length", 0.12},
                              {"head_diameter", 0.12},
                              {"color", Color(1, 1, 1, 1)}});
    body["texts"].push_back(Text(0, 0, 0.6, robot));
    out.push_back(Make(body_topic, "foxglove.SceneUpdate", json{{"deletions", json::array()}, {"entities", {body}}}));
  }
  return out;
}

std::vector<DerivedMessage> DerivedChannels::OnTruth(const std::string& robot, const geometry::Pose2& pose,
                                                     int64_t stamp_ns) {
  if (!Finite(pose)) {
    ++rejected_;
    return {};
  }
  return {Make(Topic(robot, "tf_true"), "foxglove.FrameTransform",
               json{{"timestamp", Time(stamp_ns)},
                    {"parent_frame_id", options_.world_frame},
                    {"child_frame_id", robot + "/true"},
                    {"translation", Vec3(pose.x, pose.y, 0)},
                    {"rotation", Yaw(pose.theta)}})};
}

std::vector<DerivedMessage> DerivedChannels::OnScan(const std::string& robot, const RangeScan& scan, int64_t stamp_ns) {
  // LaserScan needs evenly spaced angles from one origin; the ring's beams start on a circle about
  // the centre and are not evenly spaced. So each beam's end point (origin + range along its
  // direction, robot frame) goes into the bin of its bearing from the centre, at its distance from
  // the centre; the nearest end point wins a bin. Bins without a beam carry range 0 (drawn at the
  // centre, under the robot body); intensity 1 = an obstacle within d_max, 0 = no return.
  const int bins = std::max(1, options_.scan_bins);
  std::vector<double> ranges(bins, 0.0), intensities(bins, 0.0);
  const double step = 2 * geometry::kPi / bins;
  for (const auto& b : scan.beams) {
    if (!std::isfinite(b.range) || !std::isfinite(b.angle_local) || !Finite(b.origin_local)) {
      ++rejected_;
      continue;
    }
    const geometry::Vec2 end =
        b.origin_local + b.range * geometry::Vec2(std::cos(b.angle_local), std::sin(b.angle_local));
    const double bearing = std::atan2(end.y(), end.x());  // [-π, π]
    int bin = static_cast<int>(std::floor((bearing + geometry::kPi) / step + 0.5)) % bins;
    const double d = end.norm();
    if (ranges[bin] == 0.0 || d < ranges[bin]) {
      ranges[bin] = d;
      intensities[bin] = b.valid ? 1.0 : 0.0;
    }
  }
  return {Make(Topic(robot, "scan"), "foxglove.LaserScan",
               json{{"timestamp", Time(stamp_ns)},
                    {"frame_id", robot + "/base_link"},
                    {"pose", Pose(0, 0, 0.1, 0)},
                    {"start_angle", -geometry::kPi},
                    {"end_angle", -geometry::kPi + step * (bins - 1)},
                    {"ranges", ranges},
                    {"intensities", intensities}})};
}

std::vector<DerivedMessage> DerivedChannels::OnGoal(const std::string& robot, bool active, const geometry::Vec2& goal,
                                                    int64_t stamp_ns) {
  json update{{"deletions", {DeleteAll(stamp_ns)}}, {"entities", json::array()}};
  if (active) {
    if (!Finite(goal)) {
      ++rejected_;
      return {};
    }
    json e = Entity(options_.world_frame, robot + "/goal", stamp_ns, false);
    e["cylinders"].push_back(Cylinder(goal.x(), goal.y(), 0.01, 0.5, 0.02, Color(0.1, 0.9, 0.2, 0.8)));
    e["texts"].push_back(Text(goal.x(), goal.y(), 0.4, "goal"));
    update["entities"].push_back(e);
  }
  return {Make(Topic(robot, "goal"), "foxglove.SceneUpdate", update)};
}

std::vector<DerivedMessage> DerivedChannels::OnCollision(const std::string& robot, const CollisionEvent& event,
                                                         int64_t stamp_ns) {
  if (!event.new_event) return {};  // published every tick; a hit is drawn once, when it starts
  if (!Finite(event.contact_point)) {
    ++rejected_;
    return {};
  }
  auto& bumps = bumps_[robot];
  bumps.push_back(event.contact_point);
  const uint64_t n = ++bump_count_[robot];
  json update{{"deletions", json::array()}, {"entities", json::array()}};
  if (bumps.size() > options_.max_bumps) {
    // The oldest hit leaves the screen.
    update["deletions"].push_back({{"timestamp", Time(stamp_ns)},
                                   {"type", 0},
                                   {"id", robot + "/bump/" + std::to_string(n - options_.max_bumps - 1)}});
    bumps.erase(bumps.begin());
  }
  json e = Entity(options_.world_frame, robot + "/bump/" + std::to_string(n - 1), stamp_ns, false);
  e["spheres"].push_back(
      Sphere(event.contact_point.x(), event.contact_point.y(), 0.15, 0.15, Color(1.0, 0.15, 0.1, 0.9)));
  update["entities"].push_back(e);
  return {Make(Topic(robot, "bumps"), "foxglove.SceneUpdate", update)};
}

std::vector<DerivedMessage> DerivedChannels::OnHumans(const std::vector<Human>& humans, int64_t stamp_ns) {
  // Everyone is redrawn each time: the previous set is deleted first (people may leave the scene).
  json update{{"deletions", {DeleteAll(stamp_ns)}}, {"entities", json::array()}};
  for (const auto& h : humans) {
    if (!Finite(h.position) || !std::isfinite(h.radius) || h.radius <= 0) {
      ++rejected_;
      continue;
    }
    json e = Entity(options_.world_frame, "human/" + std::to_string(h.id), stamp_ns, false);
    e["cylinders"].push_back(
        Cylinder(h.position.x(), h.position.y(), 0.85, 2 * h.radius, 1.7, Color(1.0, 0.6, 0.1, 0.9)));
    update["entities"].push_back(e);
  }
  return {Make(Topic("", "humans"), "foxglove.SceneUpdate", update)};
}

}  // namespace limbic::foxglove
