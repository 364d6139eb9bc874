// Hand-made worlds for the simulator's tests.
#pragma once

#include <utility>
#include <vector>

#include "sim/environment.hpp"

namespace limbic::sim::testing {

// An empty 20 × 12 m area with the given objects and human start points (no boundary walls).
inline Environment OpenArea(std::vector<WorldObject> objects = {}, std::vector<geometry::Vec2> humans = {}) {
  Environment e;
  e.set = 'A';
  e.rules = RulesForSet('A');
  e.width = 20;
  e.height = 12;
  e.rooms = {{0, RoomType::kOpen, 0, 0, 10, 6}};
  e.block_room.assign(60, 0);
  for (size_t i = 0; i < objects.size(); ++i) objects[i].id = static_cast<int>(i);
  e.objects = std::move(objects);
  e.human_starts = std::move(humans);
  return e;
}

}  // namespace limbic::sim::testing
