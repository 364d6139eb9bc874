#include "tools/experiment/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace limbic::experiment {
namespace {

TEST(ProgressBar, LineShowsCountRateElapsedAndEta) {
  std::ostringstream out;
  ProgressBar bar(200, out, false, "ch10");
  // 50 of 200 after 100 s: 0.5 runs/s, 150 left → ETA 300 s
  EXPECT_EQ(bar.Line(50, 100), "ch10 [######------------------] 50/200 25.0% 0.50 runs/s elapsed 1m40s ETA 5m00s");
  EXPECT_EQ(bar.Line(0, 0).find("ETA ?"), bar.Line(0, 0).size() - 5);
  EXPECT_NE(bar.Line(200, 4000).find("ETA 0s"), std::string::npos);
  EXPECT_NE(bar.Line(200, 4000).find("elapsed 1h06m"), std::string::npos);
}

TEST(ProgressBar, PlainOutputPrintsPeriodicLines) {
  std::ostringstream out;
  ProgressBar bar(10, out, false, "", 10.0);
  bar.Update(1, 1.0);    // first: printed
  bar.Update(2, 5.0);    // within 10 s: not printed
  bar.Update(3, 11.5);   // printed
  bar.Update(10, 12.0);  // done: printed
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_EQ(text.find('\r'), std::string::npos);
}

TEST(ProgressBar, TerminalRedrawsInPlace) {
  std::ostringstream out;
  ProgressBar bar(4, out, true);
  bar.Update(1, 1.0);
  bar.Update(2, 2.0);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 2);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(FormatDuration(59.4), "59s");
  EXPECT_EQ(FormatDuration(61), "1m01s");
}

}  // namespace
}  // namespace limbic::experiment
