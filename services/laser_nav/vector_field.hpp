// E2c (spec reactive-topological §4, §2.2): the static controller's resultant vector field over a world, with
// the noise gain at 0, and the automatic detection of potential minima — "cells whose neighbour heading differs
// by > 150°" (§1, "Potential minimum": opposing vectors, ~180° apart, where the reactive law traps a robot).
//
// At the centre of every cell of a grid over the world where the robot's disc fits (the configuration-space
// test of §1.2 step 5), a noise-free scan is taken and R = GG·Gv + OG·Ov(S) formed exactly as the static
// controller does (Eq. 4-1, the same ObstacleField). A free cell is a potential minimum when the heading of R
// differs by more than the threshold from that of any free 8-neighbour (both cells are marked), or when R
// vanishes there. Decided where the spec is silent: a 10 cm grid (the robot's radius is 15 cm: a minimum is a
// few cells across), the noise-free laser (the field of the law, not of one noisy reading), and the
// configuration-space cells of the robot's own radius (no margin), and the arrival zone around the goal left out.
//
// Inputs: World, VectorFieldOptions. Outputs: VectorField (headings, resultants, minima).
#pragma once

#include <cstdint>
#include <vector>

#include "services/laser_nav/heading_law.hpp"
#include "services/laser_sim/laser_world.hpp"

namespace limbic::laser {

struct VectorFieldOptions {
  double cell_cm = 10.0;
  ControlGains gains;  // GG, OG and S of the field; NG, TGG and EGG are not used (E2c: NG = 0)
  ObstacleWeightOptions weight;
  double minimum_angle_deg = 150.0;  // [T] neighbour headings further apart than this mark a potential minimum
  // The goal itself is the field's one intended sink: cells on opposite sides of it point at each other. Cells
  // within goal_radius_cm + one cell diagonal of the goal are the arrival, not a potential minimum.
  double goal_radius_cm = 15.0;  // §1.8: the goal is reached within 15 cm
};

// Throws std::invalid_argument naming the field (cell outside [1, 100] cm, non-finite or negative gains, S
// outside (0, 250], a threshold outside (0, 180]).
void ValidateVectorFieldOptions(const VectorFieldOptions& options);

struct VectorField {
  int nx = 0, ny = 0;
  double cell_cm = 10.0;
  // Per cell, row by row from the south-west corner: the bearing of R in degrees [0, 360) (NaN where the robot
  // does not fit, where R vanishes and in the goal's arrival zone), R itself, whether the robot fits there and
  // whether the cell is a potential minimum.
  std::vector<double> heading_deg;
  std::vector<Vec2> resultant;
  std::vector<uint8_t> free;
  std::vector<uint8_t> minimum;
  int free_cells = 0;
  int minima = 0;

  size_t Index(int i, int j) const { return static_cast<size_t>(j) * static_cast<size_t>(nx) + static_cast<size_t>(i); }
  Vec2 Centre(int i, int j) const { return {cell_cm * (i + 0.5), cell_cm * (j + 0.5)}; }
};

// The field of the static law with NG = 0 towards the world's goal.
VectorField ComputeVectorField(const World& world, const VectorFieldOptions& options = {});

// The detection alone over a grid of headings (NaN = not free): a cell is marked when a non-NaN 8-neighbour's
// heading differs from its own by more than `minimum_angle_deg` (AngDiff: on the circle, 179° and −179° are 2°
// apart). Cells flagged in `vanished` (may be empty) are marked too.
std::vector<uint8_t> PotentialMinima(int nx, int ny, const std::vector<double>& heading_deg, double minimum_angle_deg,
                                     const std::vector<uint8_t>& vanished = {});

// The potential minima as places: 8-connected regions of marked cells, largest first (ties: south-west first),
// each with its cell count and the centroid of its cell centres (cm).
struct MinimumRegion {
  int cells = 0;
  Vec2 centroid;
};
std::vector<MinimumRegion> MinimumRegions(const VectorField& field);

}  // namespace limbic::laser
