#include "tools/limbic/topic_groups.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace limbic::cli {
namespace {

// Natural order: the digit runs compare as numbers ("r2" < "r10").
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> GroupTopicsByRobot(
    const std::vector<std::string>& topics) {
  static const std::set<std::string> kGlobal{"health", "param", "lockstep", "bus", "foxglove"};
  static const std::set<std::string> kRobotTopics{"truth", "odom", "scan", "wheels", "affect", "mission"};
  std::set<std::string> robots;
  for (const auto& t : topics) {
    const auto slash = t.find('/');
    if (slash == std::string::npos || slash == 0) continue;
    const std::string prefix = t.substr(0, slash);
    if (!kGlobal.count(prefix) && kRobotTopics.count(t.substr(slash + 1))) robots.insert(prefix);
  }
  std::vector<std::string> order(robots.begin(), robots.end());
  std::sort(order.begin(), order.end(), NaturalLess);
  std::vector<std::pair<std::string, std::vector<std::string>>> groups{{"", {}}};
  std::map<std::string, size_t> index;
  for (const auto& r : order) {
    index[r] = groups.size();
    groups.push_back({r, {}});
  }
  for (const auto& t : topics) {
    const auto slash = t.find('/');
    const auto it = slash == std::string::npos ? index.end() : index.find(t.substr(0, slash));
    groups[it == index.end() ? 0 : it->second].second.push_back(t);
  }
  if (groups[0].second.empty()) groups.erase(groups.begin());
  return groups;
}

}  // namespace limbic::cli
