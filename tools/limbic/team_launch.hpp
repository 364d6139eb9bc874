// A team's launch file from a one-robot one (issue 18): `limbic demo --robots N`.
#pragma once

#include <string>

namespace limbic::cli {

// Reads the launch file at `path` (deploy/demo.yaml) and returns it as YAML text with every
// per-robot process (limbic-hwio, -mapper, -planner, -affect, -controller, -mission) once per robot
// r1..rN, named
// "<robot>-<name>" and given `--robot <robot>`, and the simulator given `--set robots=r1,...,rN`;
// everything else (broker, exporter, vars, back-off, watchdog) as it was. robots == 1 returns the
// file unchanged in meaning. Throws config::ConfigError for robots < 1 or > 64 and for a file it
// cannot read.
std::string TeamLaunchYaml(const std::string& path, int robots);

}  // namespace limbic::cli
