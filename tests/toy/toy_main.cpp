// limbic-toy ROLE [options]: runs one toy service (source, scale, sink, loop_a, loop_b, talker, listener).
#include <iostream>

#include "tests/toy/toy_services.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::cout << "usage: limbic-toy ROLE [service options]\n"
                 "roles: source scale sink (lockstep pipeline with feedback), loop_a loop_b (a refused same-tick\n"
                 "loop), talker listener (realtime chatter). `limbic-toy ROLE --help` lists the options.\n";
    return argc < 2 ? 2 : 0;
  }
  const auto* definition = limbic::toy::FindToyService(argv[1]);
  if (definition == nullptr) {
    std::cerr << "limbic-toy: unknown role '" << argv[1] << "'\n";
    return 2;
  }
  return limbic::runtime::RunServiceMain(argc - 1, argv + 1, *definition);
}
