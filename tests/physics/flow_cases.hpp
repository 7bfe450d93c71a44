#pragma once
// Shared by the physics tests: the 2-D lid-driven cavity and the channel as solver set-ups,
// a run to steady state, and Ghia's table read from the fixtures.

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/time_schedule.hpp"
#include "discretisation/incompressible/centreline_sampler.hpp"
#include "discretisation/incompressible/host_flow_step.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "tests/physics/cavity_mesh.hpp"

namespace fvmmini::testing {

/// Lid velocity (1, 0, 0), other walls at rest.
inline FlowBoundary cavity_boundary() {
  FlowBoundary b;
  b.patches = {{FlowPatchType::wall, {1.0, 0.0, 0.0}, 0.0},
               {FlowPatchType::wall, {}, 0.0},
               {FlowPatchType::empty, {}, 0.0}};
  return b;
}

/// The 3-D cube cavity on 2762 tetrahedra (h = 1/8): movingWall (y = 1), fixedWalls.
inline Mesh tetrahedral_cavity_mesh() {
  return read_gmsh(std::string(FVMMINI_FIXTURES_DIR) + "/gmsh/cavity3d_tet_h8.msh");
}

/// The lid moving in +x on the patch named movingWall, every other patch a wall at rest.
inline FlowBoundary lid_driven_boundary(const Mesh& mesh) {
  FlowBoundary b;
  for (const Patch& patch : mesh.patches)
    b.patches.push_back({FlowPatchType::wall, patch.name == "movingWall" ? Vec3{1.0, 0.0, 0.0} : Vec3{}, 0.0});
  return b;
}

/// A channel [0, length] x [0, 1] x [0, 0.1]: inlet (xmin), outlet (xmax), walls, frontAndBack.
inline Mesh channel_mesh(label nx, label ny, double length) {
  BoxSpec spec;
  spec.cells = {nx, ny, 1};
  spec.max = {length, 1.0, 0.1};
  spec.patches = {{"inlet", "patch", {BoxSide::xmin}},
                  {"outlet", "patch", {BoxSide::xmax}},
                  {"walls", "wall", {BoxSide::ymin, BoxSide::ymax}},
                  {"frontAndBack", "empty", {BoxSide::zmin, BoxSide::zmax}}};
  return generate_box(spec);
}

/// Uniform inflow (mean, 0, 0), p = 0 at the outlet.
inline FlowBoundary channel_boundary(double mean_velocity) {
  FlowBoundary b;
  b.patches = {{FlowPatchType::velocity_inlet, {mean_velocity, 0.0, 0.0}, 0.0},
               {FlowPatchType::pressure_outlet, {}, 0.0},
               {FlowPatchType::wall, {}, 0.0},
               {FlowPatchType::empty, {}, 0.0}};
  return b;
}

struct MarchResult {
  double time = 0.0;
  int steps = 0;
  bool steady = false;
  StepReport last;
};

/// March with dt adjusted to max_co by the app's clock and OpenFOAM's rule until steady or end_time.
inline MarchResult march(FlowStep& solver, double first_dt, double max_co, double end_time,
                         const SteadyStateSettings& steady_settings = {}) {
  SteadyStateDetector steady(steady_settings);
  TimeControls controls;
  controls.max_co = max_co;
  TimeSchedule clock(0.0, end_time, 0.0);
  MarchResult r;
  double dt = first_dt;
  while (!clock.finished() && !r.steady) {
    const double co = solver.courant_number(dt).max;
    if (co > 0.0) dt = adjust_delta_t(dt, co, controls);
    r.last = solver.advance(clock.advance(dt));
    r.time = clock.time();
    r.steps = static_cast<int>(clock.step());
    r.steady = steady.update(r.last.momentum_residual, r.last.velocity_change);
  }
  return r;
}

/// Ghia's points (coordinate, value) for one profile ("u_at_x0.5", "v_at_y0.5") at one Re.
inline std::vector<std::pair<double, double>> ghia_profile(const std::string& profile, int reynolds) {
  std::ifstream in(std::string(FVMMINI_FIXTURES_DIR) + "/validation/ghia1982.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) header.push_back(cell);
  }
  const auto column = std::find(header.begin(), header.end(), "re" + std::to_string(reynolds)) - header.begin();
  std::vector<std::pair<double, double>> points;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (cells.size() == header.size() && cells[0] == profile)
      points.emplace_back(std::stod(cells[2]), std::stod(cells[column]));
  }
  std::sort(points.begin(), points.end());
  return points;
}

/// The largest |sampled - Ghia| over Ghia's interior points of one centreline; the samples are the
/// cavity_centrelines with 129 points, so Ghia's coordinates are sample points.
inline double ghia_deviation(const std::vector<LineSample>& samples, int line, int component,
                             const std::vector<std::pair<double, double>>& ghia, int axis) {
  double worst = 0.0;
  for (const auto& [coordinate, value] : ghia) {
    if (coordinate <= 0.0 || coordinate >= 1.0) continue;
    const LineSample* nearest = nullptr;
    for (const LineSample& s : samples)
      if (s.line == line && (!nearest || std::abs(s.position[axis] - coordinate) < std::abs(nearest->position[axis] - coordinate)))
        nearest = &s;
    worst = std::max(worst, std::abs(nearest->velocity[component] - value));
  }
  return worst;
}

}  // namespace fvmmini::testing
