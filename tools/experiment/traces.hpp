// Per-run trace files written by the executor beside runs.csv for the report's example paths and
// affect time series: trace_<run_id>.csv (trajectory + final occupancy grid) and
// affect_<run_id>.csv; and, for every run with a failed traversal (traced or not),
// failed_<run_id>.csv: where each failed traversal stopped and its decimated path, for the report's
// failures section.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/geometry/geometry.hpp"

namespace limbic::experiment {

// One true pose sample of the robot (ground truth from the simulator), every control cycle or less.
struct TrajectorySample {
  double t = 0.0;  // s since the start of the run
  int iteration = 1;
  double x = 0.0, y = 0.0, theta = 0.0;
};

// The trajectory of one run and the mapper's occupancy grid at its end.
//
// trace_<run_id>.csv:
//   # limbic run trace v1
//   # run_id,<id>            # set,<letter>        # index,<env>
//   # environment_seed,<n>   # seed,<n>
//   # grid,<origin_x>,<origin_y>,<resolution>,<width>,<height>
//   t,iteration,x,y,theta
//   <one line per sample>
//   # p_o
//   <height lines of width values: row iy = 0 (bottom) first>
//   # end
struct RunTrace {
  std::string run_id;
  char set = 'B';
  int env = 0;
  uint64_t environment_seed = 1;
  uint64_t seed = 0;
  std::vector<TrajectorySample> samples;
  geometry::GridSpec grid;        // of the final occupancy grid
  std::vector<double> occupancy;  // p_o per cell, index = grid.Index(cell); may be empty
};

// One affect sample (every control cycle or a subsample).
//
// affect_<run_id>.csv:
//   # limbic affect trace v1
//   # run_id,<id>
//   t,iteration,s_danger,...,s_error,e_anger,...,e_confusion,m_positive,m_negative,
//   d_safety,...,d_introspection,d_min,d_max
//   <one line per sample>
//   # end
struct AffectSample {
  double t = 0.0;
  int iteration = 1;
  std::array<double, 9> stimuli{};   // affect::kStimulusNames order
  std::array<double, 7> emotions{};  // affect::kEmotionNames order
  std::array<double, 2> moods{};     // positive, negative
  std::array<double, 6> drives{};    // safety, speed, efficiency, exploration, action, introspection
  double d_min = 0.0, d_max = 1.0;   // survival-drive bounds from the moods (eq. 8.27)
};

struct AffectTrace {
  std::string run_id;
  std::vector<AffectSample> samples;
};

// A traversal that timed out: where it stopped and the path that led there (true poses).
struct FailedTraversal {
  int iteration = 1;
  double goal_x = 0.0, goal_y = 0.0;
  double distance_to_goal = 0.0;          // true distance from the goal when the traversal timed out (m)
  std::vector<TrajectorySample> samples;  // decimated by PathDecimator; the last one is where it stopped
};

// The failed traversals of one run.
//
// failed_<run_id>.csv:
//   # limbic failed traversals v1
//   # run_id,<id>   # set,<letter>   # index,<env>   # environment_seed,<n>   # seed,<n>
//   traversal,<iteration>,<goal_x>,<goal_y>,<distance_to_goal>
//   t,x,y,theta               (the path of that traversal, one line per kept pose, to 1 mm / 1 ms /
//   1 mrad) traversal,...             (the next failed traversal)
struct FailureTrace {
  std::string run_id;
  char set = 'B';
  int env = 0;
  uint64_t environment_seed = 1;
  uint64_t seed = 0;
  std::vector<FailedTraversal> traversals;
};

// Keeps a bounded, evenly thinned path of one traversal in memory, so that the path of any
// traversal that fails can be written without tracing every run. A pose is kept when it lies at
// least `spacing` from the last kept pose (a robot standing still or pinned adds nothing); when
// `max_points` are held, every second point is dropped and the spacing doubles, so memory is
// O(max_points) however long and wandering the traversal is. The last pose given is always kept
// (Take()).
//   Defaults: 0.1 m (half the robot's radius, finer than the 0.35 m map cells a picture shows) and
//   1,000 points (≈ 40 KB in memory, ≈ 40 KB in a file) per traversal.
class PathDecimator {
 public:
  explicit PathDecimator(double spacing_m = 0.1, size_t max_points = 1000);
  void Add(const TrajectorySample& pose);
  // The kept poses, ending with the last one added; resets to an empty path and the initial
  // spacing.
  std::vector<TrajectorySample> Take();
  size_t size() const { return points_.size() + (has_last_ ? 1 : 0); }
  double spacing() const { return spacing_; }

 private:
  double initial_spacing_;
  double spacing_;
  size_t max_points_;
  std::vector<TrajectorySample> points_;
  TrajectorySample last_;  // the newest pose (kept by Take even when closer than the spacing)
  bool has_last_ = false;
};

// Names used in the affect CSV columns and the report legends (the affect engine's order).
extern const std::array<const char*, 9> kStimulusLabels;
extern const std::array<const char*, 7> kEmotionLabels;
extern const std::array<const char*, 2> kMoodLabels;
extern const std::array<const char*, 6> kDriveLabels;

std::string TraceFileName(const std::string& run_id);         // "trace_<run_id>.csv"
std::string AffectTraceFileName(const std::string& run_id);   // "affect_<run_id>.csv"
std::string FailureTraceFileName(const std::string& run_id);  // "failed_<run_id>.csv"

// Every trace file ends with this line; a file without it was cut.
inline constexpr const char* kEndMarker = "# end";

// A trace file that ends before its end marker (cut by a full disk or an interrupted copy).
class TraceCutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether a trace file ends with its end marker (reads only its tail): false for a cut file.
bool TraceFileComplete(const std::string& path);

// Writers replace the file whole or not at all (WriteFileAtomically), ending it with kEndMarker;
// readers throw TraceCutError for a cut file and std::runtime_error naming the file and line on bad
// input.
void WriteRunTrace(const std::string& path, const RunTrace& trace);
RunTrace ReadRunTrace(const std::string& path);
void WriteAffectTrace(const std::string& path, const AffectTrace& trace);
AffectTrace ReadAffectTrace(const std::string& path);
void WriteFailureTrace(const std::string& path, const FailureTrace& trace);
FailureTrace ReadFailureTrace(const std::string& path);

}  // namespace limbic::experiment
