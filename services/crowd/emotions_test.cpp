#include "services/crowd/emotions.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config/config.hpp"
#include "common/geometry/geometry.hpp"
#include "services/crowd/shipped_table.hpp"

namespace limbic::crowd {
namespace {

using geometry::kNaN;
using geometry::kPi;

InternalStateInput Example() {
  InternalStateInput in;
  in.position = {0, 0};
  in.target = {4, 0};
  in.velocity = {0.3, 0.4};
  in.optimal_speed = 0.5;
  in.max_free_distance = 2.0;
  in.horizon = 4.0;
  in.visible_neighbours = 4;
  in.visible_frustrated = 1;
  in.time = 30;
  in.task_start = 10;
  in.minimal_time = 8;
  in.heading = 0.5;
  in.desired_heading = -0.3;
  return in;
}

TEST(InternalState, TheSpecTable) {
  const InternalState mu = ComputeInternalState(Example());
  EXPECT_NEAR(mu.efficacy, 0.3 / 0.5, 1e-12);       // v · e_q = 0.3 m/s of v_opt = 0.5 → 0.6
  EXPECT_NEAR(mu.free_space, 2.0 / 4.0, 1e-12);     // max D / H
  EXPECT_NEAR(mu.nearby_frustration, 0.25, 1e-12);  // 1 of 4 in view
  EXPECT_NEAR(mu.task_delay, 1.5, 1e-12);           // (30 − 10 − 8) / 8
  EXPECT_NEAR(mu.extra_rotations, 0.8, 1e-12);      // |0.5 − (−0.3)|
  InternalStateInput speed = Example();
  speed.efficacy_scale = EfficacyScale::kSpeed;  // the spec's literal (v_opt · v)/v_opt in m/s
  EXPECT_NEAR(ComputeInternalState(speed).efficacy, 0.3, 1e-12);
  // No one in view, a target where the robot stood (Δ_n = 0), on the target: 0, not NaN.
  InternalStateInput empty = Example();
  empty.visible_neighbours = empty.visible_frustrated = 0;
  empty.minimal_time = 0;
  empty.target = empty.position;
  const InternalState z = ComputeInternalState(empty);
  EXPECT_EQ(z.nearby_frustration, 0.0);
  EXPECT_EQ(z.task_delay, 0.0);
  EXPECT_EQ(z.efficacy, 0.0);
  // Headings across ±π: |adjust(3.0 − (−3.0))| = 2π − 6 = 0.28319.
  InternalStateInput wrap = Example();
  wrap.heading = 3.0;
  wrap.desired_heading = -3.0;
  EXPECT_NEAR(ComputeInternalState(wrap).extra_rotations, 2 * kPi - 6, 1e-12);
}

TEST(InternalState, RefusesBadInput) {
  InternalStateInput in = Example();
  in.velocity = {kNaN, 0};
  EXPECT_THROW(ComputeInternalState(in), std::invalid_argument);
  in = Example();
  in.time = std::numeric_limits<double>::infinity();
  EXPECT_THROW(ComputeInternalState(in), std::invalid_argument);
  in = Example();
  in.visible_frustrated = 5;  // more frustrated than visible
  EXPECT_THROW(ComputeInternalState(in), std::invalid_argument);
  in = Example();
  in.horizon = 0;
  EXPECT_THROW(ComputeInternalState(in), std::invalid_argument);
  in = Example();
  in.minimal_time = -1;
  EXPECT_THROW(ComputeInternalState(in), std::invalid_argument);
}

TEST(EmotionTable, ShippedTableLoads) {
  const EmotionTable t = LoadEmotionTable(kShippedEmotionTable);
  ASSERT_EQ(t.emotions.size(), 3u);
  EXPECT_EQ(t.emotions[0].name, "frustration");
  EXPECT_EQ(t.emotions[1].name, "fear");
  EXPECT_EQ(t.emotions[2].name, "calm");
  EXPECT_EQ(t.nearby_index, 0);
  EXPECT_EQ(t.emotions[0].weights[3], 0.5);   // task_delay
  EXPECT_EQ(t.emotions[0].weights[0], -0.5);  // efficacy
  EXPECT_EQ(t.emotions[0].weights[2], 0.3);   // nearby_frustration
  EXPECT_NEAR(t.emotions[1].shift.half_fov, 20 * kPi / 180, 1e-12);
  EXPECT_NEAR(t.limits.min_half_fov, 30 * kPi / 180, 1e-12);
}

void ExpectRefused(const std::string& yaml, const std::string& fragment) {
  try {
    ParseEmotionTable(yaml, "bad.yaml");
    ADD_FAILURE() << "accepted:\n" << yaml;
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
  }
}

TEST(EmotionTable, BadTablesNameFileAndKey) {
  const std::string one = "emotions:\n  - {name: fear, inputs: {free_space: -1}, bias: 1, on: 0.5, off: 0.3";
  EXPECT_NO_THROW(ParseEmotionTable("nearby_emotion: ''\n" + one + "}\n", "ok.yaml"));
  ExpectRefused(one + ", colour: red}\n", "colour");                                      // unknown key
  ExpectRefused("emotions:\n  - {name: fear, inputs: {space: -1}, on: 0.5}\n", "space");  // not a μ component
  ExpectRefused("emotions:\n  - {name: fear, on: 0.3, off: 0.5}\n", "off");               // off > on
  ExpectRefused("emotions:\n  - {name: fear, on: .nan}\n", "on");                         // NaN
  ExpectRefused("emotions:\n  - {name: fear, on: 0.5, damping: -1}\n", "damping");
  ExpectRefused("emotions:\n  - {name: fear, on: 0.5}\n  - {name: fear, on: 0.5}\n", "name");  // repeated
  ExpectRefused("emotions:\n  - {name: fear}\n", "on");                                        // missing threshold
  ExpectRefused("emotions:\n  - {name: fear, on: 0.5}\n", "frustration");  // default nearby emotion absent
  ExpectRefused("emotions: []\n", "emotions");
  ExpectRefused("nearby_emotion: ''\n", "emotions");
  ExpectRefused("emotions: [ {name: fear\n", "bad.yaml");  // not YAML
  ExpectRefused("nearby_emotion: ''\n" + one + ", shift: {caution: fast}}\n", "caution");
  EXPECT_THROW(LoadEmotionTable("/nonexistent/emotions.yaml"), config::ConfigError);
}

TEST(EmotionEngine, DampedThresholdsWithHysteresis) {
  // Fear: x = 1 − μ_fs, on 0.5, off 0.3, damping 1 s, dt 0.5 s (keep e^−0.5 = 0.606531 of the old activation).
  const EmotionTable t = ParseEmotionTable(
      "nearby_emotion: ''\nemotions:\n  - {name: fear, inputs: {free_space: -1}, bias: 1, on: 0.5, off: 0.3, "
      "damping: 1}\n",
      "t.yaml");
  EmotionState s;
  InternalState mu;
  mu.free_space = 0.2;  // x = 0.8
  UpdateEmotions(t, mu, 0.5, &s);
  EXPECT_NEAR(s.activation[0], 0.8 * (1 - std::exp(-0.5)), 1e-12);  // 0.314775 < on
  EXPECT_EQ(s.active, -1);
  UpdateEmotions(t, mu, 0.5, &s);
  EXPECT_NEAR(s.activation[0], 0.8 - 0.8 * std::exp(-1.0), 1e-12);  // 0.505696 ≥ on
  EXPECT_EQ(s.active, 0);
  mu.free_space = 1.0;  // x = 0
  UpdateEmotions(t, mu, 0.5, &s);
  EXPECT_NEAR(s.activation[0], 0.505696 * 0.606531, 1e-6);  // 0.306721: below on, above off → still active
  EXPECT_EQ(s.active, 0);
  UpdateEmotions(t, mu, 0.5, &s);  // 0.186035 < off
  EXPECT_EQ(s.active, -1);
  mu.free_space = kNaN;
  EXPECT_THROW(UpdateEmotions(t, mu, 0.5, &s), std::invalid_argument);
  mu.free_space = 0;
  EXPECT_THROW(UpdateEmotions(t, mu, 0.0, &s), std::invalid_argument);
}

TEST(EmotionEngine, TaskDelayIsClippedAndTheHighestWins) {
  // Two undamped emotions: "late" = μ_td (clipped at max_task_delay 2), "slow" = 1.5 − μ_eff.
  const EmotionTable t = ParseEmotionTable(
      "nearby_emotion: ''\nmax_task_delay: 2\nemotions:\n  - {name: late, inputs: {task_delay: 1}, on: 1, off: 0.5, "
      "damping: 0}\n  - {name: slow, inputs: {efficacy: -1}, bias: 1.5, on: 1, off: 0.5, damping: 0}\n",
      "t.yaml");
  EmotionState s;
  InternalState mu;
  mu.task_delay = 100;  // clipped to 2
  mu.efficacy = 0.0;    // slow: 1.5
  UpdateEmotions(t, mu, 0.1, &s);
  EXPECT_EQ(s.activation[0], 2.0);
  EXPECT_EQ(s.active, 0);  // 2 > 1.5
  mu.task_delay = 1.2;     // late 1.2 still ≥ off, but slow 1.5 is above its on and higher: it takes over
  UpdateEmotions(t, mu, 0.1, &s);
  EXPECT_EQ(s.active, 1);
}

TEST(EmotionEngine, ShiftsAndSeenShiftsWithinLimits) {
  const EmotionTable t = LoadEmotionTable(kShippedEmotionTable);
  BNavParams base;
  base.caution = 1.0;
  base.margin = 0.1;
  base.optimal_speed = 0.5;
  base.half_fov = kPi / 2;
  // Fear: η 1 + 0.6, m_a 0.1 + 0.1, v_opt 0.5 − 0.15, ψ 90° + 20°.
  const BNavParams fear = ModulatedParams(t, base, 1, {});
  EXPECT_NEAR(fear.caution, 1.6, 1e-12);
  EXPECT_NEAR(fear.margin, 0.2, 1e-12);
  EXPECT_NEAR(fear.optimal_speed, 0.35, 1e-12);
  EXPECT_NEAR(fear.half_fov, 110 * kPi / 180, 1e-12);
  // Afraid and seeing two frustrated neighbours: v_opt − 0.2 once (0.15).
  const std::vector<int> seen{2, 0, 0};
  const BNavParams yield = ModulatedParams(t, base, 1, seen);
  EXPECT_NEAR(yield.optimal_speed, 0.15, 1e-12);
  EXPECT_NEAR(yield.margin, 0.2, 1e-12);
  // Seeing a fearful neighbour: its seen margin (0.1) goes around that neighbour only, not into m_a.
  const std::vector<int> fearful{0, 1, 0};
  EXPECT_NEAR(ModulatedParams(t, base, -1, fearful).margin, 0.1, 1e-12);
  // Limits: v_opt 0.2 − 0.15 − 0.2 = −0.15 → 0.1; none active: the base unchanged.
  base.optimal_speed = 0.2;
  EXPECT_NEAR(ModulatedParams(t, base, 1, seen).optimal_speed, 0.1, 1e-12);
  EXPECT_NEAR(ModulatedParams(t, base, -1, {}).optimal_speed, 0.2, 1e-12);
  // Frustration thins the margin 0.02 − 0.05 → 0 (never negative).
  base.margin = 0.02;
  EXPECT_EQ(ModulatedParams(t, base, 0, {}).margin, 0.0);
}

}  // namespace
}  // namespace limbic::crowd
