// An enumeration chosen by name in an option (`--set danger_point=surface`, an experiment's `options:`): the
// names listed once beside the enum, in its order, and one parse that names the choices when it refuses.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace limbic::types {

// "a", "a or b", "a, b or c".
inline std::string ChoiceList(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

// The enumerator whose name `name` is (`names[i]` names enumerator i). Throws std::invalid_argument
// "<option> must be a, b or c, got '<name>'" for anything else.
template <typename Enum>
Enum EnumFromName(const std::vector<std::string>& names, const std::string& name, const std::string& option) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  throw std::invalid_argument(option + " must be " + ChoiceList(names) + ", got '" + name + "'");
}

}  // namespace limbic::types
