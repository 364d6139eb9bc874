// Tables, box plots and pictures of the recruitment experiments (spec affective-recruitment §6, §7):
// per condition and strategy M1 messages, M2 wait, M4 success and M3 bias; two-sided rank-sum
// p-values for every strategy pair against the Bonferroni threshold; relative improvements
// 1 − mean_A/mean_B per condition and over sums; the use cases drawn as pictures.
#pragma once

#include <string>
#include <vector>

#include "services/recruiter/mine_scenario.hpp"
#include "tools/recruit/experiment.hpp"

namespace limbic::recruit {

// Markdown tables for the terminal and the issue note.
std::string TextSummary(const RecruitExperiment& experiment, const std::vector<RecruitRow>& rows);

// One experiment as an HTML section with inline SVG (no scripts, no external assets).
// `pictures` are inline SVGs (use cases), drawn after the tables.
std::string HtmlSection(const RecruitExperiment& experiment, const std::vector<RecruitRow>& rows,
                        const std::vector<std::string>& pictures = {});
std::string HtmlPage(const std::string& title, const std::vector<std::string>& sections);

// The team at the end of the first episode: the UAV, every UGV, a line from the UAV to each robot that
// transmitted ACCEPT, an X on each robot that ignored a HELP, the recruited robot ringed, and the
// number of HELPs (spec §5.4, Figure 8 of the dissertation).
std::string UseCasePicture(const ScenarioResult& result, const std::string& title);

// Box plot: one group per condition, one box per strategy (whiskers min..max, box q1..q3, median).
struct BoxGroup {
  std::string label;
  std::vector<std::vector<double>> samples;  // one per strategy
};
std::string BoxPlot(const std::vector<BoxGroup>& groups, const std::vector<std::string>& strategy_labels,
                    const std::string& title, const std::string& y_label);

}  // namespace limbic::recruit
