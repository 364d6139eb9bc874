#include "services/recruiter/mine_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>

namespace limbic::recruit {
namespace {

// A robot following a boustrophedon back and forth with a pause at each end (§5.1).
class RasterScan {
 public:
  RasterScan(const RasterArea& area, double progress) {
    const int lanes = std::max(1, static_cast<int>(std::floor((area.y1 - area.y0) / area.lane + 1e-9)) + 1);
    for (int i = 0; i < lanes; ++i) {
      const double y = std::min(area.y1, area.y0 + i * area.lane);
      const bool forward = i % 2 == 0;
      points_.push_back({forward ? area.x0 : area.x1, y});
      points_.push_back({forward ? area.x1 : area.x0, y});
    }
    for (size_t i = 1; i < points_.size(); ++i) length_ += Distance(points_[i - 1], points_[i]);
    s_ = std::clamp(progress, 0.0, length_);
  }

  // Moves `distance` along the raster; returns true when it has just reached an end.
  bool Advance(double distance) {
    s_ += direction_ * distance;
    if (s_ >= length_ || s_ <= 0.0) {
      s_ = std::clamp(s_, 0.0, length_);
      direction_ = -direction_;  // then scan again in the opposite direction [D]
      return true;
    }
    return false;
  }

  Position At() const {
    double left = s_;
    for (size_t i = 1; i < points_.size(); ++i) {
      const double seg = Distance(points_[i - 1], points_[i]);
      if (left <= seg || i + 1 == points_.size()) {
        const double f = seg > 0.0 ? std::min(1.0, left / seg) : 0.0;
        return {points_[i - 1].x + f * (points_[i].x - points_[i - 1].x),
                points_[i - 1].y + f * (points_[i].y - points_[i - 1].y)};
      }
      left -= seg;
    }
    return points_.front();
  }

 private:
  std::vector<Position> points_;
  double length_ = 0.0;
  double s_ = 0.0;
  double direction_ = 1.0;
};

struct SimRobot {
  RobotSpec spec;
  std::unique_ptr<Recruiter> recruiter;
  Position position;
  std::unique_ptr<RasterScan> scan;  // UAV and scanning UGVs while they still scan
  double pause_left_s = 0.0;
  bool present = true;
};

}  // namespace

std::vector<RobotSpec> BuildTeam(const ScenarioOptions& o) {
  if (!o.robots.empty()) return o.robots;
  std::vector<RobotSpec> team;
  RobotSpec uav{.id = 0,
                .role = RobotSpec::Role::kUav,
                .speed = o.uav_speed,
                .area = {0.0, o.grid, 0.0, o.grid, o.lane},
                .start_progress = o.uav_start_progress};
  team.push_back(uav);
  // Scanning UGVs split the grid into equal vertical strips, each starting at its strip's (x0, 0) [I].
  for (int i = 0; i < o.scanning_ugvs; ++i) {
    const double w = o.grid / o.scanning_ugvs;
    team.push_back({.id = static_cast<RobotId>(1 + i),
                    .role = RobotSpec::Role::kScanningUgv,
                    .speed = o.ugv_speed,
                    .area = {i * w, (i + 1) * w, 0.0, o.grid, o.lane}});
  }
  // Idle UGVs uniformly at random over the grid [D], from the configuration seed.
  std::mt19937_64 rng(o.config_seed);
  std::uniform_real_distribution<double> coord(0.0, o.grid);
  for (int i = 0; i < o.idle_ugvs; ++i) {
    RobotSpec r{
        .id = static_cast<RobotId>(1 + o.scanning_ugvs + i), .role = RobotSpec::Role::kIdleUgv, .speed = o.ugv_speed};
    r.start.x = coord(rng);
    r.start.y = coord(rng);
    team.push_back(r);
  }
  return team;
}

ScenarioResult RunMineScenario(const ScenarioOptions& o) {
  if (o.episodes < 1) throw std::invalid_argument("scenario needs at least one episode");
  if (!(o.tick_s > 0.0) || !std::isfinite(o.tick_s)) throw std::invalid_argument("tick_s must be positive");
  if (o.stop_intervals_s.empty()) throw std::invalid_argument("stop_intervals_s is empty");
  if (o.idle_ugvs < 0 || o.scanning_ugvs < 0) throw std::invalid_argument("robot counts must be >= 0");
  ScenarioResult result;
  result.team = BuildTeam(o);

  std::vector<SimRobot> robots;
  std::set<RobotId> ids;
  int uav_index = -1;
  for (const RobotSpec& spec : result.team) {
    if (!ids.insert(spec.id).second) throw std::invalid_argument("duplicate robot id " + std::to_string(spec.id));
    SimRobot r;
    r.spec = spec;
    RecruiterOptions ro = o.recruiter;
    ro.speed = spec.speed;
    ro.seed = o.recruiter.seed * 1000003u + spec.id;
    if (spec.role == RobotSpec::Role::kUav) {
      ro.percepts.clear();  // the requester cannot inspect the mine itself
      uav_index = static_cast<int>(robots.size());
    }
    r.recruiter = std::make_unique<Recruiter>(spec.id, ro);
    if (spec.role == RobotSpec::Role::kIdleUgv) {
      r.position = spec.start;
      result.idle_ugvs.push_back(spec.id);
    } else {
      r.scan = std::make_unique<RasterScan>(spec.area, spec.start_progress);
      r.position = r.scan->At();
    }
    if (spec.role != RobotSpec::Role::kUav) result.recruit_counts[spec.id] = 0;
    robots.push_back(std::move(r));
  }
  if (uav_index < 0) throw std::invalid_argument("the team has no UAV");
  for (const ChurnEvent& c : o.churn) {
    if (!ids.count(c.robot)) throw std::invalid_argument("churn names unknown robot " + std::to_string(c.robot));
  }
  // Robots whose first churn event is a join start absent.
  {
    std::vector<ChurnEvent> sorted = o.churn;
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.at_s < b.at_s; });
    std::set<RobotId> seen;
    for (const ChurnEvent& c : sorted) {
      if (seen.insert(c.robot).second && c.join) {
        for (SimRobot& r : robots)
          if (r.spec.id == c.robot) r.present = false;
      }
    }
  }

  Radio radio(o.radio);
  SimRobot& uav = robots[uav_index];
  int episodes_started = 0;
  double travel_s = 0.0;  // UAV travel since the last stop (only while moving, §5.1 [I])
  const auto interval = [&](int episode) {
    if (episode < static_cast<int>(o.stop_intervals_s.size())) return o.stop_intervals_s[episode];
    const size_t cycle = std::max<size_t>(1, o.stop_intervals_s.size() - 1);
    return o.stop_intervals_s[1 + (episode - 1) % cycle];
  };
  std::vector<std::pair<RobotId, Position>> team_view;
  const auto refresh_team = [&] {
    team_view.clear();
    for (const SimRobot& r : robots)
      if (r.present) team_view.emplace_back(r.spec.id, r.position);
  };
  const auto find = [&](RobotId id) -> SimRobot* {
    for (SimRobot& r : robots)
      if (r.spec.id == id) return &r;
    return nullptr;
  };

  const int64_t max_ticks = static_cast<int64_t>(std::ceil(o.time_cap_s / o.tick_s));
  bool done = false;
  int64_t k = 0;
  for (; k <= max_ticks && !done; ++k) {
    const double now = static_cast<double>(k) * o.tick_s;
    const double dt = k == 0 ? 0.0 : o.tick_s;
    for (const ChurnEvent& c : o.churn) {
      if (c.at_s > now - dt + 1e-9 && c.at_s <= now + 1e-9) find(c.robot)->present = c.join;
    }

    // 1. Motion and own tasks.
    for (SimRobot& r : robots) {
      if (!r.present) continue;
      Recruiter& rec = *r.recruiter;
      if (r.spec.role == RobotSpec::Role::kUav) {
        if (rec.requester_state() != RequesterState::kIdle) continue;  // stationary from HELP to ACKACK
        if (r.pause_left_s > 0.0) {
          r.pause_left_s -= dt;
        } else if (dt > 0.0) {
          if (r.scan->Advance(r.spec.speed * dt)) r.pause_left_s = o.end_pause_s;
          travel_s += dt;
          r.position = r.scan->At();
        }
        if (episodes_started < o.episodes && travel_s + 1e-9 >= interval(episodes_started)) {
          rec.RequestHelp(o.percept, r.position, now);
          ++episodes_started;
          travel_s = 0.0;
        }
        continue;
      }
      if (auto dest = rec.destination()) {
        const double d = Distance(r.position, *dest);
        const double step = r.spec.speed * dt;
        if (d > o.arrival_radius) {
          const double f = std::min(1.0, step / d);
          r.position = {r.position.x + f * (dest->x - r.position.x), r.position.y + f * (dest->y - r.position.y)};
        }
        if (Distance(r.position, *dest) <= o.arrival_radius + 1e-9) rec.NotifyArrived(now);
        r.scan.reset();  // a recruited scanning UGV abandons its scan for good [I §5.1]
      } else if (r.scan && rec.responder_state() == ResponderState::kAvailable) {
        // Scanning UGV: on task while moving, recruitable only during its end pause [D].
        if (r.pause_left_s > 0.0) {
          r.pause_left_s -= dt;
        } else if (dt > 0.0 && r.scan->Advance(r.spec.speed * dt)) {
          r.pause_left_s = o.end_pause_s;
        }
        r.position = r.scan->At();
      }
      rec.SetBusyOwnTask(r.scan != nullptr && r.pause_left_s <= 1e-9);
      rec.SetPosition(r.position);
    }

    // 2. Timers.
    for (SimRobot& r : robots)
      if (r.present) r.recruiter->Tick(now);

    // 3. Messages: transmit every outbox, deliver what is due, repeat until quiet (latency 0 delivers
    // within the tick; a reply chain ARRIVAL → AGREE → ACKACK completes in one tick).
    for (int round = 0; round < 64; ++round) {
      refresh_team();
      bool sent = false;
      for (SimRobot& r : robots) {
        if (!r.present) {
          r.recruiter->TakeOutbox();
          continue;
        }
        for (const Message& m : r.recruiter->TakeOutbox()) {
          sent = true;
          radio.Transmit(m, now, r.position, team_view);
          if (o.record_timeline) {
            result.timeline.push_back({.t_s = now,
                                       .kind = TimelineEvent::Kind::kTransmit,
                                       .robot = m.sender,
                                       .type = m.type,
                                       .other = m.type == MsgType::kResponder ? m.responder_id : m.recipient,
                                       .position = r.position});
          }
        }
      }
      const std::vector<Delivery> due = radio.TakeDue(now);
      for (const Delivery& d : due) {
        SimRobot* r = find(d.receiver);
        if (!r || !r->present) continue;
        r->recruiter->OnMessage(d.message, now);
        if (o.record_timeline && d.message.type == MsgType::kHelp && r->recruiter->last_decision()) {
          const ShameDecision& dec = *r->recruiter->last_decision();
          if (dec.decision != Decision::kIneligible && r->recruiter->counters().helps_received > 0) {
            result.timeline.push_back({.t_s = now,
                                       .kind = dec.decision == Decision::kAccept ? TimelineEvent::Kind::kAccept
                                                                                 : TimelineEvent::Kind::kIgnore,
                                       .robot = r->spec.id,
                                       .type = MsgType::kHelp,
                                       .other = d.message.sender,
                                       .shame = dec.shame_after,
                                       .position = r->position});
          }
        }
      }
      if (!sent && due.empty()) break;
    }

    // 4. Episodes.
    for (const Episode& e : uav.recruiter->TakeCompletedEpisodes()) {
      result.episodes.push_back(e);
      result.wait_total_s += e.end_s - e.start_s;
      ++result.recruit_counts[e.responder];
      if (o.record_timeline) {
        result.timeline.push_back({.t_s = now,
                                   .kind = TimelineEvent::Kind::kEpisodeEnd,
                                   .robot = uav.spec.id,
                                   .other = e.responder,
                                   .position = uav.position});
      }
    }
    done = static_cast<int>(result.episodes.size()) >= o.episodes;
  }
  result.end_s = static_cast<double>(k - 1) * o.tick_s;
  result.success = done;
  result.counts = radio.counts();
  result.messages = result.counts.total_attempts();
  for (const SimRobot& r : robots) {
    result.final_positions.push_back(r.position);
    const RecruiterCounters& c = r.recruiter->counters();
    RecruiterCounters& t = result.totals;
    t.received += c.received;
    t.own_echoes += c.own_echoes;
    t.not_for_me += c.not_for_me;
    t.duplicates += c.duplicates;
    t.malformed += c.malformed;
    t.out_of_order += c.out_of_order;
    t.late_accepts += c.late_accepts;
    t.helps_received += c.helps_received;
    t.helps_ineligible += c.helps_ineligible;
    t.helps_ignored += c.helps_ignored;
    t.accepts_sent += c.accepts_sent;
    t.times_recruited += c.times_recruited;
    t.help_retries += c.help_retries;
    t.restarts += c.restarts;
    t.responder_timeouts += c.responder_timeouts;
  }
  return result;
}

}  // namespace limbic::recruit
