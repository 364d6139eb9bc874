#include "common/config/config.hpp"

#include <filesystem>
#include <sstream>

namespace limbic::config {

StrictMap::StrictMap(YAML::Node node, std::string source, std::string path)
    : node_(std::move(node)),
      source_(std::move(source)),
      path_(std::move(path)),
      used_(std::make_shared<std::set<std::string>>()),
      children_(std::make_shared<std::vector<StrictMap>>()) {
  if (node_ && !node_.IsNull() && !node_.IsMap()) {
    throw ConfigError(source_ + ": '" + (path_.empty() ? "<root>" : path_) + "' must be a mapping");
  }
}

bool StrictMap::Has(const std::string& key) const { return node_ && node_.IsMap() && node_[key]; }

YAML::Node StrictMap::Get(const std::string& key) {
  used_->insert(key);
  return node_[key];
}

void StrictMap::Fail(const std::string& key, const std::string& why) const {
  throw ConfigError(source_ + ": key '" + KeyPath(key) + "' " + why);
}

StrictMap StrictMap::Child(const std::string& key) {
  YAML::Node child = Has(key) ? Get(key) : YAML::Node(YAML::NodeType::Map);
  if (!child.IsMap()) Fail(key, "must be a mapping");
  children_->emplace_back(child, source_, KeyPath(key));
  return children_->back();
}

std::vector<StrictMap> StrictMap::ChildList(const std::string& key) {
  std::vector<StrictMap> out;
  if (!Has(key)) return out;
  YAML::Node seq = Get(key);
  if (!seq.IsSequence()) Fail(key, "must be a list");
  for (size_t i = 0; i < seq.size(); ++i) {
    children_->emplace_back(seq[i], source_, KeyPath(key) + "[" + std::to_string(i) + "]");
    out.push_back(children_->back());
  }
  return out;
}

std::vector<std::string> StrictMap::Keys() const {
  std::vector<std::string> keys;
  if (node_ && node_.IsMap()) {
    for (const auto& kv : node_) keys.push_back(kv.first.as<std::string>());
  }
  return keys;
}

void StrictMap::Finish() const {
  std::vector<std::string> unknown;
  for (const auto& key : Keys()) {
    if (!used_->count(key)) unknown.push_back(KeyPath(key));
  }
  if (!unknown.empty()) {
    std::ostringstream msg;
    msg << source_ << ": unknown key" << (unknown.size() > 1 ? "s" : "") << " ";
    for (size_t i = 0; i < unknown.size(); ++i) msg << (i ? ", " : "") << "'" << unknown[i] << "'";
    throw ConfigError(msg.str());
  }
  for (const auto& child : *children_) child.Finish();
}

YAML::Node LoadFile(const std::string& path) {
  if (!std::filesystem::exists(path)) throw ConfigError(path + ": no such file");
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": " + e.what());
  }
}

void ApplyOverride(YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set: '" + assignment + "' is not of the form key.path=value");
  }
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    // `key=` means the empty string (YAML would read nothing as null, which no typed option accepts).
    const std::string text = assignment.substr(eq + 1);
    value = text.empty() ? YAML::Node(std::string()) : YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("--set: value of '" + path + "': " + e.what());
  }
  if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  // Walk with explicit node copies: yaml-cpp nodes are handles, so assigning through them edits root.
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (!next || next.IsNull()) {
      chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = chain.back()[parts[i]];
    }
    if (!next.IsMap()) throw ConfigError("--set: '" + path + "': '" + parts[i] + "' is not a mapping");
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
}

}  // namespace limbic::config
