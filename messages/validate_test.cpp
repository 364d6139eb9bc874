#include "messages/validate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/convert/convert.hpp"

namespace limbic::messages {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
std::string Check(flatbuffers::FlatBufferBuilder& fbb) {
  const auto* type = FindByIdentifier(Traits<T>::kIdentifier);
  return VerifyAndValidate(*type, fbb.GetBufferPointer(), fbb.GetSize());
}

flatbuffers::Offset<msg::Header> Header(flatbuffers::FlatBufferBuilder& fbb, int64_t tick = 3) {
  return msg::CreateHeaderDirect(fbb, 1, tick, 1, "test");
}

std::string Goal(double x, double y, bool active = true, int64_t id = 5) {
  flatbuffers::FlatBufferBuilder fbb;
  const msg::Vec2 goal(x, y);
  fbb.Finish(msg::CreateNavGoal(fbb, Header(fbb), active, &goal, id, 0.0, 0.0), "GOAL");
  return Check<msg::NavGoal>(fbb);
}

// Finding 1 of issue 15: `limbic pub r1/goal '{"goal": {"x": nan, ...}}'` verified and poisoned the robot.
TEST(Validate, NavGoalWithNaNOrInfinityIsRefusedNamingTheField) {
  EXPECT_EQ(Goal(3.0, 2.0), "");
  EXPECT_EQ(Goal(kNaN, 1.0), "NavGoal.goal.x: must be finite (got nan)");
  EXPECT_NE(Goal(1.0, kInf).find("NavGoal.goal.y: must be finite"), std::string::npos);
  EXPECT_NE(Goal(1.0, -1e300).find("NavGoal.goal.y: must be within"), std::string::npos);
  EXPECT_NE(Goal(1.0, 1.0, true, -7).find("NavGoal.instruction_id"), std::string::npos);
  // An inactive goal (stop) needs no position; an active one does.
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(msg::CreateNavGoal(fbb, Header(fbb), true, nullptr, 1), "GOAL");
  EXPECT_EQ(Check<msg::NavGoal>(fbb), "NavGoal.goal: is required (got 0)");
}

std::string Map(int width, int height, std::vector<double> p_o, std::vector<double> p_e, std::vector<uint8_t> danger,
                double resolution = 0.1) {
  flatbuffers::FlatBufferBuilder fbb;
  const msg::GridInfo info(0.0, 0.0, resolution, width, height);
  fbb.Finish(msg::CreateGridMapDirect(fbb, Header(fbb), &info, &p_o, &p_e, &danger), "GMAP");
  return Check<msg::GridMap>(fbb);
}

TEST(Validate, GridMapLayersMustMatchTheGridAndHoldProbabilities) {
  EXPECT_EQ(Map(2, 2, {0.5, 0.5, 0.1, 0.9}, {0, 0, 1, 1}, {0, 1, 0, 0}), "");
  EXPECT_NE(Map(2, 2, {0.5, 0.5, 0.1}, {}, {}).find("GridMap.p_o: must have as many elements as width*height (4)"),
            std::string::npos);
  EXPECT_NE(Map(2, 2, {0.5, 0.5, 0.1, 0.2}, {0, 0}, {}).find("GridMap.p_e"), std::string::npos);
  EXPECT_EQ(Map(2, 2, {0.5, kNaN, 0.1, 0.2}, {}, {}), "GridMap.p_o[1]: must be finite, in [0, 1] (got nan)");
  EXPECT_EQ(Map(2, 2, {0.5, 0.5, 1.5, 0.2}, {}, {}), "GridMap.p_o[2]: must be in [0, 1] (got 1.5)");
  EXPECT_NE(Map(0, 2, {}, {}, {}).find("GridMap.info.width"), std::string::npos);
  EXPECT_NE(Map(2, 2, {0, 0, 0, 0}, {}, {}, 0.0).find("GridMap.info.resolution"), std::string::npos);
  // A grid whose cell count would size a 16 GB allocation in the receiver is refused before any
  // vector length is looked at.
  EXPECT_NE(Map(8000, 8000, {}, {}, {}).find("GridMap.info.width*height: must be at most"), std::string::npos);
}

// The bulk pass over a layer's doubles runs eight at a time with a scalar tail (validate.cpp AllWithin): a bad value
// is found in every lane of a block and in the tail, and the bounds themselves (0 and 1, ±limit) pass.
TEST(Validate, ABadValueIsFoundAtEveryPositionOfALayer) {
  const int width = 7, height = 3;  // 21 cells: two blocks of eight and a tail of five
  const size_t cells = width * height;
  std::vector<double> edges(cells);
  for (size_t i = 0; i < cells; ++i) edges[i] = i % 3 == 0 ? 0.0 : i % 3 == 1 ? 1.0 : 0.25;
  EXPECT_EQ(Map(width, height, edges, edges, {}), "");
  for (size_t i = 0; i < cells; ++i) {
    for (double bad : {kNaN, -kInf, kInf, -1e-300, 1.0 + 1e-15}) {
      std::vector<double> p = edges;
      p[i] = bad;
      const std::string p_o = Map(width, height, p, edges, {});
      EXPECT_EQ(p_o.rfind("GridMap.p_o[" + std::to_string(i) + "]", 0), 0u) << i << " " << bad << ": " << p_o;
      const std::string p_e = Map(width, height, edges, p, {});
      EXPECT_EQ(p_e.rfind("GridMap.p_e[" + std::to_string(i) + "]", 0), 0u) << i << " " << bad << ": " << p_e;
    }
  }
  // Finites (an additive emotion layer's cost, within ±10): the same positions, and the bounds pass.
  auto layer = [&](std::vector<double> cost) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::GridInfo info(0.0, 0.0, 0.1, width, height);
    fbb.Finish(msg::CreateEmotionLayerDirect(fbb, Header(fbb), &info, &cost, /*additive=*/true), "EMOL");
    return Check<msg::EmotionLayer>(fbb);
  };
  std::vector<double> costs(cells);
  for (size_t i = 0; i < cells; ++i) costs[i] = i % 2 == 0 ? -10.0 : 10.0;
  EXPECT_EQ(layer(costs), "");
  for (size_t i = 0; i < cells; ++i) {
    for (double bad : {kNaN, -kInf, kInf, 10.000001}) {
      std::vector<double> c = costs;
      c[i] = bad;
      const std::string result = layer(c);
      EXPECT_EQ(result.rfind("EmotionLayer.cost[" + std::to_string(i) + "]", 0), 0u)
          << i << " " << bad << ": " << result;
    }
  }
}

// Points (an obstacle set's) are checked as one run of doubles, x and y interleaved: a bad coordinate is named
// wherever it lies, in a block of eight doubles or in the tail.
TEST(Validate, ABadCoordinateIsFoundAtEveryPointOfAnObstacleSet) {
  auto obstacles = [](std::vector<msg::Vec2> points) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateObstacleSetDirect(fbb, Header(fbb), &points, nullptr, 3), "OBST");
    return Check<msg::ObstacleSet>(fbb);
  };
  std::vector<msg::Vec2> points;
  for (int i = 0; i < 11; ++i) points.emplace_back(i % 2 ? 1e6 : -1e6, 0.5 * i);  // 22 doubles; the bounds pass
  EXPECT_EQ(obstacles(points), "");
  for (size_t i = 0; i < points.size(); ++i) {
    for (double bad : {kNaN, kInf, -1.000001e6}) {
      std::vector<msg::Vec2> p = points;
      p[i] = msg::Vec2(bad, p[i].y());
      EXPECT_EQ(obstacles(p).rfind("ObstacleSet.points.x[" + std::to_string(i) + "]", 0), 0u) << i << " " << bad;
      p = points;
      p[i] = msg::Vec2(p[i].x(), bad);
      EXPECT_EQ(obstacles(p).rfind("ObstacleSet.points.y[" + std::to_string(i) + "]", 0), 0u) << i << " " << bad;
    }
  }
}

TEST(Validate, GridPatchCellIndicesMustLieInsideTheGrid) {
  auto patch = [](int index, double p_o) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::GridInfo info(0.0, 0.0, 0.1, 10, 10);
    std::vector<msg::CellUpdate> cells{msg::CellUpdate(index, p_o, 0.0, 0)};
    fbb.Finish(msg::CreateGridPatchDirect(fbb, Header(fbb), &info, &cells, -1), "GPAT");
    return Check<msg::GridPatch>(fbb);
  };
  EXPECT_EQ(patch(99, 0.3), "");
  EXPECT_EQ(patch(100, 0.3), "GridPatch.cells.index[0]: must be in [0, 99] (got 100)");
  EXPECT_EQ(patch(-1, 0.3), "GridPatch.cells.index[0]: must be in [0, 99] (got -1)");
  EXPECT_NE(patch(5, -kInf).find("GridPatch.cells.p_o[0]"), std::string::npos);
}

TEST(Validate, GridPatchDangerSitesMustLieInsideTheGridAndBeFinite) {
  auto patch = [](int cell, double x) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::GridInfo info(0.0, 0.0, 0.1, 10, 10);
    std::vector<msg::CellUpdate> cells{msg::CellUpdate(5, 0.3, 0.0, 1)};
    std::vector<msg::DangerSite> sites{msg::DangerSite(cell, msg::Vec2(x, 0.05))};
    fbb.Finish(msg::CreateGridPatchDirect(fbb, Header(fbb), &info, &cells, -1, &sites), "GPAT");
    return Check<msg::GridPatch>(fbb);
  };
  EXPECT_EQ(patch(5, 0.52), "");
  EXPECT_EQ(patch(100, 0.52), "GridPatch.danger_sites.cell[0]: must be in [0, 99] (got 100)");
  EXPECT_NE(patch(5, kInf).find("GridPatch.danger_sites.point.x[0]"), std::string::npos);
}

TEST(Validate, GridPatchDangerSitesMustBeSortedByCellOnePerCell) {
  auto patch = [](std::vector<int> site_cells) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::GridInfo info(0.0, 0.0, 0.1, 10, 10);
    std::vector<msg::CellUpdate> cells{msg::CellUpdate(5, 0.3, 0.0, 1)};
    std::vector<msg::DangerSite> sites;
    for (int cell : site_cells) sites.emplace_back(cell, msg::Vec2(0.5, 0.05));
    fbb.Finish(msg::CreateGridPatchDirect(fbb, Header(fbb), &info, &cells, -1, &sites), "GPAT");
    return Check<msg::GridPatch>(fbb);
  };
  EXPECT_EQ(patch({3, 5, 40}), "");
  EXPECT_EQ(patch({5, 3}), "GridPatch.danger_sites.cell[1]: must be greater than the previous site's cell (got 3)");
  EXPECT_EQ(patch({5, 5}), "GridPatch.danger_sites.cell[1]: must be greater than the previous site's cell (got 5)");
}

TEST(Validate, ControlParamsUseTheControllersOwnRanges) {
  auto params = [](ControlParameters p) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(convert::ToMsg(fbb, Header(fbb), p), "CPAR");
    return Check<msg::ControlParams>(fbb);
  };
  EXPECT_EQ(params(ControlParameters{}), "");
  ControlParameters p;
  p.n_theta = 0;
  EXPECT_NE(params(p).find("ControlParameters.n_theta must be"), std::string::npos) << params(p);
  p = {};
  p.w_v1 = kNaN;
  EXPECT_NE(params(p).find("ControlParameters.w_v1 must be finite"), std::string::npos) << params(p);
  p = {};
  p.n_theta = 2'000'000'000;  // would size a per-tick allocation of 16 GB in the controller
  EXPECT_NE(params(p).find("n_theta"), std::string::npos);
}

TEST(Validate, ScansNeedFiniteRangesWithinTheSensorsReachAndSaneCounts) {
  auto scan = [](std::vector<msg::Beam> beams) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateRangeScanDirect(fbb, Header(fbb), &beams), "SCAN");
    return Check<msg::RangeScan>(fbb);
  };
  EXPECT_EQ(scan({msg::Beam(0, 0.1, 0.0, 0.0, 0.04, 0.8, 0.5, true)}), "");
  EXPECT_EQ(scan({}), "");
  EXPECT_EQ(scan({msg::Beam(0, 0.1, 0.0, 0.0, 0.04, 0.8, kNaN, true)}),
            "RangeScan.beams.range[0]: must be finite, in [0, 0.8] (got nan)");
  EXPECT_NE(scan({msg::Beam(0, 0.1, 0.0, 0.0, 0.04, 0.8, 2.0, true)}).find("beams.range[0]: must be in [0, 0.8]"),
            std::string::npos);
  EXPECT_NE(scan({msg::Beam(-3, 0.1, 0.0, 0.0, 0.04, 0.8, 0.5, true)}).find("beams.sensor_id"), std::string::npos);
  EXPECT_NE(scan(std::vector<msg::Beam>(kMaxBeams + 1, msg::Beam(0, 0, 0, 0, 0, 1, 0.5, true))).find("too many"),
            std::string::npos);
}

TEST(Validate, BumperSwitchIdsAreZeroToSeven) {
  auto bumpers = [](std::vector<int32_t> switches) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateBumpersDirect(fbb, Header(fbb), true, &switches, 0.3), "BUMP");
    return Check<msg::Bumpers>(fbb);
  };
  EXPECT_EQ(bumpers({0, 7}), "");
  EXPECT_EQ(bumpers({8}), "Bumpers.switches[0]: must be in [0, 7] (got 8)");
  EXPECT_NE(bumpers({0, 1, 2, 3, 4, 5, 6, 7, 0}).find("too many"), std::string::npos);
}

TEST(Validate, PerHeadingTermsMustHaveOneValuePerHeading) {
  auto direction = [](std::vector<double> headings, std::vector<double> d_o) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateDirectionalStateDirect(fbb, Header(fbb), 0.0, &headings, &d_o), "DIRS");
    return Check<msg::DirectionalState>(fbb);
  };
  EXPECT_EQ(direction({0.0, 1.0}, {3.0, 3.0}), "");
  EXPECT_EQ(direction({0.0, 1.0}, {}), "");
  EXPECT_NE(direction({0.0, 1.0}, {3.0}).find("DirectionalState.d_o_raw: must have as many elements as headings"),
            std::string::npos);
}

TEST(Validate, FaultProbabilityIsAProbabilityAndTheWheelAnId) {
  auto fault = [](double probability, int wheel) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateFaultCommandDirect(fbb, Header(fbb), "f", msg::FaultKind::CommDrop, "r1", -1, -1, wheel,
                                             "r1/scan", nullptr, 0.0, 1.0, 0.0, probability),
               "FALT");
    return Check<msg::FaultCommand>(fbb);
  };
  EXPECT_EQ(fault(0.5, -1), "");
  EXPECT_EQ(fault(1.5, -1), "FaultCommand.probability: must be in [0, 1] (got 1.5)");
  EXPECT_EQ(fault(0.5, 2), "FaultCommand.wheel: must be in [-1, 1] (got 2)");
}

// A lockstep tick report (docs/protocol.md §13) names a tick or none (-1): a consumer waits on the value, so a
// report claiming tick -5 is refused at the receiver (counted as invalid), not taken.
TEST(Validate, AHighWaterReportsTickDoneIsATickOrNone) {
  auto report = [](int64_t tick_done) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(msg::CreateHighWaterReportDirect(fbb, Header(fbb), "r1/odom", 7, true, tick_done), "HWMR");
    return Check<msg::HighWaterReport>(fbb);
  };
  EXPECT_EQ(report(-1), "");
  EXPECT_EQ(report(0), "");
  EXPECT_EQ(report(123456), "");
  EXPECT_EQ(report(-2), "HighWaterReport.tick_done: is a tick (>= 0) or -1 (got -2)");
}

TEST(Validate, EveryRegisteredTypeHasARuleAndAnEmptyMessageOfEachIsJudged) {
  // An empty table of each type is either valid or refused with a reason that names the type.
  for (const MessageType& type : AllTypes()) {
    flatbuffers::FlatBufferBuilder fbb;
    auto header = Header(fbb);
    flatbuffers::uoffset_t start = fbb.StartTable();
    fbb.AddOffset(4, header);
    fbb.Finish(flatbuffers::Offset<flatbuffers::Table>(fbb.EndTable(start)), type.identifier);
    const std::string result = ValidateValues(type, fbb.GetBufferPointer(), fbb.GetSize());
    EXPECT_EQ(result.find("no validation rule"), std::string::npos) << type.name;
    if (!result.empty()) {
      const std::string short_name = std::string(type.name).substr(11);
      EXPECT_EQ(result.rfind(short_name, 0), 0u) << result;
    }
  }
}

}  // namespace
}  // namespace limbic::messages

namespace limbic::messages {
namespace {

// The thesis layer Emo(x) is a probability; the companion-paper layer is a signed bias c_e − p_o that may
// pass 1 (w7 + w8 = 1.15 with the shipped weights) — found by a companion2006 run whose affect step was refused.
TEST(Validate, EmotionLayerIsAProbabilityUnlessItIsTheAdditiveBias) {
  auto layer = [](bool additive, double value) {
    flatbuffers::FlatBufferBuilder fbb;
    const msg::GridInfo info(0, 0, 0.35, 2, 1);
    std::vector<double> cost{0.5, value};
    fbb.Finish(msg::CreateEmotionLayerDirect(fbb, Header(fbb), &info, &cost, additive), "EMOL");
    return Check<msg::EmotionLayer>(fbb);
  };
  EXPECT_EQ(layer(false, 0.9), "");
  EXPECT_NE(layer(false, 1.003), "");
  EXPECT_EQ(layer(true, 1.003), "");
  EXPECT_EQ(layer(true, -0.2), "");
  EXPECT_NE(layer(true, std::nan("")), "");
}

}  // namespace
}  // namespace limbic::messages
