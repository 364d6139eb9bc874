#include "services/planner/wiring.hpp"

int main(int argc, char** argv) {
  return limbic::runtime::RunServiceMain(argc, argv, limbic::planner::PlannerService());
}
