#include "services/affect/parameter_mapping.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <stdexcept>

#include "services/affect/testing/reference_parameter_mappings.hpp"

namespace limbic::affect {
namespace {

TEST(AffectParameterMappingTest, CurvatureExponentFollowsEq815) {
  EXPECT_DOUBLE_EQ(CurveDrive(0.5, 10), std::pow(0.5, 10));
  EXPECT_DOUBLE_EQ(CurveDrive(0.5, -1.5), 1.0 - std::pow(0.5, 1.5));
  for (double x : {0.0, 1.0, -1.0, 0.5}) EXPECT_EQ(CurveDrive(0.3, x), 0.3) << x;
  EXPECT_EQ(CurveDrive(0.0, 10), 0.0);
  EXPECT_EQ(CurveDrive(1.0, -1.5), 1.0);
}

TEST(AffectParameterMappingTest, ActionWeightsStayNearTheirPrimaryValue) {
  // W_θ3 = 0.75 → 0.25 with X = 10: at D = 0.8, D' = 0.8^10 = 0.107 → 0.696.
  EXPECT_NEAR(MapDriveToParameter(0.8, 0.75, 0.25, 10), 0.75 - 0.5 * std::pow(0.8, 10), 1e-15);
  EXPECT_GT(MapDriveToParameter(0.5, 0.75, 0.25, 10), 0.749);
  // W_θ5 = 0 → 0.5 with X = −1.5 rises early: at D = 0.5, 0.5·(1 − 0.5^1.5) = 0.323.
  EXPECT_NEAR(MapDriveToParameter(0.5, 0.0, 0.5, -1.5), 0.5 * (1 - std::pow(0.5, 1.5)), 1e-15);
  EXPECT_DOUBLE_EQ(MapDriveToParameter(0.25, 0.4, 1.0, 0), 0.55);  // v_L
}

TEST(AffectParameterMappingTest, FieldsByNameAndIntegerRounding) {
  ControlParameters p;
  EXPECT_TRUE(IsControlParameter("d_lookahead"));
  EXPECT_FALSE(IsControlParameter("d_look_ahead"));
  EXPECT_TRUE(IsIntegerControlParameter("n_theta"));
  EXPECT_FALSE(IsIntegerControlParameter("t_r"));
  SetControlParameter("n_theta", 24.8, &p);  // 30 − 20·0.26
  EXPECT_EQ(p.n_theta, 25);
  SetControlParameter("w_p2", 0.7, &p);
  EXPECT_EQ(p.w_p2, 0.7);
  EXPECT_EQ(GetControlParameter("n_theta", p), 25.0);
  EXPECT_THROW(SetControlParameter("nope", 1, &p), std::invalid_argument);
  EXPECT_THROW(GetControlParameter("nope", p), std::invalid_argument);
  // The registry covers every field: 47 in common/types/control_parameters.hpp, all distinct.
  const auto names = ControlParameterNames();
  EXPECT_EQ(names.size(), 47u);
  EXPECT_EQ(std::set<std::string_view>(names.begin(), names.end()).size(), names.size());
}

TEST(AffectParameterMappingTest, UnmappedFieldsKeepTheBaseValue) {
  ControlParameters base;
  base.w_p4 = 0.5;
  base.w_v3 = 0.6;
  const std::vector<ParameterMapping> rows{{kSpeed, "v_limit", 0.4, 1.0, 0}, {kEfficiency, "n_o", 7, 1, 0}};
  const DriveArray drives{0.5, 1.0, 0.0, 0, 0, 0};
  const ControlParameters out = testing::ApplyParameterMappingsByName(rows, drives, base);
  EXPECT_EQ(out.v_limit, 1.0);
  EXPECT_EQ(out.n_o, 7);
  EXPECT_EQ(out.w_p4, 0.5);
  EXPECT_EQ(out.w_v3, 0.6);
  EXPECT_EQ(out.r_o, base.r_o);
}

// Issue 18: the engine applies its tables with the fields looked up once. Over the shipped tables (Table 8.2 and the
// companion model's reactive rows) and random drives and emotions, that gives the same bits as the lookup by name.
TEST(AffectParameterMappingTest, ResolvedTablesGiveTheSameParametersAsTheLookupByName) {
  const ModelTables tables = LoadModelTables(LIMBIC_AFFECT_SOURCE_DIR "/config/tables.yaml");
  ASSERT_FALSE(tables.parameters.empty());
  ASSERT_FALSE(tables.companion2006.reactive.empty());
  const ResolvedParameterMappings thesis(tables.parameters), companion(tables.companion2006.reactive);
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ControlParameters base;
  base.w_p4 = 0.25;
  for (int k = 0; k < 200; ++k) {
    DriveArray drives{};
    for (double& d : drives) d = k < 2 ? k : u(rng);  // 0 and 1 exactly, then random
    EmotionArray emotions{};
    for (double& e : emotions) e = k < 2 ? k : u(rng);
    EXPECT_TRUE(thesis.Apply(drives, base) == testing::ApplyParameterMappingsByName(tables.parameters, drives, base))
        << k;
    EXPECT_TRUE(companion.Apply(emotions, base) ==
                testing::ApplyParameterMappingsByName(tables.companion2006.reactive, emotions, base))
        << k;
  }
  EXPECT_TRUE(ResolvedParameterMappings().Apply(DriveArray{}, base) == base);
  const std::vector<ParameterMapping> unknown{{kSpeed, "v_limt", 0.4, 1.0, 0}};
  EXPECT_THROW(ResolvedParameterMappings{unknown}, std::invalid_argument);
}

}  // namespace
}  // namespace limbic::affect
