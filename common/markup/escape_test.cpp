#include "common/markup/escape.hpp"

#include <gtest/gtest.h>

namespace limbic::markup {
namespace {

TEST(MarkupEscape, EscapesEveryCharacterThatCouldEndTextOrAnAttribute) {
  EXPECT_EQ(Escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  // An entity already in the text is text, not markup: escaped again.
  EXPECT_EQ(Escape("&amp;"), "&amp;amp;");
  EXPECT_EQ(Escape(""), "");
  // Bytes of UTF-8 and control characters pass unchanged.
  const std::string utf8 = "r\u00f8bot\n";
  EXPECT_EQ(Escape(utf8), utf8);
  EXPECT_EQ(Escape(std::string_view("a\0b", 3)), std::string("a\0b", 3));
}

}  // namespace
}  // namespace limbic::markup
