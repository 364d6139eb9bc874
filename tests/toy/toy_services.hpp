// Toy services for testing the runtime and bus: a three-stage pipeline with feedback
// (source -> scale -> sink -> source at the next tick) and a talker/listener pair.
#pragma once

#include "common/runtime/runtime.hpp"

namespace limbic::toy {

// source: value_k = uniform(seeded) + 0.5 * feedback_{k-1}; publishes toy/a.
runtime::ServiceDefinition SourceService();
// scale: b_k = 2 a_k + sin(a_k); publishes toy/b (same tick as a).
runtime::ServiceDefinition ScaleService();
// sink: feedback_k = b_k / 4; hashes (tick, b_k) and writes the hash to `hash_file` on stop.
runtime::ServiceDefinition SinkService();
// A two-stage same-tick loop (loop_a waits for loop_b and vice versa): must be refused.
runtime::ServiceDefinition LoopAService();
runtime::ServiceDefinition LoopBService();
// talker publishes `chatter` every tick; listener prints what it hears and how late it is.
runtime::ServiceDefinition TalkerService();
runtime::ServiceDefinition ListenerService();

const runtime::ServiceDefinition* FindToyService(const std::string& name);

}  // namespace limbic::toy
