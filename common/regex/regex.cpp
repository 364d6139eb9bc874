#include "common/regex/regex.hpp"

#include <regex>

namespace limbic::regex {
namespace {

Groups GroupsOf(const std::cmatch& m) {
  Groups groups;
  groups.reserve(m.size());
  for (const auto& sub : m) groups.push_back(sub.matched ? sub.str() : std::string());
  return groups;
}

}  // namespace

struct Regex::Impl {
  std::regex re;
};

Regex::Regex(std::string_view pattern)
    : impl_(std::make_unique<Impl>(Impl{std::regex(pattern.begin(), pattern.end())})) {}
Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::optional<Groups> Regex::Match(std::string_view text) const {
  std::cmatch m;
  if (!std::regex_match(text.data(), text.data() + text.size(), m, impl_->re)) return std::nullopt;
  return GroupsOf(m);
}

std::optional<Groups> Regex::Search(std::string_view text) const {
  std::cmatch m;
  if (!std::regex_search(text.data(), text.data() + text.size(), m, impl_->re)) return std::nullopt;
  return GroupsOf(m);
}

std::vector<Groups> Regex::SearchAll(std::string_view text) const {
  std::vector<Groups> all;
  for (std::cregex_iterator it(text.data(), text.data() + text.size(), impl_->re), end; it != end; ++it) {
    all.push_back(GroupsOf(*it));
  }
  return all;
}

}  // namespace limbic::regex
