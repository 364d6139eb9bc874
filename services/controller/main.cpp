#include "services/controller/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::controller::ControllerService());
}
