#include "common/paths/paths.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace limbic::paths {
namespace {

namespace fs = std::filesystem;

class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("limbic-paths-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "bin");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(DataDirTest, DataLivesInShareLimbicBesideTheProgramsFolder) {
  fs::create_directories(root_ / "share" / "limbic" / "configs");
  EXPECT_EQ(DataDirFor(root_ / "bin", nullptr), root_ / "share" / "limbic");
  EXPECT_EQ(DataDirFor(root_ / "bin", ""), root_ / "share" / "limbic") << "an empty variable counts as unset";
}

TEST_F(DataDirTest, TheEnvironmentVariableWinsOverTheProgramsLocation) {
  fs::create_directories(root_ / "share" / "limbic");
  fs::create_directories(root_ / "elsewhere");
  const std::string elsewhere = (root_ / "elsewhere").string();
  EXPECT_EQ(DataDirFor(root_ / "bin", elsewhere.c_str()), root_ / "elsewhere");
}

TEST_F(DataDirTest, AMissingFolderIsAnErrorThatSaysWhereItLookedAndWhatToSet) {
  try {
    DataDirFor(root_ / "bin", nullptr);
    FAIL() << "no share/limbic beside bin must throw";
  } catch (const DataNotFound& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((root_ / "share" / "limbic").string()), std::string::npos) << what;
    EXPECT_NE(what.find("LIMBIC_DATA_DIR"), std::string::npos) << what;
  }
  const std::string missing = (root_ / "nowhere").string();
  EXPECT_THROW(DataDirFor(root_ / "bin", missing.c_str()), DataNotFound);
  EXPECT_THROW(DataDirFor(fs::path(), nullptr), DataNotFound);
}

TEST_F(DataDirTest, APieceOfDataCanBeRedirectedByItsOwnVariable) {
  ASSERT_EQ(setenv("LIMBIC_PATHS_TEST_DIR", "/some/where", 1), 0);
  EXPECT_EQ(DataPath("configs/robots", "LIMBIC_PATHS_TEST_DIR"), fs::path("/some/where"));
  unsetenv("LIMBIC_PATHS_TEST_DIR");
}

// This test binary runs from the build tree: <build>/tests. The build tree's data link is <build>/share/limbic ->
// the source tree, which holds the robot descriptions; the lookup from <build>/bin must find them.
TEST(DataDirBuildTree, TheBuildTreesDataLinkReachesTheShippedFiles) {
  unsetenv("LIMBIC_DATA_DIR");
  const fs::path build_bin = ExecutableDir().parent_path() / "bin";
  const fs::path data = DataDirFor(build_bin, nullptr);
  EXPECT_TRUE(fs::exists(data / "configs" / "robots" / "marvin.yaml")) << data;
  EXPECT_TRUE(fs::exists(data / "services" / "affect" / "config" / "affective.yaml")) << data;
  EXPECT_TRUE(fs::is_directory(data / "experiments")) << data;
}

}  // namespace
}  // namespace limbic::paths
