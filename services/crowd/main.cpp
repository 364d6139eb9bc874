#include "services/crowd/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::crowd::CrowdNavService());
}
