// E3's failure case studies: an episode's trajectory against the places of the static field (failure_cases.hpp).
#include "tools/laser/failure_cases.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace limbic::laser {
namespace {

const std::vector<MinimumRegion> kPlaces = {{4, {100.0, 100.0}}, {3, {400.0, 100.0}}};

// `seconds` of points (10 per second) standing at p.
void Stay(std::vector<Vec2>* path, Vec2 p, double seconds) {
  for (int k = 0; k < std::lround(seconds * 10); ++k) path->push_back(p);
}

// Points every 10 cm along a straight line from the last point to p.
void Walk(std::vector<Vec2>* path, Vec2 p) {
  const Vec2 a = path->empty() ? p : path->back();
  const int steps = std::max(1, static_cast<int>(std::hypot(p.x - a.x, p.y - a.y) / 10.0));
  for (int k = 1; k <= steps; ++k) path->push_back({a.x + (p.x - a.x) * k / steps, a.y + (p.y - a.y) * k / steps});
}

EpisodeResult Unsolved(std::vector<Vec2> path, double path_cm, double optimal_cm) {
  EpisodeResult r;
  r.trajectory = std::move(path);
  r.path_cm = path_cm;
  r.optimal_cm = optimal_cm;
  return r;
}

TEST(FailureCases, BackAndForthBetweenTwoMinimaIsTwoMinima) {
  std::vector<Vec2> path;
  Stay(&path, {110, 95}, 3);  // A
  Walk(&path, {400, 110});
  Stay(&path, {400, 110}, 3);  // B
  Walk(&path, {95, 100});
  Stay(&path, {95, 100}, 3);  // A again
  Walk(&path, {300, 400});    // and away: not pinned, but the return already decided it
  const FailureAnalysis a = ClassifyFailure(Unsolved(path, 900, 600), kPlaces);
  EXPECT_EQ(a.kind, FailureKind::kTwoMinima);
  EXPECT_EQ(a.visits, (std::vector<int>{0, 1, 0}));
  EXPECT_STREQ(FailureKindName(a.kind), "two_minima");
}

TEST(FailureCases, ShortStopsAreNotVisitsAndOnePlaceTwiceIsNoOscillation) {
  std::vector<Vec2> path;
  Stay(&path, {100, 100}, 1);  // A for 1 s: passing through
  Walk(&path, {400, 100});
  Stay(&path, {400, 100}, 3);  // B
  Walk(&path, {100, 100});
  Stay(&path, {100, 100}, 1);  // A again, too short (with the walk in and out: 1.6 s near it)
  Walk(&path, {250, 500});
  Walk(&path, {250, 100});
  EXPECT_EQ(ClassifyFailure(Unsolved(path, 2000, 600), kPlaces).visits, (std::vector<int>{1}));
  // A, nowhere, A: one place, so no oscillation between two.
  std::vector<Vec2> again;
  Stay(&again, {100, 100}, 3);
  Walk(&again, {100, 300});
  Walk(&again, {100, 100});
  Stay(&again, {100, 100}, 3);
  Walk(&again, {300, 300});
  const FailureAnalysis a = ClassifyFailure(Unsolved(again, 800, 600), kPlaces);
  EXPECT_EQ(a.visits, (std::vector<int>{0}));
  EXPECT_NE(a.kind, FailureKind::kTwoMinima);
}

TEST(FailureCases, HeldInOnePlaceIsPinned) {
  std::vector<Vec2> path;
  Walk(&path, {300, 300});
  Walk(&path, {300, 450});
  Stay(&path, {300, 450}, 60);  // the whole second half within a few cm
  for (size_t k = path.size() / 2; k < path.size(); k += 7) path[k].x += 5.0;
  const FailureAnalysis a = ClassifyFailure(Unsolved(path, 500, 600), kPlaces);
  EXPECT_EQ(a.kind, FailureKind::kPinned);
  EXPECT_TRUE(a.visits.empty());
}

TEST(FailureCases, GoingRoundWithoutArrivingIsCirculatingAndSlowProgressIsOther) {
  std::vector<Vec2> path;
  for (int lap = 0; lap < 4; ++lap) {
    for (int k = 0; k <= 36; ++k) {
      const double t = k * 3.14159265358979 / 18.0;
      path.push_back({300 + 120 * std::cos(t), 400 + 120 * std::sin(t)});
    }
  }
  EXPECT_EQ(ClassifyFailure(Unsolved(path, 3000, 600), kPlaces).kind, FailureKind::kCirculating);
  std::vector<Vec2> slow;
  Walk(&slow, {250, 200});
  Walk(&slow, {250, 500});
  EXPECT_EQ(ClassifyFailure(Unsolved(slow, 500, 600), kPlaces).kind, FailureKind::kOther);
}

TEST(FailureCases, SolvedIsSolvedAndBadOptionsAreRefused) {
  EpisodeResult r;
  r.solved = true;
  Stay(&r.trajectory, {100, 100}, 3);
  const FailureAnalysis a = ClassifyFailure(r, kPlaces);
  EXPECT_EQ(a.kind, FailureKind::kSolved);
  EXPECT_EQ(a.visits, (std::vector<int>{0}));
  EXPECT_EQ(ClassifyFailure(Unsolved({}, 0, 600), kPlaces).kind, FailureKind::kOther);  // no path at all
  FailureOptions o;
  o.circulating_factor = 0.5;
  EXPECT_THROW(ClassifyFailure(r, kPlaces, o), std::invalid_argument);
  o = {};
  o.min_dwell_s = std::nan("");
  EXPECT_THROW(ValidateFailureOptions(o), std::invalid_argument);
}

}  // namespace
}  // namespace limbic::laser
