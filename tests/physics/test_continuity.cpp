// The projection leaves face fluxes divergence-free to the pressure solver's tolerance:
// sum|div phi| after the projection is the solver's residual, a small multiple of the
// tolerance times sum|div phiH| before it. The cells' face lists the divergence sums over come
// in face order with their signs, on one thread as on several.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <utility>
#include <vector>

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

TEST(Continuity, EachCellListsItsFacesInFaceOrderWithTheirSigns) {
  // a 2-D channel (its empty patches left out) and tetrahedra
  for (const Mesh& mesh : {channel_mesh(9, 5, 3.0), tetrahedral_cavity_mesh()}) {
    std::vector<char> empty(mesh.n_faces(), 0);
    for (const Patch& patch : mesh.patches)
      if (patch.type == "empty") std::fill_n(empty.begin() + patch.start, patch.size, 1);
    std::vector<std::vector<std::pair<label, double>>> expected(mesh.n_cells);
    for (label f = 0; f < mesh.n_faces(); ++f) {
      if (empty[f]) continue;
      expected[mesh.owner[f]].emplace_back(f, 1.0);
      if (f < mesh.n_internal_faces()) expected[mesh.neighbour[f]].emplace_back(f, -1.0);
    }
    for (const int threads : {1, 3}) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      const CellFaces cells(mesh);
      omp_set_num_threads(before);
      ASSERT_EQ(cells.n_cells(), mesh.n_cells);
      for (label c = 0; c < mesh.n_cells; ++c) {
        std::vector<std::pair<label, double>> listed;
        for (label k = cells.offsets()[c]; k < cells.offsets()[c + 1]; ++k)
          listed.emplace_back(cells.faces()[k], static_cast<double>(cells.signs()[k]));
        EXPECT_EQ(listed, expected[c]) << "cell " << c << ", " << threads << " threads";
      }
    }
  }
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
