// The least-squares quadratic fit: exact gradients and Hessians of quadratic fields on
// tetrahedra, mixed cells, polyhedra and a 2-D mesh.

#include <gtest/gtest.h>

#include "discretisation/least_squares_gradient.hpp"
#include "manufactured_fixture.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/polymesh_reader.hpp"

namespace fvmmini {
namespace {

/// The largest errors of the fitted gradient and Hessian against q's, fixedValue q on every
/// non-empty patch.
std::pair<double, double> fit_errors(const Mesh& mesh, const testing::Quadratic& q) {
  const MeshGeometry g = compute_geometry(mesh);
  const ScalarBoundary boundary = testing::quadratic_boundary(mesh, g, q);
  std::vector<double> phi(mesh.n_cells);
  for (label c = 0; c < mesh.n_cells; ++c) phi[c] = q.value(g.cell_centres[c]);

  const LeastSquaresGradient fit(mesh, g);
  std::vector<Vec3> gradient(mesh.n_cells);
  std::vector<Hessian> hessian(mesh.n_cells);
  fit.compute(boundary, phi, gradient, hessian);
  double gradient_error = 0.0, hessian_error = 0.0;
  for (label c = 0; c < mesh.n_cells; ++c) {
    gradient_error = std::max(gradient_error, mag(gradient[c] - q.gradient(g.cell_centres[c])));
    for (int i = 0; i < 3; ++i) hessian_error = std::max(hessian_error, mag(hessian[c].rows[i] - q.a.rows[i]));
  }
  return {gradient_error, hessian_error};
}

TEST(LeastSquaresGradient, ExactForQuadraticFields) {
  const std::string fixtures = FVMMINI_FIXTURES_DIR;
  for (const Mesh& mesh : {read_gmsh(fixtures + "/gmsh/cube_tet_h8.msh"),
                           read_gmsh(fixtures + "/gmsh/mix_prism_pyr.msh"),
                           read_polymesh(fixtures + "/polymesh/cube_poly_n8")}) {
    const auto [gradient_error, hessian_error] = fit_errors(mesh, testing::Quadratic{});
    EXPECT_LT(gradient_error, 1e-7) << mesh.description;
    EXPECT_LT(hessian_error, 1e-6) << mesh.description;
  }
}

TEST(LeastSquaresGradient, TwoDimensionalMeshHasNoEmptyDirectionTerms) {
  // The empty direction leaves the fit's z terms undetermined: they come out zero, the rest exact.
  const auto [gradient_error, hessian_error] = fit_errors(testing::unit_box(6, 1), testing::Quadratic{}.without_z());
  EXPECT_LT(gradient_error, 1e-7);
  EXPECT_LT(hessian_error, 1e-6);
}

}  // namespace
}  // namespace fvmmini
