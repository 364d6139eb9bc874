// A team's launch file from a one-robot one (issue 18): `limbic demo --robots N`.
#pragma once

#include <string>
#include <vector>

namespace limbic::cli {

// Reads the launch file at `path` (deploy/demo.yaml) and returns it as YAML text with every
// per-robot process (limbic-hwio, -mapper, -planner, -affect, -controller, -mission) once per robot
// r1..rN, named
// "<robot>-<name>" and given `--robot <robot>`, and the simulator given `--set robots=r1,...,rN`;
// everything else (broker, exporter, vars, back-off, watchdog) as it was. robots == 1 returns the
// file unchanged in meaning. Throws config::ConfigError for robots < 1 or > 64 and for a file it
// cannot read.
// `bodies` (issue 18 item 2): robot description names, one for every robot or one per robot (else ConfigError);
// each robot's hwio gets `--set robot.body=NAME`, its mapper, affect engine and controller `--set body=NAME`, and
// the simulator `--set bodies=...`. Empty: every robot is the services' default, MARVIN.
std::string TeamLaunchYaml(const std::string& path, int robots, const std::vector<std::string>& bodies = {});

}  // namespace limbic::cli
