// The Laplacian on boxes: exactness on linear fields, symmetry, conservation,
// boundary conditions and the reference level.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "discretisation/laplacian.hpp"
#include "discretisation/scalar_problem.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "manufactured_fixture.hpp"
#include "mesh/gmsh_reader.hpp"

namespace fvmmini {
namespace {

TEST(Laplacian, BoxCoefficientsAreAreaOverDistance) {
  BoxSpec spec;
  spec.cells = {4, 2, 2};
  spec.max = {2.0, 1.0, 0.5};  // dx = 0.5, dy = 0.5, dz = 0.25
  const Mesh mesh = generate_box(spec);
  const MeshGeometry g = compute_geometry(mesh);
  const Laplacian lap(mesh, g);
  EXPECT_TRUE(lap.is_orthogonal());
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const Vec3 d = g.cell_centres[mesh.neighbour[f]] - g.cell_centres[mesh.owner[f]];
    EXPECT_NEAR(lap.face_coefficients()[f], mag(g.face_areas[f]) / mag(d), 1e-12);
  }
  // boundary: distance is half a cell
  for (label f = mesh.n_internal_faces(); f < mesh.n_faces(); ++f) {
    const Vec3 d = g.face_centres[f] - g.cell_centres[mesh.owner[f]];
    EXPECT_NEAR(lap.boundary_coefficients()[f - mesh.n_internal_faces()], mag(g.face_areas[f]) / mag(d), 1e-12);
  }
}

TEST(Laplacian, CorrectionsAreKeptWhereAskedAndNoCorrectionIsAddedWithout) {
  // --- an orthogonal box: none made (24 bytes a face), until a caller asks (another rank's part
  //     is not orthogonal); then freed again
  BoxSpec spec;
  spec.cells = {4, 3, 2};
  const Mesh mesh = generate_box(spec);
  const MeshGeometry g = compute_geometry(mesh);
  Laplacian lap(mesh, g);
  EXPECT_TRUE(lap.is_orthogonal());
  EXPECT_TRUE(lap.non_orthogonal_corrections().empty());
  lap.keep_corrections(true);
  ASSERT_EQ(lap.non_orthogonal_corrections().size(), static_cast<std::size_t>(mesh.n_faces()));
  for (label f = 0; f < mesh.n_faces(); ++f)
    EXPECT_LE(mag(lap.non_orthogonal_corrections()[f]), 1e-10 * mag(g.face_areas[f])) << "face " << f;
  lap.keep_corrections(false);
  EXPECT_TRUE(lap.non_orthogonal_corrections().empty());
  const ScalarBoundary boundary;  // refused before it is read
  std::vector<Vec3> gradient(mesh.n_cells);
  std::vector<Hessian> hessian(mesh.n_cells);
  std::vector<double> b(mesh.n_cells, 0.0);
  EXPECT_THROW(lap.add_non_orthogonal_correction(1.0, boundary, gradient, hessian, b), std::logic_error);

  // --- a sheared box: made at once, and the same when freed and made again
  Mesh sheared = generate_box(spec);
  for (Vec3& p : sheared.points) p.x += 0.3 * p.y;
  const MeshGeometry gs = compute_geometry(sheared);
  Laplacian skew(sheared, gs);
  EXPECT_FALSE(skew.is_orthogonal());
  ASSERT_EQ(skew.non_orthogonal_corrections().size(), static_cast<std::size_t>(sheared.n_faces()));
  const std::vector<Vec3> made(skew.non_orthogonal_corrections().begin(), skew.non_orthogonal_corrections().end());
  skew.keep_corrections(false);
  skew.keep_corrections(true);
  ASSERT_EQ(skew.non_orthogonal_corrections().size(), made.size());
  EXPECT_TRUE(std::equal(made.begin(), made.end(), skew.non_orthogonal_corrections().begin(),
                         [](const Vec3& a, const Vec3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }));
  EXPECT_GT(std::count_if(made.begin(), made.end(), [](const Vec3& k) { return mag(k) > 0.0; }), 0);
}

TEST(Laplacian, ReproducesLinearFieldExactly) {
  // A linear field is harmonic and the two-point flux is exact for it on an orthogonal box.
  const Mesh mesh = testing::unit_box(5);
  const MeshGeometry g = compute_geometry(mesh);
  auto linear = [](const Vec3& x) { return 1.0 + 2.0 * x.x - 3.0 * x.y + 0.5 * x.z; };
  ScalarBoundary boundary;
  for (const Patch& p : mesh.patches) {
    PatchCondition bc{BoundaryType::fixed_value, {}};
    for (label i = 0; i < p.size; ++i) bc.values.push_back(linear(g.face_centres[p.start + i]));
    boundary.patches.push_back(bc);
  }
  ScalarProblemSettings s;
  ScalarProblem problem(mesh, g, boundary, {}, s);
  SolverSettings ss;
  ss.tolerance = 1e-14;
  ss.max_iter = 1000;
  auto solver = make_linear_solver(problem.matrix(), ss);
  const auto perf = problem.advance(*solver, 0.0);
  ASSERT_EQ(perf.solves.size(), 1u);
  EXPECT_TRUE(perf.solves[0].converged);
  for (label c = 0; c < mesh.n_cells; ++c) EXPECT_NEAR(problem.field()[c], linear(g.cell_centres[c]), 1e-10);
}

TEST(Laplacian, CorrectedFluxesAreExactForQuadraticFieldsOnSkewedFaces) {
  // A cell's implicit fluxes plus its deferred correction (non-orthogonal and skewness parts, from
  // exact cell gradients and Hessians) are its exact flux: the integral of div grad q = tr A over
  // the cell, for cells without boundary faces (those keep the owner's gradient, not exact).
  const Mesh mesh = read_gmsh(std::string(FVMMINI_FIXTURES_DIR) + "/gmsh/cube_tet_h8.msh");
  const MeshGeometry g = compute_geometry(mesh);
  const testing::Quadratic q;
  const ScalarBoundary boundary = testing::quadratic_boundary(mesh, g, q);
  const Laplacian lap(mesh, g);
  ASSERT_FALSE(lap.is_orthogonal());
  std::vector<double> phi(mesh.n_cells), a_phi(mesh.n_cells), b(mesh.n_cells, 0.0);
  std::vector<Vec3> gradient(mesh.n_cells);
  std::vector<Hessian> hessian(mesh.n_cells, q.a);
  for (label c = 0; c < mesh.n_cells; ++c) {
    phi[c] = q.value(g.cell_centres[c]);
    gradient[c] = q.gradient(g.cell_centres[c]);
  }
  LduMatrix a;
  lap.assemble(1.0, boundary, a);
  reference::ldu_spmv(a, phi, a_phi);
  lap.add_non_orthogonal_correction(1.0, boundary, gradient, hessian, b);
  // --- A phi - b is minus the flux out of each cell
  std::vector<bool> on_boundary(mesh.n_cells, false);
  for (label f = mesh.n_internal_faces(); f < mesh.n_faces(); ++f) on_boundary[mesh.owner[f]] = true;
  const double trace = q.a.rows[0].x + q.a.rows[1].y + q.a.rows[2].z;
  label checked = 0;
  for (label c = 0; c < mesh.n_cells; ++c) {
    if (on_boundary[c]) continue;
    EXPECT_NEAR(a_phi[c] - b[c], -trace * g.cell_volumes[c], 1e-12) << "cell " << c;
    ++checked;
  }
  EXPECT_GT(checked, mesh.n_cells / 2);
}

TEST(Laplacian, MatrixIsSymmetricAndConservative) {
  const Mesh mesh = testing::unit_box(4);
  const MeshGeometry g = compute_geometry(mesh);
  const Laplacian lap(mesh, g);
  ScalarBoundary zero_gradient;
  zero_gradient.patches.assign(mesh.patches.size(), {BoundaryType::zero_gradient, {}});
  LduMatrix a;
  lap.assemble(2.0, zero_gradient, a);
  // --- x'Ay = y'Ax on random vectors
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(mesh.n_cells), y(mesh.n_cells), ax(mesh.n_cells), ay(mesh.n_cells);
  for (auto& v : x) v = u(rng);
  for (auto& v : y) v = u(rng);
  reference::ldu_spmv(a, x, ax);
  reference::ldu_spmv(a, y, ay);
  double xay = 0.0, yax = 0.0;
  for (label i = 0; i < mesh.n_cells; ++i) {
    xay += x[i] * ay[i];
    yax += y[i] * ax[i];
  }
  EXPECT_NEAR(xay, yax, 1e-12 * std::abs(xay));
  // --- zero-gradient everywhere: rows sum to zero (a constant is in the null space)
  std::vector<double> ones(mesh.n_cells, 1.0), a1(mesh.n_cells);
  reference::ldu_spmv(a, ones, a1);
  for (double v : a1) EXPECT_NEAR(v, 0.0, 1e-12);
}

TEST(Laplacian, ReferenceLevelMakesPureNeumannSolvable) {
  // Zero-gradient everywhere with a zero-mean source is solvable only up to a constant:
  // the reference cell fixes it.
  const Mesh mesh = testing::unit_box(6, 1);
  const MeshGeometry g = compute_geometry(mesh);
  ScalarBoundary boundary;
  for (const Patch& p : mesh.patches)
    boundary.patches.push_back({p.type == "empty" ? BoundaryType::empty : BoundaryType::zero_gradient, {}});
  ScalarProblemSettings s;
  s.reference_cell = 3;
  s.reference_value = 2.5;
  ScalarProblem problem(mesh, g, boundary, {}, s);
  SolverSettings ss;
  ss.tolerance = 1e-12;
  auto solver = make_linear_solver(problem.matrix(), ss);
  problem.advance(*solver, 0.0);
  for (double v : problem.field()) EXPECT_NEAR(v, 2.5, 1e-9);
}

TEST(Laplacian, SingularSystemWithoutReferenceIsAnError) {
  const Mesh mesh = testing::unit_box(3);
  const MeshGeometry g = compute_geometry(mesh);
  const Laplacian lap(mesh, g);
  ScalarBoundary zero_gradient;
  zero_gradient.patches.assign(mesh.patches.size(), {BoundaryType::zero_gradient, {}});
  LduMatrix a;
  lap.assemble(1.0, zero_gradient, a);
  auto solver = make_linear_solver(a, SolverSettings{});
  std::vector<double> x(mesh.n_cells, 0.0), b(mesh.n_cells, 1.0);
  EXPECT_THROW(solver->solve(x, b, "T"), SolverError);
}

TEST(Laplacian, BoundaryConditionMismatchIsAnError) {
  const Mesh mesh = testing::unit_box(2, 1);
  const MeshGeometry g = compute_geometry(mesh);
  ScalarBoundary boundary;
  boundary.patches.assign(mesh.patches.size(), {BoundaryType::zero_gradient, {}});  // empty patch given zeroGradient
  EXPECT_THROW(ScalarProblem(mesh, g, boundary, {}, ScalarProblemSettings{}), std::invalid_argument);
  boundary.patches.pop_back();
  EXPECT_THROW(ScalarProblem(mesh, g, boundary, {}, ScalarProblemSettings{}), std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
