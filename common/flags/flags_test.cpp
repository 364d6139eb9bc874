#include "common/flags/flags.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace limbic::flags {
namespace {

TEST(ParseFiniteNumber, TakesTheWholeTextAsAFiniteNumber) {
  EXPECT_DOUBLE_EQ(ParseFiniteNumber("--rate", "0.5"), 0.5);
  EXPECT_DOUBLE_EQ(ParseFiniteNumber("--rate", "-3"), -3.0);
  EXPECT_DOUBLE_EQ(ParseFiniteNumber("--rate", "1e-3"), 1e-3);
  for (const char* bad : {"", "nan", "NaN", "inf", "-inf", "1e999", "0.5s", " 1", "1 ", "+1", "0x10", "abc"}) {
    try {
      ParseFiniteNumber("--rate", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const FlagValueError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--rate needs a finite number, got '") + bad + "'");
    }
  }
}

TEST(ParseInteger, TakesTheWholeTextAsAnIntegerInRange) {
  EXPECT_EQ(ParseInteger("--jobs", "4", 1), 4);
  EXPECT_EQ(ParseInteger("--seed", "18446744073709551", 0), 18446744073709551);
  EXPECT_EQ(ParseInteger("--beam", "-1", -1, 15), -1);
  for (const char* bad : {"", "1.5", "1e3", "2x", " 2", "99999999999999999999", "nan"}) {
    EXPECT_THROW(ParseInteger("--jobs", bad, 1), FlagValueError) << bad;
  }
  try {
    ParseInteger("--jobs", "0", 1);
    ADD_FAILURE() << "accepted 0";
  } catch (const FlagValueError& e) {
    EXPECT_STREQ(e.what(), "--jobs needs an integer >= 1, got '0'");
  }
  try {
    ParseInteger("--beam", "16", -1, 15);
    ADD_FAILURE() << "accepted 16";
  } catch (const FlagValueError& e) {
    EXPECT_STREQ(e.what(), "--beam needs an integer in [-1, 15], got '16'");
  }
}

TEST(ParseInt, KeepsToIntsRangeAndSaysOnlyTheBoundsGiven) {
  EXPECT_EQ(ParseInt("--idle", "7", 0), 7);
  EXPECT_THROW(ParseInt("--idle", "2147483648", 0), FlagValueError);  // would wrap through a cast
  try {
    ParseInt("--idle", "2x", 0);
    ADD_FAILURE() << "accepted 2x";
  } catch (const FlagValueError& e) {
    EXPECT_STREQ(e.what(), "--idle needs an integer >= 0, got '2x'");
  }
}

TEST(NextValue, TakesTheFollowingArgumentOrSaysTheFlagNeedsOne) {
  const std::vector<std::string> args = {"run", "--jobs", "2", "--out"};
  size_t i = 1;
  EXPECT_EQ(NextValue(args, &i), "2");
  EXPECT_EQ(i, 2u);
  i = 3;
  try {
    NextValue(args, &i);
    FAIL() << "no value after --out";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--out needs a value");
  }
  EXPECT_EQ(i, 3u);
}

TEST(RunTool, MapsUsageErrorsToTwoOtherFailuresToOneAndPassesTheStatusOn) {
  std::ostringstream err;
  EXPECT_EQ(RunTool(
                "limbic thing", [] { return 0; }, err),
            0);
  EXPECT_EQ(RunTool(
                "limbic thing", [] { return 3; }, err),
            3);
  EXPECT_EQ(err.str(), "");
  EXPECT_EQ(RunTool(
                "limbic thing", []() -> int { throw UsageError("unknown command 'x'"); }, err),
            2);
  EXPECT_EQ(err.str(), "limbic thing: error: unknown command 'x' (see limbic thing --help)\n");
  err.str("");
  EXPECT_EQ(RunTool(
                "limbic thing", [] { return ParseInt("--jobs", "two"); }, err),
            2);
  EXPECT_NE(err.str().find("limbic thing: error: --jobs"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(RunTool(
                "limbic thing", []() -> int { throw std::runtime_error("cannot write x.csv"); }, err),
            1);
  EXPECT_EQ(err.str(), "limbic thing: error: cannot write x.csv\n");
  err.str("");
  EXPECT_EQ(RunTool(
                "limbic thing", []() -> int { throw 42; }, err),
            1);
  EXPECT_EQ(err.str(), "limbic thing: error: unknown exception\n");
}

}  // namespace
}  // namespace limbic::flags
