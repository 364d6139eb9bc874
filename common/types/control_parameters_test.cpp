#include "common/types/control_parameters.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "common/config/config.hpp"

namespace limbic {
namespace {

TEST(ControlParameters, DefaultsFollowRecommendedReading) {
  ControlParameters p;
  EXPECT_DOUBLE_EQ(p.w_v4, 0.5);
  EXPECT_DOUBLE_EQ(p.w_v5, 0.9);
  const ControlParameters literal = Table72Literal();
  EXPECT_DOUBLE_EQ(literal.w_v4, 0.9);
  EXPECT_DOUBLE_EQ(literal.w_v5, 0.5);
}

TEST(ControlParameters, LoadsSubsetAndRejectsUnknownAndEvenWindow) {
  config::StrictMap map(YAML::Load("w_v1: 0.9\nn_theta: 30\n"), "p.yaml");
  ControlParameters p;
  LoadControlParameters(map, &p);
  map.Finish();
  EXPECT_DOUBLE_EQ(p.w_v1, 0.9);
  EXPECT_EQ(p.n_theta, 30);

  config::StrictMap bad(YAML::Load("w_v9: 1\n"), "p.yaml");
  LoadControlParameters(bad, &p);
  EXPECT_THROW(bad.Finish(), config::ConfigError);

  config::StrictMap even(YAML::Load("n_v: 4\n"), "p.yaml");
  EXPECT_THROW(LoadControlParameters(even, &p), config::ConfigError);
}

// The error names the field, so `limbic pub` and `param set` can say what was wrong.
std::string RangeErrorField(const ControlParameters& p) {
  try {
    ValidateParameters(p);
  } catch (const ParameterRangeError& e) {
    EXPECT_NE(std::string(e.what()).find("ControlParameters." + e.field()), std::string::npos) << e.what();
    return e.field();
  }
  return "";
}

TEST(ValidateParameters, DefaultsAndTable72AreValid) {
  EXPECT_EQ(RangeErrorField(ControlParameters{}), "");
  EXPECT_EQ(RangeErrorField(Table72Literal()), "");
}

TEST(ValidateParameters, UpperBoundsOnEverythingThatSizesAnAllocation) {
  // Issue 16 finding 1: n_theta = 2,000,000,000 in one valid r1/params message.
  ControlParameters p;
  p.n_theta = 2000000000;
  EXPECT_EQ(RangeErrorField(p), "n_theta");
  p.n_theta = ControlParameterLimits::kMaxNTheta;
  EXPECT_EQ(RangeErrorField(p), "");
  p.n_theta = ControlParameterLimits::kMaxNTheta + 1;
  EXPECT_EQ(RangeErrorField(p), "n_theta");

  p = {};
  p.n_v = ControlParameterLimits::kMaxWindow + 2;  // odd, one step too wide
  EXPECT_EQ(RangeErrorField(p), "n_v");
  p = {};
  p.n_omega = 1000001;
  EXPECT_EQ(RangeErrorField(p), "n_omega");
  p = {};
  p.map_radius = 1e9;
  EXPECT_EQ(RangeErrorField(p), "map_radius");
  p = {};
  p.r_f = 100.0;
  EXPECT_EQ(RangeErrorField(p), "r_f");
  p = {};
  p.n_o = 1 << 30;
  EXPECT_EQ(RangeErrorField(p), "n_o");
  p = {};
  p.d_o_max = 1e12;
  EXPECT_EQ(RangeErrorField(p), "d_o_max");
}

TEST(ValidateParameters, LowerBoundsNonFiniteAndOrder) {
  ControlParameters p;
  p.n_theta = 0;
  EXPECT_EQ(RangeErrorField(p), "n_theta");
  p = {};
  p.n_v = 4;
  EXPECT_EQ(RangeErrorField(p), "n_v");
  p = {};
  p.w_theta3 = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RangeErrorField(p), "w_theta3");
  p = {};
  p.cost_base = std::numeric_limits<double>::infinity();
  EXPECT_EQ(RangeErrorField(p), "cost_base");
  p = {};
  p.map_radius = -1.0;
  EXPECT_EQ(RangeErrorField(p), "map_radius");
  p = {};
  p.wander_period = 0.0;
  EXPECT_EQ(RangeErrorField(p), "wander_period");
  p = {};
  p.t_2 = p.t_1 - 0.01;
  EXPECT_EQ(RangeErrorField(p), "t_2");
}

TEST(ControlParameters, LoaderRefusesOutOfRangeNamingTheKey) {
  config::StrictMap map(YAML::Load("n_theta: 100000\n"), "p.yaml");
  ControlParameters p;
  try {
    LoadControlParameters(map, &p);
    FAIL() << "n_theta 100000 accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("n_theta"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace limbic
