// The projection leaves face fluxes divergence-free to the pressure solver's tolerance:
// sum|div phi| after the projection is the solver's residual, a small multiple of the
// tolerance times sum|div phiH| before it.

#include <gtest/gtest.h>

#include "flow_cases.hpp"

namespace fvmmini {
namespace {

using namespace fvmmini::testing;

double worst_ratio(double tolerance, const Mesh& mesh, const MeshGeometry& g, double* last_global = nullptr) {
  IncompressibleSettings settings;
  settings.viscosity = 0.01;
  SolverSettings u_solver, p_solver;
  u_solver.tolerance = 1e-10;
  p_solver.tolerance = tolerance;
  p_solver.max_iter = 5000;
  const FlowOperators operators(mesh, g, cavity_boundary(), settings);
  HostFlowStep solver(operators, u_solver, p_solver);
  double worst = 0.0;
  for (int step = 0; step < 30; ++step) {
    const StepReport r = solver.advance(0.01);
    EXPECT_GT(r.divergence_before, 0.0);
    worst = std::max(worst, r.divergence_after / r.divergence_before);
    if (last_global) *last_global = r.continuity.global;
  }
  return worst;
}

TEST(Continuity, CorrectedFluxesAreDivergenceFreeToSolverTolerance) {
  const Mesh mesh = cavity_mesh(24);
  const MeshGeometry g = compute_geometry(mesh);
  double global = 1.0;
  for (double tolerance : {1e-5, 1e-8, 1e-11}) {
    const double ratio = worst_ratio(tolerance, mesh, g, &global);
    EXPECT_LT(ratio, 10.0 * tolerance) << "pressure tolerance " << tolerance;
    // --- a closed box: the global error is round-off whatever the tolerance
    EXPECT_LT(std::abs(global), 1e-15);
  }
}

TEST(Continuity, CourantNumberOfAUniformFlux) {
  // U = (1, 0, 0) through a 10 x 1 x 1 row of unit-length cells: sum|phi| / V = 2 / dx, Co = dt / dx.
  const Mesh mesh = channel_mesh(10, 1, 10.0);
  const MeshGeometry g = compute_geometry(mesh);
  std::vector<double> phi(mesh.n_faces(), 0.0);
  for (label f = 0; f < mesh.n_faces(); ++f) phi[f] = g.face_areas[f].x;  // U.S with U = (1, 0, 0)
  const CellFaces cells(mesh);
  const CourantNumber co = courant_number(cells, g, phi, 0.25);
  EXPECT_NEAR(co.max, 0.25, 1e-12);
  EXPECT_NEAR(co.mean, 0.25, 1e-12);
}

TEST(Continuity, ErrorsAreVolumeAveragedAndAccumulate) {
  const std::vector<double> div{1e-3, -3e-3}, volumes{1.0, 3.0};
  const ContinuityErrors e = continuity_errors(div, volumes, 0.5, 1.0);
  EXPECT_DOUBLE_EQ(e.sum_local, 0.5 * 4e-3 / 4.0);
  EXPECT_DOUBLE_EQ(e.global, 0.5 * -2e-3 / 4.0);
  EXPECT_DOUBLE_EQ(e.cumulative, 1.0 + e.global);
}

TEST(SteadyState, NeedsTheConsecutiveStepsInARowAndTheMinimumCount) {
  SteadyStateSettings settings;
  settings.residual_tolerance = 1e-6;
  settings.velocity_tolerance = 1e-5;
  settings.min_steps = 4;
  settings.consecutive_steps = 3;
  SteadyStateDetector detector(settings);
  // --- steps 1-3 quiet but under min_steps; step 4 quiet: steady
  EXPECT_FALSE(detector.update(1e-7, 1e-6));
  EXPECT_FALSE(detector.update(1e-7, 1e-6));
  EXPECT_FALSE(detector.update(1e-7, 1e-6));
  EXPECT_TRUE(detector.update(1e-7, 1e-6));
  // --- one loud step (velocity) restarts the count; two quiet ones are not enough
  EXPECT_FALSE(detector.update(1e-7, 1e-4));
  EXPECT_FALSE(detector.is_steady());
  EXPECT_FALSE(detector.update(1e-7, 1e-6));
  EXPECT_FALSE(detector.update(1e-7, 1e-6));
  EXPECT_TRUE(detector.update(1e-7, 1e-6));
  // --- a residual above its tolerance restarts it too
  EXPECT_FALSE(detector.update(1e-5, 1e-6));
}

}  // namespace
}  // namespace fvmmini
