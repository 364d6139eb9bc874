// Keeps the hwio library transport-free (STYLE.md §1, §4): no ZeroMQ or FlatBuffers outside main.cpp and
// convert.* and wiring.*, Asio only in the serial backend, no wall clock or global random generator in algorithm files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HwioIncludeRulesTest, LibraryFilesAvoidTransportAndClocks) {
  // ctest runs tests in the source root; LIMBIC_SOURCE_DIR overrides it.
  const char* root = std::getenv("LIMBIC_SOURCE_DIR");
  const std::filesystem::path dir =
      (root ? std::filesystem::path(root) : std::filesystem::current_path()) / "services/hwio";
  ASSERT_TRUE(std::filesystem::exists(dir / "watchdog.hpp")) << dir;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string ext = entry.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp") continue;
    if (name == "main.cpp" || name.rfind("convert.", 0) == 0 || name.rfind("wiring.", 0) == 0 ||
        name.find("_test.cpp") != std::string::npos)
      continue;
    const std::string text = Read(entry.path());
    ++checked;
    EXPECT_EQ(text.find("zmq"), std::string::npos) << name;
    EXPECT_EQ(text.find("flatbuffers"), std::string::npos) << name;
    if (name != "serial_backend.cpp") {
      EXPECT_EQ(text.find("<asio"), std::string::npos) << name;
      EXPECT_EQ(text.find("steady_clock"), std::string::npos) << name;
    }
    EXPECT_EQ(text.find("system_clock"), std::string::npos) << name;
    EXPECT_EQ(text.find("std::rand"), std::string::npos) << name;
    EXPECT_EQ(text.find("random_device"), std::string::npos) << name;
  }
  EXPECT_GE(checked, 16);
}

}  // namespace
