#pragma once

#include <string>
#include <string_view>

namespace limbic::markup {

// Text for SVG, HTML or XML content and attribute values: & < > " ' become entities. The one escape every
// picture and report uses (the simulator's SVG, experiment reports and plots, recruitment reports).
std::string Escape(std::string_view text);

}  // namespace limbic::markup
