// The reference for ResolvedParameterMappings (issue 18): every row's field found by name, every cycle — the way the
// engine applied its tables before the fields were resolved once. Tests only.
#pragma once

#include <span>

#include "services/affect/parameter_mapping.hpp"

namespace limbic::affect::testing {

// field = MapDriveToParameter(sources[row.source], p1, p2, exponent) for every row (integer fields rounded); fields
// without a row keep their value in `base`.
inline ControlParameters ApplyParameterMappingsByName(std::span<const ParameterMapping> mappings,
                                                      std::span<const double> sources, const ControlParameters& base) {
  ControlParameters out = base;
  for (const ParameterMapping& row : mappings) {
    SetControlParameter(row.parameter, MapDriveToParameter(sources[row.source], row.p1, row.p2, row.exponent), &out);
  }
  return out;
}

}  // namespace limbic::affect::testing
