#include "tools/recruit/report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "common/markup/escape.hpp"
#include "tools/recruit/statistics.hpp"

namespace limbic::recruit {
namespace {

const char* kColours[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"};

std::string Fixed(double v, int digits) {
  if (std::isnan(v)) return "n/a";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string PValue(double p) {
  std::ostringstream s;
  if (p < 1e-4)
    s << std::scientific << std::setprecision(1) << p;
  else
    s << std::fixed << std::setprecision(4) << p;
  return s.str();
}

std::string ConditionLabel(const RecruitExperiment& e, const std::string& c) {
  if (e.variable.empty()) return "all";
  if (e.variable == "idle_ugvs") return std::to_string(std::stoi(c) + 3) + " robots (" + c + " idle)";
  if (e.variable == "loss") return Fixed(std::stod(c) * 100.0, 0) + " % loss";
  return c;
}

struct Cell {
  std::vector<double> messages, wait, bias;
  int success = 0, n = 0;
};

// condition → strategy → cell, in definition order.
struct Table {
  std::vector<std::string> conditions;
  std::map<std::string, std::map<std::string, Cell>> cells;
};

Table Collect(const RecruitExperiment& e, const std::vector<RecruitRow>& rows) {
  Table t;
  t.conditions = e.values.empty() ? std::vector<std::string>{""} : e.values;
  for (const RecruitRow& r : rows) {
    Cell& c = t.cells[r.condition][r.strategy];
    c.messages.push_back(static_cast<double>(r.messages));
    c.wait.push_back(r.wait_total_s);
    c.bias.push_back(r.bias);
    c.success += r.success;
    ++c.n;
  }
  return t;
}

std::string Label(const std::string& strategy) { return StrategyByName(strategy).label; }

struct PairTest {
  std::string a, b;
  double p_messages, p_wait;
  double rel_messages, rel_wait;  // 1 − mean_a / mean_b
};

std::vector<PairTest> Pairs(const RecruitExperiment& e,
                            const Cell* (*get)(const Table&, const std::string&, const std::string&), const Table& t,
                            const std::string& condition) {
  std::vector<PairTest> out;
  for (size_t i = 0; i < e.strategies.size(); ++i) {
    for (size_t j = i + 1; j < e.strategies.size(); ++j) {
      const Cell* a = get(t, condition, e.strategies[i]);
      const Cell* b = get(t, condition, e.strategies[j]);
      if (!a || !b || a->n == 0 || b->n == 0) continue;
      PairTest p{e.strategies[i],
                 e.strategies[j],
                 RankSum(a->messages, b->messages).p,
                 RankSum(a->wait, b->wait).p,
                 RelativeImprovement(Summarise(a->messages).mean, Summarise(b->messages).mean),
                 RelativeImprovement(Summarise(a->wait).mean, Summarise(b->wait).mean)};
      out.push_back(p);
    }
  }
  return out;
}

const Cell* GetCell(const Table& t, const std::string& condition, const std::string& strategy) {
  auto c = t.cells.find(condition);
  if (c == t.cells.end()) return nullptr;
  auto s = c->second.find(strategy);
  return s == c->second.end() ? nullptr : &s->second;
}

// Relative improvement over sums across conditions (§7: "or the same ratio over sums").
double SumImprovement(const RecruitExperiment& e, const Table& t, const std::string& a, const std::string& b,
                      bool messages) {
  double sa = 0, sb = 0;
  for (const auto& c : t.conditions) {
    const Cell* ca = GetCell(t, c, a);
    const Cell* cb = GetCell(t, c, b);
    if (!ca || !cb) return std::nan("");
    sa += Summarise(messages ? ca->messages : ca->wait).mean;
    sb += Summarise(messages ? cb->messages : cb->wait).mean;
  }
  return RelativeImprovement(sa, sb);
}

}  // namespace

std::string TextSummary(const RecruitExperiment& e, const std::vector<RecruitRow>& rows) {
  const Table t = Collect(e, rows);
  const double threshold = BonferroniThreshold(e.alpha, e.comparisons);
  std::ostringstream out;
  out << "### " << e.name << " (spec §" << e.section << ", " << rows.size() << " simulations)\n\n";
  out << "| condition | strategy | n | messages mean (sd) | messages median | wait s mean (sd) | success | bias mean "
         "|\n";
  out << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : t.conditions) {
    for (const auto& s : e.strategies) {
      const Cell* cell = GetCell(t, c, s);
      if (!cell) continue;
      const Summary m = Summarise(cell->messages), w = Summarise(cell->wait), b = Summarise(cell->bias);
      out << "| " << ConditionLabel(e, c) << " | " << Label(s) << " | " << cell->n << " | " << Fixed(m.mean, 1) << " ("
          << Fixed(m.sd, 1) << ") | " << Fixed(m.median, 1) << " | " << Fixed(w.mean, 1) << " (" << Fixed(w.sd, 1)
          << ") | " << Fixed(100.0 * cell->success / cell->n, 0) << " % | " << Fixed(b.mean, 2) << " |\n";
    }
  }
  if (e.strategies.size() > 1 && e.kind != "use_case") {
    out << "\nRank-sum p-values (two-sided, tie and continuity corrected); * = below the Bonferroni threshold "
        << PValue(threshold) << " (" << e.alpha << "/" << e.comparisons << "). Relative = 1 − mean_A/mean_B.\n\n";
    out << "| condition | A vs B | p messages | p wait | relative messages | relative wait "
           "|\n|---|---|---|---|---|---|\n";
    for (const auto& c : t.conditions) {
      for (const PairTest& p : Pairs(e, GetCell, t, c)) {
        out << "| " << ConditionLabel(e, c) << " | " << Label(p.a) << " vs " << Label(p.b) << " | "
            << PValue(p.p_messages) << (p.p_messages < threshold ? "*" : "") << " | " << PValue(p.p_wait)
            << (p.p_wait < threshold ? "*" : "") << " | " << Fixed(100.0 * p.rel_messages, 1) << " % | "
            << Fixed(100.0 * p.rel_wait, 1) << " % |\n";
      }
    }
    if (t.conditions.size() > 1) {
      out << "\nOver sums across conditions:";
      for (size_t i = 0; i < e.strategies.size(); ++i) {
        for (size_t j = i + 1; j < e.strategies.size(); ++j) {
          out << " " << Label(e.strategies[i]) << " vs " << Label(e.strategies[j]) << ": messages "
              << Fixed(100.0 * SumImprovement(e, t, e.strategies[i], e.strategies[j], true), 1) << " %, wait "
              << Fixed(100.0 * SumImprovement(e, t, e.strategies[i], e.strategies[j], false), 1) << " %;";
        }
      }
      out << "\n";
    }
  }
  if (e.kind == "fairness" || e.kind == "use_case") {
    out << "\n| strategy | configuration | recruit counts (robot:count) | bias B | messages | wait s "
           "|\n|---|---|---|---|---|---|\n";
    for (const RecruitRow& r : rows) {
      out << "| " << Label(r.strategy) << " | " << r.configuration << " | " << r.recruit_counts << " | " << r.bias
          << " | " << r.messages << " | " << Fixed(r.wait_total_s, 1) << " |\n";
    }
  }
  return out.str();
}

std::string BoxPlot(const std::vector<BoxGroup>& groups, const std::vector<std::string>& labels,
                    const std::string& title, const std::string& y_label) {
  const double width = 680, height = 300, left = 60, right = 120, top = 30, bottom = 50;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& g : groups)
    for (const auto& s : g.samples)
      for (double v : s) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  hi *= 1.05;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const auto y = [&](double v) { return top + plot_h * (1.0 - (v - lo) / (hi - lo)); };
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
    << "' font-family='sans-serif' font-size='11'>\n";
  s << "<text x='" << width / 2 << "' y='16' text-anchor='middle' font-size='13'>" << markup::Escape(title)
    << "</text>\n";
  s << "<line x1='" << left << "' y1='" << top << "' x2='" << left << "' y2='" << top + plot_h << "' stroke='#333'/>\n";
  s << "<line x1='" << left << "' y1='" << top + plot_h << "' x2='" << left + plot_w << "' y2='" << top + plot_h
    << "' stroke='#333'/>\n";
  // Y ticks: 5 even steps.
  for (int i = 0; i <= 5; ++i) {
    const double v = lo + (hi - lo) * i / 5.0;
    s << "<line x1='" << left - 4 << "' y1='" << y(v) << "' x2='" << left + plot_w << "' y2='" << y(v)
      << "' stroke='#eee'/><text x='" << left - 6 << "' y='" << y(v) + 4 << "' text-anchor='end'>"
      << (hi - lo > 20 ? Fixed(v, 0) : Fixed(v, 2)) << "</text>\n";
  }
  s << "<text transform='translate(14," << top + plot_h / 2 << ") rotate(-90)' text-anchor='middle'>"
    << markup::Escape(y_label) << "</text>\n";
  const double group_w = plot_w / std::max<size_t>(1, groups.size());
  const size_t k = std::max<size_t>(1, labels.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const double gx = left + g * group_w;
    s << "<text x='" << gx + group_w / 2 << "' y='" << top + plot_h + 16 << "' text-anchor='middle'>"
      << markup::Escape(groups[g].label) << "</text>\n";
    for (size_t i = 0; i < groups[g].samples.size() && i < k; ++i) {
      const Summary sm = Summarise(groups[g].samples[i]);
      if (sm.n == 0) continue;
      const double bw = group_w * 0.8 / k;
      const double x0 = gx + group_w * 0.1 + i * bw + bw * 0.1, x1 = x0 + bw * 0.8, xm = (x0 + x1) / 2;
      const char* colour = kColours[i % 6];
      s << "<line x1='" << xm << "' y1='" << y(sm.min) << "' x2='" << xm << "' y2='" << y(sm.max) << "' stroke='"
        << colour << "'/>\n";
      s << "<rect x='" << x0 << "' y='" << y(sm.q3) << "' width='" << x1 - x0 << "' height='"
        << std::max(0.5, y(sm.q1) - y(sm.q3)) << "' fill='" << colour << "' fill-opacity='0.35' stroke='" << colour
        << "'/>\n";
      s << "<line x1='" << x0 << "' y1='" << y(sm.median) << "' x2='" << x1 << "' y2='" << y(sm.median)
        << "' stroke='#000' stroke-width='2'/>\n";
    }
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    const double ly = top + 10 + 18 * i;
    s << "<rect x='" << width - right + 14 << "' y='" << ly - 9 << "' width='12' height='12' fill='" << kColours[i % 6]
      << "' fill-opacity='0.6'/><text x='" << width - right + 32 << "' y='" << ly + 1 << "'>"
      << markup::Escape(labels[i]) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

std::string HtmlSection(const RecruitExperiment& e, const std::vector<RecruitRow>& rows,
                        const std::vector<std::string>& pictures) {
  const Table t = Collect(e, rows);
  std::ostringstream s;
  s << "<section><h2>" << markup::Escape(e.name) << " <small>(spec §" << markup::Escape(e.section) << ", "
    << rows.size() << " simulations)</small></h2>\n<p>" << markup::Escape(e.description) << "</p>\n";
  for (const auto& [key, note] : e.case_notes)
    s << "<p><b>" << markup::Escape(key) << ":</b> " << markup::Escape(note) << "</p>\n";
  // The markdown tables, rendered as HTML tables.
  std::istringstream text(TextSummary(e, rows));
  std::string line;
  bool in_table = false;
  while (std::getline(text, line)) {
    if (line.rfind("###", 0) == 0) continue;
    if (line.rfind("|", 0) == 0) {
      if (line.rfind("|---", 0) == 0) continue;
      if (!in_table) s << "<table>\n";
      s << "<tr>";
      std::stringstream cells(line.substr(1));
      std::string cell;
      while (std::getline(cells, cell, '|'))
        s << (in_table ? "<td>" : "<th>") << markup::Escape(cell) << (in_table ? "</td>" : "</th>");
      s << "</tr>\n";
      in_table = true;
    } else {
      if (in_table) s << "</table>\n";
      in_table = false;
      if (!line.empty()) s << "<p>" << markup::Escape(line) << "</p>\n";
    }
  }
  if (in_table) s << "</table>\n";
  if (e.kind != "use_case") {
    std::vector<std::string> labels;
    for (const auto& st : e.strategies) labels.push_back(Label(st));
    for (int metric = 0; metric < (e.kind == "fairness" ? 3 : 2); ++metric) {
      std::vector<BoxGroup> groups;
      for (const auto& c : t.conditions) {
        BoxGroup g{ConditionLabel(e, c), {}};
        for (const auto& st : e.strategies) {
          const Cell* cell = GetCell(t, c, st);
          g.samples.push_back(!cell         ? std::vector<double>{}
                              : metric == 0 ? cell->messages
                              : metric == 1 ? cell->wait
                                            : cell->bias);
        }
        groups.push_back(g);
      }
      const char* names[] = {"M1 messages per simulation", "M2 summed wait time per simulation (s)", "M3 bias B"};
      s << BoxPlot(groups, labels, e.name + ": " + names[metric], names[metric]);
    }
  }
  for (const auto& p : pictures) s << p;
  s << "</section>\n";
  return s.str();
}

std::string HtmlPage(const std::string& title, const std::vector<std::string>& sections) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>" << markup::Escape(title)
    << "</title><style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse;"
       "margin:8px 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}svg{margin:6px}</style></head><body>"
    << "<h1>" << markup::Escape(title) << "</h1>\n";
  for (const auto& section : sections) s << section;
  s << "</body></html>\n";
  return s.str();
}

std::string UseCasePicture(const ScenarioResult& r, const std::string& title) {
  const double size = 360, margin = 30;
  double max_coord = 100;
  for (const Position& p : r.final_positions) max_coord = std::max({max_coord, p.x, p.y});
  const auto px = [&](double x) { return margin + x / max_coord * (size - 2 * margin); };
  const auto py = [&](double y) { return size - margin - y / max_coord * (size - 2 * margin); };
  // First episode only: who accepted, who ignored, who was recruited, where robots stood at the first HELP.
  const double end = r.episodes.empty() ? INFINITY : r.episodes[0].end_s;
  std::map<RobotId, Position> at_help;
  std::set<RobotId> accepted, ignored;
  std::map<RobotId, int> transmissions;
  int helps = 0;
  Position uav;
  for (const TimelineEvent& ev : r.timeline) {
    if (ev.t_s > end + 1e-9) break;
    if (ev.kind == TimelineEvent::Kind::kTransmit) {
      ++transmissions[ev.robot];
      if (ev.type == MsgType::kHelp) {
        ++helps;
        uav = ev.position;
      }
    }
    if (ev.kind == TimelineEvent::Kind::kAccept) accepted.insert(ev.robot), at_help[ev.robot] = ev.position;
    if (ev.kind == TimelineEvent::Kind::kIgnore) {
      ignored.insert(ev.robot);
      if (!at_help.count(ev.robot)) at_help[ev.robot] = ev.position;
    }
  }
  const RobotId recruited = r.episodes.empty() ? kNoRecipient : r.episodes[0].responder;
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << size + 170 << "' height='" << size
    << "' font-family='sans-serif' font-size='11'>\n<text x='" << size / 2 << "' y='14' text-anchor='middle' "
    << "font-size='12'>" << markup::Escape(title) << "</text>\n<rect x='" << margin << "' y='" << margin << "' width='"
    << size - 2 * margin << "' height='" << size - 2 * margin << "' fill='#fafafa' stroke='#999'/>\n";
  for (size_t i = 0; i < r.team.size(); ++i) {
    const RobotSpec& spec = r.team[i];
    if (spec.role == RobotSpec::Role::kUav) continue;
    const Position p = at_help.count(spec.id) ? at_help[spec.id] : r.final_positions[i];
    if (accepted.count(spec.id))
      s << "<line x1='" << px(uav.x) << "' y1='" << py(uav.y) << "' x2='" << px(p.x) << "' y2='" << py(p.y)
        << "' stroke='#009e73' stroke-width='2'/>\n";
    const char* fill = spec.role == RobotSpec::Role::kScanningUgv ? "#e69f00" : "#0072b2";
    s << "<circle cx='" << px(p.x) << "' cy='" << py(p.y) << "' r='6' fill='" << fill << "'/>\n";
    if (spec.id == recruited)
      s << "<circle cx='" << px(p.x) << "' cy='" << py(p.y)
        << "' r='11' fill='none' stroke='#d55e00' stroke-width='2'/>\n";
    if (ignored.count(spec.id) && !accepted.count(spec.id))
      s << "<path d='M" << px(p.x) - 8 << "," << py(p.y) - 8
        << " l16,16 m0,-16 l-16,16' stroke='#c00' stroke-width='2'/>\n";
    s << "<text x='" << px(p.x) + 9 << "' y='" << py(p.y) - 8 << "'>r" << spec.id << " (" << transmissions[spec.id]
      << " tx)</text>\n";
  }
  s << "<rect x='" << px(uav.x) - 7 << "' y='" << py(uav.y) - 7 << "' width='14' height='14' fill='#333'/>\n"
    << "<text x='" << px(uav.x) + 10 << "' y='" << py(uav.y) + 14 << "'>UAV (" << helps << " HELP)</text>\n";
  const double lx = size + 5;
  s << "<text x='" << lx << "' y='40'>■ UAV, requester</text><text x='" << lx
    << "' y='58' fill='#0072b2'>● idle UGV</text><text x='" << lx << "' y='76' fill='#e69f00'>● scanning UGV</text>"
    << "<text x='" << lx << "' y='94' fill='#009e73'>— sent ACCEPT</text><text x='" << lx
    << "' y='112' fill='#c00'>✕ ignored HELP</text><text x='" << lx << "' y='130' fill='#d55e00'>○ recruited</text>"
    << "<text x='" << lx << "' y='160'>wait "
    << Fixed(r.episodes.empty() ? NAN : r.episodes[0].end_s - r.episodes[0].start_s, 1) << " s</text><text x='" << lx
    << "' y='178'>messages " << r.messages << "</text>\n</svg>\n";
  return s.str();
}

}  // namespace limbic::recruit
