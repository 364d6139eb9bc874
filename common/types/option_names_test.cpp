#include "common/types/option_names.hpp"

#include <gtest/gtest.h>

namespace limbic::types {
namespace {

enum class Colour { kRed, kGreen, kBlue };
const std::vector<std::string> kColourNames = {"red", "green", "blue"};

TEST(EnumFromName, MapsEachNameToItsEnumeratorAndRefusesOthersNamingTheChoices) {
  EXPECT_EQ(EnumFromName<Colour>(kColourNames, "red", "colour"), Colour::kRed);
  EXPECT_EQ(EnumFromName<Colour>(kColourNames, "blue", "colour"), Colour::kBlue);
  for (const char* bad : {"", "Red", "red ", "purple"}) {
    try {
      EnumFromName<Colour>(kColourNames, bad, "colour");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("colour must be red, green or blue, got '") + bad + "'");
    }
  }
  EXPECT_EQ(ChoiceList({"a"}), "a");
  EXPECT_EQ(ChoiceList({"a", "b"}), "a or b");
}

}  // namespace
}  // namespace limbic::types
