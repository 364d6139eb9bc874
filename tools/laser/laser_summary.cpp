#include "tools/laser/laser_summary.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "common/stats/proportion.hpp"

namespace limbic::laser {
namespace {

constexpr double kZ95 = 1.959963984540054;

// Two-sided 95 % Student t quantiles for 1..30 degrees of freedom; the normal value beyond.
double T95(int df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return 0.0;
  return df <= 30 ? kTable[df - 1] : kZ95;
}

std::string Fixed(double v, int decimals) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(decimals) << v;
  return s.str();
}

std::string Ci(const Interval& i, int decimals) {
  if (i.n == 0) return "-";
  return Fixed(i.mean, decimals) + " [" + Fixed(i.low, decimals) + ", " + Fixed(i.high, decimals) + "]";
}

std::string DensityText(double d) {
  std::ostringstream s;
  s << d;
  return s.str();
}

Interval Scaled(Interval i, double k) {
  i.mean *= k;
  i.low *= k;
  i.high *= k;
  return i;
}

}  // namespace

Interval WilsonInterval(int k, int n) {
  Interval i;
  i.n = n;
  if (n <= 0) return i;
  const stats::Proportion p = stats::WilsonInterval(k, n);
  i.mean = p.estimate;
  i.low = p.low;
  i.high = p.high;
  return i;
}

Interval MeanInterval(const std::vector<double>& v) {
  Interval i;
  i.n = static_cast<int>(v.size());
  if (v.empty()) return i;
  double sum = 0.0;
  for (double x : v) sum += x;
  i.mean = sum / i.n;
  double ss = 0.0;
  for (double x : v) ss += (x - i.mean) * (x - i.mean);
  const double half = i.n > 1 ? T95(i.n - 1) * std::sqrt(ss / (i.n - 1) / i.n) : 0.0;
  i.low = i.mean - half;
  i.high = i.mean + half;
  return i;
}

double PerformanceIndex(double solved_pct, double efficiency_pct, double average_time_s) {
  return solved_pct * solved_pct * efficiency_pct * (100.0 - average_time_s);  // Eq. 4-3
}

LaserSummary Summarise(const LaserExperiment& e, const std::vector<EpisodeRow>& rows) {
  LaserSummary s;
  for (const LaserConfiguration& c : e.configurations) {
    for (double d : e.densities) {
      CellSummary cell;
      cell.configuration = c.label;
      cell.density = d;
      std::vector<double> eff, time;
      double collisions = 0.0;
      for (const EpisodeRow& r : rows) {
        if (r.configuration != c.label || r.density != d) continue;
        ++cell.worlds;
        collisions += r.result.collisions;
        if (!r.result.solved) continue;
        ++cell.solved;
        eff.push_back(100.0 * r.result.efficiency);
        time.push_back(r.result.time_s);
      }
      if (cell.worlds == 0) continue;
      cell.solved_pct = Scaled(WilsonInterval(cell.solved, cell.worlds), 100.0);
      // t intervals of a handful of values can reach past the quantity's range: clip them to it.
      cell.efficiency_pct = MeanInterval(eff);
      cell.efficiency_pct.low = std::max(0.0, cell.efficiency_pct.low);
      cell.efficiency_pct.high = std::min(100.0, cell.efficiency_pct.high);
      cell.time_s = MeanInterval(time);
      cell.time_s.low = std::max(0.0, cell.time_s.low);
      cell.collisions_per_episode = collisions / cell.worlds;
      cell.performance_index =
          cell.solved > 0 ? PerformanceIndex(cell.solved_pct.mean, cell.efficiency_pct.mean, cell.time_s.mean) : 0.0;
      s.cells.push_back(cell);
    }
  }
  // A35: normalise by the best index at each density, then sum per configuration.
  std::map<double, double> best;
  for (const CellSummary& c : s.cells) best[c.density] = std::max(best[c.density], c.performance_index);
  for (CellSummary& c : s.cells) c.normalised_index = best[c.density] > 0 ? c.performance_index / best[c.density] : 0;
  double top = -1.0;
  for (const LaserConfiguration& conf : e.configurations) {
    ConfigurationTotal t{conf.label, 0.0};
    for (const CellSummary& c : s.cells)
      if (c.configuration == conf.label) t.summed_normalised_index += c.normalised_index;
    if (t.summed_normalised_index > top) {
      top = t.summed_normalised_index;
      s.optimum = conf.label;
    }
    s.totals.push_back(t);
  }
  return s;
}

std::string SummaryCsv(const LaserSummary& s) {
  std::ostringstream out;
  out << "configuration,density,worlds,solved,solved_pct,solved_pct_low,solved_pct_high,efficiency_pct,"
         "efficiency_pct_low,efficiency_pct_high,time_s,time_s_low,time_s_high,collisions_per_episode,"
         "performance_index,normalised_index\n";
  out << std::setprecision(8);
  for (const CellSummary& c : s.cells) {
    out << c.configuration << "," << c.density << "," << c.worlds << "," << c.solved << "," << c.solved_pct.mean << ","
        << c.solved_pct.low << "," << c.solved_pct.high << "," << c.efficiency_pct.mean << "," << c.efficiency_pct.low
        << "," << c.efficiency_pct.high << "," << c.time_s.mean << "," << c.time_s.low << "," << c.time_s.high << ","
        << c.collisions_per_episode << "," << c.performance_index << "," << c.normalised_index << "\n";
  }
  return out.str();
}

std::string SummaryMarkdown(const LaserExperiment& e, const LaserSummary& s) {
  std::ostringstream out;
  out << "# " << e.name << (e.section.empty() ? "" : " (" + e.section + ")") << "\n\n" << e.description << "\n\n";
  out << "Controller `" << e.controller << "`, densities";
  for (double d : e.densities) out << " " << DensityText(d) << " %";
  out << "; 95 % intervals: Wilson (solved), Student t (efficiency, time of solved worlds).\n\n";
  out << "| configuration | density | solved % | efficiency % (solved) | time s (solved) | collisions/episode | "
         "PI (Eq. 4-3) | normalised |\n|---|---|---|---|---|---|---|---|\n";
  for (const CellSummary& c : s.cells) {
    out << "| " << c.configuration << " | " << DensityText(c.density) << " | " << c.solved << "/" << c.worlds << " = "
        << Ci(c.solved_pct, 1) << " | " << Ci(c.efficiency_pct, 1) << " | " << Ci(c.time_s, 1) << " | "
        << Fixed(c.collisions_per_episode, 2) << " | " << Fixed(c.performance_index / 1e6, 3) << "e6 | "
        << Fixed(c.normalised_index, 3) << " |\n";
  }
  if (s.totals.size() > 1) {
    out << "\n| configuration | summed normalised PI |\n|---|---|\n";
    std::vector<ConfigurationTotal> sorted = s.totals;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.summed_normalised_index > b.summed_normalised_index;
    });
    for (const auto& t : sorted)
      out << "| " << t.configuration << " | " << Fixed(t.summed_normalised_index, 3) << " |\n";
    out << "\nOptimum configuration: **" << s.optimum << "**\n";
  }
  if (e.controller == "compare") {
    // E9: one table across the controllers per density — solved %, efficiency of the solved worlds, time.
    out << "\n## Across the controllers (E9)\n\nSolved % (95 % Wilson interval) / efficiency % of solved worlds / mean "
           "time of solved worlds (s).\n\n| density |";
    for (const LaserConfiguration& c : e.configurations) out << " " << c.label << " |";
    out << "\n|---|";
    for (size_t k = 0; k < e.configurations.size(); ++k) out << "---|";
    out << "\n";
    for (double d : e.densities) {
      out << "| " << DensityText(d) << " % |";
      for (const LaserConfiguration& c : e.configurations) {
        const auto cell = std::find_if(s.cells.begin(), s.cells.end(), [&](const CellSummary& x) {
          return x.configuration == c.label && x.density == d;
        });
        if (cell == s.cells.end() || cell->worlds == 0) {
          out << " – |";
          continue;
        }
        out << " " << Ci(cell->solved_pct, 1) << " / " << (cell->solved ? Fixed(cell->efficiency_pct.mean, 1) : "–")
            << " / " << (cell->solved ? Fixed(cell->time_s.mean, 1) : "–") << " |";
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string CostSummaryMarkdown(const LaserExperiment& e, const std::vector<EpisodeRow>& rows) {
  std::ostringstream out;
  out << "\n## Cost (E8)\n\nCPU time of each stage as a share of the episode's (simulator + controller), summed over "
         "the episodes; µs per control cycle; wall/simulated = that CPU time over the simulated time (one core, "
         "timed with a monotonic clock: run on a quiet machine); bytes per node of the final maps, in memory "
         "(sizeof(TopoNode) + links) and as the mapper sends them (TopoMapSnapshot).\n\n"
         "| configuration | density | simulator % | reactive % | perception % | mapping % | planning % | "
         "following % | µs/cycle | wall/simulated | bytes/node memory | bytes/node bus |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const LaserConfiguration& c : e.configurations) {
    for (double d : e.densities) {
      double sim = 0, ctl = 0, per = 0, map = 0, plan = 0, fol = 0, cycles = 0, simulated = 0;
      std::vector<double> memory, bus;
      for (const EpisodeRow& r : rows) {
        if (r.configuration != c.label || r.density != d) continue;
        sim += static_cast<double>(r.cost.sim_ns);
        ctl += static_cast<double>(r.cost.controller_ns);
        per += static_cast<double>(r.cost.map.perception_ns);
        map += static_cast<double>(r.cost.map.mapping_ns);
        plan += static_cast<double>(r.cost.map.planning_ns);
        fol += static_cast<double>(r.cost.map.following_ns);
        cycles += static_cast<double>(r.result.cycles);
        simulated += r.result.time_s;
        if (r.cost.bytes_per_node_memory > 0) memory.push_back(r.cost.bytes_per_node_memory);
        if (r.cost.bytes_per_node_bus > 0) bus.push_back(r.cost.bytes_per_node_bus);
      }
      const double total = sim + ctl;
      if (total <= 0 || cycles <= 0) continue;
      const double reactive = std::max(0.0, ctl - per - map - plan - fol);
      auto pct = [&](double x) { return Fixed(100.0 * x / total, 1); };
      out << "| " << c.label << " | " << DensityText(d) << " | " << pct(sim) << " | " << pct(reactive) << " | "
          << pct(per) << " | " << pct(map) << " | " << pct(plan) << " | " << pct(fol) << " | "
          << Fixed(total / cycles / 1e3, 2) << " | " << Fixed(total / 1e9 / simulated, 4) << " | "
          << (memory.empty() ? "–" : Ci(MeanInterval(memory), 0)) << " | "
          << (bus.empty() ? "–" : Ci(MeanInterval(bus), 0)) << " |\n";
    }
  }
  return out.str();
}

std::string MapSummaryMarkdown(const LaserExperiment& e, const std::vector<EpisodeRow>& rows) {
  std::ostringstream out;
  out << "\n## The topological map\n\nPer episode; nodes per world and links per node (each link counted at both "
         "ends) with 95 % t intervals, over the runs with the map layer.\n\n"
         "| configuration | density | nodes per world | links per node | plans/episode | no path | exits reached | "
         "ended on a new node | 30 s timeouts | re-plans | map-following s/episode |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
  const size_t following = AppendixA().size();
  for (const LaserConfiguration& c : e.configurations) {
    for (double d : e.densities) {
      std::vector<double> nodes, links;
      double plans = 0, no_path = 0, reached = 0, new_node = 0, timeouts = 0, replans = 0, follow_s = 0;
      int n = 0;
      for (const EpisodeRow& r : rows) {
        if (r.configuration != c.label || r.density != d) continue;
        ++n;
        if (r.map_nodes == 0 && r.map_stats.map_updates == 0) continue;  // no map layer (memory: false)
        nodes.push_back(r.map_nodes);
        links.push_back(r.links_per_node);
        plans += r.map_stats.plans;
        no_path += r.map_stats.no_path;
        reached += r.map_stats.reached;
        new_node += r.map_stats.new_node;
        timeouts += r.map_stats.timeouts;
        replans += r.map_stats.replans;
        if (r.time_in_case_s.size() > following) follow_s += r.time_in_case_s[following];
      }
      if (n == 0 || nodes.empty()) continue;
      const double k = static_cast<double>(nodes.size());
      out << "| " << c.label << " | " << DensityText(d) << " | " << Ci(MeanInterval(nodes), 1) << " | "
          << Ci(MeanInterval(links), 2) << " | " << Fixed(plans / k, 2) << " | " << Fixed(no_path, 0) << " | "
          << Fixed(reached, 0) << " | " << Fixed(new_node, 0) << " | " << Fixed(timeouts, 0) << " | "
          << Fixed(replans, 0) << " | " << Fixed(follow_s / k, 1) << " |\n";
    }
  }
  return out.str();
}

namespace {

struct WorldCell {
  double density;
  Interval realised, optimal, obstacles, attempts;
};

std::vector<WorldCell> WorldCells(const std::vector<WorldRow>& rows) {
  std::vector<double> densities;
  for (const WorldRow& r : rows)
    if (std::find(densities.begin(), densities.end(), r.density) == densities.end()) densities.push_back(r.density);
  std::vector<WorldCell> cells;
  for (double d : densities) {
    std::vector<double> realised, optimal, obstacles, attempts;
    for (const WorldRow& r : rows) {
      if (r.density != d) continue;
      realised.push_back(r.realised_pct);
      optimal.push_back(r.optimal_path_cm);
      obstacles.push_back(r.obstacles);
      attempts.push_back(r.attempts);
    }
    cells.push_back(
        {d, MeanInterval(realised), MeanInterval(optimal), MeanInterval(obstacles), MeanInterval(attempts)});
  }
  return cells;
}

}  // namespace

std::string WorldSummaryCsv(const std::vector<WorldRow>& rows) {
  std::ostringstream out;
  out << "density,worlds,realised_pct,realised_pct_low,realised_pct_high,optimal_path_cm,optimal_low,optimal_high,"
         "obstacles,obstacles_low,obstacles_high,attempts\n";
  out << std::setprecision(8);
  for (const WorldCell& c : WorldCells(rows)) {
    out << c.density << "," << c.realised.n << "," << c.realised.mean << "," << c.realised.low << "," << c.realised.high
        << "," << c.optimal.mean << "," << c.optimal.low << "," << c.optimal.high << "," << c.obstacles.mean << ","
        << c.obstacles.low << "," << c.obstacles.high << "," << c.attempts.mean << "\n";
  }
  return out.str();
}

std::string WorldSummaryMarkdown(const LaserExperiment& e, const std::vector<WorldRow>& rows) {
  std::ostringstream out;
  out << "# " << e.name << (e.section.empty() ? "" : " (" + e.section + ")") << "\n\n" << e.description << "\n\n";
  out << "| density | worlds | realised density % | optimal path cm | obstacles | draws per world |\n"
         "|---|---|---|---|---|---|\n";
  for (const WorldCell& c : WorldCells(rows)) {
    out << "| " << DensityText(c.density) << " | " << c.realised.n << " | " << Ci(c.realised, 2) << " | "
        << Ci(c.optimal, 1) << " | " << Ci(c.obstacles, 1) << " | " << Fixed(c.attempts.mean, 2) << " |\n";
  }
  return out.str();
}

namespace {

struct FieldCell {
  double density = 0;
  Interval places, away, cells;
  int with_minimum = 0, with_minimum_away = 0, worlds = 0;
};

std::vector<FieldCell> FieldCells(const std::vector<WorldRow>& rows) {
  std::map<double, std::vector<const WorldRow*>> by_density;
  for (const WorldRow& r : rows) by_density[r.density].push_back(&r);
  std::vector<FieldCell> cells;
  for (const auto& [density, list] : by_density) {
    FieldCell c;
    c.density = density;
    std::vector<double> places, away, minimum_cells;
    for (const WorldRow* r : list) {
      if (r->minimum_places < 0) continue;  // not computed: not a field row
      const int away_from_goal = r->minimum_places - std::max(0, r->minimum_places_near_goal);
      places.push_back(r->minimum_places);
      away.push_back(away_from_goal);
      minimum_cells.push_back(r->minimum_cells);
      c.with_minimum += r->minimum_places > 0 ? 1 : 0;
      c.with_minimum_away += away_from_goal > 0 ? 1 : 0;
      ++c.worlds;
    }
    c.places = MeanInterval(places);
    c.away = MeanInterval(away);
    c.cells = MeanInterval(minimum_cells);
    cells.push_back(c);
  }
  return cells;
}

}  // namespace

std::string FieldSummaryCsv(const std::vector<WorldRow>& rows) {
  std::ostringstream out;
  out << "density,worlds,places,places_low,places_high,places_away,places_away_low,places_away_high,cells,cells_low,"
         "cells_high,worlds_with_minimum,with_minimum_pct,with_minimum_low,with_minimum_high,worlds_with_minimum_away,"
         "with_minimum_away_pct,with_minimum_away_low,with_minimum_away_high\n";
  out << std::setprecision(8);
  for (const FieldCell& c : FieldCells(rows)) {
    const Interval w = Scaled(WilsonInterval(c.with_minimum, c.worlds), 100.0);
    const Interval a = Scaled(WilsonInterval(c.with_minimum_away, c.worlds), 100.0);
    out << c.density << "," << c.worlds << "," << c.places.mean << "," << c.places.low << "," << c.places.high << ","
        << c.away.mean << "," << c.away.low << "," << c.away.high << "," << c.cells.mean << "," << c.cells.low << ","
        << c.cells.high << "," << c.with_minimum << "," << w.mean << "," << w.low << "," << w.high << ","
        << c.with_minimum_away << "," << a.mean << "," << a.low << "," << a.high << "\n";
  }
  return out.str();
}

std::string FieldSummaryMarkdown(const LaserExperiment& e, const std::vector<WorldRow>& rows) {
  std::ostringstream out;
  out << "# " << e.name << (e.section.empty() ? "" : " (" + e.section + ")") << "\n\n" << e.description << "\n\n";
  out << "The static law's resultant R = GG·Gv + OG·Ov with NG = 0 (GG " << e.field.gains.gg << ", OG "
      << e.field.gains.og << ", S " << e.field.gains.s_cm << " cm) at every " << e.field.cell_cm
      << " cm cell where the robot fits; a potential minimum is a cell whose neighbour's heading differs by more than "
      << e.field.minimum_angle_deg << " deg, and a place an 8-connected group of them. 95 % intervals: Student t "
      << "(places, cells), Wilson (worlds). \"Near the goal\": a place centred within the goal's free half-disc ("
      << e.world.free_radius_cm << " cm), where the goal's pull meets the north wall's push; the others lie between "
      << "start and goal.\n\n";
  out << "| density | worlds | places per world | away from the goal | minimum cells per world | worlds with a minimum "
         "% | worlds with one away from the goal % |\n"
         "|---|---|---|---|---|---|---|\n";
  for (const FieldCell& c : FieldCells(rows)) {
    const Interval w = Scaled(WilsonInterval(c.with_minimum, c.worlds), 100.0);
    const Interval a = Scaled(WilsonInterval(c.with_minimum_away, c.worlds), 100.0);
    out << "| " << DensityText(c.density) << " | " << c.worlds << " | " << Ci(c.places, 2) << " | " << Ci(c.away, 2)
        << " | " << Ci(c.cells, 1) << " | " << c.with_minimum << " = " << Ci(w, 1) << " | " << c.with_minimum_away
        << " = " << Ci(a, 1) << " |\n";
  }
  return out.str();
}

std::string FailureSummaryMarkdown(const LaserExperiment& e, const std::vector<EpisodeRow>& rows) {
  std::ostringstream out;
  out << "\n## Failure case studies (E3)\n\nEach unsolved episode read against the potential minima of its world's "
         "static field (GG "
      << e.field.gains.gg << ", OG " << e.field.gains.og << ", NG 0): two_minima = it dwelt at one place, another, and "
      << "the first again; pinned = held within " << e.failure.pinned_radius_cm
      << " cm for the last half of the episode; circulating = travelled at least " << e.failure.circulating_factor
      << "x the optimal path without arriving (the bottleneck); other = the rest. Pictures: case_*.svg.\n\n";
  out << "| configuration | density | episodes | solved | two_minima | pinned | circulating | other |\n"
         "|---|---|---|---|---|---|---|---|\n";
  for (const LaserConfiguration& c : e.configurations) {
    for (double d : e.densities) {
      std::map<std::string, int> count;
      int n = 0;
      for (const EpisodeRow& r : rows) {
        if (r.configuration != c.label || r.density != d) continue;
        ++n;
        ++count[r.failure];
      }
      if (n == 0) continue;
      out << "| " << c.label << " | " << DensityText(d) << " | " << n;
      for (FailureKind k : kFailureKinds) out << " | " << count[FailureKindName(k)];
      out << " |\n";
    }
  }
  return out.str();
}

}  // namespace limbic::laser
