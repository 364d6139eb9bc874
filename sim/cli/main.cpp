// limbic-sim: look at the simulated environments without running the stack.
//   limbic-sim render --set C --index 7 [--seed N] --out env.svg
//   limbic-sim list
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "common/config/config.hpp"
#include "common/robot/robot_description.hpp"
#include "sim/environment.hpp"
#include "sim/render_svg.hpp"
#include "sim/team.hpp"

namespace {

constexpr const char* kUsage =
    "usage: limbic sim <command> [options]\n"
    "\n"
    "commands:\n"
    "  render   draw one environment as SVG (walls, doors, obstacles, humans, start, goal)\n"
    "  list     print the environment sets A-G and their rules\n"
    "\n"
    "Run 'limbic sim <command> --help' for a command's options.\n";

constexpr const char* kRenderUsage =
    "usage: limbic sim render --set <A-G> --index <0-19> [--seed N] --out <file.svg> [--scale "
    "PX_PER_M] [--bodies NAME,...]\n"
    "\n"
    "Generates environment <index> of set <set> from <seed> (default 1) and writes it as SVG:\n"
    "walls (black), static obstacles (grey-blue), obstacles invisible to the IR sensors (green),\n"
    "humans' start positions (cyan), start (red) and goal (yellow), a 2 m block grid and a scale "
    "bar.\n"
    "--bodies draws a team instead of the start disc: one robot per description name (configs/robots:\n"
    "marvin, itchy, scratchy, tank, or a path to a .yaml), each with its outline at its start and its goal,\n"
    "placed as the simulator places a team.\n"
    "\n"
    "examples:\n"
    "  limbic sim render --set C --index 7 --out env.svg\n"
    "  limbic sim render --set B --index 0 --bodies marvin,itchy,scratchy,tank --out team.svg\n";

constexpr const char* kListUsage =
    "usage: limbic sim list\n"
    "\n"
    "Prints each environment set with its wall/door sizes, humans and undetectable obstacles.\n";

int Fail(const std::string& message) {
  std::cerr << "limbic-sim: error: " << message << "\n";
  return 2;
}

bool ParseInt(const std::string& text, long long* out) {
  try {
    size_t used = 0;
    *out = std::stoll(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

int List(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kListUsage;
      return 0;
    }
    return Fail("unknown argument for 'list': " + a);
  }
  const limbic::sim::GeneratorOptions g;
  std::cout << "Environment sets (" << limbic::sim::kEnvironmentsPerSet << " environments each, "
            << g.blocks_x * g.block_size << " x " << g.blocks_y * g.block_size << " m, " << g.block_size
            << " m blocks):\n";
  for (char letter : limbic::sim::kSetLetters) {
    const limbic::sim::SetRules r = limbic::sim::RulesForSet(letter);
    std::string sizes;
    if (!r.walls) {
      sizes = "no walls";
    } else if (r.random_sizes) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "walls U[%.1f,%.1f] m, doors U[%.1f,%.1f] m", r.wall_thickness_min,
                    r.wall_thickness_max, r.door_width_min, r.door_width_max);
      sizes = buf;
    } else {
      char buf[128];
      std::snprintf(buf, sizeof buf, "walls %.1f m, doors %.1f m", r.wall_thickness, r.door_width);
      sizes = buf;
    }
    std::cout << "  " << letter << "  " << sizes << "; humans: "
              << (r.humans
                      ? std::to_string(g.human_count) + " (r " + std::to_string(g.human_radius).substr(0, 4) + " m)"
                      : std::string("no"))
              << "; undetectable obstacles: " << (r.undetectable_obstacles ? "yes" : "no") << "\n"
              << "     " << r.description << "\n";
  }
  return 0;
}

int Render(const std::vector<std::string>& args) {
  std::string set, out_path, bodies;
  long long index = -1, seed = 1;
  double scale = 40.0;
  bool have_index = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kRenderUsage;
      return 0;
    }
    const bool takes_value =
        a == "--set" || a == "--index" || a == "--seed" || a == "--out" || a == "--scale" || a == "--bodies";
    if (!takes_value) return Fail("unknown flag for 'render': " + a + " (see 'limbic sim render --help')");
    if (i + 1 >= args.size()) return Fail(a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--set") {
      set = v;
    } else if (a == "--index") {
      if (!ParseInt(v, &index)) return Fail("--index must be an integer 0-19, got '" + v + "'");
      have_index = true;
    } else if (a == "--seed") {
      if (!ParseInt(v, &seed) || seed < 0) return Fail("--seed must be a non-negative integer, got '" + v + "'");
    } else if (a == "--out") {
      out_path = v;
    } else if (a == "--bodies") {
      bodies = v;
    } else if (a == "--scale") {
      try {
        scale = std::stod(v);
      } catch (const std::exception&) {
        return Fail("--scale must be a number of pixels per metre, got '" + v + "'");
      }
      if (!(scale > 0)) return Fail("--scale must be positive");
    }
  }
  if (set.empty()) return Fail("render needs --set <A-G>");
  if (set.size() != 1 || !limbic::sim::IsValidSetLetter(set[0])) {
    return Fail("unknown environment set '" + set + "' (expected one letter A-G)");
  }
  if (!have_index) return Fail("render needs --index <0-19>");
  if (index < 0 || index >= limbic::sim::kEnvironmentsPerSet) {
    return Fail("--index " + std::to_string(index) + " is outside 0-19");
  }
  if (out_path.empty()) return Fail("render needs --out <file.svg>");

  const limbic::sim::Environment env =
      limbic::sim::GenerateEnvironment(set[0], static_cast<int>(index), static_cast<uint64_t>(seed));
  limbic::sim::SvgOptions svg;
  svg.pixels_per_metre = scale;
  svg.title = "set " + set + ", environment " + std::to_string(index) + ", seed " + std::to_string(seed);
  if (!bodies.empty()) {
    std::vector<limbic::robot::RobotDescription> team;
    std::vector<double> radii;
    limbic::sim::TeamLayoutOptions layout;
    try {
      for (const std::string& name : limbic::sim::SplitList(bodies)) {
        team.push_back(limbic::robot::LoadRobotDescription(name));
        radii.push_back(team.back().body.reach_from_origin());
        layout.path_radii.push_back(team.back().body.circumscribed_radius());
      }
    } catch (const limbic::config::ConfigError& e) {
      return Fail(e.what());
    }
    if (team.empty()) return Fail("--bodies needs at least one description name");
    std::vector<limbic::sim::Placement> places;
    try {
      places = limbic::sim::PlaceTeam(env, radii, layout);
    } catch (const std::invalid_argument& e) {
      return Fail(std::string("cannot place the team: ") + e.what());
    }
    static const char* kColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    for (size_t i = 0; i < team.size(); ++i) {
      limbic::sim::BodyOverlay b;
      b.body = team[i].body;
      b.pose = places[i].start;
      b.goal = places[i].goal;
      b.colour = kColours[i % 6];
      b.label = "r" + std::to_string(i + 1) + " " + team[i].name;
      svg.bodies.push_back(b);
    }
  }
  const std::string text = limbic::sim::RenderSvg(env, svg);
  std::ofstream file(out_path, std::ios::binary);
  if (!file) return Fail("cannot write '" + out_path + "'");
  file << text;
  file.close();
  if (!file) return Fail("cannot write '" + out_path + "'");
  std::cout << "wrote " << out_path << " (set " << set << ", index " << index << ", seed " << seed << ", "
            << env.objects.size() << " objects, " << env.doors.size() << " doors, " << env.human_starts.size()
            << " humans, hash " << std::hex << limbic::sim::GeometryHash(env) << std::dec << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  try {
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "render") return Render(args);
    if (command == "list") return List(args);
    return Fail("unknown command '" + command + "' (expected render or list; see 'limbic sim --help')");
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
}
