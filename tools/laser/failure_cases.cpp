#include "tools/laser/failure_cases.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::laser {
namespace {

void Require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("failure cases: ") + what);
}

// Does the visit sequence hold A, B, A with A != B? (B may be several places: A, B, C, A counts too.)
bool Returns(const std::vector<int>& visits) {
  for (size_t i = 0; i < visits.size(); ++i) {
    for (size_t j = i + 2; j < visits.size(); ++j) {
      if (visits[j] == visits[i]) return true;  // consecutive visits always differ, so something else lay between
    }
  }
  return false;
}

}  // namespace

const char* FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kSolved:
      return "solved";
    case FailureKind::kTwoMinima:
      return "two_minima";
    case FailureKind::kPinned:
      return "pinned";
    case FailureKind::kCirculating:
      return "circulating";
    case FailureKind::kOther:
      return "other";
  }
  return "other";
}

void ValidateFailureOptions(const FailureOptions& o) {
  Require(std::isfinite(o.sample_s) && o.sample_s > 0.0, "sample_s must be > 0");
  Require(std::isfinite(o.visit_radius_cm) && o.visit_radius_cm > 0.0, "visit_radius_cm must be > 0");
  Require(std::isfinite(o.min_dwell_s) && o.min_dwell_s > 0.0, "min_dwell_s must be > 0");
  Require(std::isfinite(o.pinned_radius_cm) && o.pinned_radius_cm > 0.0, "pinned_radius_cm must be > 0");
  Require(std::isfinite(o.circulating_factor) && o.circulating_factor >= 1.0, "circulating_factor must be >= 1");
}

FailureAnalysis ClassifyFailure(const EpisodeResult& result, const std::vector<MinimumRegion>& places,
                                const FailureOptions& o) {
  ValidateFailureOptions(o);
  FailureAnalysis a;
  const std::vector<Vec2>& path = result.trajectory;
  // Visits: runs of consecutive points near one place, long enough; a point near two places belongs to the nearer.
  int current = -1;
  size_t run = 0;
  const size_t dwell_points = static_cast<size_t>(std::ceil(o.min_dwell_s / o.sample_s));
  for (const Vec2& p : path) {
    int nearest = -1;
    double best = o.visit_radius_cm;
    for (size_t k = 0; k < places.size(); ++k) {
      const double d = Norm(p - places[k].centroid);
      if (d <= best) {
        best = d;
        nearest = static_cast<int>(k);
      }
    }
    run = nearest == current ? run + 1 : 1;
    current = nearest;
    if (current >= 0 && run == dwell_points && (a.visits.empty() || a.visits.back() != current)) {
      a.visits.push_back(current);
    }
  }
  if (result.solved) {
    a.kind = FailureKind::kSolved;
    return a;
  }
  if (Returns(a.visits)) {
    a.kind = FailureKind::kTwoMinima;
    return a;
  }
  if (!path.empty()) {
    const Vec2 end = path.back();
    bool held = true;
    for (size_t k = path.size() / 2; k < path.size() && held; ++k) held = Norm(path[k] - end) <= o.pinned_radius_cm;
    if (held) {
      a.kind = FailureKind::kPinned;
      return a;
    }
  }
  a.kind = result.path_cm >= o.circulating_factor * result.optimal_cm ? FailureKind::kCirculating : FailureKind::kOther;
  return a;
}

}  // namespace limbic::laser
