// Start-up options of the live recruiter and radio services, read strictly from their YAML (or
// `--set key=value`): an unknown key or a bad value is an error naming the key (STYLE.md §5).
#pragma once

#include <vector>

#include "common/config/config.hpp"
#include "services/recruiter/radio.hpp"
#include "services/recruiter/robot_agent.hpp"

namespace limbic::recruit {

// Keys: id, role (uav|ugv), x, y, speed, strategy (affective|affective_sq|greedy|random), waypoints
// ([[x, y], ...]), first_request_s, pause_after_s, episodes, percept, arrival_radius, help_retry_s,
// other_timeout_s, accept_grace_s, selection_window, lease_s, lease_renewals, threshold, c,
// decay_per_s, accrue_while_busy, seed.
void LoadAgentOptions(config::StrictMap& map, AgentOptions* o);

// Keys: robots (ids of the team, required), loss, loss_model, loss_per, ge_p_good_to_bad,
// ge_p_bad_to_good, ge_loss_good, ge_loss_bad, latency_s, latency_jitter_s, range, mode
// (broadcast|unicast), seed.
void LoadRadioOptions(config::StrictMap& map, RadioOptions* o, std::vector<RobotId>* team);

}  // namespace limbic::recruit
