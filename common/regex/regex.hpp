#pragma once
// Regular expressions (std::regex, ECMAScript grammar) behind a small interface compiled once. Why not <regex> at
// each use: GCC 12 instantiates std::regex's compiler and executor templates in every translation unit that uses
// them, and at -O2 that costs about 5.6 s of compile CPU a unit (measured 2026-11-28: a unit with one regex_match and
// one regex_search, 6.5 s against 0.7 s for the same unit including <regex> unused); five units did, in every build
// CI makes (main, ASan+UBSan). Here they are instantiated once, in regex.cpp. The matching is std::regex's own.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace limbic::regex {

// One match: [0] the whole match, [i] sub-match i ("" where it took no part in the match).
using Groups = std::vector<std::string>;

// One compiled pattern. Thread-safe to use from several threads at once (std::regex's matching is const).
class Regex {
 public:
  // A malformed pattern throws std::regex_error (a std::runtime_error) naming what is wrong, as std::regex does.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // The whole of `text` matches (std::regex_match): its groups, or nothing.
  std::optional<Groups> Match(std::string_view text) const;
  // The first match anywhere in `text` (std::regex_search): its groups, or nothing.
  std::optional<Groups> Search(std::string_view text) const;
  // Every match in `text`, left to right, none overlapping (std::regex_iterator).
  std::vector<Groups> SearchAll(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace limbic::regex
