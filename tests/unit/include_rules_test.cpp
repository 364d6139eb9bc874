// The algorithm never sees the transport (STYLE.md §1, §4, §9), checked over the whole tree once:
// in sim/ and every services/<name>/, files other than main.cpp, wiring.*, convert.*, tests and
// testing/ include no ZeroMQ, FlatBuffers, message headers, bus or runtime, read no wall clock and use
// no global random generator. Asio appears only in hwio's serial backend; websocketpp (over Asio) only in the
// Foxglove bridge's WebSocket server; prometheus-cpp only in the metrics exporter's bridge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsAlgorithmFile(const fs::path& p) {
  const std::string name = p.filename().string();
  const std::string ext = p.extension().string();
  if (ext != ".hpp" && ext != ".cpp") return false;
  if (name == "main.cpp" || name.rfind("wiring.", 0) == 0 || name.rfind("convert.", 0) == 0) return false;
  if (name.find("_test.cpp") != std::string::npos) return false;
  for (const auto& part : p) {
    if (part == "testing" || part == "cli") return false;  // fakes, tools and command lines
  }
  return true;
}

TEST(IncludeRules, AlgorithmFilesAvoidTransportClocksAndGlobalRandomness) {
  const fs::path root = LIMBIC_SOURCE_ROOT;
  std::vector<fs::path> dirs{root / "sim"};
  for (const auto& entry : fs::directory_iterator(root / "services")) {
    if (entry.is_directory() && entry.path().filename() != "bus") dirs.push_back(entry.path());
  }
  int checked = 0;
  for (const auto& dir : dirs) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || !IsAlgorithmFile(entry.path())) continue;
      const std::string rel = fs::relative(entry.path(), root).string();
      const std::string name = entry.path().filename().string();
      const std::string text = Read(entry.path());
      ++checked;
      for (const char* forbidden : {"#include <zmq", "#include \"zmq", "#include <flatbuffers", "#include \"messages/",
                                    "#include \"common/bus/", "#include \"common/runtime/", "system_clock", "std::rand",
                                    "random_device", "srand("}) {
        EXPECT_EQ(text.find(forbidden), std::string::npos) << rel << " has " << forbidden;
      }
      if (rel != "services/hwio/serial_backend.cpp") {
        EXPECT_EQ(text.find("<asio"), std::string::npos) << rel;
        EXPECT_EQ(text.find("steady_clock"), std::string::npos) << rel;
      }
      if (rel != "services/foxglove/ws_server.cpp") {
        EXPECT_EQ(text.find("websocketpp/"), std::string::npos) << rel;
      }
      if (rel.rfind("services/metrics/prometheus_bridge", 0) != 0) {
        EXPECT_EQ(text.find("prometheus/"), std::string::npos) << rel;
      }
    }
  }
  EXPECT_GE(checked, 60) << "fewer algorithm files than expected: is the tree where the test thinks?";
}

}  // namespace
