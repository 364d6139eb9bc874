// The sim library is transport-free (STYLE.md §1): no ZeroMQ or FlatBuffers in any of its files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(SimIncludeRules, NoTransportHeadersInTheSimLibrary) {
  // LIMBIC_SIM_SOURCE_DIR is compiled in (this directory); LIMBIC_SOURCE_DIR from ctest overrides
  // it.
  const char* root = std::getenv("LIMBIC_SOURCE_DIR");
  const std::filesystem::path dir =
      root ? std::filesystem::path(root) / "sim" : std::filesystem::path(LIMBIC_SIM_SOURCE_DIR);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp") continue;
    if (entry.path().filename() == "include_rules_test.cpp") continue;
    std::ifstream f(entry.path());
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("#include", 0) != 0) continue;
      EXPECT_EQ(line.find("zmq"), std::string::npos) << entry.path() << ": " << line;
      EXPECT_EQ(line.find("flatbuffers"), std::string::npos) << entry.path() << ": " << line;
      EXPECT_EQ(line.find("services/"), std::string::npos) << entry.path() << ": " << line;
    }
    ++files;
  }
  EXPECT_GT(files, 10);
}

}  // namespace
