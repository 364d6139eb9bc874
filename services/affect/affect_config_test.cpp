#include "services/affect/affect_config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/config/config.hpp"
#include "services/affect/testing/shipped_config.hpp"

namespace limbic::affect {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A scratch directory per test process, with a copy of tables.yaml so relative `tables:` works.
class ScratchDir {
 public:
  ScratchDir() : dir_(fs::temp_directory_path() / ("limbic_affect_test_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~ScratchDir() { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
};

// Returns the ConfigError message from `f`, or "" if it did not throw.
template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(AffectConfigTest, EveryShippedYamlLoadsThroughTheRealLoader) {
  int configs = 0, tables = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kShippedConfigDir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string path = entry.path().string();
    SCOPED_TRACE(path);
    if (entry.path().filename() == "tables.yaml") {
      EXPECT_NO_THROW(LoadModelTables(path));
      ++tables;
    } else {
      EXPECT_NO_THROW(LoadAffectConfig(path, kShippedConfigDir));
      ++configs;
    }
  }
  EXPECT_EQ(tables, 1);
  EXPECT_GE(configs, 6);
}

TEST(AffectConfigTest, TablesHoldTheSpecValues) {
  const ModelTables t = LoadModelTables(kShippedConfigDir + "/tables.yaml");
  EXPECT_EQ(t.stimuli.params[kStuck].alpha_growth, 0.005);
  EXPECT_TRUE(t.stimuli.params[kStuck].invert);
  EXPECT_EQ(t.stimuli.params[kPain].alpha_growth, 1.0);  // spec §8 item 8
  EXPECT_EQ(t.stimuli.danger_distance_max, 1.5);
  EXPECT_EQ(t.emotions[kCuriosity].gamma_decay, 0.1);  // spec §8 item 7
  EXPECT_EQ(t.emotions[kCuriosity].phi, 0.5);
  EXPECT_EQ(t.emotions[kConfusion].phi, 0.0);
  ASSERT_EQ(t.emotions[kFear].inputs.size(), 2u);
  EXPECT_EQ(t.emotions[kFear].inputs[1].source, kPain);
  EXPECT_EQ(t.emotions[kFear].inputs[1].w_max, 2.0);
  EXPECT_EQ(t.moods[kNegativeMood].inputs.size(), 3u);
  EXPECT_EQ(t.drives[kExploration].kind, DriveKind::kStrategic);
  EXPECT_EQ(t.drives[kExploration].equilibrium, 0.0);
  EXPECT_EQ(t.drives[kSafety].equilibrium, 0.5);
  EXPECT_EQ(t.parameters.size(), 17u);
  EXPECT_EQ(t.companion2006.reactive.size(), 2u);
  EXPECT_EQ(t.companion2006.w8, 0.35);
}

TEST(AffectConfigTest, NamedConfigurationsCarryTheirSwitches) {
  const AffectConfig affective = LoadAffectConfig("affective", kShippedConfigDir);
  EXPECT_EQ(affective.base_parameters.w_p4, 0.5);  // spec §8 item 20
  EXPECT_EQ(affective.model, AffectModel::kThesis);
  EXPECT_EQ(affective.dominance, DominanceForm::kCorrected);

  const AffectConfig neurotic = LoadAffectConfig("personality/neurotic", kShippedConfigDir);
  EXPECT_EQ(neurotic.moods[kNegativeMood].weight, 1.5);
  EXPECT_EQ(neurotic.moods[kPositiveMood].weight, 0.5);
  EXPECT_EQ(neurotic.base_parameters.w_p4, 0.5);  // inherited from its base
  ASSERT_EQ(neurotic.files.size(), 2u);
  EXPECT_NE(neurotic.files[0].find("affective.yaml"), std::string::npos);

  const AffectConfig extraverted = LoadAffectConfig("personality/extraverted", kShippedConfigDir);
  EXPECT_EQ(extraverted.moods[kNegativeMood].weight, 0.5);
  EXPECT_EQ(extraverted.moods[kPositiveMood].weight, 1.5);

  const AffectConfig constant = LoadAffectConfig("constant", kShippedConfigDir);
  EXPECT_EQ(constant.drives[kSafety].fixed, 0.5);
  EXPECT_EQ(constant.drives[kAction].fixed, 0.0);
  EXPECT_EQ(constant.base_parameters.w_p4, 0.0);

  const AffectConfig companion = LoadAffectConfig("companion2006", kShippedConfigDir);
  EXPECT_EQ(companion.model, AffectModel::kCompanion2006);
  const AffectConfig disabled = LoadAffectConfig("companion2006_disabled", kShippedConfigDir);
  EXPECT_FALSE(disabled.modulate_parameters);
  EXPECT_EQ(disabled.base_parameters.v_limit, 0.8);
}

TEST(AffectConfigTest, OverridesApplyOnTopOfTheNamedFile) {
  const AffectConfig c = LoadAffectConfig(
      "personality/neurotic", kShippedConfigDir,
      {"drives.exploration.weight=0.25", "emotions.fear.phi=1", "moods.negative.fixed=0.3", "dominance=printed"});
  EXPECT_EQ(c.drives[kExploration].weight, 0.25);
  EXPECT_EQ(c.emotions[kFear].phi, 1.0);
  EXPECT_EQ(c.moods[kNegativeMood].fixed, 0.3);
  EXPECT_EQ(c.moods[kNegativeMood].weight, 1.5);
  EXPECT_EQ(c.dominance, DominanceForm::kPrinted);
  // null clears a value a base file set.
  const AffectConfig cleared = LoadAffectConfig("constant", kShippedConfigDir, {"drives.safety.fixed=null"});
  EXPECT_FALSE(cleared.drives[kSafety].fixed.has_value());
}

TEST(AffectConfigTest, MisspelledConfigKeyNamesFileAndKey) {
  ScratchDir scratch;
  fs::copy_file(kShippedConfigDir + "/tables.yaml", scratch.dir() + "/tables.yaml");
  const std::string path = scratch.Write("typo.yaml", "tables: tables.yaml\nmoods:\n  positive: {wieght: 1.0}\n");
  const std::string error = ErrorOf([&] { LoadAffectConfig(path, scratch.dir()); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("moods.positive.wieght"), std::string::npos) << error;

  const std::string emotion = scratch.Write("emo.yaml", "tables: tables.yaml\nemotions:\n  angr: {fixed: 0}\n");
  EXPECT_NE(ErrorOf([&] { LoadAffectConfig(emotion, scratch.dir()); }).find("emotions.angr"), std::string::npos);

  const std::string layer = scratch.Write("layer.yaml", "tables: tables.yaml\nemotion_layer:\n  maps: [anger, feer]\n");
  EXPECT_NE(ErrorOf([&] { LoadAffectConfig(layer, scratch.dir()); }).find("feer"), std::string::npos);

  EXPECT_NE(ErrorOf([&] { LoadAffectConfig("no_such_config", kShippedConfigDir); }).find("no such file"),
            std::string::npos);
  const std::string no_tables = scratch.Write("bare.yaml", "model: thesis\n");
  EXPECT_NE(ErrorOf([&] { LoadAffectConfig(no_tables, scratch.dir()); }).find("tables"), std::string::npos);
}

TEST(AffectConfigTest, MisspelledOrInvalidTableEntriesNameFileAndKey) {
  ScratchDir scratch;
  const std::string original = ReadText(kShippedConfigDir + "/tables.yaml");
  auto expect_error = [&](const std::string& from, const std::string& to, const std::string& key) {
    const size_t at = original.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    std::string text = original;
    text.replace(at, from.size(), to);
    const std::string path = scratch.Write("tables.yaml", text);
    const std::string error = ErrorOf([&] { LoadModelTables(path); });
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find(key), std::string::npos) << "expected '" << key << "' in: " << error;
  };
  expect_error("window: 30.0", "window: 30.0, windw: 3", "stimuli.stuck.windw");
  expect_error("reference_period: 0.1", "reference_period: 0.1\nreferense_period: 0.2", "referense_period");
  // alphas in (0, 1]
  expect_error("alpha_growth: 0.005", "alpha_growth: 0.0", "stimuli.stuck.alpha_growth");
  expect_error("alpha_decay: 0.05,", "alpha_decay: 1.5,", "stimuli.danger.alpha_decay");
  // logic tags 0..3, weights >= 0, one dominant input
  expect_error("{input: pain,   w_min: 0.0, w_max: 2.0, exponent: 0, logic: 0}",
               "{input: pain,   w_min: 0.0, w_max: 2.0, exponent: 0, logic: 4}", "emotions.fear.inputs[1].logic");
  expect_error("{input: pain,   w_min: 0.0, w_max: 2.0, exponent: 0, logic: 0}",
               "{input: pain,   w_min: 0.0, w_max: -2.0, exponent: 0, logic: 0}", "emotions.fear.inputs[1].w_max");
  expect_error("{input: pain,   w_min: 0.0, w_max: 2.0, exponent: 0, logic: 0}",
               "{input: pain,   w_min: 1.0, w_max: 2.0, exponent: 0, logic: 0}", "emotions.fear.inputs");
  expect_error("{input: pain,   w_min: 0.0", "{input: pian,   w_min: 0.0", "emotions.fear.inputs[1].input");
  expect_error("parameter: d_lookahead", "parameter: d_look_ahead", "parameters[13].parameter");
}

TEST(AffectConfigTest, DescribeConfigListsTheEffectiveSwitches) {
  const std::string text = DescribeConfig(LoadAffectConfig("personality/neurotic", kShippedConfigDir));
  EXPECT_NE(text.find("negative: weight=1.5 fixed=none"), std::string::npos) << text;
  EXPECT_NE(text.find("model: thesis"), std::string::npos);
  EXPECT_NE(text.find(" w_p4=0.5 "), std::string::npos) << text;
  EXPECT_NE(text.find(" n_o=5"), std::string::npos) << text;
}

}  // namespace
}  // namespace limbic::affect
