#include "services/affect/affect_engine.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

#include "services/affect/testing/shipped_config.hpp"

namespace limbic::affect {
namespace {

using geometry::GridSpec;
using geometry::Vec2;

GridSpec Grid() { return GridSpec{Vec2(0, 0), 0.35, 40, 30}; }

// Owning storage for one tick's inputs, so a sequence can be recorded and replayed.
struct RecordedTick {
  double time = 0.0;
  geometry::Pose2 pose;
  double speed = 0.0;
  std::vector<double> headings, distances;
  CollisionEvent collision;
  std::vector<Vec2> switches, ir_points;
  std::optional<GoalProgress> goal;
  MapUpdateStats stats;
  std::optional<double> path_cost;
  std::vector<double> p_e;

  AffectInputs View() const {
    AffectInputs in;
    in.time = time;
    in.pose = pose;
    in.speed = speed;
    in.headings = headings;
    in.obstacle_distances = distances;
    in.collision = collision;
    in.collision_switch_points = switches;
    in.ir_points = ir_points;
    in.goal = goal;
    in.map_stats = stats;
    in.path_max_cost = path_cost;
    in.p_e = p_e;
    return in;
  }
};

// A varied, seeded input sequence exercising every stimulus.
std::vector<RecordedTick> RandomSequence(int ticks, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const GridSpec grid = Grid();
  std::vector<RecordedTick> seq;
  geometry::Pose2 pose{3.0, 3.0, 0.0};
  std::vector<double> p_e(grid.CellCount(), 0.0);
  for (int k = 0; k < ticks; ++k) {
    RecordedTick t;
    t.time = k * 0.1;
    pose.theta = geometry::WrapAngle(pose.theta + 0.2 * (u(rng) - 0.5));
    t.speed = 0.6 * u(rng);
    pose.x = std::clamp(pose.x + 0.1 * t.speed * std::cos(pose.theta), 0.5, 13.0);
    pose.y = std::clamp(pose.y + 0.1 * t.speed * std::sin(pose.theta), 0.5, 10.0);
    t.pose = pose;
    for (int h = 0; h < 20; ++h) {
      t.headings.push_back(-std::numbers::pi + 2 * std::numbers::pi * h / 20);
      t.distances.push_back(3.0 * u(rng));
    }
    if (u(rng) < 0.03) {
      t.collision.occurred = true;
      t.collision.new_event = true;
      t.collision.sensor_ids = {static_cast<int>(8 * u(rng)) % 8};
      t.collision.speed_before = t.speed;
      t.switches = CollisionSwitchPoints(pose, t.collision, 0.35);
    }
    for (int i = 0; i < 5; ++i) t.ir_points.push_back(pose.Position() + Vec2(2 * u(rng) - 1, 2 * u(rng) - 1));
    t.goal = GoalProgress{0.0, 12.0, 12.0 - 0.03 * t.time * u(rng)};
    for (int c = 0; c < 10; ++c) {
      t.stats.updated_cells.push_back({static_cast<int>(u(rng) * grid.CellCount()), u(rng) < 0.3 ? 1.0 : 0.0, u(rng)});
    }
    for (const auto& c : t.stats.updated_cells) p_e[c.index] = 0.01 + 0.99 * p_e[c.index];
    double sum = 0;
    for (double v : p_e) sum += v;
    t.stats.mean_p_e = sum / p_e.size();
    t.stats.density = 0.1 + 0.2 * u(rng);
    t.path_cost = 0.4 + 0.4 * u(rng);
    t.p_e = p_e;
    seq.push_back(std::move(t));
  }
  return seq;
}

TEST(AffectEngineTest, ReplayingARecordedSequenceIsBitIdentical) {
  const auto seq = RandomSequence(600, 7);
  const AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  AffectEngine a(config, Grid()), b(config, Grid());
  std::vector<AffectOutputs> first;
  for (const auto& t : seq) first.push_back(a.Step(t.View()));
  for (size_t k = 0; k < seq.size(); ++k) {
    ASSERT_TRUE(b.Step(seq[k].View()) == first[k]) << "tick " << k;
  }
  EXPECT_TRUE(a.state() == b.state());
  // Something actually happened.
  EXPECT_GT(first.back().stimuli_damped[kPain], 0.0);
  EXPECT_GT(*std::max_element(first.back().emotion_layer.cost.begin(), first.back().emotion_layer.cost.end()), 0.0);

  // Restoring a saved state replays the continuation exactly.
  AffectEngine c(config, Grid());
  for (size_t k = 0; k < 300; ++k) c.Step(seq[k].View());
  AffectEngine d(config, Grid());
  d.set_state(c.state());
  for (size_t k = 300; k < seq.size(); ++k) ASSERT_TRUE(d.Step(seq[k].View()) == first[k]) << k;

  // Reset returns to the initial state.
  a.Reset();
  EXPECT_TRUE(a.Step(seq[0].View()) == first[0]);
}

// Issue 15, finding 1: a NaN goal reached the engine and made anger, drives and parameters NaN for
// good. A non-finite input now skips the cycle: the state stays as it was, the last good outputs are
// returned, fault() says why — and the next good input carries on exactly as if nothing had happened.
TEST(AffectEngineTest, NonFiniteInputsNeverReachTheStateAndTheEngineCarriesOn) {
  const auto seq = RandomSequence(40, 11);
  const AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  AffectEngine clean(config, Grid()), poked(config, Grid());
  std::vector<AffectOutputs> expected;
  for (const auto& t : seq) expected.push_back(clean.Step(t.View()));
  for (size_t k = 0; k < seq.size(); ++k) {
    if (k == 20) {
      for (int variant = 0; variant < 4; ++variant) {
        RecordedTick bad = seq[k];
        if (variant == 0) bad.goal->distance_now = std::nan("");  // what a NaN goal position gave
        if (variant == 1) bad.pose.x = std::numeric_limits<double>::infinity();
        if (variant == 2) bad.stats.density = std::nan("");
        if (variant == 3) bad.distances[3] = std::nan("");
        const AffectState before = poked.state();
        const AffectOutputs out = poked.Step(bad.View());
        EXPECT_FALSE(poked.fault().empty()) << variant;
        EXPECT_TRUE(poked.state() == before) << variant;
        EXPECT_TRUE(out.parameters == expected[k - 1].parameters) << variant;
        EXPECT_TRUE(out.drives == expected[k - 1].drives) << variant;
      }
      EXPECT_NE(poked.fault().find("input obstacle_distances not finite"), std::string::npos) << poked.fault();
    }
    ASSERT_TRUE(poked.Step(seq[k].View()) == expected[k]) << k;
    EXPECT_EQ(poked.fault(), "");
  }
}

TEST(AffectEngineTest, ANonFiniteStateIsRolledBackAndTheLastGoodOutputsRepublished) {
  const auto seq = RandomSequence(10, 3);
  const AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  AffectEngine engine(config, Grid());
  AffectOutputs good;
  for (int k = 0; k < 5; ++k) good = engine.Step(seq[k].View());
  AffectState poisoned = engine.state();
  poisoned.moods[0] = std::nan("");  // e.g. a corrupted snapshot
  engine.set_state(poisoned);
  const AffectOutputs out = engine.Step(seq[5].View());
  EXPECT_NE(engine.fault().find("not finite: kept the last good state"), std::string::npos) << engine.fault();
  EXPECT_TRUE(out.drives == good.drives);
  EXPECT_TRUE(out.parameters == good.parameters);
  EXPECT_EQ(out.time, seq[5].time);
  for (double d : out.drives) EXPECT_TRUE(std::isfinite(d));
  EXPECT_EQ(engine.state().ticks, poisoned.ticks) << "the refused cycle did not count";
}

// Issue 18 (performance): a disabled layer (constant, none) is all zeros by construction, so it is neither
// checked nor copied into the last good outputs each cycle. A refused cycle still returns the last good outputs
// whole, the layer as zeros over the grid, equal to what the good cycle returned; later cycles are unaffected.
TEST(AffectEngineTest, ADisabledLayerRefusedCycleRepublishesTheWholeLastGoodOutputs) {
  const auto seq = RandomSequence(12, 5);
  for (const char* name : {"constant", "none", "companion2006_disabled"}) {
    const AffectConfig config = LoadAffectConfig(name, kShippedConfigDir);
    AffectEngine clean(config, Grid()), poked(config, Grid());
    std::vector<AffectOutputs> expected;
    for (const auto& t : seq) expected.push_back(clean.Step(t.View()));
    for (size_t k = 0; k < seq.size(); ++k) {
      if (k == 6) {
        RecordedTick bad = seq[k];
        bad.pose.x = std::nan("");
        AffectOutputs out = poked.Step(bad.View());
        EXPECT_FALSE(poked.fault().empty()) << name;
        ASSERT_EQ(out.emotion_layer.cost.size(), static_cast<size_t>(Grid().CellCount())) << name;
        EXPECT_TRUE(out.emotion_layer == expected[k - 1].emotion_layer) << name;
        EXPECT_TRUE(out.emotion_layer_zero) << name;  // the on_change filter may skip its cells
        out.time = expected[k - 1].time;
        EXPECT_TRUE(out == expected[k - 1]) << name;
      }
      const AffectOutputs out = poked.Step(seq[k].View());
      ASSERT_TRUE(out == expected[k]) << name << " tick " << k;
      EXPECT_EQ(out.emotion_layer.cost, std::vector<double>(static_cast<size_t>(Grid().CellCount()), 0.0)) << name;
      EXPECT_TRUE(out.emotion_layer_zero) << name;
    }
  }
  // An enabled layer is never flagged, even where its cells are 0: the filter then compares them.
  AffectEngine enabled(LoadAffectConfig("affective", kShippedConfigDir), Grid());
  for (const auto& t : seq) EXPECT_FALSE(enabled.Step(t.View()).emotion_layer_zero);
}

TEST(AffectEngineTest, DrivesStayWithinMoodBounds) {
  const auto seq = RandomSequence(400, 11);
  for (const char* name : {"affective", "personality/neurotic", "personality/extraverted"}) {
    AffectEngine engine(LoadAffectConfig(name, kShippedConfigDir), Grid());
    for (const auto& t : seq) {
      const AffectOutputs out = engine.Step(t.View());
      EXPECT_DOUBLE_EQ(out.d_max, (1 + out.moods_used[kPositiveMood]) / 2);
      EXPECT_DOUBLE_EQ(out.d_min, (1 - out.moods_used[kNegativeMood]) / 2);
      for (int d : {kSafety, kSpeed, kEfficiency}) {
        EXPECT_GE(out.drives[d], out.d_min - 1e-12) << name;
        EXPECT_LE(out.drives[d], out.d_max + 1e-12) << name;
      }
      for (int d : {kExploration, kAction, kIntrospection}) EXPECT_EQ(out.drives[d], out.drives_emotional[d]);
    }
  }
}

TEST(AffectEngineTest, MoodsAtOneHalfBoundSurvivalDrivesToAQuarterAndThreeQuarters) {
  AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  config.moods[kPositiveMood].fixed = 0.5;
  config.moods[kNegativeMood].fixed = 0.5;
  AffectEngine engine(config, Grid());
  double lowest = 1, highest = 0;
  for (const auto& t : RandomSequence(300, 3)) {
    const AffectOutputs out = engine.Step(t.View());
    EXPECT_EQ(out.d_min, 0.25);
    EXPECT_EQ(out.d_max, 0.75);
    for (int d : {kSafety, kSpeed, kEfficiency}) {
      lowest = std::min(lowest, out.drives[d]);
      highest = std::max(highest, out.drives[d]);
    }
  }
  EXPECT_GE(lowest, 0.25);
  EXPECT_LE(highest, 0.75);
  // Dynamic moods start at 0.5 with weight 1: the first tick has the same bounds.
  AffectEngine dynamic(LoadAffectConfig("affective", kShippedConfigDir), Grid());
  const AffectOutputs first = dynamic.Step(RandomSequence(1, 3)[0].View());
  EXPECT_NEAR(first.d_min, 0.25, 1e-3);
  EXPECT_NEAR(first.d_max, 0.75, 1e-3);
}

TEST(AffectEngineTest, ConstantConfigurationGivesTheEquilibriumColumnOfTable82) {
  AffectEngine engine(LoadAffectConfig("constant", kShippedConfigDir), Grid());
  for (const auto& t : RandomSequence(50, 5)) {
    const AffectOutputs out = engine.Step(t.View());
    EXPECT_EQ(out.drives, (DriveArray{0.5, 0.5, 0.5, 0.0, 0.0, 0.0}));
    const ControlParameters& p = out.parameters;
    EXPECT_DOUBLE_EQ(p.w_v1, 0.945);
    EXPECT_DOUBLE_EQ(p.w_v4, 0.5);
    EXPECT_DOUBLE_EQ(p.r_o, 0.30);
    EXPECT_DOUBLE_EQ(p.t_2, 1.0);
    EXPECT_DOUBLE_EQ(p.v_limit, 0.7);
    EXPECT_EQ(p.n_o, 4);
    EXPECT_EQ(p.n_theta, 20);
    EXPECT_DOUBLE_EQ(p.t_r, 1.05);
    EXPECT_EQ(p.w_p3, 0.0);
    EXPECT_EQ(p.eps_2, 0.01);
    EXPECT_EQ(p.w_theta3, 0.75);
    EXPECT_EQ(p.w_theta5, 0.0);
    EXPECT_EQ(p.w_theta6, 0.0);
    EXPECT_EQ(p.d_lookahead, 1.05);
    EXPECT_EQ(p.w_v2, 0.0);
    EXPECT_EQ(p.w_theta2, 0.0);
    EXPECT_EQ(p.w_p2, 0.0);
    // Unmodulated parameters keep their configured values.
    EXPECT_EQ(p.w_p4, 0.0);
    EXPECT_EQ(p.n_v, 3);
    EXPECT_EQ(p.w_v3, ControlParameters{}.w_v3);
    EXPECT_EQ(p.w_theta4, 0.0);
    EXPECT_EQ(p.smoothing, 0.1);
    EXPECT_EQ(out.emotions_combined, EmotionArray{});
    for (double c : out.emotion_layer.cost) ASSERT_EQ(c, 0.0);
  }
}

// Issue 18: p_e is read only by the thesis model's layer when it is enabled, and checked only then. Elsewhere a
// non-finite p_e cell changes nothing (the grid-sized check was a pass per cycle over an input never read).
TEST(AffectEngineTest, ExplorationIsCheckedOnlyWhereTheLayerReadsIt) {
  const auto seq = RandomSequence(30, 5);
  for (const char* name : {"affective", "constant", "companion2006"}) {
    const AffectConfig config = LoadAffectConfig(name, kShippedConfigDir);
    const bool reads = config.model == AffectModel::kThesis && config.emotion_layer_enabled;
    EXPECT_EQ(reads, std::string(name) == "affective") << name;
    AffectEngine clean(config, Grid()), poked(config, Grid());
    for (size_t k = 0; k < seq.size(); ++k) {
      const AffectOutputs expected = clean.Step(seq[k].View());
      RecordedTick t = seq[k];
      if (k == 15) t.p_e[7] = std::nan("");
      const AffectOutputs out = poked.Step(t.View());
      if (reads && k == 15) {
        EXPECT_NE(poked.fault().find("input p_e not finite"), std::string::npos) << poked.fault();
        break;  // refused: the two engines part here
      }
      EXPECT_EQ(poked.fault(), "") << name << " " << k;
      ASSERT_TRUE(out == expected) << name << " " << k;
    }
  }
}

// Issue 18: the service places the IR points only at a collision, since eq. 8.14 reads none without one. Over a
// varied sequence, the outputs are the same with and without them on every tick without a collision.
TEST(AffectEngineTest, IrPointsMatterOnlyAtACollision) {
  const auto seq = RandomSequence(200, 9);
  const AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  AffectEngine with(config, Grid()), without(config, Grid());
  int collisions = 0, without_points = 0;
  for (const auto& t : seq) {
    RecordedTick bare = t;
    if (!t.collision.occurred) {
      bare.ir_points.clear();
      without_points += !t.ir_points.empty();
    } else {
      ++collisions;
    }
    ASSERT_TRUE(with.Step(t.View()) == without.Step(bare.View()));
  }
  EXPECT_GT(collisions, 0);
  EXPECT_GT(without_points, 0);
}

// Issue 18: a map of +0 everywhere whose emotion is +0 is not updated (the constant configuration's seven maps).
// Against the map functions applied as the engine applied them before (every map, every cycle): the same maps and
// mapped emotions, bit for bit, from the initial state and from a restored state with a map that is not zero.
TEST(AffectEngineTest, ZeroMapsOfZeroEmotionsAreLeftAsTheUpdateWouldLeaveThem) {
  const auto seq = RandomSequence(80, 3);
  auto bits = [](double v) { return std::bit_cast<uint64_t>(v); };
  for (const char* name : {"constant", "affective"}) {
    for (bool restored : {false, true}) {
      const AffectConfig config = LoadAffectConfig(name, kShippedConfigDir);
      AffectEngine engine(config, Grid());
      if (restored) {
        AffectState state = engine.state();
        state.emotion_maps[kFear][Grid().Index({8, 8})] = 0.75;  // near the sequence's start (3, 3)
        state.emotion_maps[kAnger][5] = -0.0;                    // zero, but not +0: updated as before
        engine.set_state(state);
      }
      std::array<std::vector<double>, kNumEmotions> maps = engine.state().emotion_maps;
      const AffectState initial = engine.state();
      std::array<EmotionMapRates, kNumEmotions> rates{};
      for (int e = 0; e < kNumEmotions; ++e) {
        rates[e] = {RescaleDampingFactor(config.tables.emotions[e].gamma_growth, config.control_period,
                                         config.tables.reference_period),
                    RescaleDampingFactor(config.tables.emotions[e].gamma_decay, config.control_period,
                                         config.tables.reference_period)};
      }
      for (size_t k = 0; k < seq.size(); ++k) {
        const AffectOutputs out = engine.Step(seq[k].View());
        const auto nearby = CellsWithinRadius(Grid(), seq[k].pose.Position(), config.tables.emotion_map_radius);
        for (int e = 0; e < kNumEmotions; ++e) {
          UpdateEmotionMap(nearby, out.emotions_global[e], rates[e], config.map_update, &maps[e]);
          ASSERT_EQ(bits(out.emotions_mapped[e]), bits(LocalMappedIntensity(nearby, maps[e])))
              << name << " " << restored << " " << k << " " << e;
          const auto& got = engine.state().emotion_maps[e];
          ASSERT_EQ(got.size(), maps[e].size());
          for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_EQ(bits(got[i]), bits(maps[e][i])) << name << " " << restored << " " << k << " " << e << " " << i;
          }
        }
      }
      if (restored) {
        EXPECT_FALSE(engine.state().emotion_maps == initial.emotion_maps) << name << ": fear decayed";
      }
    }
  }
}

// Inputs for a robot in the open reporting 0.5 m/s (so it is not stuck) at a fixed pose, optionally
// with a danger-1 obstacle straight ahead.
RecordedTick Quiet(double time, bool obstacle_ahead = false) {
  RecordedTick t;
  t.time = time;
  t.pose = {5.0, 5.0, 0.0};
  t.speed = 0.5;
  t.headings = {0.0, std::numbers::pi / 2};
  t.distances = {obstacle_ahead ? 0.0 : 3.0, 3.0};
  t.p_e.assign(Grid().CellCount(), 1.0);
  return t;
}

TEST(AffectEngineTest, SpecSafetyChecksWithFixedEmotions) {
  // §5.6: anger 0.5, fear 0 → safety D_E = 0.5; surprise 1 raises it to 0.8.
  AffectConfig config = LoadAffectConfig("chapter9/surprise_action_safety", kShippedConfigDir);
  AffectEngine engine(config, Grid());
  EXPECT_DOUBLE_EQ(engine.Step(Quiet(0).View()).drives_emotional[kSafety], 0.5);
  config.emotions[kSurprise].fixed = 1.0;
  AffectEngine surprised(config, Grid());
  const AffectOutputs out = surprised.Step(Quiet(0).View());
  EXPECT_DOUBLE_EQ(out.drives_emotional[kSafety], 0.8);
  EXPECT_DOUBLE_EQ(out.drives_emotional[kAction], 1.0);  // action ≈ surprise
}

TEST(AffectEngineTest, DriveSwitchesWeightDisableAndFix) {
  AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  config.emotions[kCuriosity].fixed = 1.0;  // exploration D_E = 1
  config.emotions[kConfusion].fixed = 1.0;  // introspection D_E = 1
  config.drives[kExploration].weight = 0.5;
  config.drives[kIntrospection].enabled = false;
  config.drives[kSpeed].fixed = 0.9;
  AffectEngine engine(config, Grid());
  const AffectOutputs out = engine.Step(Quiet(0).View());
  EXPECT_DOUBLE_EQ(out.drives_emotional[kExploration], 1.0);
  EXPECT_DOUBLE_EQ(out.drives[kExploration], 0.5);  // D0 + k(D − D0) = 0.5
  EXPECT_DOUBLE_EQ(out.parameters.w_p3, 0.2);
  EXPECT_EQ(out.drives_emotional[kIntrospection], 1.0);
  EXPECT_EQ(out.drives[kIntrospection], 0.0);
  EXPECT_EQ(out.parameters.w_p2, 0.0);
  EXPECT_EQ(out.drives[kSpeed], 0.9);
  EXPECT_DOUBLE_EQ(out.parameters.v_limit, 0.4 + 0.6 * 0.9);
}

TEST(AffectEngineTest, EmotionMapConvergesTowardsAConstantGlobalIntensityInTheEngine) {
  AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  config.emotions[kFear].fixed = 0.6;
  AffectEngine engine(config, Grid());
  AffectOutputs out;
  for (int k = 0; k < 3000; ++k) out = engine.Step(Quiet(k * 0.1).View());
  EXPECT_NEAR(out.emotions_mapped[kFear], 0.6, 1e-4);
  EXPECT_EQ(out.emotions_combined[kFear], 0.6);
  const GridSpec grid = Grid();
  EXPECT_NEAR(engine.state().emotion_maps[kFear][grid.Index(grid.CellOf({5.0, 5.0}))], 0.6, 1e-6);
  EXPECT_EQ(engine.state().emotion_maps[kFear][grid.Index({0, 0})], 0.0);
}

TEST(AffectEngineTest, PhiOverrideSelectsGlobalOrMapped) {
  AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  config.emotions[kFear].phi = 1.0;
  AffectEngine engine(config, Grid());
  AffectOutputs out;
  for (int k = 0; k < 20; ++k) out = engine.Step(Quiet(k * 0.1, /*obstacle_ahead=*/true).View());
  // Danger raw 1 → damped 1 − 0.9^20; fear = danger (pain 0); φ = 1: combined = global.
  EXPECT_NEAR(out.stimuli_damped[kDanger], 1 - std::pow(0.9, 20), 1e-12);
  EXPECT_DOUBLE_EQ(out.emotions_global[kFear], out.stimuli_damped[kDanger]);
  EXPECT_EQ(out.emotions_combined[kFear], out.emotions_global[kFear]);
  EXPECT_LT(out.emotions_mapped[kFear], out.emotions_global[kFear]);
}

TEST(AffectEngineTest, DampingFactorsRescaleWithTheControlPeriod) {
  AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  config.control_period = 0.2;
  AffectEngine engine(config, Grid());
  RecordedTick hit = Quiet(0);
  hit.collision.occurred = true;
  hit.collision.new_event = true;
  hit.collision.speed_before = 0.5;
  EXPECT_EQ(engine.Step(hit.View()).stimuli_damped[kPain], 1.0);  // undamped rise
  // One 0.2 s step decays like two 0.1 s steps of α_2 = 0.01.
  EXPECT_NEAR(engine.Step(Quiet(0.2).View()).stimuli_damped[kPain], 0.99 * 0.99, 1e-15);
}

TEST(AffectEngineTest, CompanionModelModulatesSpeedAndRadiusAndOutputsAnAdditiveLayer) {
  AffectEngine engine(LoadAffectConfig("companion2006", kShippedConfigDir), Grid());
  AffectOutputs out = engine.Step(Quiet(0).View());
  EXPECT_EQ(out.emotion_layer.fusion, EmotionLayerFusion::kAdditive);
  EXPECT_DOUBLE_EQ(out.parameters.v_limit, 1.0);  // no fear
  EXPECT_DOUBLE_EQ(out.parameters.r_o, 0.35);     // no anger
  EXPECT_EQ(out.parameters.w_p4, 1.0);
  // Empty maps: bias = W_8·(1 − 0) = 0.35 everywhere.
  EXPECT_DOUBLE_EQ(out.emotion_layer.cost[0], 0.35);
  EXPECT_EQ(out.drives, (DriveArray{0.5, 0.5, 0.5, 0, 0, 0}));
  for (int k = 1; k < 300; ++k) out = engine.Step(Quiet(k * 0.1, /*obstacle_ahead=*/true).View());
  const double fear = out.emotions_global[kFear];
  EXPECT_GT(fear, 0.99);
  EXPECT_DOUBLE_EQ(out.parameters.v_limit, 1.0 - 0.4 * fear);  // more fear → slower
  EXPECT_LT(out.emotion_layer.cost[Grid().Index(Grid().CellOf({5.0, 5.0}))], 0.35 + 0.8);
  EXPECT_GT(out.emotion_layer.cost[Grid().Index(Grid().CellOf({5.0, 5.0}))], 0.35 + 0.7);

  AffectEngine disabled(LoadAffectConfig("companion2006_disabled", kShippedConfigDir), Grid());
  for (int k = 0; k < 50; ++k) out = disabled.Step(Quiet(k * 0.1, true).View());
  EXPECT_EQ(out.parameters.v_limit, 0.8);
  EXPECT_EQ(out.parameters.r_o, 0.35);
  for (double c : out.emotion_layer.cost) ASSERT_EQ(c, 0.0);
}

TEST(AffectEngineTest, ZeroWeightDrivesFallBackOrHoldTheirPreviousValue) {
  // Every emotion 0 → efficiency's DWS weights are all 0 (spec §8 item 30).
  AffectConfig config = LoadAffectConfig("constant", kShippedConfigDir);
  config.drives[kEfficiency].fixed.reset();
  AffectEngine fallback(config, Grid());
  EXPECT_EQ(fallback.Step(Quiet(0).View()).drives_emotional[kEfficiency], 0.5);
  config.zero_weight = ZeroWeightPolicy::kHoldPrevious;
  AffectEngine hold(config, Grid());
  AffectState state = hold.state();
  state.previous_drives[kEfficiency] = 0.3;
  hold.set_state(state);
  const AffectOutputs out = hold.Step(Quiet(0).View());
  EXPECT_EQ(out.drives_emotional[kEfficiency], 0.3);
  EXPECT_EQ(out.drives[kEfficiency], 0.5);  // moods fixed at 0 pin survival drives to 0.5
}

TEST(AffectEngineTest, PrintedDominanceFormIsSelectable) {
  // Pain alone (collision at 0.5 m/s, no danger): corrected fear = 2/3, printed fear = 0.
  RecordedTick hit = Quiet(0);
  hit.collision.occurred = true;
  hit.collision.new_event = true;
  hit.collision.speed_before = 0.5;
  AffectConfig config = LoadAffectConfig("affective", kShippedConfigDir);
  EXPECT_DOUBLE_EQ(AffectEngine(config, Grid()).Step(hit.View()).emotions_global[kFear], 2.0 / 3.0);
  config.dominance = DominanceForm::kPrinted;
  EXPECT_EQ(AffectEngine(config, Grid()).Step(hit.View()).emotions_global[kFear], 0.0);
}

TEST(AffectEngineTest, RejectsInputsThatDoNotMatchTheGrid) {
  AffectEngine engine(LoadAffectConfig("affective", kShippedConfigDir), Grid());
  RecordedTick t = Quiet(0);
  t.p_e.resize(10);
  EXPECT_THROW(engine.Step(t.View()), std::invalid_argument);
  t = Quiet(0);
  t.distances.push_back(1.0);
  EXPECT_THROW(engine.Step(t.View()), std::invalid_argument);
  // An empty grid is allowed: no maps, E_M = 0, empty layer.
  AffectEngine mapless(LoadAffectConfig("affective", kShippedConfigDir), GridSpec{});
  RecordedTick q = Quiet(0);
  q.p_e.clear();
  const AffectOutputs out = mapless.Step(q.View());
  EXPECT_TRUE(out.emotion_layer.cost.empty());
  EXPECT_EQ(out.emotions_mapped, EmotionArray{});
}

}  // namespace
}  // namespace limbic::affect
