#include "messages/validate.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/convert/convert.hpp"
#include "common/types/control_parameters.hpp"

namespace limbic::messages {
namespace {

// Are all of d[0, n) within [lo, hi] (NaN never is)? The bulk test of a message's doubles (a map layer or an
// emotion layer is thousands of them a tick; issue 18). GCC at -O2 does not vectorise the boolean reduction of a
// plain loop (9 instructions an element): with SSE2, part of every x86-64, four lanes of two doubles take 8 elements
// at a time, about 4 instructions each (callgrind: the 16 emotion layers' checks 0.36 → 0.14 M instructions a tick).
// An ordered compare (cmple) is false for NaN, so NaN fails as in the plain loop; ±inf fails one of the bounds.
bool AllWithin(const double* d, size_t n, double lo, double hi) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128d vlo = _mm_set1_pd(lo);
  const __m128d vhi = _mm_set1_pd(hi);
  const __m128d all_ones = _mm_castsi128_pd(_mm_set1_epi32(-1));
  __m128d ok0 = all_ones, ok1 = all_ones, ok2 = all_ones, ok3 = all_ones;
  for (; i + 8 <= n; i += 8) {
    const __m128d a = _mm_loadu_pd(d + i), b = _mm_loadu_pd(d + i + 2);
    const __m128d c = _mm_loadu_pd(d + i + 4), e = _mm_loadu_pd(d + i + 6);
    ok0 = _mm_and_pd(ok0, _mm_and_pd(_mm_cmple_pd(vlo, a), _mm_cmple_pd(a, vhi)));
    ok1 = _mm_and_pd(ok1, _mm_and_pd(_mm_cmple_pd(vlo, b), _mm_cmple_pd(b, vhi)));
    ok2 = _mm_and_pd(ok2, _mm_and_pd(_mm_cmple_pd(vlo, c), _mm_cmple_pd(c, vhi)));
    ok3 = _mm_and_pd(ok3, _mm_and_pd(_mm_cmple_pd(vlo, e), _mm_cmple_pd(e, vhi)));
  }
  const __m128d ok = _mm_and_pd(_mm_and_pd(ok0, ok1), _mm_and_pd(ok2, ok3));
  bool all = _mm_movemask_pd(ok) == 0x3;
#else
  bool all = true;
#endif
  for (; i < n; ++i) all &= (d[i] >= lo) & (d[i] <= hi);
  return all;
}

// Collects the first violation of one message ("" while valid). Fields are named as in the schema;
// vector elements as field[i] and struct members as field.member.
class Check {
 public:
  Check(std::string_view type, const uint8_t* base) : type_(type), base_(base) {}
  bool ok() const { return error_.empty(); }
  std::string Result() const { return error_; }

  void Fail(std::string_view field, std::string_view rule, double value, int64_t index = -1) {
    if (!ok()) return;
    std::ostringstream out;
    out << type_ << "." << field;
    if (index >= 0) out << "[" << index << "]";
    out << ": " << rule << " (got " << value << ")";
    error_ = out.str();
  }
  // The FlatBuffers Verifier checks a vector's length field, not that its 8-byte elements are aligned;
  // a mutated buffer can pass it with doubles every reader would load misaligned (undefined behaviour).
  template <typename V>
  void Aligned(std::string_view field, const flatbuffers::Vector<V>* v, size_t alignment = 8) {
    if (v != nullptr && v->size() > 0 && (reinterpret_cast<const uint8_t*>(v->Data()) - base_) % alignment != 0) {
      Fail(field, "is not aligned in the buffer", 0);
    }
  }
  void FailText(std::string text) {
    if (ok()) error_ = std::move(text);
  }
  // Finite and |v| <= limit, without a word of the message: the hot loops test with it and build a field name
  // (which allocates) only for a value that fails.
  static bool Within(double v, double limit = kMaxCoordinate) { return std::isfinite(v) && std::abs(v) <= limit; }
  // Finite and |v| <= limit. The test is inline; building the message is not (most calls pass).
  void Finite(std::string_view field, double v, double limit = kMaxCoordinate, int64_t index = -1) {
    if (!Within(v, limit)) FiniteFailed(field, v, limit, index);
  }
  [[gnu::noinline]] void FiniteFailed(std::string_view field, double v, double limit, int64_t index) {
    if (!std::isfinite(v)) return Fail(field, "must be finite", v, index);
    std::ostringstream rule;
    rule << "must be within ±" << limit;
    Fail(field, rule.str(), v, index);
  }
  // lo <= v <= hi (NaN fails).
  void Range(std::string_view field, double v, double lo, double hi, int64_t index = -1) {
    if (v >= lo && v <= hi) return;
    RangeFailed(field, v, lo, hi, index);
  }
  [[gnu::noinline]] void RangeFailed(std::string_view field, double v, double lo, double hi, int64_t index) {
    std::ostringstream rule;
    rule << (std::isfinite(v) ? "must be in [" : "must be finite, in [") << lo << ", " << hi << "]";
    Fail(field, rule.str(), v, index);
  }
  void Probability(std::string_view field, double v, int64_t index = -1) { Range(field, v, 0.0, 1.0, index); }
  void Count(std::string_view field, size_t n, size_t max) {
    if (n > max) Fail(field, "has too many elements (at most " + std::to_string(max) + ")", static_cast<double>(n));
  }
  void Vec2(std::string_view field, const msg::Vec2* v, bool required = false) {
    if (v == nullptr) {
      if (required) Fail(field, "is required", 0);
      return;
    }
    if (!Within(v->x())) Finite(std::string(field) + ".x", v->x());
    if (!Within(v->y())) Finite(std::string(field) + ".y", v->y());
  }
  void Pose(std::string_view field, const msg::Pose2* p) {
    if (p == nullptr) return;
    if (!Within(p->x())) Finite(std::string(field) + ".x", p->x());
    if (!Within(p->y())) Finite(std::string(field) + ".y", p->y());
    if (!Within(p->theta(), 1e3)) Finite(std::string(field) + ".theta", p->theta(), 1e3);
  }
  template <typename V>
  void Finites(std::string_view field, const flatbuffers::Vector<V>* v, double limit = kMaxCoordinate) {
    if (v == nullptr) return;
    Aligned(field, v, sizeof(V));
    if (!ok()) return;
    // One branch-free pass over the raw elements (a grid is tens of thousands of them every tick); the
    // element-wise pass that names the first bad one runs only when some element fails.
    const V* d = v->data();
    bool all = true;
    if constexpr (std::is_same_v<V, double>) {
      all = AllWithin(d, v->size(), -limit, limit);
    } else {
      for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) {
        const double x = static_cast<double>(d[i]);
        all &= (x >= -limit) & (x <= limit);  // NaN fails both; ±inf fails one
      }
    }
    if (all) return;
    for (flatbuffers::uoffset_t i = 0; i < v->size() && ok(); ++i) Finite(field, v->Get(i), limit, i);
  }
  void Probabilities(std::string_view field, const flatbuffers::Vector<double>* v) {
    if (v == nullptr) return;
    Aligned(field, v);
    if (!ok()) return;
    // As in Finites: one branch-free pass, the naming pass only on failure.
    if (AllWithin(v->data(), v->size(), 0.0, 1.0)) return;
    for (flatbuffers::uoffset_t i = 0; i < v->size() && ok(); ++i) {
      const double p = v->Get(i);
      if (!(p >= 0.0 && p <= 1.0)) Probability(field, p, i);
    }
  }
  void Points(std::string_view field, const flatbuffers::Vector<const msg::Vec2*>* v) {
    if (v == nullptr) return;
    Count(field, v->size(), kMaxPoints);
    Aligned(field, v);
    if (!ok()) return;
    // A Vec2 is two doubles (x, y) with no padding: the whole vector is one run of doubles for the bulk pass; the
    // pass that names the first bad coordinate runs only when one fails (obstacle sets and paths, every tick).
    static_assert(sizeof(msg::Vec2) == 2 * sizeof(double));
    if (AllWithin(reinterpret_cast<const double*>(v->Data()), 2 * size_t{v->size()}, -kMaxCoordinate, kMaxCoordinate)) {
      return;
    }
    for (flatbuffers::uoffset_t i = 0; i < v->size() && ok(); ++i) {
      const msg::Vec2* p = v->Get(i);
      if (!Within(p->x())) Finite(std::string(field) + ".x", p->x(), kMaxCoordinate, i);
      if (!Within(p->y())) Finite(std::string(field) + ".y", p->y(), kMaxCoordinate, i);
    }
  }
  // Another vector of the same length as `n` (or absent/empty when `may_be_empty`).
  template <typename V>
  void SameLength(std::string_view field, const flatbuffers::Vector<V>* v, size_t n, std::string_view of,
                  bool may_be_empty = true) {
    const size_t size = v ? v->size() : 0;
    if (size == n || (may_be_empty && size == 0)) return;
    Fail(field, "must have as many elements as " + std::string(of) + " (" + std::to_string(n) + ")",
         static_cast<double>(size));
  }
  // A grid placement; returns its number of cells (0 if invalid or absent).
  int64_t Grid(std::string_view field, const msg::GridInfo* g, bool required) {
    if (g == nullptr) {
      if (required) Fail(field, "is required", 0);
      return 0;
    }
    const std::string f(field);
    // An empty grid (no map yet: the affect engine's layer before the first map) is allowed where the
    // grid is optional.
    if (!required && g->width() == 0 && g->height() == 0) {
      Finite(f + ".resolution", g->resolution());
      return 0;
    }
    Finite(f + ".origin_x", g->origin_x());
    Finite(f + ".origin_y", g->origin_y());
    Range(f + ".resolution", g->resolution(), 1e-3, 100.0);
    Range(f + ".width", g->width(), 1, static_cast<double>(kMaxGridSide));
    Range(f + ".height", g->height(), 1, static_cast<double>(kMaxGridSide));
    if (!ok()) return 0;
    const int64_t cells = int64_t{g->width()} * g->height();
    if (cells > kMaxGridCells) {
      Fail(f + ".width*height", "must be at most " + std::to_string(kMaxGridCells) + " cells",
           static_cast<double>(cells));
      return 0;
    }
    return cells;
  }
  // `clamped`: readings hwio conditioned (RangeScan) lie in [0, d_max]; raw readings (RawRanges) carry
  // sensor noise and may stray past d_max or below 0, so they only need to be finite and sane.
  void Beams(const flatbuffers::Vector<const msg::Beam*>* beams, bool clamped) {
    if (beams == nullptr) return;
    Count("beams", beams->size(), kMaxBeams);
    Aligned("beams", beams);
    for (flatbuffers::uoffset_t i = 0; i < beams->size() && ok(); ++i) {
      const msg::Beam& b = *beams->Get(i);
      Range("beams.sensor_id", b.sensor_id(), 0, 1023, i);
      Finite("beams.origin_x", b.origin_x(), 100.0, i);
      Finite("beams.origin_y", b.origin_y(), 100.0, i);
      Finite("beams.angle", b.angle(), 100.0, i);
      Range("beams.d_max", b.d_max(), 1e-6, 1000.0, i);
      Range("beams.d_min", b.d_min(), 0.0, b.d_max(), i);
      // hwio clamps every reading into [0, d_max] (fault_injector.cpp).
      if (clamped)
        Range("beams.range", b.range(), 0.0, b.d_max(), i);
      else
        Finite("beams.range", b.range(), 1000.0, i);
    }
  }
  void Switches(const flatbuffers::Vector<int32_t>* switches) {
    if (switches == nullptr) return;
    Count("switches", switches->size(), 8);
    for (flatbuffers::uoffset_t i = 0; i < switches->size() && ok(); ++i) {
      Range("switches", switches->Get(i), 0, 7, i);  // 0 = front, counter-clockwise every 45°
    }
  }
  void Text(std::string_view field, const flatbuffers::String* s, size_t max = 4096) {
    if (s != nullptr && s->size() > max) {
      Fail(field, "is too long (at most " + std::to_string(max) + " bytes)", static_cast<double>(s->size()));
    }
  }

 private:
  std::string_view type_;
  const uint8_t* base_;  // the buffer's start: alignment is relative to it
  std::string error_;
};

void HeaderRule(Check& c, const msg::Header* h) {
  // Every root table starts with its header (common.fbs); receivers read its tick and source.
  if (h == nullptr) return c.Fail("header", "is required", 0);
  if (h->source() == nullptr) return c.Fail("header.source", "is required", 0);
  c.Range("header.tick", static_cast<double>(h->tick()), -1, 9e18);
  c.Text("header.source", h->source(), 256);
}

// --- one rule per message type -------------------------------------------------------------------

void Rule(Check& c, const msg::Clock& m) { c.Range("period_s", m.period_s(), 1e-6, 3600.0); }

void Rule(Check& c, const msg::LockstepJoin& m) {
  c.Text("participant", m.participant(), 256);
  if (m.waits_for()) c.Count("waits_for", m.waits_for()->size(), 1024);
  if (m.outputs()) c.Count("outputs", m.outputs()->size(), 1024);
}

void Rule(Check& c, const msg::LockstepAck& m) { c.Range("tick", static_cast<double>(m.tick()), -1, 9e18); }

void Rule(Check& c, const msg::Heartbeat& m) {
  c.Finite("uptime_s", m.uptime_s(), 1e12);
  c.Finite("loop_time_last_s", m.loop_time_last_s(), 1e12);
  c.Finite("loop_time_mean_s", m.loop_time_mean_s(), 1e12);
  c.Finite("loop_time_max_s", m.loop_time_max_s(), 1e12);
  if (m.loop_time_buckets()) c.Count("loop_time_buckets", m.loop_time_buckets()->size(), 64);
  if (m.counters()) c.Count("counters", m.counters()->size(), 4096);
}

void Rule(Check&, const msg::BusStats&) {}

// A report names the topic it is about (the bus caps topic names at 256 bytes); a tick report names a tick.
void Rule(Check& c, const msg::HighWaterReport& m) {
  if (m.topic() == nullptr) return c.Fail("topic", "is required", 0);
  c.Text("topic", m.topic(), 256);
  if (m.tick_done() < -1) c.Fail("tick_done", "is a tick (>= 0) or -1", static_cast<double>(m.tick_done()));
}

void Rule(Check& c, const msg::ParameterRequest& m) {
  c.Text("name", m.name(), 256);
  c.Text("value", m.value(), 65536);
}

void Rule(Check&, const msg::ParameterReply&) {}

void Rule(Check& c, const msg::FaultCommand& m) {
  c.Range("sensor", m.sensor(), -1, 1023);
  c.Range("beam", m.beam(), -1, 4095);
  c.Range("wheel", m.wheel(), -1, 1);
  c.Finite("start_s", m.start_s(), 1e12);
  c.Range("duration_s", m.duration_s(), 0.0, 1e9);
  c.Finite("magnitude", m.magnitude(), 1e6);
  c.Probability("probability", m.probability());
}

void Rule(Check& c, const msg::WorldGeometry& m) {
  c.Vec2("min", m.min());
  c.Vec2("max", m.max());
  if (c.ok() && m.min() && m.max() && !(m.min()->x() < m.max()->x() && m.min()->y() < m.max()->y())) {
    c.Fail("max", "must lie above and right of min", m.max()->x());
  }
  c.Range("env_index", m.env_index(), 0, 1e6);
  c.Range("block_size", m.block_size(), 0.0, 1e3);
  c.Vec2("start", m.start());
  c.Vec2("goal", m.goal());
  if (m.polygons()) {
    c.Count("polygons", m.polygons()->size(), kMaxPoints);
    for (flatbuffers::uoffset_t i = 0; i < m.polygons()->size() && c.ok(); ++i) {
      c.Points("polygons.vertices", m.polygons()->Get(i)->vertices());
    }
  }
  if (m.robots()) {
    c.Count("robots", m.robots()->size(), 10000);
    for (flatbuffers::uoffset_t i = 0; i < m.robots()->size() && c.ok(); ++i) {
      c.Pose("robots.start", m.robots()->Get(i)->start());
      c.Vec2("robots.goal", m.robots()->Get(i)->goal());
    }
  }
}

void Rule(Check& c, const msg::Humans& m) {
  if (!m.humans()) return;
  c.Count("humans", m.humans()->size(), 100000);
  c.Aligned("humans", m.humans());
  for (flatbuffers::uoffset_t i = 0; i < m.humans()->size() && c.ok(); ++i) {
    const auto& h = *m.humans()->Get(i);
    c.Finite("humans.x", h.x(), kMaxCoordinate, i);
    c.Finite("humans.y", h.y(), kMaxCoordinate, i);
    c.Range("humans.radius", h.radius(), 0.0, 100.0, i);
    c.Finite("humans.vx", h.vx(), kMaxSpeed, i);
    c.Finite("humans.vy", h.vy(), kMaxSpeed, i);
  }
}

void Rule(Check& c, const msg::GroundTruth& m) {
  c.Pose("pose", m.pose());
  c.Finite("v", m.v(), kMaxSpeed);
  c.Finite("omega", m.omega(), kMaxSpeed);
}

void Rule(Check& c, const msg::RawRanges& m) { c.Beams(m.beams(), /*clamped=*/false); }
void Rule(Check& c, const msg::RangeScan& m) { c.Beams(m.beams(), /*clamped=*/true); }

void Rule(Check& c, const msg::Bumpers& m) {
  c.Switches(m.switches());
  c.Finite("speed_before", m.speed_before(), kMaxSpeed);
}

void Rule(Check& c, const msg::CollisionEvent& m) {
  c.Switches(m.switches());
  c.Vec2("contact_point", m.contact_point());
  c.Finite("speed_before", m.speed_before(), kMaxSpeed);
}

void Rule(Check& c, const msg::Odometry& m) {
  c.Pose("pose", m.pose());
  c.Finite("v", m.v(), kMaxSpeed);
  c.Finite("omega", m.omega(), kMaxSpeed);
}

// Commands only need to be finite and not astronomical: hwio's CommandLimiter clamps them to the
// robot's hard limits (and test pipelines use VelocityCommand as a plain number carrier).
void Rule(Check& c, const msg::WheelCommand& m) {
  c.Finite("v_left", m.v_left(), 1e9);
  c.Finite("v_right", m.v_right(), 1e9);
}

void Rule(Check& c, const msg::VelocityCommand& m) {
  c.Finite("v", m.v(), 1e9);
  c.Finite("omega", m.omega(), 1e9);
}

// Issue 14: danger sites on the grid (index and point), sorted by cell with one per cell (readers look them up
// by binary search); which cells may carry one is the consumer's check (mapper::ApplyPatch, GridMaps::Validate),
// which needs the map.
void DangerSites(Check& c, const flatbuffers::Vector<const msg::DangerSite*>* sites, int64_t cells) {
  if (!c.ok() || !sites) return;
  c.Count("danger_sites", sites->size(), static_cast<size_t>(cells));
  c.Aligned("danger_sites", sites);
  for (flatbuffers::uoffset_t i = 0; i < sites->size() && c.ok(); ++i) {
    const auto& s = *sites->Get(i);
    c.Range("danger_sites.cell", s.cell(), 0, static_cast<double>(cells - 1), i);
    if (i > 0 && s.cell() <= sites->Get(i - 1)->cell()) {
      c.Fail("danger_sites.cell", "must be greater than the previous site's cell", s.cell(), i);
    }
    c.Finite("danger_sites.point.x", s.point().x(), kMaxCoordinate, i);
    c.Finite("danger_sites.point.y", s.point().y(), kMaxCoordinate, i);
  }
}

void Rule(Check& c, const msg::GridMap& m) {
  const int64_t cells = c.Grid("info", m.info(), /*required=*/true);
  if (!c.ok()) return;
  const auto n = static_cast<size_t>(cells);
  c.SameLength("p_o", m.p_o(), n, "width*height", /*may_be_empty=*/false);
  c.SameLength("p_e", m.p_e(), n, "width*height");
  c.SameLength("danger", m.danger(), n, "width*height");
  c.Probabilities("p_o", m.p_o());
  c.Probabilities("p_e", m.p_e());
  DangerSites(c, m.danger_sites(), cells);
}

void Rule(Check& c, const msg::GridPatch& m) {
  const int64_t cells = c.Grid("info", m.info(), /*required=*/true);
  c.Range("base_tick", static_cast<double>(m.base_tick()), -1, 9e18);
  if (!c.ok() || !m.cells()) return;
  c.Count("cells", m.cells()->size(), static_cast<size_t>(cells));
  c.Aligned("cells", m.cells());
  for (flatbuffers::uoffset_t i = 0; i < m.cells()->size() && c.ok(); ++i) {
    const auto& u = *m.cells()->Get(i);
    c.Range("cells.index", u.index(), 0, static_cast<double>(cells - 1), i);
    c.Probability("cells.p_o", u.p_o(), i);
    c.Probability("cells.p_e", u.p_e(), i);
  }
  DangerSites(c, m.danger_sites(), cells);
}

void Rule(Check& c, const msg::MapStats& m) {
  if (m.updated()) {
    c.Count("updated", m.updated()->size(), static_cast<size_t>(kMaxGridCells));
    c.Aligned("updated", m.updated());
    for (flatbuffers::uoffset_t i = 0; i < m.updated()->size() && c.ok(); ++i) {
      const auto& u = *m.updated()->Get(i);
      c.Range("updated.index", u.index(), 0, static_cast<double>(kMaxGridCells - 1), i);
      c.Finite("updated.s_o", u.s_o(), 1e6, i);
      c.Probability("updated.p_o_before", u.p_o_before(), i);
    }
  }
  c.Probability("mean_p_e", m.mean_p_e());
  c.Finite("density", m.density(), 1e6);
  c.Probability("coverage", m.coverage());
}

void Rule(Check& c, const msg::ObstacleSet& m) {
  c.Points("points", m.points());
  c.Points("collision_points", m.collision_points());
  c.Range("n_o", m.n_o(), 0, 1000);
}

void Rule(Check& c, const msg::NavGoal& m) {
  c.Vec2("goal", m.goal(), /*required=*/m.active());
  c.Range("instruction_id", static_cast<double>(m.instruction_id()), -1, 9e18);  // -1: no instruction (a stop)
  c.Finite("received_at_s", m.received_at_s(), 1e12);
  c.Range("distance_at_start", m.distance_at_start(), 0.0, kMaxCoordinate);
}

void Rule(Check& c, const msg::Path& m) {
  c.Points("nodes", m.nodes());
  c.SameLength("node_costs", m.node_costs(), m.nodes() ? m.nodes()->size() : 0, "nodes");
  c.Finites("node_costs", m.node_costs(), 1e12);
  c.Finite("max_cost", m.max_cost(), 1e12);
  c.Finite("planned_at_s", m.planned_at_s(), 1e12);
  c.Range("plan_time_s", m.plan_time_s(), 0.0, 1e6);
  c.Range("instruction_id", static_cast<double>(m.instruction_id()), -1, 9e18);
}

void Rule(Check& c, const msg::DirectionalState& m) {
  c.Finite("theta_target", m.theta_target(), 1e3);
  const size_t n = m.headings() ? m.headings()->size() : 0;
  c.Count("headings", n, kMaxHeadings);
  c.Finites("headings", m.headings(), 1e3);
  // Each per-heading term has one value per heading (or is absent).
  const std::pair<const char*, const flatbuffers::Vector<double>*> terms[] = {
      {"d_o_raw", m.d_o_raw()},         {"avoid_sensor", m.avoid_sensor()}, {"avoid_map", m.avoid_map()},
      {"path_follow", m.path_follow()}, {"goal_seek", m.goal_seek()},       {"inertia", m.inertia()},
      {"wander", m.wander()},           {"objective", m.objective()}};
  for (const auto& [name, v] : terms) {
    c.SameLength(name, v, n, "headings");
    c.Finites(name, v, 1e12);
  }
}

void Rule(Check& c, const msg::VelocityState& m) {
  for (const auto& [name, v] : {std::pair{"v_target", m.v_target()}, {"v1", m.v1()}, {"v2", m.v2()}}) {
    c.Finite(name, v, kMaxSpeed);
  }
  for (const auto& [name, v] :
       {std::pair{"omega_target", m.omega_target()}, {"omega1", m.omega1()}, {"omega2", m.omega2()}}) {
    c.Finite(name, v, kMaxSpeed);
  }
  const size_t nv = m.v_samples() ? m.v_samples()->size() : 0;
  const size_t nw = m.omega_samples() ? m.omega_samples()->size() : 0;
  c.Count("v_samples", nv, 1001);
  c.Count("omega_samples", nw, 1001);
  c.Finites("v_samples", m.v_samples(), kMaxSpeed);
  c.Finites("omega_samples", m.omega_samples(), kMaxSpeed);
  c.SameLength("objective", m.objective(), nv * nw, "v_samples × omega_samples");
  c.Finites("objective", m.objective(), 1e12);
  c.Range("compute_time_s", m.compute_time_s(), 0.0, 1e6);
}

void Rule(Check& c, const msg::ControlParams& m) {
  // The controller's own check (which names the field), so a set the controller would refuse every
  // tick never reaches it.
  const ControlParameters p = convert::FromMsg(m);
  try {
    ValidateParameters(p);
  } catch (const std::invalid_argument& e) {
    c.FailText(std::string("ControlParams: ") + e.what());
    return;
  }
  // Beyond the controller's check: the weights of the weighted sums and products (eqs. 5.9-5.11,
  // 5.18-5.23, 5.2) are weights in [0, 1], and no number of the set is astronomically large (a weight
  // of 1e300 is finite and would pass every other test).
  const std::pair<const char*, double> weights[] = {
      {"w_v1", p.w_v1},         {"w_v2", p.w_v2},         {"w_v3", p.w_v3},         {"w_v4", p.w_v4},
      {"w_v5", p.w_v5},         {"w_theta1", p.w_theta1}, {"w_theta2", p.w_theta2}, {"w_theta3", p.w_theta3},
      {"w_theta4", p.w_theta4}, {"w_theta5", p.w_theta5}, {"w_theta6", p.w_theta6}, {"w_p1", p.w_p1},
      {"w_p2", p.w_p2},         {"w_p3", p.w_p3},         {"w_p4", p.w_p4},         {"weight_cap", p.weight_cap}};
  for (const auto& [name, w] : weights) c.Probability(name, w);
#define LIMBIC_MAGNITUDE_int(name)
#define LIMBIC_MAGNITUDE_double(name) c.Finite(#name, p.name, 1e9);
#define LIMBIC_FIELD(type, name) LIMBIC_MAGNITUDE_##type(name)
  LIMBIC_CONTROL_PARAMETER_FIELDS(LIMBIC_FIELD)
#undef LIMBIC_FIELD
#undef LIMBIC_MAGNITUDE_double
#undef LIMBIC_MAGNITUDE_int
}

void Rule(Check& c, const msg::AffectState& m) {
  const std::pair<const char*, const flatbuffers::Vector<double>*> vectors[] = {
      {"stimuli_raw", m.stimuli_raw()},
      {"stimuli_norm", m.stimuli_norm()},
      {"stimuli_damped", m.stimuli_damped()},
      {"emotions_global", m.emotions_global()},
      {"emotions_mapped", m.emotions_mapped()},
      {"emotions_combined", m.emotions_combined()},
      {"moods", m.moods()},
      {"drives_emotional", m.drives_emotional()},
      {"drives", m.drives()},
      {"moods_used", m.moods_used()}};
  for (const auto& [name, v] : vectors) {
    if (v) c.Count(name, v->size(), 64);
    c.Finites(name, v, 1e12);
  }
  c.Finite("drive_min", m.drive_min(), 1e12);
  c.Finite("drive_max", m.drive_max(), 1e12);
  c.Range("compute_time_s", m.compute_time_s(), 0.0, 1e6);
}

void Rule(Check& c, const msg::EmotionLayer& m) {
  const int64_t cells = c.Grid("info", m.info(), /*required=*/false);
  if (!c.ok()) return;
  c.SameLength("cost", m.cost(), static_cast<size_t>(cells), "width*height");
  if (m.additive()) {
    // The companion-paper bias c_e − p_o = (w7·E_F + w8·(1 − E_S) − w9·E_H)·(1 − E_A) is a signed cost
    // added to p_o (the planner clamps the sum to [0, 1]); with the shipped weights it spans [−0.2, 1.15].
    c.Finites("cost", m.cost(), 10.0);
  } else {
    c.Probabilities("cost", m.cost());  // Emo(x), OR-fused with weight W_p4 (eqs. 5.3–5.4)
  }
}

void Rule(Check& c, const msg::AffectSnapshot& m) {
  const int64_t cells = c.Grid("info", m.info(), /*required=*/false);
  if (!c.ok()) return;
  c.Range("ticks", static_cast<double>(m.ticks()), 0, 9e18);
  c.Finites("stimuli_damped", m.stimuli_damped(), 1e12);
  c.Finites("moods", m.moods(), 1e12);
  c.Finites("previous_emotions", m.previous_emotions(), 1e12);
  c.Finites("previous_mood_targets", m.previous_mood_targets(), 1e12);
  c.Finites("previous_drives", m.previous_drives(), 1e12);
  if (m.stuck_segments()) {
    c.Count("stuck_segments", m.stuck_segments()->size(), 1u << 16);
    c.Aligned("stuck_segments", m.stuck_segments());
    for (flatbuffers::uoffset_t i = 0; i < m.stuck_segments()->size() && c.ok(); ++i) {
      const auto& s = *m.stuck_segments()->Get(i);
      c.Finite("stuck_segments.t_start", s.t_start(), 1e12, i);
      c.Finite("stuck_segments.dt", s.dt(), 1e12, i);
      c.Finite("stuck_segments.speed", s.speed(), kMaxSpeed, i);
      c.Finite("stuck_segments.heading", s.heading(), 1e3, i);
    }
  }
  if (m.emotion_maps()) {
    c.Count("emotion_maps", m.emotion_maps()->size(), 64);
    for (flatbuffers::uoffset_t i = 0; i < m.emotion_maps()->size() && c.ok(); ++i) {
      const auto* values = m.emotion_maps()->Get(i)->values();
      c.SameLength("emotion_maps.values", values, static_cast<size_t>(cells), "width*height");
      c.Finites("emotion_maps.values", values, 1e12);
    }
  }
}

void Rule(Check& c, const msg::RunMetrics& m) {
  c.Range("iteration", m.iteration(), 0, 1e9);
  c.Range("completion_time_s", m.completion_time_s(), 0.0, 1e9);
  c.Range("collisions", m.collisions(), 0, 1e9);
  c.Range("collisions_per_min", m.collisions_per_min(), 0.0, 1e9);
  c.Finite("mean_velocity", m.mean_velocity(), kMaxSpeed);
  c.Range("exec_time_ratio", m.exec_time_ratio(), 0.0, 1e9);
  c.Probability("coverage", m.coverage());
  c.Range("distance_travelled", m.distance_travelled(), 0.0, 1e12);
}

void Rule(Check& c, const msg::MissionStatus& m) {
  c.Range("iteration", m.iteration(), 0, 1e9);
  c.Range("iterations", m.iterations(), 0, 1e9);
  c.Vec2("goal", m.goal());
  c.Range("distance_to_goal", m.distance_to_goal(), 0.0, kMaxCoordinate);
  c.Range("elapsed_s", m.elapsed_s(), 0.0, 1e12);
  c.Range("collisions", m.collisions(), 0, 1e9);
}

// Recruitment (services/recruiter). The protocol layer itself counts and ignores malformed or out-of-order
// messages (spec §2); these rules only keep non-finite numbers and unbounded sizes off the bus.
void Rule(Check& c, const msg::RecruitMessage& m) {
  c.Range("type", static_cast<double>(m.type()), 0, 5);
  c.Finite("stamp_s", m.stamp_s(), 1e12);
  c.Text("percept", m.percept(), 1024);
  c.Finite("location_x", m.location_x());
  c.Finite("location_y", m.location_y());
  // NaN is the schema's "no override"; anything else must be a finite threshold.
  if (!std::isnan(m.threshold_override())) c.Finite("threshold_override", m.threshold_override(), 1e9);
  c.Range("eta_s", m.eta_s(), 0.0, 1e9);
  c.Range("lease_s", m.lease_s(), 0.0, 1e9);
}

void Rule(Check& c, const msg::RecruitState& m) {
  c.Text("role", m.role(), 64);
  c.Text("strategy", m.strategy(), 64);
  c.Finite("x", m.x());
  c.Finite("y", m.y());
  c.Finite("shame", m.shame(), 1e9);
  c.Finite("shame_now", m.shame_now(), 1e9);
  c.Finite("threshold", m.threshold(), 1e9);
  if (!std::isnan(m.last_wait_s())) c.Range("last_wait_s", m.last_wait_s(), 0.0, 1e12);  // NaN: none yet
  if (m.transmissions() != nullptr) c.Count("transmissions", m.transmissions()->size(), 6);
}

void Rule(Check& c, const msg::RadioStats& m) {
  if (m.attempts() != nullptr) c.Count("attempts", m.attempts()->size(), 6);
  if (m.dropped() != nullptr) c.Count("dropped", m.dropped()->size(), 6);
  if (m.robots() != nullptr) c.Count("robots", m.robots()->size(), 4096);
  c.Probability("loss", m.loss());
}

// Crowds of b_nav robots (services/crowd, issue 19).
void Rule(Check& c, const msg::CrowdState& m) {
  c.Finite("efficacy", m.efficacy(), 1e3);
  c.Range("free_space", m.free_space(), 0.0, 1.0);
  c.Probability("nearby_frustration", m.nearby_frustration());
  c.Finite("task_delay", m.task_delay(), 1e12);
  c.Range("extra_rotations", m.extra_rotations(), 0.0, 4.0);
  c.Text("emotion", m.emotion(), 64);
  if (m.activations() != nullptr) {
    c.Count("activations", m.activations()->size(), 64);
    c.Finites("activations", m.activations(), 1e12);
  }
  c.Range("caution", m.caution(), 0.0, 1e3);
  c.Range("margin", m.margin(), 0.0, 100.0);
  c.Range("optimal_speed", m.optimal_speed(), 0.0, 100.0);
  c.Range("half_fov", m.half_fov(), 0.0, 3.2);
  c.Range("horizon", m.horizon(), 0.0, 1e3);
  c.Range("radius", m.radius(), 0.0, 100.0);
  c.Finite("desired_heading", m.desired_heading(), 1e3);
  c.Range("desired_speed", m.desired_speed(), 0.0, 100.0);
}

void Rule(Check& c, const msg::CrowdNeighbours& m) {
  if (m.neighbours() == nullptr) return;
  c.Count("neighbours", m.neighbours()->size(), 4096);
  for (flatbuffers::uoffset_t i = 0; i < m.neighbours()->size() && c.ok(); ++i) {
    const msg::CrowdNeighbour* n = m.neighbours()->Get(i);
    c.Finite("neighbours.x", n->x(), kMaxCoordinate, i);
    c.Finite("neighbours.y", n->y(), kMaxCoordinate, i);
    c.Finite("neighbours.vx", n->vx(), 1e3, i);
    c.Finite("neighbours.vy", n->vy(), 1e3, i);
    c.Range("neighbours.radius", n->radius(), 0.0, 100.0, i);
    c.Text("neighbours.emotion", n->emotion(), 64);
    c.Range("neighbours.id", n->id(), -1, 1e6, i);
  }
}

// Heterogeneous exploration (services/explore, issue 18 item 4).
void Rule(Check& c, const msg::ExploreTask& m) {
  c.Range("task_id", static_cast<double>(m.task_id()), -1, 9e18);
  if (m.task_id() == 0 || (m.task_id() < 0 && !m.finished())) {
    c.Fail("task_id", "must be > 0 (or -1 with finished)", static_cast<double>(m.task_id()));
  }
  c.Range("environment", m.environment(), -1, static_cast<double>(kMaxGridCells));
  if (m.tiles() != nullptr) {
    c.Count("tiles", m.tiles()->size(), 1u << 16);
    for (flatbuffers::uoffset_t i = 0; i < m.tiles()->size() && c.ok(); ++i)
      c.Range("tiles", m.tiles()->Get(i), 0, static_cast<double>(kMaxGridCells), i);
  }
  c.Points("waypoints", m.waypoints());
  const double n = m.waypoints() ? static_cast<double>(m.waypoints()->size()) : 0.0;
  c.Range("approach", m.approach(), 0, n);
  c.Range("allocation_changes", m.allocation_changes(), 0, 2e9);
  c.Probability("coverage", m.coverage());
}

void Rule(Check& c, const msg::ExploreReport& m) {
  c.Vec2("position", m.position());
  c.Range("task_id", static_cast<double>(m.task_id()), -1, 9e18);
  c.Range("waypoints_done", m.waypoints_done(), 0, 2e9);
  c.Range("waypoints_skipped", m.waypoints_skipped(), 0, m.waypoints_done());
}

void Rule(Check& c, const msg::ExploreCall& m) {
  if (m.round() <= 0) c.Fail("round", "must be > 0", static_cast<double>(m.round()));
  c.Range("deadline_tick", static_cast<double>(m.deadline_tick()), 0, 9e18);
  const int64_t cells = c.Grid("grid", m.grid(), /*required=*/true);
  if (!c.ok()) return;
  c.Range("tile_cells", m.tile_cells(), 1, static_cast<double>(kMaxGridSide));
  c.Range("tiles_x", m.tiles_x(), 1, static_cast<double>(kMaxGridSide));
  c.Range("tiles_y", m.tiles_y(), 1, static_cast<double>(kMaxGridSide));
  if (!c.ok()) return;
  const int64_t tiles = int64_t{m.tiles_x()} * m.tiles_y();
  if (tiles > cells) c.Fail("tiles_x", "times tiles_y must not exceed the grid's cells", static_cast<double>(tiles));
  if (m.tile_cells() * int64_t{m.tiles_x()} < m.grid()->width() ||
      m.tile_cells() * int64_t{m.tiles_y()} < m.grid()->height()) {
    c.Fail("tile_cells", "times tiles_x, tiles_y must cover the grid", m.tile_cells());
  }
  if (!c.ok()) return;
  c.SameLength("centres", m.centres(), static_cast<size_t>(tiles), "tiles_x · tiles_y", /*may_be_empty=*/false);
  c.SameLength("multipliers", m.multipliers(), static_cast<size_t>(tiles), "tiles_x · tiles_y",
               /*may_be_empty=*/false);
  if (!c.ok()) return;
  c.Points("centres", m.centres());
  c.Finites("multipliers", m.multipliers(), 1e9);
  for (flatbuffers::uoffset_t i = 0; i < m.multipliers()->size() && c.ok(); ++i) {
    const double v = m.multipliers()->Get(i);
    if (v != 0.0 && v < 1.0) c.Fail("multipliers", "must be 0 (cannot be entered) or >= 1", v, i);
  }
}

void Rule(Check& c, const msg::ExploreBid& m) {
  if (m.round() <= 0) c.Fail("round", "must be > 0", static_cast<double>(m.round()));
  c.Range("from_tile", m.from_tile(), 0, static_cast<double>(kMaxGridCells));
  if (m.costs() == nullptr || m.costs()->size() == 0) {
    c.Fail("costs", "must hold one cost per tile", 0);
    return;
  }
  c.Count("costs", m.costs()->size(), static_cast<size_t>(kMaxGridCells));
  c.Finites("costs", m.costs(), 1e12);
  for (flatbuffers::uoffset_t i = 0; i < m.costs()->size() && c.ok(); ++i) {
    const double v = m.costs()->Get(i);
    if (v < 0 && v != -1.0) c.Fail("costs", "must be >= 0, or -1 (cannot get there)", v, i);
  }
}

// The laser navigator (services/laser_sim, services/laser_nav; spec reactive-topological §5.2).
constexpr double kLaserRoomCm = 1e6;  // positions in cm: far beyond any room, finite

void Rule(Check& c, const msg::LaserScan& m) {
  if (m.ranges_cm() == nullptr || m.ranges_cm()->size() != 360) {
    c.Fail("ranges_cm", "must hold 360 ranges", m.ranges_cm() ? m.ranges_cm()->size() : 0);
    return;
  }
  c.Range("max_range_cm", m.max_range_cm(), 1, 255);
  c.Range("robot_heading_deg", m.robot_heading_deg(), 0.0, 360.0);
}

void Rule(Check& c, const msg::LaserOdometry& m) {
  c.Finite("x_cm", m.x_cm(), kLaserRoomCm);
  c.Finite("y_cm", m.y_cm(), kLaserRoomCm);
  c.Range("heading_deg", m.heading_deg(), 0.0, 360.0);
  c.Finite("turn_rate_dps", m.turn_rate_dps(), 1e6);
  c.Finite("v_cms", m.v_cms(), 1e4);
  c.Finite("a_cms2", m.a_cms2(), 1e6);
  c.Finite("v_left_cms", m.v_left_cms(), 1e4);
  c.Finite("v_right_cms", m.v_right_cms(), 1e4);
}

void Rule(Check& c, const msg::LaserGoal& m) {
  c.Finite("goal_x_cm", m.goal_x_cm(), kLaserRoomCm);
  c.Finite("goal_y_cm", m.goal_y_cm(), kLaserRoomCm);
  c.Range("time_limit_s", m.time_limit_s(), 0.0, 1e9);
}

void Rule(Check& c, const msg::HeadingCommand& m) {
  // NaN is the schema's "keep the heading"; anything else is a finite bearing (any turn count).
  if (!std::isnan(m.desired_heading_deg())) c.Finite("desired_heading_deg", m.desired_heading_deg(), 1e6);
  if (!(m.speed_cap_cms() >= 0.0)) c.Fail("speed_cap_cms", "must be >= 0 (inf: no cap)", m.speed_cap_cms());
  c.Range("active_case", m.active_case(), -1, 63);
}

void Rule(Check& c, const msg::LaserTruth& m) {
  c.Finite("x_cm", m.x_cm(), kLaserRoomCm);
  c.Finite("y_cm", m.y_cm(), kLaserRoomCm);
  c.Range("heading_deg", m.heading_deg(), 0.0, 360.0);
  c.Range("path_cm", m.path_cm(), 0.0, 1e12);
  c.Range("closest_contact_cm", m.closest_contact_cm(), -kLaserRoomCm, kLaserRoomCm);
  c.Range("time_s", m.time_s(), 0.0, 1e12);
}

// The laser navigator's map layer (services/laser_topo; spec §5.2 items 9–15). Node ids index the mapper's
// node array: -1 (none) or 0 … kMaxTopoNodes − 1; an exit sector is 0 … 7.
constexpr double kMaxTopoNodes = 65535;  // §5.2: uint16 node ids

void Rule(Check& c, const msg::TopoObstacleList& m) {
  if (m.obstacles() == nullptr) return;
  c.Count("obstacles", m.obstacles()->size(), 15);  // §3.2 step 5
  c.Aligned("obstacles", m.obstacles());
  for (flatbuffers::uoffset_t i = 0; i < m.obstacles()->size() && c.ok(); ++i) {
    const msg::TopoObstacleEntry* o = m.obstacles()->Get(i);
    c.Range("obstacles.bearing_min", o->bearing_min(), 0, 359, i);
    c.Range("obstacles.bearing_max", o->bearing_max(), 0, 359, i);
    c.Range("obstacles.bearing", o->bearing(), 0, 359, i);
    c.Range("obstacles.range_cm", o->range_cm(), 0.0, 255.0, i);
  }
}

void Rule(Check& c, const msg::TopoFeatureList& m) {
  const size_t n = m.features() ? m.features()->size() : 0;
  if (m.features() != nullptr) {
    c.Count("features", n, 50);  // §3.3
    c.Aligned("features", m.features());
    for (flatbuffers::uoffset_t i = 0; i < n && c.ok(); ++i) {
      const msg::TopoFeatureEntry* f = m.features()->Get(i);
      c.Range("features.a", f->a(), 0, 14, i);
      c.Range("features.b", f->b(), 0, 14, i);
      c.Range("features.bearing_deg", f->bearing_deg(), 0.0, 180.0, i);
      c.Range("features.length_cm", f->length_cm(), 0.0, 1e3, i);
      c.Range("features.nvb_deg", f->nvb_deg(), 0.0, 360.0, i);
      c.Range("features.nvr_cm", f->nvr_cm(), 0.0, 1e3, i);
      for (double v : {f->pa_x_cm(), f->pa_y_cm(), f->pb_x_cm(), f->pb_y_cm()})
        c.Finite("features.endpoints", v, 1e3, i);
      c.Range("features.range_sum_cm", f->range_sum_cm(), 0.0, 1e3, i);
    }
  }
  c.Range("classified_index", m.classified_index(), -1, static_cast<double>(n) - 1);
}

void Rule(Check& c, const msg::TopoCurrentNode& m) {
  c.Range("node_id", m.node_id(), -1, kMaxTopoNodes - 1);
  c.Finite("offset_x_cm", m.offset_x_cm(), kLaserRoomCm);
  c.Finite("offset_y_cm", m.offset_y_cm(), kLaserRoomCm);
  c.Range("nodes", m.nodes(), 0, kMaxTopoNodes);
  if (m.node_id() >= m.nodes()) c.Fail("node_id", "must be below nodes", m.node_id());
}

// One node (§3.5) of a snapshot or an update; `i` its index (names the failure), link targets < `max_nodes`.
void TopoNodeRule(Check& c, const msg::TopoNodeEntry* node, flatbuffers::uoffset_t i, double max_nodes) {
  for (double v : {node->bearing_deg(), node->ref_bearing_deg()}) c.Range("nodes.bearing_deg", v, 0.0, 180.0, i);
  for (double v : {node->length_cm(), node->v_bearing(), node->v_length()}) c.Range("nodes.length_cm", v, 0.0, 1e4, i);
  for (double v :
       {node->s_bearing(), node->ss_bearing(), node->s_length(), node->ss_length(), node->north(), node->east(),
        node->south(), node->west(), node->rel_x_cm(), node->rel_y_cm(), node->rel_sum_x_cm(), node->rel_sum_y_cm()}) {
    c.Finite("nodes.statistics", v, 1e15, i);
  }
  c.Range("nodes.n", static_cast<double>(node->n()), 0, 9e15, i);
  c.Range("nodes.rel_n", static_cast<double>(node->rel_n()), 0, 9e15, i);
  c.Range("nodes.visits", node->visits(), 0, 2e9, i);
  if (node->links() != nullptr) {
    c.Aligned("nodes.links", node->links());
    c.Count("nodes.links", node->links()->size(), 1024);
    for (flatbuffers::uoffset_t j = 0; j < node->links()->size() && c.ok(); ++j) {
      const msg::TopoLinkEntry* l = node->links()->Get(j);
      c.Range("nodes.links.to", l->to(), 0, max_nodes - 1, i);
      c.Range("nodes.links.range_cm", l->range_cm(), 0.0, kLaserRoomCm, i);
      c.Range("nodes.links.bearing_deg", l->bearing_deg(), 0.0, 360.0, i);
    }
  }
  if (node->exits() == nullptr || node->exits()->size() != 8) {
    c.Fail("nodes.exits", "must hold 8 exits (one per 45° sector)", node->exits() ? node->exits()->size() : 0, i);
    return;
  }
  c.Aligned("nodes.exits", node->exits());
  for (flatbuffers::uoffset_t k = 0; k < 8 && c.ok(); ++k) {
    const msg::TopoExitEntry* e = node->exits()->Get(k);
    c.Range("nodes.exits.mask", e->mask(), 0, 4, i);
    c.Range("nodes.exits.tries", e->tries(), 0, 1000, i);
    c.Range("nodes.exits.prob", e->prob(), 0.0, 100.0, i);
    c.Range("nodes.exits.feature_bearing_deg", e->feature_bearing_deg(), 0.0, 180.0, i);
    c.Range("nodes.exits.bearing_deg", e->bearing_deg(), 0.0, 360.0, i);
    for (double v : {e->feature_length_cm(), e->range_cm()}) c.Range("nodes.exits.length", v, 0.0, 1e4, i);
    c.Finite("nodes.exits.proj_seen_cm", e->proj_seen_cm(), kLaserRoomCm, i);
  }
}

void Rule(Check& c, const msg::TopoMapSnapshot& m) {
  const size_t n = m.nodes() ? m.nodes()->size() : 0;
  c.Count("nodes", n, static_cast<size_t>(kMaxTopoNodes));
  c.Range("current", m.current(), -1, static_cast<double>(n) - 1);
  for (flatbuffers::uoffset_t i = 0; i < n && c.ok(); ++i) {
    const msg::TopoNodeEntry* node = m.nodes()->Get(i);
    if (node->id() != static_cast<int>(i)) c.Fail("nodes.id", "must be the node's index", node->id(), i);
    TopoNodeRule(c, node, i, static_cast<double>(n));
  }
}

void Rule(Check& c, const msg::TopoPlanRequest& m) {
  if (m.request_id() == 0) c.Fail("request_id", "must be > 0", 0);
  c.Range("current_node", m.current_node(), 0, kMaxTopoNodes - 1);
  c.Finite("goal_x_cm", m.goal_x_cm(), kLaserRoomCm);
  c.Finite("goal_y_cm", m.goal_y_cm(), kLaserRoomCm);
  c.Range("reason", static_cast<int>(m.reason()), 0, 3);
}

void Rule(Check& c, const msg::TopoPath& m) {
  if (m.request_id() == 0) c.Fail("request_id", "must be > 0", 0);
  c.Range("start_node", m.start_node(), -1, kMaxTopoNodes - 1);
  const size_t n = m.waypoints() ? m.waypoints()->size() : 0;
  c.Count("waypoints", n, 200);  // §5.2: wp[200]
  if (m.waypoints() != nullptr) {
    c.Aligned("waypoints", m.waypoints());
    for (flatbuffers::uoffset_t i = 0; i < n && c.ok(); ++i) {
      const msg::TopoWaypointEntry* w = m.waypoints()->Get(i);
      c.Range("waypoints.node_id", w->node_id(), -1, kMaxTopoNodes - 1, i);
      c.Finite("waypoints.x_cm", w->x_cm(), kLaserRoomCm, i);
      c.Finite("waypoints.y_cm", w->y_cm(), kLaserRoomCm, i);
    }
  }
  if (m.valid()) {
    // A usable path: from a node, through at least the exit's gap and the pass-through point.
    c.Range("start_node", m.start_node(), 0, kMaxTopoNodes - 1);
    c.Range("waypoints.size", static_cast<double>(n), 2, 200);
    c.Range("exit_node", m.exit_node(), 0, kMaxTopoNodes - 1);
    c.Range("exit_sector", m.exit_sector(), 0, 7);
  } else {
    c.Range("exit_node", m.exit_node(), -1, kMaxTopoNodes - 1);
    c.Range("exit_sector", m.exit_sector(), -1, 7);
  }
  c.Finite("weight", m.weight(), 1e12);
}

void Rule(Check& c, const msg::TopoMapUpdate& m) {
  if (m.seq() == 0) c.Fail("seq", "must be >= 1 (updates count from 1)", 0);
  c.Range("op", static_cast<int>(m.op()), 0, 2);
  if (m.node() == nullptr) {
    c.Fail("node", "is required", 0);
    return;
  }
  // The node's id is its index; its links may name nodes the receiver has not heard of yet (it checks).
  c.Range("node.id", m.node()->id(), 0, kMaxTopoNodes - 1);
  if (c.ok()) TopoNodeRule(c, m.node(), static_cast<flatbuffers::uoffset_t>(m.node()->id()), kMaxTopoNodes);
}

void Rule(Check& c, const msg::EstimatedPose& m) {
  for (double v : {m.x_cm(), m.y_cm(), m.odom_x_cm(), m.odom_y_cm()}) c.Finite("x_cm", v, kLaserRoomCm);
  c.Range("heading_deg", m.heading_deg(), 0.0, 360.0);
  c.Range("node_id", m.node_id(), -1, kMaxTopoNodes - 1);
}

void Rule(Check& c, const msg::TopoExitAttempt& m) {
  c.Range("node_id", m.node_id(), 0, kMaxTopoNodes - 1);
  c.Range("sector", m.sector(), 0, 7);
  c.Range("state", static_cast<int>(m.state()), 0, 2);
}

template <typename T>
std::string ValidateTyped(const uint8_t* data) {
  const T& m = *flatbuffers::GetRoot<T>(data);
  Check c(std::string_view(Traits<T>::kName).substr(std::string_view("limbic.msg.").size()), data);
  HeaderRule(c, m.header());
  if (c.ok()) Rule(c, m);
  return c.Result();
}

using Validator = std::string (*)(const uint8_t*);

struct Entry {
  const char* identifier;
  Validator validate;
};

// The table keyed by type: every type in LIMBIC_MESSAGE_TYPES must have a Rule above (a missing one is
// a compile error here).
#define LIMBIC_VALIDATOR_ENTRY(Type, Id) Entry{Id, &ValidateTyped<msg::Type>},
constexpr Entry kValidators[] = {LIMBIC_MESSAGE_TYPES(LIMBIC_VALIDATOR_ENTRY)};
#undef LIMBIC_VALIDATOR_ENTRY

}  // namespace

std::string ValidateValues(const MessageType& type, const uint8_t* verified_data, size_t size) {
  // kValidators lists the types in the registry's order (both from LIMBIC_MESSAGE_TYPES): a type from the
  // registry finds its rule by position, the same few instructions for every type.
  const std::span<const MessageType> all = AllTypes();
  static_assert(std::size(kValidators) > 0);
  const std::less<const MessageType*> before;  // a total order even for a `type` not in the registry
  if (!before(&type, all.data()) && before(&type, all.data() + all.size()) && all.size() == std::size(kValidators)) {
    const Entry& e = kValidators[&type - all.data()];
    if (size >= 8 && std::memcmp(verified_data + 4, e.identifier, 4) == 0) return e.validate(verified_data);
  }
  const std::string_view id = IdentifierOf(verified_data, size);
  for (const auto& e : kValidators) {
    if (id == e.identifier) return e.validate(verified_data);
  }
  return std::string(type.name) + ": no validation rule";
}

std::string VerifyAndValidate(const MessageType& type, const uint8_t* data, size_t size) {
  if (!type.verify(data, size)) return std::string(type.name) + ": failed FlatBuffers verification";
  return ValidateValues(type, data, size);
}

}  // namespace limbic::messages
