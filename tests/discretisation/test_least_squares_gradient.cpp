// The least-squares fits: the quadratic one exact for gradients and Hessians of quadratic fields,
// the linear one's weights exact for gradients of linear fields, on tetrahedra, mixed cells,
// polyhedra and a 2-D mesh, and the same to the bit on one thread as on several.

#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <span>
#include <stdexcept>
#include <vector>

#include "discretisation/least_squares_gradient.hpp"
#include "discretisation/linear_least_squares.hpp"
#include "manufactured_fixture.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh_assembly.hpp"
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

/// The largest error of sum_f weight(c, f) (phi_other - phi_c) against the gradient of a linear
/// field, gathered over each cell's faces (boundary values exact on every non-empty patch).
double linear_weights_error(const Mesh& mesh, const Vec3& slope) {
  const MeshGeometry g = compute_geometry(mesh);
  const LinearLeastSquares fit(mesh, g);
  auto phi = [&](const Vec3& x) { return 1.0 + dot(slope, x); };
  std::vector<Vec3> gradient(mesh.n_cells);
  auto add = [&](label c, label f, const Vec3& other) {
    gradient[c] += fit.weight(c, f) * (phi(other) - phi(g.cell_centres[c]));
  };
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    add(mesh.owner[f], f, g.cell_centres[mesh.neighbour[f]]);
    add(mesh.neighbour[f], f, g.cell_centres[mesh.owner[f]]);
  }
  for (const Patch& patch : mesh.patches)
    if (patch.type != "empty")
      for (label f = patch.start; f < patch.start + patch.size; ++f) add(mesh.owner[f], f, g.face_centres[f]);
  double error = 0.0;
  for (const Vec3& grad : gradient) error = std::max(error, mag(grad - slope));
  return error;
}

/// A star: the unit cube (cell 0) with its top face cut into k x k squares, on each a cube cell
/// of side 1/k (cells 1 .. k^2, each a face neighbour of the cube and of its grid neighbours). The
/// cube has k^2 face neighbours: every small cell's first ring is too few points, so its second
/// ring is all of them.
Mesh star_mesh(label k) {
  UnfilledVector<Vec3> points{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  const auto top = [&](label i, label j) { return 4 + i * (k + 1) + j; };                    // z = 1
  const auto lid = [&](label i, label j) { return 4 + (k + 1) * (k + 1) + i * (k + 1) + j; };  // z = 1 + 1/k
  for (double z : {1.0, 1.0 + 1.0 / k})
    for (label i = 0; i <= k; ++i)
      for (label j = 0; j <= k; ++j) points.push_back({static_cast<double>(i) / k, static_cast<double>(j) / k, z});
  const auto leaf = [&](label i, label j) { return 1 + i * k + j; };
  FaceList faces;
  std::vector<label> loop;
  const auto add = [&](std::vector<label> l, label owner, label neighbour) {
    faces.add(l, owner, neighbour, neighbour < 0 ? 0 : -1);
  };
  // --- the cube: bottom, four sides through the top grid's edge points, the squares under the cells
  add({0, 3, 2, 1}, 0, -1);
  loop = {0, 1};
  for (label i = k; i >= 0; --i) loop.push_back(top(i, 0));
  add(loop, 0, -1);
  loop = {1, 2};
  for (label j = k; j >= 0; --j) loop.push_back(top(k, j));
  add(loop, 0, -1);
  loop = {2, 3};
  for (label i = 0; i <= k; ++i) loop.push_back(top(i, k));
  add(loop, 0, -1);
  loop = {3, 0};
  for (label j = 0; j <= k; ++j) loop.push_back(top(0, j));
  add(loop, 0, -1);
  for (label i = 0; i < k; ++i)
    for (label j = 0; j < k; ++j) {
      add({top(i, j), top(i + 1, j), top(i + 1, j + 1), top(i, j + 1)}, 0, leaf(i, j));
      add({lid(i, j), lid(i + 1, j), lid(i + 1, j + 1), lid(i, j + 1)}, leaf(i, j), -1);
      add({top(i + 1, j), top(i + 1, j + 1), lid(i + 1, j + 1), lid(i + 1, j)}, leaf(i, j),
          i + 1 < k ? leaf(i + 1, j) : -1);
      add({top(i + 1, j + 1), top(i, j + 1), lid(i, j + 1), lid(i + 1, j + 1)}, leaf(i, j),
          j + 1 < k ? leaf(i, j + 1) : -1);
      if (i == 0) add({top(0, j + 1), top(0, j), lid(0, j), lid(0, j + 1)}, leaf(i, j), -1);
      if (j == 0) add({top(i, 0), top(i + 1, 0), lid(i + 1, 0), lid(i, 0)}, leaf(i, j), -1);
    }
  return assemble_mesh(std::move(points), faces, {Patch{.name = "walls", .type = "wall"}}, 1 + k * k,
                       "star of " + std::to_string(k * k) + " cells on a cube");
}

TEST(LeastSquaresGradient, StencilsAroundACellOfManyNeighboursAreCapped) {
  // 4900 cells on the cube: uncapped, each would hold all 4900 in its stencil (24 million points)
  const Mesh mesh = star_mesh(70);
  const MeshGeometry g = compute_geometry(mesh);
  const LeastSquaresGradient fit(mesh, g);
  EXPECT_LE(fit.largest_stencil(), stencil_cap_points);
  EXPECT_GT(fit.capped_cells(), 4000);
  // --- the capped stencils still fit a linear (and a quadratic) field exactly
  const testing::Quadratic q;
  const ScalarBoundary boundary = testing::quadratic_boundary(mesh, g, q);
  std::vector<double> phi(mesh.n_cells);
  for (label c = 0; c < mesh.n_cells; ++c) phi[c] = q.value(g.cell_centres[c]);
  std::vector<Vec3> gradient(mesh.n_cells);
  std::vector<Hessian> hessian(mesh.n_cells);
  fit.compute(boundary, phi, gradient, hessian);
  double error = 0.0;
  for (label c = 0; c < mesh.n_cells; ++c) error = std::max(error, mag(gradient[c] - q.gradient(g.cell_centres[c])));
  EXPECT_LT(error, 1e-6);
}

TEST(LeastSquaresGradient, OrdinaryMeshesAreNotCapped) {
  const std::string fixtures = FVMMINI_FIXTURES_DIR;
  for (const Mesh& mesh : {read_gmsh(fixtures + "/gmsh/cube_tet_h8.msh"),
                           read_gmsh(fixtures + "/gmsh/mix_prism_pyr.msh"),
                           read_polymesh(fixtures + "/polymesh/cube_poly_n8"), testing::unit_box(6)}) {
    const MeshGeometry g = compute_geometry(mesh);
    const LeastSquaresGradient fit(mesh, g);
    EXPECT_EQ(fit.capped_cells(), 0) << mesh.description;
    EXPECT_LT(fit.largest_stencil(), stencil_cap_points / 2) << mesh.description;
  }
}

TEST(LinearLeastSquares, WeightsAreExactForLinearFields) {
  // (to ~1e-9: G's regularisation for 2-D meshes is relative 1e-10)
  const std::string fixtures = FVMMINI_FIXTURES_DIR;
  for (const Mesh& mesh : {read_gmsh(fixtures + "/gmsh/cube_tet_h8.msh"),
                           read_gmsh(fixtures + "/gmsh/mix_prism_pyr.msh"),
                           read_polymesh(fixtures + "/polymesh/cube_poly_n8")})
    EXPECT_LT(linear_weights_error(mesh, Vec3{0.3, -1.2, 2.5}), 1e-7) << mesh.description;
  // 2-D: the empty direction's component comes out zero
  EXPECT_LT(linear_weights_error(testing::unit_box(6, 1), Vec3{0.3, -1.2, 0.0}), 1e-7);
}

TEST(LinearLeastSquares, WeightsAreTheSameOnOneThreadAsOnSeveral) {
  // G is summed cell by cell in parallel, over each cell's faces in the order one pass over the
  // faces takes them
  const std::string fixtures = FVMMINI_FIXTURES_DIR;
  for (const Mesh& mesh : {read_gmsh(fixtures + "/gmsh/cube_tet_h8.msh"), testing::unit_box(6, 1)}) {
    const MeshGeometry g = compute_geometry(mesh);
    const auto weights = [&](int threads) {
      const int before = omp_get_max_threads();
      omp_set_num_threads(threads);
      const LinearLeastSquares fit(mesh, g);
      omp_set_num_threads(before);
      std::vector<Vec3> w;
      for (label f = 0; f < mesh.n_faces(); ++f) {
        w.push_back(fit.weight(mesh.owner[f], f));
        if (f < mesh.n_internal_faces()) w.push_back(fit.weight(mesh.neighbour[f], f));
      }
      return w;
    };
    const std::vector<Vec3> one = weights(1), several = weights(3);
    ASSERT_EQ(one.size(), several.size());
    EXPECT_EQ(std::memcmp(one.data(), several.data(), one.size() * sizeof(Vec3)), 0) << mesh.description;
  }
}

TEST(LinearLeastSquares, ACellFittedWhenAskedHasTheWeightsOfEveryCellFittedAhead) {
  const std::string fixtures = FVMMINI_FIXTURES_DIR;
  for (const Mesh& mesh : {read_gmsh(fixtures + "/gmsh/cube_tet_h8.msh"), testing::unit_box(6, 1)}) {
    const MeshGeometry g = compute_geometry(mesh);
    const CellFaceLists lists = cell_face_lists(mesh);
    const LinearLeastSquares ahead(mesh, g, {}, lists), asked(mesh, g, {}, lists, false);
    EXPECT_THROW(asked.weight(0, lists.faces[lists.start[0]]), std::out_of_range);
    for (label c = 0; c < mesh.n_cells; ++c) {
      // its faces in the lists' order (owned, then neighboured), not ascending
      const std::span<const label> faces(lists.faces.data() + lists.start[c], lists.faces.data() + lists.start[c + 1]);
      const std::vector<Vec3> weights = asked.weights_of(c, faces);
      ASSERT_EQ(weights.size(), faces.size());
      for (std::size_t k = 0; k < faces.size(); ++k) {
        const Vec3 expected = ahead.weight(c, faces[k]);
        ASSERT_EQ(std::memcmp(&weights[k], &expected, sizeof(Vec3)), 0)
            << mesh.description << " cell " << c << " face " << faces[k];
      }
    }
  }
}

}  // namespace
}  // namespace fvmmini
