#include "services/laser_nav/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::laser::LaserNavService());
}
