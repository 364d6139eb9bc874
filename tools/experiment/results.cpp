#include "tools/experiment/results.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "tools/experiment/definition.hpp"
#include "tools/experiment/durable_file.hpp"

namespace limbic::experiment {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <typename T>
bool ParseInteger(const std::string& s, T* out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Columns before `status` and `error` (runs.csv files written before issue 15), and before `robot`
// (written before issue 18's per-robot rows).
constexpr size_t kLegacyColumns = 19;
constexpr size_t kBeforeRobotColumns = 21;

bool ParseRow(const std::vector<std::string>& f, IterationRow* row, size_t columns) {
  if (f.size() != columns) return false;
  if (columns > kLegacyColumns) {
    row->status = f[kLegacyColumns];
    row->error = f[kLegacyColumns + 1];
    if (row->status != "ok" && row->status != "error") return false;
  }
  if (columns > kBeforeRobotColumns) {
    row->robot = f[kBeforeRobotColumns];
    if (row->robot.empty()) return false;
  }
  row->run_id = f[0];
  row->experiment = f[1];
  row->config = f[2];
  if (f[3].size() != 1) return false;
  row->set = f[3][0];
  int success = 0;
  const bool ok = ParseInteger(f[4], &row->env) && ParseInteger(f[5], &row->repeat) && ParseInteger(f[6], &row->seed) &&
                  ParseDouble(f[8], &row->sweep_value) && ParseInteger(f[9], &row->iteration) &&
                  ParseDouble(f[10], &row->completion_time_s) && ParseInteger(f[11], &success) &&
                  ParseInteger(f[12], &row->collisions) && ParseDouble(f[13], &row->collisions_per_min) &&
                  ParseDouble(f[14], &row->mean_velocity) && ParseDouble(f[15], &row->exec_time_ratio) &&
                  ParseDouble(f[16], &row->coverage) && ParseDouble(f[17], &row->distance_travelled) &&
                  ParseInteger(f[18], &row->contact_cycles);
  row->sweep = f[7];
  row->success = success != 0;
  return ok && !row->run_id.empty() && (success == 0 || success == 1);
}

std::string HeaderLine() { return CsvLine(RunsCsvColumns()); }

}  // namespace

const std::vector<std::string>& RunsCsvColumns() {
  static const std::vector<std::string> columns = {"run_id",
                                                   "experiment",
                                                   "config",
                                                   "set",
                                                   "env",
                                                   "repeat",
                                                   "seed",
                                                   "sweep",
                                                   "sweep_value",
                                                   "iteration",
                                                   "completion_time_s",
                                                   "success",
                                                   "collisions",
                                                   "collisions_per_min",
                                                   "mean_velocity",
                                                   "exec_time_ratio",
                                                   "coverage",
                                                   "distance_travelled",
                                                   "contact_cycles",
                                                   "status",
                                                   "error",
                                                   "robot"};
  return columns;
}

std::string CsvLine(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    const std::string& f = fields[i];
    if (f.find_first_of(",\"\r\n") == std::string::npos) {
      out += f;
      continue;
    }
    out += '"';
    for (char c : f) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  return out;
}

std::vector<std::vector<std::string>> ParseCsv(const std::string& text, bool* last_complete) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool in_quotes = false, field_started = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      in_quotes = true;
      field_started = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      field_started = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(field);
      records.push_back(record);
      record.clear();
      field.clear();
      field_started = false;
    } else {
      field += c;
      field_started = true;
    }
  }
  const bool complete = !field_started && record.empty() && !in_quotes;
  if (!complete) {
    record.push_back(field);
    records.push_back(record);
  }
  if (last_complete) *last_complete = complete;
  return records;
}

std::string FormatRow(const IterationRow& r) {
  return CsvLine({r.run_id,
                  r.experiment,
                  r.config,
                  std::string(1, r.set),
                  std::to_string(r.env),
                  std::to_string(r.repeat),
                  std::to_string(r.seed),
                  r.sweep,
                  FormatNumber(r.sweep_value),
                  std::to_string(r.iteration),
                  FormatNumber(r.completion_time_s),
                  r.success ? "1" : "0",
                  std::to_string(r.collisions),
                  FormatNumber(r.collisions_per_min),
                  FormatNumber(r.mean_velocity),
                  FormatNumber(r.exec_time_ratio),
                  FormatNumber(r.coverage),
                  FormatNumber(r.distance_travelled),
                  std::to_string(r.contact_cycles),
                  r.status,
                  r.error,
                  r.robot});
}

RunsFile ReadRuns(const std::string& path) {
  RunsFile file;
  const std::string text = ReadText(path);
  if (text.empty()) return file;
  bool last_complete = true;
  auto records = ParseCsv(text, &last_complete);
  if (records.empty()) return file;
  const auto& current = RunsCsvColumns();
  auto first = [&](size_t n) { return std::vector<std::string>(current.begin(), current.begin() + n); };
  const bool legacy = records[0] == first(kLegacyColumns) || records[0] == first(kBeforeRobotColumns);
  if (records[0] != current && !legacy)
    throw std::runtime_error(path + ": the header is not that of a limbic runs.csv (" + CsvLine(records[0]) + ")");
  const size_t columns = records[0].size();
  std::map<std::tuple<std::string, std::string, int>, size_t> position;
  for (size_t i = 1; i < records.size(); ++i) {
    if (records[i].size() == 1 && records[i][0].empty()) continue;  // blank line
    IterationRow row;
    const bool torn = (i + 1 == records.size()) && !last_complete;
    if (torn || !ParseRow(records[i], &row, columns)) {
      ++file.skipped_lines;
      continue;
    }
    if (row.status == "error") {
      file.errors.push_back(row);
      continue;
    }
    auto& rows = row.robot == kLeadRobot ? file.rows : file.team_rows;
    const auto key = std::make_tuple(row.run_id, row.robot, row.iteration);
    const auto it = position.find(key);
    if (it != position.end()) {
      rows[it->second] = row;
    } else {
      position[key] = rows.size();
      rows.push_back(row);
    }
  }
  return file;
}

void WriteRuns(const std::string& path, const std::vector<IterationRow>& rows) {
  std::string text = HeaderLine() + "\n";
  for (const auto& r : rows) text += FormatRow(r) + "\n";
  WriteFileAtomically(path, text);
}

void AppendRows(const std::string& path, const std::vector<IterationRow>& rows) {
  // A row torn by a kill or a full disk is cut off, never kept (a line break before the next rows
  // would have left it in the file as a skipped record).
  TruncateTornTail(path);
  std::string prefix;
  std::error_code ec;
  const bool exists = fs::exists(path, ec) && fs::file_size(path, ec) > 0;
  if (!exists) {
    prefix = HeaderLine() + "\n";
  } else {
    std::ifstream in(path, std::ios::binary);
    std::string first;
    std::getline(in, first);
    if (!first.empty() && first.back() == '\r') first.pop_back();
    if (first != HeaderLine())
      throw std::runtime_error(
          path + ": existing file is not a limbic runs.csv of this version (header '" + first +
          "'); runs.csv files without the status and error columns, or without the robot column, can be "
          "read, not extended");
  }
  std::string text = prefix;
  for (const auto& r : rows) text += FormatRow(r) + "\n";
  AppendWhole(path, text);  // all rows of the run, or none
}

void RunsAppender::Append(const std::vector<IterationRow>& rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  AppendRows(path_, rows);
}

std::set<std::string> FinishedRuns(const std::string& runs_csv, int iterations) {
  std::map<std::string, std::set<int>> seen;
  const RunsFile file = ReadRuns(runs_csv);
  for (const auto& r : file.rows) {
    if (r.iteration >= 1 && r.iteration <= iterations) seen[r.run_id].insert(r.iteration);
  }
  std::set<std::string> finished;
  for (const auto& r : file.errors) finished.insert(r.run_id);
  for (const auto& [id, its] : seen) {
    if (static_cast<int>(its.size()) == iterations) finished.insert(id);
  }
  return finished;
}

MergeResult Merge(const std::vector<std::string>& dirs, const std::string& out_dir) {
  if (dirs.empty()) throw std::runtime_error("merge needs at least one directory");
  MergeResult result;
  std::vector<IterationRow> merged;
  std::set<std::string> kept;
  std::string experiment_source;
  for (const auto& dir : dirs) {
    const std::string path = (fs::path(dir) / "runs.csv").string();
    if (!fs::exists(path)) throw std::runtime_error(dir + ": no runs.csv to merge");
    const RunsFile file = ReadRuns(path);
    std::set<std::string> here, dropped;
    std::vector<IterationRow> all = file.rows;
    all.insert(all.end(), file.team_rows.begin(), file.team_rows.end());
    all.insert(all.end(), file.errors.begin(), file.errors.end());
    for (const auto& r : all) {
      if (result.experiment.empty()) {
        result.experiment = r.experiment;
        experiment_source = path;
      } else if (r.experiment != result.experiment) {
        throw std::runtime_error("cannot merge different experiments: " + experiment_source + " has '" +
                                 result.experiment + "', " + path + " has '" + r.experiment + "'");
      }
      if (kept.count(r.run_id) && !here.count(r.run_id)) {
        dropped.insert(r.run_id);
        continue;
      }
      here.insert(r.run_id);
      merged.push_back(r);
    }
    result.duplicate_runs += static_cast<int>(dropped.size());
    kept.insert(here.begin(), here.end());
  }
  fs::create_directories(out_dir);
  WriteRuns((fs::path(out_dir) / "runs.csv").string(), merged);
  result.rows = static_cast<int>(merged.size());
  result.runs = static_cast<int>(kept.size());
  for (const auto& dir : dirs) {
    if (fs::equivalent(dir, out_dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || !name.ends_with(".csv")) continue;
      if (!name.starts_with("trace_") && !name.starts_with("affect_") && !name.starts_with("failed_")) continue;
      const fs::path target = fs::path(out_dir) / name;
      if (fs::exists(target)) continue;
      fs::copy_file(entry.path(), target);
      ++result.trace_files;
    }
  }
  return result;
}

}  // namespace limbic::experiment
