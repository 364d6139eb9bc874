#include "services/explore/task_manager.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace limbic::explore {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

GridSpec Grid(int w, int h, double res = 1.0) {
  GridSpec g;
  g.width = w;
  g.height = h;
  g.resolution = res;
  return g;
}

TEST(Auction, LowestBidFirstThenTheOthersBidAgain) {
  const Partition p(Grid(6, 2), 2);  // tiles 0, 1, 2 in a row
  std::vector<TileStatus> status(3, TileStatus::kOpen);
  // Both bid 0 for the tile they stand in: the tie goes to the earlier bidder; the other then wins its own.
  const std::vector<Bidder> bidders{{0, {0, 2, 4}, {1, 1}}, {1, {4, 2, 0}, {1, 1}}};
  const auto awards = Auction(p, &status, bidders);
  ASSERT_EQ(awards.size(), 2u);
  EXPECT_EQ(awards[0].robot, 0);
  EXPECT_EQ(awards[0].anchor, 0);
  EXPECT_EQ(awards[1].robot, 1);
  EXPECT_EQ(awards[1].anchor, 2);
  EXPECT_EQ(status, (std::vector<TileStatus>{TileStatus::kHeld, TileStatus::kOpen, TileStatus::kHeld}));
}

TEST(Auction, BlocksSizedToTheWinner) {
  const Partition p(Grid(6, 2), 2);
  std::vector<TileStatus> status(3, TileStatus::kOpen);
  // Robot 0 takes 2×1 blocks: it wins tile 1 (bid 1 < robot 1's 3), and its block (tiles 0, 1) comes with it.
  const std::vector<Bidder> bidders{{0, {2, 1, 3}, {2, 1}}, {1, {kInf, 3, 4}, {1, 1}}};
  const auto awards = Auction(p, &status, bidders);
  ASSERT_EQ(awards.size(), 2u);
  EXPECT_EQ(awards[0].tiles, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(awards[0].bid, 1.0);
  EXPECT_EQ(awards[1].robot, 1);
  EXPECT_EQ(awards[1].tiles, (std::vector<int>{2}));
  // Ties between tiles of one bidder go to the lower id; held and done tiles are not on offer; no finite bid, no award.
  std::vector<TileStatus> some{TileStatus::kDone, TileStatus::kOpen, TileStatus::kOpen};
  const auto tie = Auction(p, &some, {{0, {0, 1, 1}, {1, 1}}});
  ASSERT_EQ(tie.size(), 1u);
  EXPECT_EQ(tie[0].anchor, 1);
  std::vector<TileStatus> open(3, TileStatus::kOpen);
  EXPECT_TRUE(Auction(p, &open, {{0, {kInf, kInf, kInf}, {1, 1}}}).empty());
}

std::vector<ExplorerProfile> Team() {
  ExplorerProfile big;
  big.robot = "r1";
  big.sensing_range = 2.0;
  big.processing_cells = 64;  // 8 m: 2×2 tiles of 4 m
  ExplorerProfile small = big;
  small.robot = "r2";
  small.processing_cells = 16;  // 4 m: one tile
  return {big, small};
}

ExplorerReport At(double x, double y) {
  ExplorerReport r;
  r.valid = true;
  r.position = Vec2(x, y);
  return r;
}

TEST(TaskManager, AllocatesApproachesAndLines) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(16, 8));
  TaskManager manager(maps.spec, Team());
  EXPECT_EQ(manager.partition().tile_cells(), 4);  // the smaller explorer's 4 m
  EXPECT_EQ(manager.shapes()[0], (BlockShape{2, 2}));
  EXPECT_EQ(manager.shapes()[1], (BlockShape{1, 1}));
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(1, 1), At(15, 7)};
  ManagerOutputs out = manager.Step(in);
  ASSERT_EQ(out.new_tasks.size(), 2u);
  // r1 wins its own tile (0) and its 2×2 block: tiles 0, 1, 4, 5; r2 its own tile 7.
  EXPECT_EQ(out.new_tasks[0].robot, 0);
  EXPECT_EQ(out.new_tasks[0].tiles, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(out.new_tasks[1].robot, 1);
  EXPECT_EQ(out.new_tasks[1].tiles, (std::vector<int>{7}));
  // r1's environment is 8 × 8 m: 2 lanes (d = 2) at y = 2 and 6, from its nearest end (0.5, 2.5).
  const ExploreTask& t = out.new_tasks[0];
  ASSERT_EQ(t.waypoints.size() - t.approach, 4u);
  EXPECT_DOUBLE_EQ(t.waypoints[t.approach].x(), 0.5);
  EXPECT_DOUBLE_EQ(t.waypoints[t.approach].y(), 2.5);
  EXPECT_EQ(manager.state().allocation_changes, 2);
  EXPECT_FALSE(out.finished);
  // Nothing changes while they work.
  EXPECT_TRUE(manager.Step(in).new_tasks.empty());

  // r2 reports its task finished: tile 7 is done and r2 bids again — tiles 2, 3, 6 are open; from tile 7 the
  // nearest is 3 or 6 (both 4 m away), the lower id wins.
  in.reports[1].task_id = out.new_tasks[1].task_id;
  in.reports[1].task_done = true;
  out = manager.Step(in);
  ASSERT_EQ(out.new_tasks.size(), 1u);
  EXPECT_EQ(out.new_tasks[0].robot, 1);
  EXPECT_EQ(out.new_tasks[0].tiles, (std::vector<int>{3}));
  EXPECT_EQ(manager.TilesDone(), 1);
  EXPECT_EQ(manager.state().allocation_changes, 3);

  // Everything explored: every tile done, both released, finished.
  std::fill(maps.p_e.begin(), maps.p_e.end(), 1.0);
  in.reports[1].task_done = false;
  out = manager.Step(in);
  EXPECT_TRUE(out.finished);
  EXPECT_TRUE(out.new_tasks.empty());
  EXPECT_EQ(manager.state().task, (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(manager.state().released_early, 2);
}

// Lane ends keep each body clear of the outer wall: on a 0.25 m grid the first lane end of a MARVIN (0.35 m) is
// the second column's centre, 0.375 m from the wall, and a wider body's further in; with lane_ends_clear=false it
// is the border cell's centre, 0.125 m from the wall, where the body would press against it.
TEST(TaskManager, LaneEndsKeepEachBodyClearOfTheOuterWall) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(64, 32, 0.25));  // 16 × 8 m
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(0.5, 0.5), At(15.5, 7.5)};
  auto first_lane_end = [&](const ManagerOptions& options, double r1_radius, double r1_turning = 0.0) {
    std::vector<ExplorerProfile> team = Team();
    team[0].turning_radius = r1_turning;
    team[0].processing_cells = 1024;  // 8 m at 0.25 m, as in AllocatesApproachesAndLines at 1 m
    team[1].processing_cells = 256;   // 4 m: the tiles
    team[0].clearance_radius = r1_radius;
    TaskManager manager(maps.spec, team, options);
    const ManagerOutputs out = manager.Step(in);
    EXPECT_EQ(out.new_tasks.size(), 2u);
    const ExploreTask& t = out.new_tasks.at(0);
    return t.waypoints.at(t.approach);
  };
  ManagerOptions clear;
  EXPECT_TRUE(clear.lane_ends_clear);  // the default
  const Vec2 marvin = first_lane_end(clear, 0.35);
  EXPECT_DOUBLE_EQ(marvin.x(), 0.375);
  EXPECT_DOUBLE_EQ(marvin.y(), 2.125);
  const Vec2 wide = first_lane_end(clear, 0.6);  // a Tank-sized body: the third column (0.625 m)
  EXPECT_DOUBLE_EQ(wide.x(), 0.625);
  // A body that cannot turn on the spot also keeps its turning radius clear: 0.35 + 0.25 m, the third column too.
  const Vec2 tricycle = first_lane_end(clear, 0.35, 0.25);
  EXPECT_DOUBLE_EQ(tricycle.x(), 0.625);
  ManagerOptions old;
  old.lane_ends_clear = false;
  const Vec2 border = first_lane_end(old, 0.35);
  EXPECT_DOUBLE_EQ(border.x(), 0.125);
  EXPECT_DOUBLE_EQ(border.y(), 2.125);
}

TEST(TaskManager, UnreachableEnvironmentsAreMarkedDone) {
  // A wall (explored, p_o = 1) along x = 4: the robot in x < 4 reaches tile 0 only.
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(8, 4));
  for (int y = 0; y < 4; ++y) {
    maps.p_o[maps.spec.Index({4, y})] = 1.0;
    maps.p_e[maps.spec.Index({4, y})] = 1.0;
  }
  std::vector<ExplorerProfile> team = Team();
  team.resize(1);
  team[0].processing_cells = 16;  // 4 m tiles: tile 0 (x 0–3) and tile 1 (x 4–7)
  TaskManager manager(maps.spec, team);
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(5.5, 1.5)};  // in tile 1, on the far side of the wall
  const ManagerOutputs out = manager.Step(in);
  ASSERT_EQ(out.new_tasks.size(), 1u);
  EXPECT_EQ(out.new_tasks[0].tiles, (std::vector<int>{1}));
  in.reports[0].task_id = out.new_tasks[0].task_id;
  in.reports[0].task_done = true;
  const ManagerOutputs next = manager.Step(in);
  EXPECT_TRUE(next.new_tasks.empty());
  EXPECT_EQ(manager.state().unreachable, 1);  // tile 0: no approach through the wall
  EXPECT_TRUE(next.finished);
}

// Bids over the bus: each robot prices the manager's call from its own position (RobotBidder); with the same
// positions and maps the auction over the received bids awards exactly what the manager-side auction awards.
TEST(TaskManager, BidsFromTheRobotsAwardLikeTheManagersOwnAuction) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(16, 8));
  for (int x = 8; x < 12; ++x) maps.p_o[maps.spec.Index({x, 2})] = 0.9;  // costlier tiles in the middle
  maps.p_e[maps.spec.Index({1, 1})] = 1.0;
  TaskManager by_manager(maps.spec, Team()), by_robots(maps.spec, Team());
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(13, 1), At(2, 6)};
  const ManagerOutputs expected = by_manager.Step(in);
  ASSERT_EQ(expected.new_tasks.size(), 2u);

  EXPECT_EQ(by_robots.Idle(in.reports), (std::vector<bool>{true, true}));
  const BidCall call = by_robots.Call(maps, /*round=*/1, /*deadline_tick=*/5);
  EXPECT_EQ(call.graph.centres.size(), by_robots.partition().tiles().size());
  std::vector<std::optional<std::vector<double>>> bids(2);
  for (int r = 0; r < 2; ++r) {
    RobotBidder bidder;
    const std::optional<Bid> bid = bidder.Answer(call, in.reports[r].position);
    ASSERT_TRUE(bid);
    EXPECT_EQ(bid->from_tile, by_robots.partition().TileAt(in.reports[r].position));
    bids[r] = bid->costs;
  }
  in.bids = &bids;
  const ManagerOutputs got = by_robots.Step(in);
  ASSERT_EQ(got.new_tasks.size(), expected.new_tasks.size());
  for (size_t k = 0; k < got.new_tasks.size(); ++k) {
    EXPECT_EQ(got.new_tasks[k].robot, expected.new_tasks[k].robot);
    EXPECT_EQ(got.new_tasks[k].tiles, expected.new_tasks[k].tiles);
    EXPECT_EQ(got.new_tasks[k].waypoints, expected.new_tasks[k].waypoints);
  }
  EXPECT_EQ(by_robots.state(), by_manager.state());
  EXPECT_EQ(by_robots.Idle(in.reports), (std::vector<bool>{false, false}));
}

TEST(TaskManager, ARobotWithoutAUsableBidIsLeftOutOfTheRound) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(16, 8));
  TaskManager manager(maps.spec, Team());
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(1, 1), At(15, 7)};
  const BidCall call = manager.Call(maps, 1, 5);
  RobotBidder bidder;
  // r1's bid did not arrive; r2's has the wrong length (another grid): neither takes part.
  std::vector<std::optional<std::vector<double>>> bids{std::nullopt, std::vector<double>{0.0, 1.0}};
  in.bids = &bids;
  EXPECT_TRUE(manager.Step(in).new_tasks.empty());
  // Next round: r2 bids properly and wins its own tile; r1 still has none and stays idle.
  bids[1] = bidder.Answer(call, in.reports[1].position)->costs;
  const ManagerOutputs out = manager.Step(in);
  ASSERT_EQ(out.new_tasks.size(), 1u);
  EXPECT_EQ(out.new_tasks[0].robot, 1);
  EXPECT_EQ(out.new_tasks[0].tiles, (std::vector<int>{7}));
  EXPECT_EQ(manager.Idle(in.reports), (std::vector<bool>{true, false}));
  std::vector<std::optional<std::vector<double>>> wrong(3);
  in.bids = &wrong;
  EXPECT_THROW(manager.Step(in), std::invalid_argument);
}

// The manager killed mid-run and restarted without taking anything over (as before issue 18's unhappy paths):
// its robots still drive the tasks 1 and 2 its predecessor gave them and report those ids. The new manager must not
// hand out 1 and 2 again: a robot ignores a task id it already holds (WaypointFollower::Assign), so it would keep
// driving its old lanes while the new environment stayed held for it, and its "task 1 done" would then mark that
// environment done unexplored.
TEST(TaskManager, ARestartedManagerNeverReissuesATaskIdItsRobotsHold) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(16, 8));
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(1, 1), At(15, 7)};
  TaskManager killed(maps.spec, Team());
  const ManagerOutputs before = killed.Step(in);
  ASSERT_EQ(before.new_tasks.size(), 2u);
  for (const ExploreTask& t : before.new_tasks) in.reports[t.robot].task_id = t.task_id;
  TaskManager restarted(maps.spec, Team());
  const ManagerOutputs after = restarted.Step(in);
  ASSERT_EQ(after.new_tasks.size(), 2u);
  for (const ExploreTask& t : after.new_tasks) {
    EXPECT_GT(t.task_id, in.reports[0].task_id) << "robot " << t.robot;
    EXPECT_GT(t.task_id, in.reports[1].task_id) << "robot " << t.robot;
  }
}

PredecessorTask From(const ExploreTask& t, int allocation_changes) {
  return {t.task_id, t.environment, t.tiles, t.waypoints, t.approach, allocation_changes};
}

// The restarted manager takes over from the robots' reports and its predecessor's latched tasks: r1 reports its
// task under way and keeps it (its tiles held, no new task, nobody else given them); r2 reports its task done and
// bids again; ids and the allocation count continue.
TEST(TaskManager, ARestartedManagerTakesOverTheTasksUnderWay) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(16, 8));
  ManagerInputs in;
  in.maps = &maps;
  in.reports = {At(1, 1), At(15, 7)};
  TaskManager killed(maps.spec, Team());
  const ManagerOutputs before = killed.Step(in);
  ASSERT_EQ(before.new_tasks.size(), 2u);
  const ExploreTask& r1_task = before.new_tasks[0];
  const ExploreTask& r2_task = before.new_tasks[1];
  ASSERT_EQ(r1_task.robot, 0);
  ASSERT_EQ(r1_task.tiles, (std::vector<int>{0, 1, 4, 5}));

  TaskManager restarted(maps.spec, Team());
  const PredecessorTask r1_before = From(r1_task, 2), r2_before = From(r2_task, 2);
  ExploreTask again;
  EXPECT_EQ(restarted.TakeOver(0, &r1_before, ExplorerReport{}, &again), Takeover::kWait);  // not heard yet
  in.reports[0].task_id = r1_task.task_id;
  in.reports[0].waypoints_done = 3;
  EXPECT_EQ(restarted.TakeOver(0, &r1_before, in.reports[0], &again), Takeover::kAdopted);
  EXPECT_EQ(again.task_id, r1_task.task_id);
  EXPECT_EQ(again.tiles, r1_task.tiles);
  EXPECT_EQ(again.waypoints, r1_task.waypoints);
  in.reports[1].task_id = r2_task.task_id;
  in.reports[1].task_done = true;
  EXPECT_EQ(restarted.TakeOver(1, &r2_before, in.reports[1], nullptr), Takeover::kDeclined);
  EXPECT_EQ(restarted.state().adopted, 1);
  EXPECT_EQ(restarted.state().allocation_changes, 2);
  EXPECT_EQ(restarted.Idle(in.reports), (std::vector<bool>{false, true}));

  // r2 bids (the manager on its behalf here): it cannot win r1's tiles; its new task's id is above both.
  const ManagerOutputs out = restarted.Step(in);
  ASSERT_EQ(out.new_tasks.size(), 1u);
  EXPECT_EQ(out.new_tasks[0].robot, 1);
  EXPECT_EQ(out.new_tasks[0].task_id, 3);
  for (int t : out.new_tasks[0].tiles) EXPECT_EQ(std::count(r1_task.tiles.begin(), r1_task.tiles.end(), t), 0);
  EXPECT_EQ(restarted.state().allocation_changes, 3);
  // r1 finishes the adopted task: its environment comes back done and r1 bids again (and wins task 4).
  in.reports[0].task_done = true;
  const ManagerOutputs next = restarted.Step(in);
  for (int t : r1_task.tiles) EXPECT_EQ(restarted.state().status[t], TileStatus::kDone);
  ASSERT_EQ(next.new_tasks.size(), 1u);
  EXPECT_EQ(next.new_tasks[0].robot, 0);
  EXPECT_EQ(next.new_tasks[0].task_id, 4);
}

TEST(TaskManager, ATakeoverOfTilesThatAreNotThisPartitionsIsDeclined) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(16, 8));
  TaskManager manager(maps.spec, Team());
  ExplorerReport rep = At(1, 1);
  rep.task_id = 4;
  PredecessorTask task{4, 0, {0, 99}, {Vec2(1, 1)}, 0, 3};  // tile 99: another world's partition
  EXPECT_EQ(manager.TakeOver(0, &task, rep, nullptr), Takeover::kDeclined);
  task.tiles = {0};
  rep.task_id = 3;  // the robot holds another task than the latched one
  EXPECT_EQ(manager.TakeOver(0, &task, rep, nullptr), Takeover::kDeclined);
  EXPECT_EQ(manager.TakeOver(1, nullptr, ExplorerReport{}, nullptr), Takeover::kWait);  // nothing found, not heard
  EXPECT_EQ(manager.TakeOver(1, nullptr, At(15, 7), nullptr), Takeover::kDeclined);     // nothing to take over
  EXPECT_EQ(manager.state().task, (std::vector<int64_t>{-1, -1}));
  EXPECT_EQ(manager.state().status[0], TileStatus::kOpen);
  EXPECT_THROW(manager.TakeOver(2, &task, rep, nullptr), std::invalid_argument);
}

TEST(TaskManager, RejectsBadInput) {
  mapper::GridMaps maps = mapper::GridMaps::Initial(Grid(8, 4));
  EXPECT_THROW(TaskManager(maps.spec, {}), std::invalid_argument);
  ManagerOptions bad;
  bad.done_fraction = 1.5;
  EXPECT_THROW(TaskManager(maps.spec, Team(), bad), std::invalid_argument);
  TaskManager manager(maps.spec, Team());
  ManagerInputs in;
  EXPECT_THROW(manager.Step(in), std::invalid_argument);  // no maps
  in.maps = &maps;
  in.reports = {At(1, 1)};
  EXPECT_THROW(manager.Step(in), std::invalid_argument);  // one report for two explorers
  // An explorer not heard from yet does not bid.
  in.reports = {ExplorerReport{}, ExplorerReport{}};
  EXPECT_TRUE(manager.Step(in).new_tasks.empty());
}

TEST(WaypointFollower, ReachesSkipsAndStops) {
  FollowerOptions o;
  o.tolerance = 0.5;
  o.waypoint_timeout_s = 10.0;
  WaypointFollower f(o);
  EXPECT_FALSE(f.Step(Vec2(0, 0), 0.0).new_goal);  // no task
  EXPECT_TRUE(f.Assign(7, {Vec2(1, 0), Vec2(3, 0), Vec2(5, 0)}, 0.0));
  EXPECT_FALSE(f.Assign(7, {}, 0.0));  // the same task again is ignored
  FollowerOutputs s = f.Step(Vec2(0, 0), 0.1);
  ASSERT_TRUE(s.new_goal);
  EXPECT_DOUBLE_EQ(s.new_goal->x(), 1.0);
  EXPECT_TRUE(s.progress);  // the new task is reported
  EXPECT_FALSE(f.Step(Vec2(0.4, 0), 0.2).new_goal);
  s = f.Step(Vec2(0.6, 0), 0.3);  // within 0.5 m of (1, 0)
  ASSERT_TRUE(s.new_goal);
  EXPECT_DOUBLE_EQ(s.new_goal->x(), 3.0);
  EXPECT_EQ(f.waypoints_done(), 1);
  s = f.Step(Vec2(0.6, 0), 10.3);  // 10 s on (3, 0): skipped
  ASSERT_TRUE(s.new_goal);
  EXPECT_DOUBLE_EQ(s.new_goal->x(), 5.0);
  EXPECT_EQ(f.skipped(), 1);
  s = f.Step(Vec2(5, 0.2), 11.0);
  EXPECT_TRUE(s.stop);
  EXPECT_TRUE(f.task_done());
  EXPECT_EQ(f.waypoints_done(), 3);
  EXPECT_FALSE(f.Step(Vec2(5, 0.2), 12.0).progress);
  // A new task starts its counts afresh (an ExploreReport needs skipped ≤ done).
  EXPECT_TRUE(f.Assign(8, {Vec2(9, 9)}, 12.0));
  EXPECT_EQ(f.skipped(), 0);
  EXPECT_EQ(f.waypoints_done(), 0);
  EXPECT_FALSE(f.task_done());
  EXPECT_THROW(WaypointFollower(FollowerOptions{0.0, 1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::explore
