// A laminar channel from a uniform inlet to a pressure outlet against the Poiseuille solution
// u(y) = 6 U y (1 - y) (mean U, height 1), dp/dx = -12 nu U.

#include <gtest/gtest.h>

#include "flow_cases.hpp"

namespace fvmmini {
namespace {

using namespace fvmmini::testing;

TEST(Channel, DevelopsThePoiseuilleProfile) {
  const double length = 6.0, nu = 0.1, mean = 1.0;  // Re = 10 on the height: entrance length ~0.5
  const label nx = 60, ny = 20;
  const Mesh mesh = channel_mesh(nx, ny, length);
  const MeshGeometry g = compute_geometry(mesh);
  IncompressibleSettings settings;
  settings.viscosity = nu;
  SolverSettings u_solver, p_solver;
  u_solver.preconditioner = "diagonal";
  u_solver.tolerance = 1e-10;
  p_solver.tolerance = 1e-10;
  p_solver.max_iter = 5000;
  const FlowOperators operators(mesh, g, channel_boundary(mean), settings);
  HostFlowStep solver(operators, u_solver, p_solver);
  EXPECT_EQ(operators.reference_cell, -1);  // the outlet fixes p

  SteadyStateSettings steady;
  steady.residual_tolerance = 1e-9;
  steady.velocity_tolerance = 1e-6;
  const MarchResult run = march(solver, 0.01, 0.5, 40.0, steady);
  ASSERT_TRUE(run.steady) << "not steady by t = " << run.time;

  // --- the column of cells at x ~ 4.5: u against 6 U y (1 - y), v ~ 0
  const label column = static_cast<label>(4.5 / length * nx);
  double worst_u = 0.0, worst_v = 0.0;
  for (label j = 0; j < ny; ++j) {
    const label c = column + nx * j;
    const double y = g.cell_centres[c].y;
    worst_u = std::max(worst_u, std::abs(solver.state().velocity[0][c] - 6.0 * mean * y * (1.0 - y)));
    worst_v = std::max(worst_v, std::abs(solver.state().velocity[1][c]));
  }
  EXPECT_LT(worst_u, 0.01 * 1.5);  // 1% of the centreline velocity
  EXPECT_LT(worst_v, 1e-4);

  // --- the pressure gradient along the channel centre between x = 3 and x = 5
  const label mid = ny / 2;
  const label c3 = static_cast<label>(3.0 / length * nx) + nx * mid, c5 = static_cast<label>(5.0 / length * nx) + nx * mid;
  const double dpdx = (solver.state().pressure[c5] - solver.state().pressure[c3]) / (g.cell_centres[c5].x - g.cell_centres[c3].x);
  EXPECT_NEAR(dpdx, -12.0 * nu * mean, 0.02 * 12.0 * nu * mean);

  // --- mass: what enters leaves
  const auto& flux = solver.state().flux;
  double in = 0.0, out = 0.0;
  for (const Patch& patch : mesh.patches)
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      if (patch.name == "inlet") in -= flux[f];
      if (patch.name == "outlet") out += flux[f];
    }
  EXPECT_NEAR(in, mean * 1.0 * 0.1, 1e-12);
  EXPECT_NEAR(out, in, 1e-9 * in);
}

}  // namespace
}  // namespace fvmmini
