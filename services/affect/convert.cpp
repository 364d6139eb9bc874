#include "services/affect/convert.hpp"

#include <cmath>

#include "common/convert/convert.hpp"

namespace limbic::affect {

constexpr size_t kMaxStuckSegments = 100000;

namespace {

template <typename Array>
flatbuffers::Offset<flatbuffers::Vector<double>> Vec(flatbuffers::FlatBufferBuilder& fbb, const Array& a) {
  return fbb.CreateVector(a.data(), a.size());
}

bool AllFinite(const flatbuffers::Vector<double>& v) {
  for (double x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

// Copies `v` into `out` if it has exactly out.size() finite values.
template <typename Array>
bool CopyExact(const flatbuffers::Vector<double>* v, Array* out) {
  if (v == nullptr || v->size() != out->size() || !AllFinite(*v)) return false;
  std::copy(v->begin(), v->end(), out->begin());
  return true;
}

}  // namespace

flatbuffers::Offset<msg::AffectSnapshot> SnapshotToMsg(flatbuffers::FlatBufferBuilder& fbb,
                                                       flatbuffers::Offset<msg::Header> header,
                                                       const std::string& model, const geometry::GridSpec& grid,
                                                       const AffectState& state) {
  std::vector<msg::StuckSample> segments;
  segments.reserve(state.stuck.segments.size());
  for (const auto& s : state.stuck.segments) segments.emplace_back(s.t_start, s.dt, s.speed, s.heading);
  std::vector<flatbuffers::Offset<msg::EmotionMapValues>> maps;
  for (const auto& m : state.emotion_maps) maps.push_back(msg::CreateEmotionMapValues(fbb, Vec(fbb, m)));
  const msg::GridInfo info = convert::ToMsg(grid);
  auto model_offset = fbb.CreateString(model);
  auto stimuli = Vec(fbb, state.stimuli_damped);
  auto segments_offset = fbb.CreateVectorOfStructs(segments);
  auto maps_offset = fbb.CreateVector(maps);
  auto moods = Vec(fbb, state.moods);
  auto previous_emotions = Vec(fbb, state.previous_emotions);
  auto previous_mood_targets = Vec(fbb, state.previous_mood_targets);
  auto previous_drives = Vec(fbb, state.previous_drives);
  return msg::CreateAffectSnapshot(fbb, header, model_offset, &info, state.ticks, stimuli, segments_offset,
                                   state.stuck.has_last, state.stuck.last_time, state.stuck.last_speed,
                                   state.stuck.last_heading, maps_offset, moods, previous_emotions,
                                   previous_mood_targets, previous_drives);
}

std::optional<AffectState> SnapshotFromMsg(const msg::AffectSnapshot& snapshot, const std::string& model,
                                           const geometry::GridSpec& grid, std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<AffectState> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (snapshot.model() == nullptr || snapshot.model()->str() != model) {
    return fail("snapshot of configuration '" + (snapshot.model() ? snapshot.model()->str() : "") + "', running '" +
                model + "'");
  }
  if (snapshot.info() == nullptr || !(convert::FromMsg(*snapshot.info()) == grid)) return fail("another grid");
  AffectState state;
  state.ticks = snapshot.ticks();
  if (!CopyExact(snapshot.stimuli_damped(), &state.stimuli_damped) || !CopyExact(snapshot.moods(), &state.moods) ||
      !CopyExact(snapshot.previous_emotions(), &state.previous_emotions) ||
      !CopyExact(snapshot.previous_mood_targets(), &state.previous_mood_targets) ||
      !CopyExact(snapshot.previous_drives(), &state.previous_drives)) {
    return fail("an array of the wrong length or with non-finite values");
  }
  if (const auto* segments = snapshot.stuck_segments()) {
    // The stuck window spans seconds of samples; a snapshot claiming more is not one we wrote (a valid
    // FlatBuffer may still carry a million of them).
    if (segments->size() > kMaxStuckSegments) return fail("a stuck window of more than 100,000 samples");
    for (const auto* s : *segments) {
      if (!std::isfinite(s->t_start()) || !std::isfinite(s->dt()) || !std::isfinite(s->speed()) ||
          !std::isfinite(s->heading())) {
        return fail("a non-finite stuck-window sample");
      }
      state.stuck.segments.push_back({s->t_start(), s->dt(), s->speed(), s->heading()});
    }
  }
  state.stuck.has_last = snapshot.stuck_has_last();
  state.stuck.last_time = snapshot.stuck_last_time();
  state.stuck.last_speed = snapshot.stuck_last_speed();
  state.stuck.last_heading = snapshot.stuck_last_heading();
  const auto* maps = snapshot.emotion_maps();
  if (maps == nullptr || maps->size() != state.emotion_maps.size()) return fail("the wrong number of emotion maps");
  for (size_t e = 0; e < state.emotion_maps.size(); ++e) {
    const auto* values = maps->Get(e)->values();
    const size_t size = values ? values->size() : 0;
    if (size != static_cast<size_t>(grid.CellCount()) || (values && !AllFinite(*values))) {
      return fail("an emotion map of the wrong size or with non-finite values");
    }
    if (values) state.emotion_maps[e].assign(values->begin(), values->end());
  }
  return state;
}

}  // namespace limbic::affect
