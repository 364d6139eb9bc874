#include "services/laser_topo/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::laser::LaserMapperService());
}
