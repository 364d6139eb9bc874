// A crowd robot's memory of the neighbours it saw (issue 19): shared by the in-process world (CrowdWorld) and the
// bus robot (CrowdNavigator). Header-only: it runs for every robot every tick.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "services/crowd/bnav.hpp"

namespace limbic::crowd {

// Neighbours that left the field of view, kept as obstacles for `duration` s at their last seen position moved on
// with their last seen velocity (CrowdOptions::neighbour_memory: a tracker's persistence). Neighbours are told
// apart by id (the world's robot index, the sense helper's track); id < 0 is a neighbour nobody can track, never
// remembered. duration 0: nothing is remembered (the spec's plain reading).
class NeighbourMemory {
 public:
  // Throws std::invalid_argument for a negative or non-finite duration.
  explicit NeighbourMemory(double duration = 0.0) : duration_(duration) {
    if (!std::isfinite(duration) || duration < 0) {
      throw std::invalid_argument("neighbour memory must be >= 0 s (got " + std::to_string(duration) + ")");
    }
  }

  // Once per tick with what is in view now: forgets what is in view again, older than `duration` or `gone`,
  // appends the rest (extrapolated to `time`, extra_margin 0) to `out`, remembers what is in view now, and returns
  // how many it appended. `gone(id)` says a neighbour has left the arena (may be empty: none ever leaves).
  template <typename Gone>
  int Update(double time, std::span<const int> visible_ids, std::span<const Neighbour> visible, Gone&& gone,
             std::vector<Neighbour>* out);
  int Update(double time, std::span<const int> visible_ids, std::span<const Neighbour> visible,
             std::vector<Neighbour>* out) {
    return Update(
        time, visible_ids, visible, [](int) { return false; }, out);
  }
  size_t size() const { return entries_.size(); }
  double duration() const { return duration_; }

 private:
  struct Entry {
    int id = -1;
    Neighbour last;
    double seen_at = 0.0;
  };
  double duration_;
  std::vector<Entry> entries_;
};

template <typename Gone>
int NeighbourMemory::Update(double time, std::span<const int> visible_ids, std::span<const Neighbour> visible,
                            Gone&& gone, std::vector<Neighbour>* out) {
  if (duration_ <= 0) return 0;
  const auto in_view = [&](int id) {
    for (int v : visible_ids)
      if (v == id) return true;
    return false;
  };
  std::erase_if(entries_, [&](const Entry& e) {
    // (seen_at > time: the clock went back, a restarted simulation)
    return in_view(e.id) || gone(e.id) || time - e.seen_at > duration_ + 1e-9 || e.seen_at > time + 1e-9;
  });
  // What is in view is stored first: `visible` may be the front of `out` (the in-process world appends to it).
  const size_t kept = entries_.size();
  for (size_t k = 0; k < visible_ids.size() && k < visible.size(); ++k) {
    // An id seen twice in one tick (a faulty tracker) is kept once: the first sighting.
    if (visible_ids[k] < 0 ||
        std::find(visible_ids.begin(), visible_ids.begin() + k, visible_ids[k]) != visible_ids.begin() + k) {
      continue;
    }
    entries_.push_back({visible_ids[k], {visible[k].position, visible[k].velocity, visible[k].radius, 0}, time});
  }
  for (size_t k = 0; k < kept; ++k) {
    const Entry& e = entries_[k];
    out->push_back({e.last.position + (time - e.seen_at) * e.last.velocity, e.last.velocity, e.last.radius, 0});
  }
  return static_cast<int>(kept);
}

}  // namespace limbic::crowd
