#include "tools/experiment/traces.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tools/experiment/definition.hpp"
#include "tools/experiment/durable_file.hpp"
#include "tools/experiment/results.hpp"

namespace limbic::experiment {
namespace {

std::vector<std::string> SplitComma(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::stringstream ss(line);
  while (std::getline(ss, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

[[noreturn]] void Bad(const std::string& path, int line, const std::string& why) {
  throw std::runtime_error(path + ":" + std::to_string(line) + ": " + why);
}

double ToDouble(const std::string& s, const std::string& path, int line) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) Bad(path, line, "'" + s + "' is not a number");
  return v;
}

uint64_t ToU64(const std::string& s, const std::string& path, int line) {
  uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
    Bad(path, line, "'" + s + "' is not an unsigned integer");
  return v;
}

// A trace is complete when its last line is the end marker; anything else was cut (a full disk, a
// copy interrupted): reported as cut, so the report can skip it instead of failing on its content.
void RequireEnd(const std::string& path, const std::vector<std::string>& lines, bool ended_with_newline) {
  if (lines.empty() || lines.back() != kEndMarker || !ended_with_newline) {
    throw TraceCutError(path + ": cut (ends at line " + std::to_string(lines.size()) + " before its '" + kEndMarker +
                        "' line)");
  }
}

// The lines of a trace, its end marker checked (TraceCutError) and removed.
std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  std::vector<std::string> lines;
  std::stringstream ss(s);
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  RequireEnd(path, lines, !s.empty() && s.back() == '\n');
  lines.pop_back();
  return lines;
}

void WriteText(const std::string& path, const std::string& text) {
  WriteFileAtomically(path, text + kEndMarker + "\n");
}

std::vector<std::string> AffectColumns() {
  std::vector<std::string> c = {"t", "iteration"};
  for (const char* n : kStimulusLabels) c.push_back(std::string("s_") + n);
  for (const char* n : kEmotionLabels) c.push_back(std::string("e_") + n);
  for (const char* n : kMoodLabels) c.push_back(std::string("m_") + n);
  for (const char* n : kDriveLabels) c.push_back(std::string("d_") + n);
  c.push_back("d_min");
  c.push_back("d_max");
  return c;
}

}  // namespace

const std::array<const char*, 9> kStimulusLabels = {"danger",   "stuck",    "pain", "achievement", "density",
                                                    "learning", "mismatch", "cost", "error"};
const std::array<const char*, 7> kEmotionLabels = {"anger",     "fear",     "happiness", "sadness",
                                                   "curiosity", "surprise", "confusion"};
const std::array<const char*, 2> kMoodLabels = {"positive", "negative"};
const std::array<const char*, 6> kDriveLabels = {"safety",      "speed",  "efficiency",
                                                 "exploration", "action", "introspection"};

bool TraceFileComplete(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::string tail = std::string(kEndMarker) + "\n";
  if (!in || in.tellg() < static_cast<std::streamoff>(tail.size())) return false;
  in.seekg(-static_cast<std::streamoff>(tail.size()), std::ios::end);
  std::string last(tail.size(), '\0');
  in.read(last.data(), static_cast<std::streamsize>(last.size()));
  return in && last == tail;
}

std::string TraceFileName(const std::string& run_id) { return "trace_" + run_id + ".csv"; }
std::string AffectTraceFileName(const std::string& run_id) { return "affect_" + run_id + ".csv"; }
std::string FailureTraceFileName(const std::string& run_id) { return "failed_" + run_id + ".csv"; }

PathDecimator::PathDecimator(double spacing_m, size_t max_points)
    : initial_spacing_(spacing_m), spacing_(spacing_m), max_points_(max_points) {
  if (!(spacing_m > 0) || max_points < 2) throw std::invalid_argument("PathDecimator: spacing > 0 and 2+ points");
}

void PathDecimator::Add(const TrajectorySample& pose) {
  if (!std::isfinite(pose.x) || !std::isfinite(pose.y)) return;  // a broken pose is not a place
  last_ = pose;
  has_last_ = true;
  if (!points_.empty() && std::hypot(pose.x - points_.back().x, pose.y - points_.back().y) < spacing_) return;
  points_.push_back(pose);
  has_last_ = false;
  if (points_.size() < max_points_) return;
  // Full: keep every second point (the first included) and ask twice the distance from now on.
  const TrajectorySample newest = points_.back();
  const bool newest_dropped = (points_.size() - 1) % 2 == 1;
  size_t kept = 0;
  for (size_t i = 0; i < points_.size(); i += 2) points_[kept++] = points_[i];
  points_.resize(kept);
  spacing_ *= 2.0;
  if (newest_dropped) {  // Take() still ends with the newest pose
    last_ = newest;
    has_last_ = true;
  }
}

std::vector<TrajectorySample> PathDecimator::Take() {
  std::vector<TrajectorySample> out = std::move(points_);
  if (has_last_) out.push_back(last_);
  points_.clear();
  has_last_ = false;
  spacing_ = initial_spacing_;
  return out;
}

void WriteRunTrace(const std::string& path, const RunTrace& t) {
  if (!t.occupancy.empty() && static_cast<int>(t.occupancy.size()) != t.grid.CellCount())
    throw std::invalid_argument(path + ": occupancy has " + std::to_string(t.occupancy.size()) + " values for a " +
                                std::to_string(t.grid.width) + "x" + std::to_string(t.grid.height) + " grid");
  std::string s = "# limbic run trace v1\n";
  s += "# run_id," + t.run_id + "\n# set," + std::string(1, t.set) + "\n# index," + std::to_string(t.env) +
       "\n# environment_seed," + std::to_string(t.environment_seed) + "\n# seed," + std::to_string(t.seed) + "\n";
  s += "# grid," + FormatNumber(t.grid.origin.x()) + "," + FormatNumber(t.grid.origin.y()) + "," +
       FormatNumber(t.grid.resolution) + "," + std::to_string(t.grid.width) + "," + std::to_string(t.grid.height) +
       "\n";
  s += "t,iteration,x,y,theta\n";
  for (const auto& p : t.samples) {
    s += FormatNumber(p.t) + "," + std::to_string(p.iteration) + "," + FormatNumber(p.x) + "," + FormatNumber(p.y) +
         "," + FormatNumber(p.theta) + "\n";
  }
  if (!t.occupancy.empty()) {
    s += "# p_o\n";
    for (int iy = 0; iy < t.grid.height; ++iy) {
      for (int ix = 0; ix < t.grid.width; ++ix) {
        if (ix) s += ',';
        s += FormatNumber(t.occupancy[t.grid.Index({ix, iy})]);
      }
      s += '\n';
    }
  }
  WriteText(path, s);
}

RunTrace ReadRunTrace(const std::string& path) {
  const auto lines = ReadLines(path);
  if (lines.empty() || lines[0] != "# limbic run trace v1") Bad(path, 1, "not a limbic run trace");
  RunTrace t;
  enum { kHeader, kSamples, kGrid } section = kHeader;
  int row = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    if (line.empty()) continue;
    if (section == kHeader) {
      if (line == "t,iteration,x,y,theta") {
        section = kSamples;
        continue;
      }
      if (line.rfind("# ", 0) != 0) Bad(path, ln, "expected a '# key,value' header line");
      const auto f = SplitComma(line.substr(2));
      if (f.size() < 2) Bad(path, ln, "expected '# key,value'");
      if (f[0] == "run_id")
        t.run_id = f[1];
      else if (f[0] == "set" && f[1].size() == 1)
        t.set = f[1][0];
      else if (f[0] == "index")
        t.env = static_cast<int>(ToU64(f[1], path, ln));
      else if (f[0] == "environment_seed")
        t.environment_seed = ToU64(f[1], path, ln);
      else if (f[0] == "seed")
        t.seed = ToU64(f[1], path, ln);
      else if (f[0] == "grid" && f.size() == 6) {
        t.grid.origin = {ToDouble(f[1], path, ln), ToDouble(f[2], path, ln)};
        t.grid.resolution = ToDouble(f[3], path, ln);
        t.grid.width = static_cast<int>(ToU64(f[4], path, ln));
        t.grid.height = static_cast<int>(ToU64(f[5], path, ln));
      } else {
        Bad(path, ln, "unknown header '" + f[0] + "'");
      }
    } else if (section == kSamples) {
      if (line == "# p_o") {
        section = kGrid;
        t.occupancy.assign(static_cast<size_t>(t.grid.CellCount()), 0.0);
        continue;
      }
      const auto f = SplitComma(line);
      if (f.size() != 5) Bad(path, ln, "expected 5 values (t,iteration,x,y,theta)");
      t.samples.push_back({ToDouble(f[0], path, ln), static_cast<int>(ToDouble(f[1], path, ln)),
                           ToDouble(f[2], path, ln), ToDouble(f[3], path, ln), ToDouble(f[4], path, ln)});
    } else {
      const auto f = SplitComma(line);
      if (row >= t.grid.height || static_cast<int>(f.size()) != t.grid.width)
        Bad(path, ln, "occupancy row does not match the grid size");
      for (int ix = 0; ix < t.grid.width; ++ix) t.occupancy[t.grid.Index({ix, row})] = ToDouble(f[ix], path, ln);
      ++row;
    }
  }
  if (section == kHeader) Bad(path, static_cast<int>(lines.size()), "no sample header");
  if (section == kGrid && row != t.grid.height)
    Bad(path, static_cast<int>(lines.size()), "occupancy grid is incomplete");
  return t;
}

void WriteAffectTrace(const std::string& path, const AffectTrace& t) {
  std::string s = "# limbic affect trace v1\n# run_id," + t.run_id + "\n";
  s += CsvLine(AffectColumns()) + "\n";
  for (const auto& a : t.samples) {
    s += FormatNumber(a.t) + "," + std::to_string(a.iteration);
    for (double v : a.stimuli) s += "," + FormatNumber(v);
    for (double v : a.emotions) s += "," + FormatNumber(v);
    for (double v : a.moods) s += "," + FormatNumber(v);
    for (double v : a.drives) s += "," + FormatNumber(v);
    s += "," + FormatNumber(a.d_min) + "," + FormatNumber(a.d_max) + "\n";
  }
  WriteText(path, s);
}

AffectTrace ReadAffectTrace(const std::string& path) {
  const auto lines = ReadLines(path);
  if (lines.size() < 3 || lines[0] != "# limbic affect trace v1" || lines[1].rfind("# run_id,", 0) != 0)
    Bad(path, 1, "not a limbic affect trace");
  AffectTrace t;
  t.run_id = lines[1].substr(9);
  const auto columns = AffectColumns();
  if (SplitComma(lines[2]) != columns) Bad(path, 3, "unexpected columns");
  for (size_t i = 3; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    if (lines[i].empty()) continue;
    const auto f = SplitComma(lines[i]);
    if (f.size() != columns.size()) Bad(path, ln, "expected " + std::to_string(columns.size()) + " values");
    std::vector<double> v;
    for (const auto& x : f) v.push_back(ToDouble(x, path, ln));
    AffectSample a;
    size_t k = 0;
    a.t = v[k++];
    a.iteration = static_cast<int>(v[k++]);
    for (double& x : a.stimuli) x = v[k++];
    for (double& x : a.emotions) x = v[k++];
    for (double& x : a.moods) x = v[k++];
    for (double& x : a.drives) x = v[k++];
    a.d_min = v[k++];
    a.d_max = v[k++];
    t.samples.push_back(a);
  }
  return t;
}

namespace {

// A path coordinate to 1 mm (and a time to 1 ms, an angle to 1 mrad): finer than anything a picture
// or a class needs, and a third of the size of a round-trip double.
std::string Milli(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.3f", v);
  std::string s = b;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

}  // namespace

void WriteFailureTrace(const std::string& path, const FailureTrace& t) {
  std::string s = "# limbic failed traversals v1\n";
  s += "# run_id," + t.run_id + "\n# set," + std::string(1, t.set) + "\n# index," + std::to_string(t.env) +
       "\n# environment_seed," + std::to_string(t.environment_seed) + "\n# seed," + std::to_string(t.seed) + "\n";
  for (const auto& f : t.traversals) {
    s += "traversal," + std::to_string(f.iteration) + "," + FormatNumber(f.goal_x) + "," + FormatNumber(f.goal_y) +
         "," + FormatNumber(f.distance_to_goal) + "\n";
    for (const auto& p : f.samples) {
      s += Milli(p.t) + "," + Milli(p.x) + "," + Milli(p.y) + "," + Milli(p.theta) + "\n";
    }
  }
  WriteText(path, s);
}

FailureTrace ReadFailureTrace(const std::string& path) {
  const auto lines = ReadLines(path);
  if (lines.empty() || lines[0] != "# limbic failed traversals v1") Bad(path, 1, "not a limbic failed-traversal file");
  FailureTrace t;
  for (size_t i = 1; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    if (line.empty()) continue;
    if (line.rfind("# ", 0) == 0) {
      if (!t.traversals.empty()) Bad(path, ln, "header line after the first traversal");
      const auto f = SplitComma(line.substr(2));
      if (f.size() != 2) Bad(path, ln, "expected '# key,value'");
      if (f[0] == "run_id")
        t.run_id = f[1];
      else if (f[0] == "set" && f[1].size() == 1)
        t.set = f[1][0];
      else if (f[0] == "index")
        t.env = static_cast<int>(ToU64(f[1], path, ln));
      else if (f[0] == "environment_seed")
        t.environment_seed = ToU64(f[1], path, ln);
      else if (f[0] == "seed")
        t.seed = ToU64(f[1], path, ln);
      else
        Bad(path, ln, "unknown header '" + f[0] + "'");
      continue;
    }
    const auto f = SplitComma(line);
    if (f[0] == "traversal") {
      if (f.size() != 5) Bad(path, ln, "expected traversal,<iteration>,<goal_x>,<goal_y>,<distance_to_goal>");
      FailedTraversal ft;
      ft.iteration = static_cast<int>(ToU64(f[1], path, ln));
      ft.goal_x = ToDouble(f[2], path, ln);
      ft.goal_y = ToDouble(f[3], path, ln);
      ft.distance_to_goal = ToDouble(f[4], path, ln);
      t.traversals.push_back(std::move(ft));
      continue;
    }
    if (t.traversals.empty()) Bad(path, ln, "a path point before any 'traversal' line");
    if (f.size() != 4) Bad(path, ln, "expected 4 values (t,x,y,theta)");
    FailedTraversal& ft = t.traversals.back();
    ft.samples.push_back({ToDouble(f[0], path, ln), ft.iteration, ToDouble(f[1], path, ln), ToDouble(f[2], path, ln),
                          ToDouble(f[3], path, ln)});
  }
  if (t.run_id.empty()) Bad(path, 2, "no run_id");
  return t;
}

}  // namespace limbic::experiment
