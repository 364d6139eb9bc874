#include "common/hash/fnv1a.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace limbic::hash {
namespace {

// The published test vectors of FNV-1a 64 ("", "a", "foobar"), from the reference's offset basis: the steps and the
// prime are FNV-1a's.
TEST(Fnv1a, FromTheReferenceBasisMatchesTheReferenceVectors) {
  EXPECT_EQ(Fnv1a("", kFnv1aReferenceBasis), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a("a", kFnv1aReferenceBasis), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a("foobar", kFnv1aReferenceBasis), 0x85944171f73967e8ull);
}

// limbic's own basis (see fnv1a.hpp): the values runs were pinned with stay what they were.
TEST(Fnv1a, LimbicsBasisKeepsTheValuesRunsWerePinnedWith) {
  EXPECT_EQ(Fnv1a(""), 1469598103934665603ull);
  EXPECT_EQ(Fnv1a("a"), 4953267810257967366ull);
}

TEST(Fnv1a, ContinuingAHashEqualsHashingTheWhole) {
  const char* text = "r1/controller";
  const uint64_t part = Fnv1aBytes(text, 3);
  EXPECT_EQ(Fnv1aBytes(text + 3, std::strlen(text) - 3, part), Fnv1a(text));
  EXPECT_EQ(Fnv1a(std::string_view(text + 3), part), Fnv1a(text));
  EXPECT_NE(Fnv1a("r1/controller"), Fnv1a("r2/controller"));
}

}  // namespace
}  // namespace limbic::hash
