#include "common/regex/regex.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace limbic::regex {
namespace {

TEST(Regex, MatchIsTheWholeTextWithItsGroups) {
  const Regex path(R"re(^"([^"]+)"\.([a-z_]+)\[([0-9]+)\]$)re");
  const auto m = path.Match(R"("r1/affect".emotions[3])");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (Groups{R"("r1/affect".emotions[3])", "r1/affect", "emotions", "3"}));
  EXPECT_FALSE(path.Match(R"("r1/affect".emotions[3] )"));  // more than the pattern
  const Regex label("[A-Za-z0-9_]+");
  EXPECT_TRUE(label.Match("set_B1"));
  EXPECT_FALSE(label.Match("set B1"));
  EXPECT_FALSE(label.Match(""));
}

TEST(Regex, SearchFindsTheFirstMatchAnywhereAndAGroupThatTookNoPartIsEmpty) {
  const Regex start(R"(^\s*(table|struct|enum|union)\s+([A-Za-z_][A-Za-z0-9_]*))");
  const auto m = start.Search("  table NavGoal {  // a goal");
  ASSERT_TRUE(m);
  EXPECT_EQ((*m)[1], "table");
  EXPECT_EQ((*m)[2], "NavGoal");
  EXPECT_FALSE(start.Search("// table NavGoal"));
  const Regex heading(R"((^|\s)[Ee]xamples?:\s*$)");
  const auto h = heading.Search("Examples:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[1], "");  // the group matched the start: empty
  EXPECT_FALSE(heading.Search("Examples: limbic topics"));
}

TEST(Regex, SearchAllGivesEveryMatchLeftToRightWithoutOverlap) {
  const Regex code("`(limbic [^`]*)`");
  const auto all = code.SearchAll("`limbic topics` / `limbic topic info chatter`");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0][1], "limbic topics");
  EXPECT_EQ(all[1][1], "limbic topic info chatter");
  EXPECT_TRUE(code.SearchAll("no code here").empty());
  const Regex aa("aa");
  EXPECT_EQ(aa.SearchAll("aaaaa").size(), 2u);
}

TEST(Regex, AViewIntoALongerStringEndsWhereTheViewEnds) {
  const std::string text = "abc123";
  const Regex letters("[a-z]+");
  EXPECT_TRUE(letters.Match(std::string_view(text).substr(0, 3)));
  EXPECT_FALSE(letters.Match(text));
}

TEST(Regex, AMalformedPatternThrowsARuntimeError) {
  EXPECT_THROW(Regex("(unclosed"), std::runtime_error);
  EXPECT_THROW(Regex("[z-a]"), std::runtime_error);
}

TEST(Regex, AMovedRegexStillMatches) {
  Regex a("x+");
  Regex b = std::move(a);
  EXPECT_TRUE(b.Match("xxx"));
  Regex c("y");
  c = std::move(b);
  EXPECT_TRUE(c.Match("x"));
}

}  // namespace
}  // namespace limbic::regex
