#include "services/explore/convert.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace limbic::explore {

flatbuffers::Offset<msg::ExploreCall> ToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                            flatbuffers::Offset<msg::Header> header, const BidCall& call) {
  const msg::GridInfo grid(call.grid.origin.x(), call.grid.origin.y(), call.grid.resolution, call.grid.width,
                           call.grid.height);
  std::vector<msg::Vec2> centres;
  centres.reserve(call.graph.centres.size());
  for (const Vec2& c : call.graph.centres) centres.emplace_back(c.x(), c.y());
  return msg::CreateExploreCallDirect(fbb, header, call.round, call.deadline_tick, &grid, call.tile_cells,
                                      call.graph.tiles_x, call.graph.tiles_y, &centres, &call.graph.multipliers);
}

BidCall FromMsg(const msg::ExploreCall& m) {
  if (m.grid() == nullptr) throw std::invalid_argument("ExploreCall without its grid");
  BidCall call;
  call.caller = m.header() ? m.header()->incarnation() : 0;
  call.round = m.round();
  call.deadline_tick = m.deadline_tick();
  call.grid.origin = Vec2(m.grid()->origin_x(), m.grid()->origin_y());
  call.grid.resolution = m.grid()->resolution();
  call.grid.width = m.grid()->width();
  call.grid.height = m.grid()->height();
  call.tile_cells = m.tile_cells();
  call.graph.tiles_x = m.tiles_x();
  call.graph.tiles_y = m.tiles_y();
  if (m.centres())
    for (const auto* c : *m.centres()) call.graph.centres.emplace_back(c->x(), c->y());
  if (m.multipliers()) call.graph.multipliers.assign(m.multipliers()->begin(), m.multipliers()->end());
  return call;
}

flatbuffers::Offset<msg::ExploreBid> ToMsg(flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<msg::Header> header,
                                           const Bid& bid) {
  std::vector<double> costs(bid.costs);
  for (double& c : costs) c = std::isinf(c) ? -1.0 : c;
  return msg::CreateExploreBidDirect(fbb, header, bid.round, bid.from_tile, &costs);
}

Bid FromMsg(const msg::ExploreBid& m) {
  Bid bid;
  bid.round = m.round();
  bid.from_tile = m.from_tile();
  if (m.costs()) {
    for (double c : *m.costs()) bid.costs.push_back(c == -1.0 ? std::numeric_limits<double>::infinity() : c);
  }
  return bid;
}

std::optional<PredecessorTask> PredecessorFromMsg(const msg::ExploreTask& m) {
  if (m.finished()) return std::nullopt;
  PredecessorTask t;
  t.task_id = m.task_id();
  t.environment = m.environment();
  if (m.tiles()) t.tiles.assign(m.tiles()->begin(), m.tiles()->end());
  if (m.waypoints())
    for (const auto* w : *m.waypoints()) t.waypoints.emplace_back(w->x(), w->y());
  t.approach = m.approach();
  t.allocation_changes = m.allocation_changes();
  return t;
}

}  // namespace limbic::explore
