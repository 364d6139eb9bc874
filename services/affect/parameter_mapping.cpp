#include "services/affect/parameter_mapping.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace limbic::affect {

namespace {

// Every ControlParameters field by name: one of the two member pointers is set.
struct ParameterField {
  std::string_view name;
  double ControlParameters::*real = nullptr;
  int ControlParameters::*integer = nullptr;
};

#define LIMBIC_REAL(f) \
  ParameterField { #f, &ControlParameters::f, nullptr }
#define LIMBIC_INT(f) \
  ParameterField { #f, nullptr, &ControlParameters::f }
constexpr std::array kFields = {
    LIMBIC_REAL(w_v1),         LIMBIC_REAL(w_v2),
    LIMBIC_REAL(w_v3),         LIMBIC_REAL(w_v4),
    LIMBIC_REAL(w_v5),         LIMBIC_INT(n_v),
    LIMBIC_INT(n_omega),       LIMBIC_REAL(v_limit),
    LIMBIC_REAL(omega_limit),  LIMBIC_REAL(a_max),
    LIMBIC_REAL(a_min),        LIMBIC_REAL(alpha_max),
    LIMBIC_REAL(alpha_min),    LIMBIC_REAL(t_1),
    LIMBIC_REAL(t_2),          LIMBIC_REAL(t_3),
    LIMBIC_REAL(d_v_max),      LIMBIC_REAL(kappa),
    LIMBIC_REAL(beta),         LIMBIC_REAL(w_theta1),
    LIMBIC_REAL(w_theta2),     LIMBIC_REAL(w_theta3),
    LIMBIC_REAL(w_theta4),     LIMBIC_REAL(w_theta5),
    LIMBIC_REAL(w_theta6),     LIMBIC_INT(n_theta),
    LIMBIC_REAL(d_o_max),      LIMBIC_REAL(r_o),
    LIMBIC_REAL(smoothing),    LIMBIC_REAL(d_lookahead),
    LIMBIC_REAL(d_g_max),      LIMBIC_REAL(wander_period),
    LIMBIC_REAL(wander_alpha), LIMBIC_REAL(map_threshold),
    LIMBIC_REAL(map_radius),   LIMBIC_REAL(weight_cap),
    LIMBIC_REAL(w_p1),         LIMBIC_REAL(w_p2),
    LIMBIC_REAL(w_p3),         LIMBIC_REAL(w_p4),
    LIMBIC_REAL(cost_base),    LIMBIC_REAL(r_f),
    LIMBIC_REAL(t_r),          LIMBIC_REAL(eps_1),
    LIMBIC_REAL(eps_2),        LIMBIC_REAL(eps_3),
    LIMBIC_INT(n_o),
};
#undef LIMBIC_REAL
#undef LIMBIC_INT

const ParameterField* FindField(std::string_view name) {
  for (const auto& f : kFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ParameterField& RequireField(std::string_view name) {
  const ParameterField* f = FindField(name);
  if (!f) throw std::invalid_argument("unknown ControlParameters field '" + std::string(name) + "'");
  return *f;
}

}  // namespace

double CurveDrive(double drive, double exponent) {
  if (exponent < -1.0) return 1.0 - std::pow(1.0 - drive, -exponent);
  if (exponent > 1.0) return std::pow(drive, exponent);
  return drive;
}

double MapDriveToParameter(double drive, double p1, double p2, double exponent) {
  const double curved = CurveDrive(drive, exponent);
  return (1.0 - curved) * p1 + curved * p2;
}

std::vector<std::string_view> ControlParameterNames() {
  std::vector<std::string_view> names;
  for (const auto& f : kFields) names.push_back(f.name);
  return names;
}

bool IsControlParameter(std::string_view name) { return FindField(name) != nullptr; }

bool IsIntegerControlParameter(std::string_view name) {
  const ParameterField* f = FindField(name);
  return f && f->integer;
}

namespace {

// The one way a mapped value is written (integer fields rounded to the nearest integer).
void SetField(double ControlParameters::*real, int ControlParameters::*integer, double value,
              ControlParameters* params) {
  if (integer) {
    params->*integer = static_cast<int>(std::lround(value));
  } else {
    params->*real = value;
  }
}

}  // namespace

void SetControlParameter(std::string_view name, double value, ControlParameters* params) {
  const ParameterField& f = RequireField(name);
  SetField(f.real, f.integer, value, params);
}

double GetControlParameter(std::string_view name, const ControlParameters& params) {
  const ParameterField& f = RequireField(name);
  return f.integer ? static_cast<double>(params.*f.integer) : params.*f.real;
}

ResolvedParameterMappings::ResolvedParameterMappings(std::span<const ParameterMapping> mappings) {
  rows_.reserve(mappings.size());
  for (const ParameterMapping& row : mappings) {
    const ParameterField& f = RequireField(row.parameter);
    rows_.push_back({row.source, row.p1, row.p2, row.exponent, f.real, f.integer});
  }
}

ControlParameters ResolvedParameterMappings::Apply(std::span<const double> sources,
                                                   const ControlParameters& base) const {
  ControlParameters out = base;
  for (const Row& row : rows_) {
    SetField(row.real, row.integer, MapDriveToParameter(sources[row.source], row.p1, row.p2, row.exponent), &out);
  }
  return out;
}

}  // namespace limbic::affect
