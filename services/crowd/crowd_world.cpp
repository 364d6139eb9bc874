#include "services/crowd/crowd_world.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "sim/visibility.hpp"

namespace limbic::crowd {
namespace {

using geometry::Pose2;
using geometry::Segment;

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("crowd: " + what);
}

double Distance(const Vec2& a, const Vec2& b) { return (a - b).norm(); }

bool TouchesWall(const Vec2& c, double r, std::span<const Segment> walls) {
  for (const Segment& s : walls)
    if (geometry::PointSegmentDistance(c, s) < r) return true;
  return false;
}

// Seeded jitter shared by the scenarios.
struct Jitter {
  explicit Jitter(uint64_t seed) : rng(seed) {}
  double Uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
  std::mt19937_64 rng;
};

AgentSpec Agent(Jitter* j, const BNavParams& base, Vec2 start, double heading, std::vector<Vec2> targets, int group) {
  AgentSpec a;
  a.start = {start.x() + j->Uniform(-0.05, 0.05), start.y() + j->Uniform(-0.05, 0.05),
             heading + j->Uniform(-0.05, 0.05)};
  a.targets = std::move(targets);
  a.params = base;
  a.params.optimal_speed = base.optimal_speed * j->Uniform(0.9, 1.1);
  a.group = group;
  return a;
}

}  // namespace

const std::vector<std::string>& EmotionModeNames() {
  static const std::vector<std::string> names{"off", "on", "invisible"};
  return names;
}

EmotionMode EmotionModeFromName(const std::string& name) {
  if (name == "off") return EmotionMode::kOff;
  if (name == "on") return EmotionMode::kOn;
  if (name == "invisible") return EmotionMode::kInvisible;
  throw std::invalid_argument("unknown emotion mode '" + name + "' (off, on, invisible)");
}

std::string EmotionModeName(EmotionMode mode) { return EmotionModeNames()[static_cast<size_t>(mode)]; }

RobotStep StepRobot(const EmotionTable& table, const BNavParams& base, EmotionMode mode, EfficacyScale scale,
                    RobotView view, double dt, EmotionState* emotion) {
  Require(view.neighbour_emotions.size() == view.neighbours.size(), "one emotion per neighbour");
  Require(view.remembered >= 0 && static_cast<size_t>(view.remembered) <= view.neighbours.size(),
          "remembered neighbours must be among the neighbours");
  const int n_emotions = static_cast<int>(table.emotions.size());
  std::vector<int> seen_counts(table.emotions.size(), 0);
  int frustrated = 0;
  if (mode == EmotionMode::kOn) {
    for (size_t i = 0; i < view.neighbours.size(); ++i) {
      const int e = view.neighbour_emotions[i];
      if (e < 0 || e >= n_emotions) continue;
      ++seen_counts[e];
      view.neighbours[i].extra_margin += table.emotions[e].seen.margin;
      if (e == table.nearby_index) ++frustrated;
    }
  }
  RobotStep out;
  const int active = mode == EmotionMode::kOff ? -1 : emotion->active;
  out.params = mode == EmotionMode::kOff ? base : ModulatedParams(table, base, active, seen_counts);
  BNavInput in;
  in.position = view.pose.Position();
  in.heading = view.pose.theta;
  in.speed = view.speed;
  in.target = view.target;
  in.neighbours = view.neighbours;
  in.walls = view.walls;
  out.decision = Decide(in, out.params, dt);
  InternalStateInput mi;
  mi.position = in.position;
  mi.velocity = view.velocity;
  mi.target = view.target;
  mi.optimal_speed = out.params.optimal_speed;
  mi.max_free_distance = out.decision.max_free_distance;
  mi.horizon = out.params.horizon;
  mi.visible_neighbours = static_cast<int>(view.neighbours.size()) - view.remembered;
  mi.visible_frustrated = frustrated;
  mi.time = view.time;
  mi.task_start = view.task_start;
  mi.minimal_time = view.minimal_time;
  mi.heading = view.pose.theta;
  mi.desired_heading = out.decision.desired_heading;
  mi.efficacy_scale = scale;
  out.mu = ComputeInternalState(mi);
  if (mode != EmotionMode::kOff) UpdateEmotions(table, out.mu, dt, emotion);
  return out;
}

CrowdWorld::CrowdWorld(Scenario scenario, EmotionTable table, CrowdOptions options)
    : scenario_(std::move(scenario)), table_(std::move(table)), options_(options) {
  Require(!scenario_.agents.empty(), "a scenario needs at least one robot");
  Require(std::isfinite(options_.dt) && options_.dt > 0, "dt must be finite and > 0");
  Require(std::isfinite(options_.time_limit) && options_.time_limit > 0, "time_limit must be finite and > 0");
  Require(std::isfinite(options_.goal_tolerance) && options_.goal_tolerance > 0, "goal_tolerance must be > 0");
  Require(std::isfinite(options_.deadlock_timeout) && options_.deadlock_timeout > 0, "deadlock_timeout must be > 0");
  Require(std::isfinite(options_.deadlock_progress) && options_.deadlock_progress > 0, "deadlock_progress must be > 0");
  Require(std::isfinite(options_.neighbour_memory) && options_.neighbour_memory >= 0, "neighbour_memory must be >= 0");
  const size_t n = scenario_.agents.size();
  agents_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const AgentSpec& spec = scenario_.agents[i];
    Require(!spec.targets.empty(), "robot " + std::to_string(i) + " has no target");
    ValidateParams(spec.params);
    AgentRecord& a = agents_[i];
    a.pose = spec.start;
    a.params = spec.params;
    a.minimal_time = Distance(spec.start.Position(), spec.targets[0]) / spec.params.optimal_speed;
    a.best_distance = Distance(spec.start.Position(), spec.targets[0]);
    a.emotion_ticks.assign(table_.emotions.size() + 1, 0);
    a.memory = NeighbourMemory(options_.neighbour_memory);
    for (size_t j = 0; j < i; ++j) {
      Require(Distance(spec.start.Position(), scenario_.agents[j].start.Position()) >=
                  spec.params.radius + scenario_.agents[j].params.radius,
              "robots " + std::to_string(j) + " and " + std::to_string(i) + " start overlapping");
    }
  }
  touching_.assign(n, std::vector<char>(n, 0));
  steps_.resize(n);
  Record();
}

void CrowdWorld::Step() {
  const size_t n = agents_.size();
  const double dt = options_.dt;
  // The bodies in the arena (a finished robot that left is not one of them).
  const bool leave = options_.finished == FinishedRobots::kLeave;
  std::vector<sim::VisibleDisc> discs;
  std::vector<int> body_of;  // index into agents_ of each disc
  for (size_t i = 0; i < n; ++i) {
    if (leave && agents_[i].done) continue;
    discs.push_back({agents_[i].pose.Position(), scenario_.agents[i].params.radius});
    body_of.push_back(static_cast<int>(i));
  }
  std::vector<int> disc_of(n, -1);
  for (size_t k = 0; k < body_of.size(); ++k) disc_of[body_of[k]] = static_cast<int>(k);
  // Decide: every robot from the state at tick k.
  std::vector<EmotionState> emotions(n);
  for (size_t i = 0; i < n; ++i) {
    AgentRecord& a = agents_[i];
    emotions[i] = a.emotion;
    if (a.done) continue;
    RobotView view;
    view.pose = a.pose;
    view.speed = a.speed;
    view.velocity = a.velocity;
    view.target = scenario_.agents[i].targets[a.target_index];
    view.time = time_;
    view.task_start = a.task_start;
    view.minimal_time = a.minimal_time;
    view.walls = scenario_.walls;
    const BNavParams current = a.params;
    std::vector<int> in_view;
    for (int k : sim::VisibleNeighbours(a.pose, current.half_fov, current.horizon, discs, disc_of[i])) {
      const int j = body_of[k];
      in_view.push_back(j);
      view.neighbours.push_back(
          {agents_[j].pose.Position(), agents_[j].velocity, scenario_.agents[j].params.radius, 0});
      view.neighbour_emotions.push_back(options_.mode == EmotionMode::kOn ? agents_[j].emotion.active : -1);
    }
    // Memory: neighbours out of view now, seen within neighbour_memory and still in the arena, as obstacles.
    const size_t visible = view.neighbours.size();
    view.remembered = a.memory.Update(
        time_, in_view, std::span<const Neighbour>(view.neighbours.data(), visible),
        [&](int id) { return disc_of[static_cast<size_t>(id)] < 0; }, &view.neighbours);
    view.neighbour_emotions.resize(view.neighbours.size(), -1);
    steps_[i] = StepRobot(table_, scenario_.agents[i].params, options_.mode, options_.efficacy_scale, std::move(view),
                          dt, &emotions[i]);
  }
  // Move.
  for (size_t i = 0; i < n; ++i) {
    AgentRecord& a = agents_[i];
    if (a.done) continue;
    const RobotStep& s = steps_[i];
    a.params = s.params;
    a.mu = s.mu;
    a.emotion = emotions[i];
    a.omega = s.decision.turn_rate;
    a.speed = s.decision.speed;
    const double theta = geometry::WrapAngle(a.pose.theta + a.omega * dt);
    const Vec2 next = a.pose.Position() + a.speed * dt * geometry::UnitVector(theta);
    a.pose.theta = theta;
    const bool hits = TouchesWall(next, scenario_.agents[i].params.radius, scenario_.walls);
    if (hits) {
      if (!a.in_wall_contact) ++a.wall_collisions;
      a.speed = 0;  // the step is undone and the wheels stop
      a.velocity = {0, 0};
    } else {
      a.velocity = (next - a.pose.Position()) / dt;
      a.pose.x = next.x();
      a.pose.y = next.y();
    }
    a.in_wall_contact = hits;
    ++a.ticks_active;
    a.efficacy_sum += a.mu.efficacy;
    ++a.emotion_ticks[a.emotion.active >= 0 ? a.emotion.active : table_.emotions.size()];
  }
  // Robot–robot contacts: an event when a pair starts touching; overlapping bodies are pushed apart (a finished
  // robot does not move: the other takes the whole correction).
  for (size_t i = 0; i < n; ++i) {
    if (leave && agents_[i].done) continue;
    for (size_t j = i + 1; j < n; ++j) {
      if (leave && agents_[j].done) continue;
      const double ri = scenario_.agents[i].params.radius, rj = scenario_.agents[j].params.radius;
      Vec2 d = agents_[j].pose.Position() - agents_[i].pose.Position();
      const double dist = d.norm();
      const bool touch = dist < ri + rj;
      if (touch && !touching_[i][j]) {
        ++agents_[i].robot_collisions;
        ++agents_[j].robot_collisions;
      }
      touching_[i][j] = touch;
      if (!touch) continue;
      const Vec2 u = dist > 1e-9 ? Vec2(d / dist) : Vec2(1, 0);
      const double overlap = ri + rj - dist;
      const double wi = agents_[i].done ? 0.0 : (agents_[j].done ? 1.0 : 0.5);
      const Vec2 pi = agents_[i].pose.Position() - wi * overlap * u;
      const Vec2 pj = agents_[j].pose.Position() + (1 - wi) * overlap * u;
      if (!TouchesWall(pi, ri, scenario_.walls)) agents_[i].pose.x = pi.x(), agents_[i].pose.y = pi.y();
      if (!TouchesWall(pj, rj, scenario_.walls)) agents_[j].pose.x = pj.x(), agents_[j].pose.y = pj.y();
    }
  }
  time_ += dt;
  ++tick_;
  // Targets, progress and deadlocks.
  for (size_t i = 0; i < n; ++i) {
    AgentRecord& a = agents_[i];
    if (a.done) continue;
    const AgentSpec& spec = scenario_.agents[i];
    const double dist = Distance(a.pose.Position(), spec.targets[a.target_index]);
    if (dist <= options_.goal_tolerance) {
      if (++a.target_index >= spec.targets.size()) {
        a.done = true;
        a.completion_time = time_;
        a.speed = 0;
        a.velocity = {0, 0};
        a.emotion.active = -1;
        a.target_index = spec.targets.size() - 1;
        continue;
      }
      // T_n and Δ_n = ||p(T_n) − q_{n+1}|| / v_opt for the next target.
      a.task_start = time_;
      a.minimal_time = Distance(a.pose.Position(), spec.targets[a.target_index]) / spec.params.optimal_speed;
      a.best_distance = Distance(a.pose.Position(), spec.targets[a.target_index]);
      a.last_progress = time_;
      a.stuck = false;
      continue;
    }
    if (dist < a.best_distance - options_.deadlock_progress) {
      a.best_distance = dist;
      a.last_progress = time_;
      a.stuck = false;
    } else if (time_ - a.last_progress >= options_.deadlock_timeout) {
      a.stuck = true;
      a.ever_stuck = true;
    }
  }
  if (options_.record_every > 0 && tick_ % options_.record_every == 0) Record();
}

void CrowdWorld::Record() {
  if (options_.record_every <= 0) return;
  TrajectorySample s;
  s.time = time_;
  for (const AgentRecord& a : agents_) {
    s.poses.push_back(a.pose);
    s.emotions.push_back(a.emotion.active);
  }
  trajectory_.push_back(std::move(s));
}

bool CrowdWorld::Finished() const {
  if (time_ >= options_.time_limit - 1e-9) return true;
  return std::all_of(agents_.begin(), agents_.end(), [](const AgentRecord& a) { return a.done; });
}

CrowdMetrics CrowdWorld::Run() {
  while (!Finished()) Step();
  return Metrics();
}

CrowdMetrics CrowdWorld::Metrics() const {
  CrowdMetrics m;
  m.all_done = true;
  int64_t ticks = 0;
  double efficacy = 0;
  m.emotion_fractions.assign(table_.emotions.size() + 1, 0.0);
  for (const AgentRecord& a : agents_) {
    m.completion_times.push_back(a.completion_time);
    if (!a.done) m.all_done = false;
    m.makespan = std::max(m.makespan, a.done ? a.completion_time : time_);
    m.robot_collisions += a.robot_collisions;
    m.wall_collisions += a.wall_collisions;
    m.deadlocked += a.ever_stuck ? 1 : 0;
    ticks += a.ticks_active;
    efficacy += a.efficacy_sum;
    for (size_t e = 0; e < a.emotion_ticks.size(); ++e)
      m.emotion_fractions[e] += static_cast<double>(a.emotion_ticks[e]);
  }
  m.robot_collisions /= 2;  // each pair event was counted on both robots
  m.mean_efficacy = ticks > 0 ? efficacy / static_cast<double>(ticks) : 0.0;
  for (double& f : m.emotion_fractions) f = ticks > 0 ? f / static_cast<double>(ticks) : 0.0;
  return m;
}

Scenario AntipodalCircle(int n, uint64_t seed, const BNavParams& base) {
  Require(n >= 1, "a scenario needs at least one robot");
  Jitter j(seed);
  Scenario s;
  s.name = "antipodal";
  const double radius = std::max(3.0, n * (2 * base.radius + 0.6) / (2 * geometry::kPi));
  for (int i = 0; i < n; ++i) {
    const double a = 2 * geometry::kPi * i / n;
    const Vec2 p = radius * geometry::UnitVector(a);
    s.agents.push_back(Agent(&j, base, p, geometry::WrapAngle(a + geometry::kPi), {-p}, i % 2));
  }
  return s;
}

Scenario CorridorCrossing(int n, uint64_t seed, const BNavParams& base) {
  Require(n >= 1, "a scenario needs at least one robot");
  Jitter j(seed);
  Scenario s;
  s.name = "corridor";
  const int west = (n + 1) / 2;
  const int columns = (west + 2) / 3;
  const double half = columns * 1.0 + 3.0, width = 1.5;
  s.walls = {{{-half, -width}, {half, -width}},
             {{-half, width}, {half, width}},
             {{-half, -width}, {-half, width}},
             {{half, -width}, {half, width}}};
  for (int i = 0; i < n; ++i) {
    const bool from_west = i < west;
    const int k = from_west ? i : i - west;
    const double x = half - 1.0 - (k / 3) * 1.0;  // columns from the end wall inwards
    const double y = ((k % 3) - 1) * 0.9;
    const Vec2 start(from_west ? -x : x, y);
    const Vec2 goal(-start.x(), y);
    s.agents.push_back(Agent(&j, base, start, from_west ? 0.0 : geometry::kPi, {goal}, from_west ? 0 : 1));
  }
  return s;
}

Scenario DoorwayBottleneck(int n, uint64_t seed, const BNavParams& base) {
  Require(n >= 1, "a scenario needs at least one robot");
  Jitter j(seed);
  Scenario s;
  s.name = "doorway";
  // The targets lie 6 m further east than the mirror places: with no planner, b_nav heads where its reachable
  // segment ends nearest the target, and a target just behind the wall pulls a robot into the wall instead of
  // through the door (a local minimum, not a bottleneck).
  const int rows = 5, columns = (n + rows - 1) / rows;
  const double depth = 6.0, half_x = columns * 1.0 + 3.5 + depth, half_y = 3.0, door = 0.6;
  s.walls = {{{-half_x, -half_y}, {half_x, -half_y}},
             {{-half_x, half_y}, {half_x, half_y}},
             {{-half_x, -half_y}, {-half_x, half_y}},
             {{half_x, -half_y}, {half_x, half_y}},
             {{0, -half_y}, {0, -door}},
             {{0, door}, {0, half_y}}};
  for (int i = 0; i < n; ++i) {
    const double x = 2.5 + (i / rows) * 1.0;
    const double y = ((i % rows) - 2) * 1.0;
    s.agents.push_back(Agent(&j, base, {-x, y}, 0.0, {{x + depth, y}}, 0));
  }
  return s;
}

const std::vector<std::string>& ScenarioNames() {
  static const std::vector<std::string> names{"antipodal", "corridor", "doorway"};
  return names;
}

Scenario MakeScenario(const std::string& name, int n, uint64_t seed, const BNavParams& base) {
  if (name == "antipodal") return AntipodalCircle(n, seed, base);
  if (name == "corridor") return CorridorCrossing(n, seed, base);
  if (name == "doorway") return DoorwayBottleneck(n, seed, base);
  throw std::invalid_argument("unknown crowd scenario '" + name + "' (antipodal, corridor, doorway)");
}

}  // namespace limbic::crowd
