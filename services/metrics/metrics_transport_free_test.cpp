// STYLE §1 and §9: the collector library includes neither ZeroMQ, FlatBuffers nor prometheus-cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(MetricsLayeringTest, CollectorLibraryIsTransportFree) {
  for (const char* file : {"metric_model.hpp", "metric_model.cpp", "collector.hpp", "collector.cpp", "values.hpp"}) {
    std::ifstream in(std::string(LIMBIC_SOURCE_ROOT) + "/services/metrics/" + file);
    ASSERT_TRUE(in) << file;
    std::stringstream text;
    text << in.rdbuf();
    for (const char* forbidden : {"zmq", "flatbuffers", "prometheus/", "messages/", "common/bus", "common/runtime"}) {
      for (std::string line; std::getline(text, line);) {
        if (line.rfind("#include", 0) == 0) {
          EXPECT_EQ(line.find(forbidden), std::string::npos) << file << ": " << line;
        }
      }
      text.clear();
      text.seekg(0);
    }
  }
}

}  // namespace
