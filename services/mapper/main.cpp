#include "services/mapper/wiring.hpp"

int main(int argc, char** argv) { return limbic::runtime::RunServiceMain(argc, argv, limbic::mapper::MapperService()); }
