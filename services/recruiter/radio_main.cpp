#include "services/recruiter/wiring.hpp"

int main(int argc, char** argv) { return limbic::runtime::RunServiceMain(argc, argv, limbic::recruit::RadioService()); }
