#include "services/explore/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::explore::TaskManagerService());
}
