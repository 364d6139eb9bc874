// Strict YAML option loading: every key of a file must be consumed exactly once, and any unknown,
// misspelled or mistyped key is an error naming the file and the key path (STYLE.md §5).
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace limbic::config {

// Bad configuration at a library boundary: the message names the source and the key.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A view on one YAML mapping that records which keys were read. Call Finish() (or let a loader do it)
// to turn every unread key into an error.
class StrictMap {
 public:
  // `source` names the file (or "--set" for overrides); `path` is the key path of this mapping.
  StrictMap(YAML::Node node, std::string source, std::string path = "");

  bool Has(const std::string& key) const;
  // Reads `key` into `out` if present (leaving the default otherwise). Returns whether it was present.
  template <typename T>
  bool Optional(const std::string& key, T* out);
  template <typename T>
  T Required(const std::string& key);
  // A nested mapping; unread keys inside it are reported by this map's Finish().
  StrictMap Child(const std::string& key);
  bool HasChild(const std::string& key) const { return Has(key); }
  std::vector<std::string> Keys() const;
  // Sequence of mappings.
  std::vector<StrictMap> ChildList(const std::string& key);

  // Throws ConfigError listing every key that was never read (recursively through children).
  void Finish() const;

  const std::string& source() const { return source_; }
  std::string KeyPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void Fail(const std::string& key, const std::string& why) const;

 private:
  YAML::Node Get(const std::string& key);

  YAML::Node node_;
  std::string source_;
  std::string path_;
  std::shared_ptr<std::set<std::string>> used_;
  std::shared_ptr<std::vector<StrictMap>> children_;
};

// Loads a YAML file; a missing or unparsable file throws ConfigError with the path and the reason.
YAML::Node LoadFile(const std::string& path);

// Applies `key.path=value` overrides (from the command line) onto a document; creates keys as needed.
// The value is parsed as YAML, so `1`, `true`, `[1, 2]` and `"text"` all work.
void ApplyOverride(YAML::Node& root, const std::string& assignment);

template <typename T>
bool StrictMap::Optional(const std::string& key, T* out) {
  if (!Has(key)) return false;
  YAML::Node value = Get(key);
  try {
    *out = value.as<T>();
  } catch (const YAML::Exception& e) {
    Fail(key, "has the wrong type (" + std::string(e.what()) + ")");
  }
  return true;
}

template <typename T>
T StrictMap::Required(const std::string& key) {
  T value{};
  if (!Optional(key, &value)) Fail(key, "is required but missing");
  return value;
}

}  // namespace limbic::config
