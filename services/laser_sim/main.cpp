#include "services/laser_sim/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::laser::LaserSimService());
}
