// End-to-end checks of the limbic-sim command line (runs the built binary).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Result RunSim(const std::string& args) {
  // The binary of this build tree (a sanitizer build tests its own, not the main build's "build/bin").
  const char* bin_dir = std::getenv("LIMBIC_BIN_DIR");
  const std::string bin = bin_dir ? std::string(bin_dir) + "/limbic-sim" : std::string(LIMBIC_SIM_BINARY);
  Result r;
  FILE* pipe = popen((bin + " " + args + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 512> buf;
  while (fgets(buf.data(), buf.size(), pipe)) r.output += buf.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(LimbicSimCli, RenderWritesAnSvg) {
  const std::string path = ::testing::TempDir() + "/limbic_sim_cli_env.svg";
  std::remove(path.c_str());
  const Result r = RunSim("render --set C --index 7 --seed 3 --out " + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(path);
  std::string first;
  std::getline(f, first);
  EXPECT_EQ(first.rfind("<svg", 0), 0u);
}

TEST(LimbicSimCli, ListPrintsEverySet) {
  const Result r = RunSim("list");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* s : {"  A  ", "  B  ", "  C  ", "  D  ", "  E  ", "  F  ", "  G  "})
    EXPECT_NE(r.output.find(s), std::string::npos) << s;
  EXPECT_NE(r.output.find("doors U[0.8,1.4] m"), std::string::npos);
}

TEST(LimbicSimCli, HelpOnEachCommand) {
  for (const char* cmd : {"--help", "render --help", "list --help"}) {
    const Result r = RunSim(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.output.find("usage: limbic sim"), std::string::npos) << cmd;
  }
}

TEST(LimbicSimCli, BadInputGivesOneLineErrorAndNonZeroExit) {
  const std::string out = " --out " + ::testing::TempDir() + "/x.svg";
  for (const std::string& args :
       {std::string("render --set H --index 0") + out, std::string("render --set C --index 20") + out,
        std::string("render --set C --index -1") + out, std::string("render --set C --index 1 --bogus 2") + out,
        std::string("render --set C --index 1 --out /nonexistent-dir/x/env.svg"), std::string("frobnicate"),
        std::string("list --extra")}) {
    const Result r = RunSim(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_EQ(Lines(r.output), 1) << args << ": " << r.output;
    EXPECT_EQ(r.output.rfind("limbic-sim: error: ", 0), 0u) << args << ": " << r.output;
  }
}

}  // namespace
