// Placeholder until the live demo lands: says so clearly.
#include <iostream>
#include <string>
#include <vector>

namespace limbic::recruit {
int DemoMain(const std::vector<std::string>&) {
  std::cerr << "limbic recruit demo: not available in this build\n";
  return 1;
}
}  // namespace limbic::recruit
