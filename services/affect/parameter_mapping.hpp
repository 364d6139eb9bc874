// Drive → parameter mapping of spec §5.6 (eqs. 8.15–8.16, Table 8.2), writing ControlParameters
// fields by name so the table stays data (config/tables.yaml).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "common/types/control_parameters.hpp"
#include "services/affect/affect_config.hpp"

namespace limbic::affect {

// Eq. 8.15: D' = 1 − (1 − D)^(−X) if X < −1; D^X if X > 1; D otherwise.
double CurveDrive(double drive, double exponent);

// Eq. 8.16: P = (1 − D')·P_1 + D'·P_2 with D' = CurveDrive(drive, exponent).
double MapDriveToParameter(double drive, double p1, double p2, double exponent);

// Whether `name` is a ControlParameters field (w_v1, n_theta, ...).
bool IsControlParameter(std::string_view name);
// Whether that field is an integer (its mapped value is rounded to the nearest integer).
bool IsIntegerControlParameter(std::string_view name);
// Every ControlParameters field name, in declaration order.
std::vector<std::string_view> ControlParameterNames();
// Sets / reads a field by name; throws std::invalid_argument for an unknown name.
void SetControlParameter(std::string_view name, double value, ControlParameters* params);
double GetControlParameter(std::string_view name, const ControlParameters& params);

// Applies every row of a table: field = MapDriveToParameter(sources[row.source], p1, p2, exponent) (integer fields
// rounded). `sources` are drives (Table 8.2) or, in the companion model, emotions. Fields without a row keep their
// value in `base`. Each row's field is looked up once, when the table is built (issue 18: the engine applies its
// table every cycle, and finding each row's field by comparing names cost more than the mapping); Apply gives the
// same bits as looking the fields up by name (testing/reference_parameter_mappings.hpp, the test's reference).
class ResolvedParameterMappings {
 public:
  ResolvedParameterMappings() = default;  // no rows: Apply returns `base`
  // Throws std::invalid_argument for a row naming no ControlParameters field.
  explicit ResolvedParameterMappings(std::span<const ParameterMapping> mappings);
  // Precondition: every row's source indexes `sources` (the engine checks the tables when it is built).
  ControlParameters Apply(std::span<const double> sources, const ControlParameters& base) const;

 private:
  struct Row {
    int source = 0;
    double p1 = 0.0, p2 = 1.0, exponent = 0.0;
    double ControlParameters::*real = nullptr;  // one of the two is set
    int ControlParameters::*integer = nullptr;
  };
  std::vector<Row> rows_;
};

}  // namespace limbic::affect
