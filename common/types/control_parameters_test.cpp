#include "common/types/control_parameters.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace limbic
