#include "tests/testing/hostile_messages.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace limbic::testing {
namespace {

using FBB = flatbuffers::FlatBufferBuilder;
using HeaderOffset = flatbuffers::Offset<msg::Header>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One bad number per variant: NaN, +inf, -inf, huge.
double Bad(int variant, uint64_t noise) {
  switch ((variant + noise) % 4) {
    case 0:
      return kNaN;
    case 1:
      return kInf;
    case 2:
      return -kInf;
    default:
      return (noise % 2 ? -1.0 : 1.0) * 1e300;
  }
}

// Builds one variant into fbb (header already made) and returns the root offset as untyped.
using Builder = std::function<flatbuffers::Offset<void>(FBB&, HeaderOffset, int variant, uint64_t noise)>;

struct Entry {
  int variants;
  Builder build;
};

template <typename T>
flatbuffers::Offset<void> Untyped(flatbuffers::Offset<T> o) {
  return flatbuffers::Offset<void>(o.o);
}

std::vector<msg::Beam> Beams(int variant, uint64_t noise) {
  std::vector<msg::Beam> beams(8, msg::Beam(0, 0.1, 0.0, 0.0, 0.04, 0.8, 0.5, true));
  switch (variant % 5) {
    case 0:
      beams[3] = msg::Beam(0, 0.1, 0.0, 0.0, 0.04, 0.8, Bad(variant, noise), true);
      break;
    case 1:
      beams[2] = msg::Beam(0, 0.1, 0.0, 0.0, 0.04, -0.8, 0.5, true);
      break;  // negative reach
    case 2:
      beams[5] = msg::Beam(-5, 0.1, 0.0, 0.0, 0.04, 0.8, 0.5, true);
      break;  // sensor id
    case 3:
      beams[0] = msg::Beam(0, 0.1, 0.0, Bad(variant, noise), 0.04, 0.8, 0.5, true);
      break;
    default:
      beams.assign(5000, msg::Beam(1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5, true));
      break;  // too many
  }
  return beams;
}

// ControlParams has ~50 fields: build through the generated builder with one field broken.
flatbuffers::Offset<void> HostileParams(FBB& fbb, HeaderOffset h, int v, uint64_t noise) {
  msg::ControlParamsBuilder b(fbb);
  b.add_header(h);
  // Defaults of limbic::ControlParameters for the fields the validator checks, then one broken.
  b.add_w_v1(v == 0 ? Bad(v, noise) : 0.99);
  b.add_n_v(9);
  b.add_n_omega(9);
  b.add_v_limit(v == 1 ? -1.0 : 1.0);
  b.add_omega_limit(0.6);
  b.add_a_max(0.5);
  b.add_a_min(-0.5);
  b.add_alpha_max(3.1);
  b.add_alpha_min(-3.1);
  b.add_t_1(0.1);
  b.add_t_2(v == 2 ? 0.05 : 1.0);  // t_2 < t_1
  b.add_t_3(1.0);
  b.add_d_v_max(1.0);
  b.add_beta(0.4);
  b.add_n_theta(v == 3 ? 0 : v == 4 ? 2000000000 : 50);  // finding 1: n_theta 0; issue 16: 2e9
  b.add_d_o_max(3.0);
  b.add_r_o(0.35);
  b.add_smoothing(0.1);
  b.add_d_lookahead(0.7);
  b.add_d_g_max(1.5);
  b.add_wander_period(15.0);
  b.add_map_radius(3.0);
  b.add_r_f(0.7);
  b.add_t_r(5.0);
  b.add_n_o(5);
  return flatbuffers::Offset<void>(b.Finish().o);
}

const std::map<std::string, Entry>& Table() {
  static const std::map<std::string, Entry> table = {
      {"CLCK",
       {2, [](FBB& fbb, HeaderOffset h, int v,
              uint64_t n) { return Untyped(msg::CreateClock(fbb, h, v % 2 ? -0.1 : Bad(v, n), true)); }}},
      {"FALT",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          return Untyped(msg::CreateFaultCommandDirect(fbb, h, "hostile", msg::FaultKind::SensorNoise, "r1", -1, -1,
                                                       v == 1 ? 7 : -1, nullptr, nullptr, 0.0, v == 2 ? -5.0 : 1.0,
                                                       v == 3 ? Bad(v, n) : 0.1, v == 0 ? 2.0 : 0.5));
        }}},
      {"WRLD",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::Vec2 lo(v == 0 ? Bad(v, n) : 0.0, 0.0), hi(v == 1 ? -5.0 : 10.0, 10.0);
          std::vector<msg::Vec2> vertices{msg::Vec2(1, 1), msg::Vec2(2, v == 2 ? Bad(v, n) : 1.0), msg::Vec2(2, 2)};
          std::vector<flatbuffers::Offset<msg::Polygon>> polygons{
              msg::CreatePolygonDirect(fbb, 1, msg::ObjectProperty::Static, "wall", &vertices)};
          return Untyped(msg::CreateWorldGeometryDirect(fbb, h, "B", 0, 1, &lo, &hi, 1.0, &polygons, &lo, &hi));
        }}},
      {"HUMN",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<msg::HumanState> humans{
              msg::HumanState(1, v == 0 ? Bad(v, n) : 1.0, 1.0, v == 1 ? -0.3 : 0.3, 0.0, 0.0)};
          return Untyped(msg::CreateHumansDirect(fbb, h, &humans));
        }}},
      {"TRUE",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::Pose2 pose(v == 0 ? Bad(v, n) : 1.0, 1.0, 0.0);
          return Untyped(msg::CreateGroundTruthDirect(fbb, h, "r1", &pose, v == 1 ? Bad(v, n) : 0.0, 0.0));
        }}},
      {"RAWR",
       {5,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          auto beams = Beams(v, n);
          return Untyped(msg::CreateRawRangesDirect(fbb, h, &beams));
        }}},
      {"SCAN",
       {5,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          auto beams = Beams(v, n);
          return Untyped(msg::CreateRangeScanDirect(fbb, h, &beams));
        }}},
      {"BUMP",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          // (A bumper reports switches only: no contact point to poison.)
          std::vector<int32_t> switches = v == 0   ? std::vector<int32_t>{9}
                                          : v == 1 ? std::vector<int32_t>{-1}
                                                   : std::vector<int32_t>{0};
          return Untyped(msg::CreateBumpersDirect(fbb, h, true, &switches, v == 2 ? Bad(v, n) : 0.2));
        }}},
      {"COLL",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<int32_t> switches = v == 0   ? std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1}
                                          : v == 1 ? std::vector<int32_t>{8}
                                                   : std::vector<int32_t>{2};
          const msg::Vec2 point(1.0, v == 2 ? Bad(v, n) : 1.0);
          return Untyped(
              msg::CreateCollisionEventDirect(fbb, h, true, true, &switches, &point, v == 3 ? Bad(v, n) : 0.2, 1));
        }}},
      {"ODOM",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::Pose2 pose(v == 0 ? Bad(v, n) : 1.0, 1.0, v == 1 ? Bad(v, n) : 0.0);
          return Untyped(msg::CreateOdometry(fbb, h, &pose, v == 2 ? Bad(v, n) : 0.1, 0.0));
        }}},
      {"WHEL",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          return Untyped(msg::CreateWheelCommand(fbb, h, v == 0 ? Bad(v, n) : 0.1, v == 1 ? Bad(v, n) : 0.1));
        }}},
      {"CMDV",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          return Untyped(msg::CreateVelocityCommand(fbb, h, v == 0 ? Bad(v, n) : 0.1, v == 1 ? Bad(v, n) : 0.0));
        }}},
      {"GMAP",
       {6,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          int w = 4, hgt = 4;
          double resolution = 0.35;
          std::vector<double> p_o(16, 0.5), p_e(16, 0.0);
          std::vector<uint8_t> danger(16, 0);
          if (v == 0) p_o[5] = Bad(v, n);
          if (v == 1) p_o.resize(15);      // mis-sized
          if (v == 2) p_o.clear();         // empty
          if (v == 3) w = hgt = 100000;    // 10^10 cells: a 80 GB allocation
          if (v == 4) resolution = -0.35;  // negative
          if (v == 5) p_e[3] = 2.0;        // not a probability
          const msg::GridInfo info(0.0, 0.0, resolution, w, hgt);
          return Untyped(msg::CreateGridMapDirect(fbb, h, &info, &p_o, &p_e, &danger));
        }}},
      {"GPAT",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::GridInfo info(0.0, 0.0, 0.35, 40, 30);
          std::vector<msg::CellUpdate> cells{msg::CellUpdate(v == 0   ? -1
                                                             : v == 1 ? 1200
                                                                      : 7,
                                                             v == 2 ? Bad(v, n) : 0.5, v == 3 ? -0.5 : 0.1, 0)};
          return Untyped(msg::CreateGridPatchDirect(fbb, h, &info, &cells, -1));
        }}},
      {"MSTA",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<msg::UpdatedCell> cells{msg::UpdatedCell(v == 0 ? -3 : 1, 1.0, 0.5)};
          return Untyped(msg::CreateMapStatsDirect(fbb, h, &cells, v == 1 ? Bad(v, n) : 0.1, v == 2 ? Bad(v, n) : 0.1,
                                                   v == 3 ? 7.0 : 0.1));
        }}},
      {"OBST",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<msg::Vec2> points{msg::Vec2(1, 1), msg::Vec2(v == 0 ? Bad(v, n) : 2.0, 1)};
          return Untyped(msg::CreateObstacleSetDirect(fbb, h, &points, &points, v == 1 ? -1 : v == 2 ? 1000000 : 5));
        }}},
      {"GOAL",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          // Finding 1: {"goal": {"x": nan, "y": 1}}.
          const msg::Vec2 goal(v == 0 ? Bad(v, n) : 3.0, v == 1 ? Bad(v, n) : 1.0);
          return Untyped(msg::CreateNavGoal(fbb, h, true, v == 3 ? nullptr : &goal, v == 2 ? -5 : 5, 0.0, 1.0));
        }}},
      {"PATH",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<msg::Vec2> nodes{msg::Vec2(1, 1), msg::Vec2(v == 0 ? Bad(v, n) : 2.0, 2)};
          std::vector<double> costs = v == 1 ? std::vector<double>{0.1} : std::vector<double>{0.1, 0.2};
          return Untyped(msg::CreatePathDirect(fbb, h, true, true, &nodes, &costs, v == 2 ? Bad(v, n) : 0.2, 0.0,
                                               v == 3 ? -1.0 : 0.001, 5));
        }}},
      {"DIRS",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<double> headings{0.0, 1.0, 2.0}, d_o{3.0, 3.0, v == 1 ? Bad(v, n) : 3.0};
          if (v == 0) d_o.pop_back();  // mis-sized per-heading term
          return Untyped(msg::CreateDirectionalStateDirect(fbb, h, v == 2 ? Bad(v, n) : 0.0, &headings, &d_o));
        }}},
      {"VELS",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<double> vs{0.0, 0.5}, ws{-0.1, 0.1}, objective(v == 0 ? 3 : 4, 0.5);
          return Untyped(msg::CreateVelocityStateDirect(fbb, h, v == 1 ? Bad(v, n) : 0.1, 0.0, 0, 0.5, -0.1, 0.1, &vs,
                                                        &ws, &objective, 0.001));
        }}},
      {"CPAR", {5, HostileParams}},
      {"AFCT",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<double> drives{0.5, 0.5, v == 0 ? Bad(v, n) : 0.5, 0.5, 0.0, 0.0};
          std::vector<double> emotions(v == 1 ? 100 : 7, 0.1);  // too many
          return Untyped(msg::CreateAffectStateDirect(fbb, h, "affective", nullptr, nullptr, nullptr, nullptr, nullptr,
                                                      &emotions, nullptr, nullptr, &drives));
        }}},
      {"EMOL",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::GridInfo info(0.0, 0.0, 0.35, 4, 4);
          std::vector<double> cost(v == 1 ? 15 : 16, 0.1);
          if (v == 0) cost[2] = Bad(v, n);
          if (v == 2) cost[2] = 5.0;
          return Untyped(msg::CreateEmotionLayerDirect(fbb, h, &info, &cost, false));
        }}},
      {"AFSN",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::GridInfo info(0.0, 0.0, 0.35, 4, 4);
          std::vector<double> moods{v == 0 ? Bad(v, n) : 0.1, 0.1};
          std::vector<double> values(v == 1 ? 3 : 16, 0.0);
          std::vector<flatbuffers::Offset<msg::EmotionMapValues>> maps{msg::CreateEmotionMapValuesDirect(fbb, &values)};
          return Untyped(msg::CreateAffectSnapshotDirect(fbb, h, "affective", &info, 10, nullptr, nullptr, false, 0, 0,
                                                         0, &maps, &moods));
        }}},
      {"RUNM",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          return Untyped(msg::CreateRunMetricsDirect(fbb, h, "r1", "B", 0, 1, 1, "x", 1, v == 0 ? Bad(v, n) : 10.0,
                                                     true, 0, 0.0, 0.3, 0.01, v == 1 ? 3.0 : 0.5));
        }}},
      {"MSTS",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::Vec2 goal(v == 0 ? Bad(v, n) : 1.0, 1.0);
          return Untyped(msg::CreateMissionStatus(fbb, h, 1, 2, &goal, v == 1 ? -3.0 : 1.0));
        }}},
      // Heterogeneous exploration's calls for bids and bids (services/explore/bidding.hpp).
      {"EXCL",
       {5,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const msg::GridInfo grid(0.0, 0.0, 0.35, 20, 10);
          std::vector<msg::Vec2> centres{msg::Vec2(1.75, 1.75), msg::Vec2(v == 0 ? Bad(v, n) : 5.25, 1.75)};
          std::vector<double> multipliers{1.0, v == 1 ? Bad(v, n) : 1.5};
          if (v == 2) multipliers[0] = 0.5;  // neither 0 nor >= 1
          if (v == 3) centres.pop_back();    // not one per tile
          return Untyped(
              msg::CreateExploreCallDirect(fbb, h, v == 4 ? -3 : 1, 20, &grid, 10, 2, 1, &centres, &multipliers));
        }}},
      {"EXBD",
       {4,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          std::vector<double> costs{0.0, v == 0 ? Bad(v, n) : 3.5, -1.0};
          if (v == 1) costs[2] = -7.0;  // neither >= 0 nor -1
          if (v == 2) costs.clear();    // no bids
          return Untyped(msg::CreateExploreBidDirect(fbb, h, v == 3 ? 0 : 4, 0, &costs));
        }}},
      // The laser map layer's requests and answers (spec reactive-topological §5.2).
      {"LPTH",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const std::vector<msg::TopoWaypointEntry> wps{
              {0, v == 0 ? Bad(v, n) : 1.0, 1.0}, {v == 2 ? -7 : -1, 2.0, 2.0}, {-1, 3.0, 3.0}};
          return Untyped(msg::CreateTopoPath(fbb, h, 1, 0, true, fbb.CreateVectorOfStructs(wps), 0,
                                             static_cast<int8_t>(v == 1 ? 9 : 2), 0.0, 1));
        }}},
      {"LPRQ",
       {2,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          return Untyped(msg::CreateTopoPlanRequest(fbb, h, 1, v == 1 ? -2 : 0, v == 0 ? Bad(v, n) : 300.0, 600.0));
        }}},
      {"LMUP",
       {5,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          const std::vector<msg::TopoLinkEntry> links{{v == 1 ? -3 : 1, 50.0, 90.0}};
          std::vector<msg::TopoExitEntry> exits(v == 2 ? 7 : 8);  // not one per sector
          const auto node = msg::CreateTopoNodeEntry(fbb, v == 3 ? -1 : 0, 90.0, v == 0 ? Bad(v, n) : 60.0, 90.0, 0, 0,
                                                     0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                     fbb.CreateVectorOfStructs(links), fbb.CreateVectorOfStructs(exits));
          return Untyped(msg::CreateTopoMapUpdate(fbb, h, v == 4 ? 0 : 1, msg::TopoMapOp::Update, node));
        }}},
      {"LEPO",
       {3,
        [](FBB& fbb, HeaderOffset h, int v, uint64_t n) {
          return Untyped(msg::CreateEstimatedPose(fbb, h, v == 0 ? Bad(v, n) : 300.0, 100.0, v == 1 ? 361.0 : 0.0,
                                                  300.0, 100.0, 1, v == 2 ? -5 : 0));
        }}},
  };
  return table;
}

HeaderOffset MakeHeader(FBB& fbb, const HostileHeader& h) {
  return msg::CreateHeaderDirect(fbb, 0, h.tick, h.seq, h.source.c_str(), false, h.incarnation);
}

}  // namespace

int HostileVariants(const messages::MessageType& type) {
  const auto it = Table().find(type.identifier);
  return it == Table().end() ? 0 : it->second.variants;
}

std::vector<uint8_t> HostileMessage(const messages::MessageType& type, int variant, const HostileHeader& header,
                                    uint64_t noise) {
  const auto it = Table().find(type.identifier);
  if (it == Table().end()) return {};
  FBB fbb;
  const int v = ((variant % it->second.variants) + it->second.variants) % it->second.variants;
  const HeaderOffset h = MakeHeader(fbb, header);
  const flatbuffers::Offset<void> root = it->second.build(fbb, h, v, noise);
  fbb.Finish(root, type.identifier);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

std::vector<uint8_t> WrongTypeFor(const messages::MessageType& type, const HostileHeader& header) {
  FBB fbb;
  const HeaderOffset h = MakeHeader(fbb, header);
  if (std::string_view(type.identifier) == "GOAL") {
    const msg::Pose2 pose(1, 1, 0);
    fbb.Finish(msg::CreateOdometry(fbb, h, &pose, 0.1, 0.0), "ODOM");
  } else {
    // Finding 6: a valid NavGoal on the wrong topic.
    const msg::Vec2 goal(3.0, 2.0);
    fbb.Finish(msg::CreateNavGoal(fbb, h, true, &goal, 99), "GOAL");
  }
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace limbic::testing
