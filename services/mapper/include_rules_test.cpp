// The mapper's algorithm files include only the standard library, Eigen and common/ value types (STYLE.md §1).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

TEST(MapperIncludeRules, NoTransportInAlgorithmFiles) {
  // The directory comes from the build (LIMBIC_SERVICE_DIR), so the test does not depend on its environment.
  const std::filesystem::path dir = LIMBIC_SERVICE_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "main.cpp" || name.rfind("convert.", 0) == 0 || name.rfind("wiring.", 0) == 0) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp") continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#include", 0) != 0) continue;
      for (const char* bad : {"zmq", "flatbuffers", "messages/", "common/bus", "common/runtime", "yaml"}) {
        EXPECT_EQ(line.find(bad), std::string::npos) << name << ": " << line;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

}  // namespace
