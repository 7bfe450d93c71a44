// Each cell's faces (cell_face_lists) and the cell geometry built on them: owned faces first, then
// neighboured ones, each run ascending; centres and volumes the same to the bit as the face
// passes over the owners and then the neighbours make them, on any thread count.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mesh/box_generator.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_check.hpp"
#include "tests/linalg/omp_threads.hpp"

namespace fvmmini {
namespace {

/// A box of n^3 cells whose points are each moved a little, so that no two cells are alike.
Mesh uneven_box(label n) {
  BoxSpec spec;
  spec.cells = {n, n + 1, n + 2};
  Mesh mesh = generate_box(spec);
  const double h = 0.2 / n;
  for (std::size_t i = 0; i < mesh.points.size(); ++i) {
    mesh.points[i].x += h * (static_cast<double>((i * 2654435761u) % 1000) / 1000.0 - 0.5);
    mesh.points[i].y += h * (static_cast<double>((i * 40503u + 7) % 997) / 997.0 - 0.5);
    mesh.points[i].z += h * (static_cast<double>((i * 9973u + 3) % 991) / 991.0 - 0.5);
  }
  return mesh;
}

TEST(CellFaceLists, OwnedThenNeighbouredEachAscending) {
  const Mesh mesh = uneven_box(5);
  // --- the two face passes, serially
  std::vector<std::vector<label>> expected(mesh.n_cells);
  for (label f = 0; f < mesh.n_faces(); ++f) expected[mesh.owner[f]].push_back(f);
  std::vector<label> owned(mesh.n_cells);
  for (label c = 0; c < mesh.n_cells; ++c) owned[c] = static_cast<label>(expected[c].size());
  for (label f = 0; f < mesh.n_internal_faces(); ++f) expected[mesh.neighbour[f]].push_back(f);
  for (int n_threads : {1, 4}) {  // one thread places them in order; several sort each run
    SCOPED_TRACE(n_threads);
    test::Threads threads(n_threads);
    const CellFaceLists cells = cell_face_lists(mesh);
    ASSERT_EQ(cells.start.size(), static_cast<std::size_t>(mesh.n_cells) + 1);
    EXPECT_EQ(cells.start.back(), mesh.n_faces() + mesh.n_internal_faces());
    for (label c = 0; c < mesh.n_cells; ++c) {
      const std::vector<label> got(cells.faces.begin() + cells.start[c], cells.faces.begin() + cells.start[c + 1]);
      EXPECT_EQ(got, expected[c]) << "cell " << c;
      EXPECT_EQ(cells.owned[c], owned[c]) << "cell " << c;
    }
  }
}

TEST(CellFaceLists, GeometryIsTheFacePassesSumsOnAnyThreadCount) {
  const Mesh mesh = uneven_box(7);
  const MeshGeometry g = [&] {
    test::Threads threads(4);
    return compute_geometry(mesh);
  }();
  // --- the cells as the face passes make them: estimate, then pyramids (face, estimate)
  std::vector<Vec3> estimate(mesh.n_cells), centre(mesh.n_cells);
  std::vector<int> count(mesh.n_cells, 0);
  std::vector<double> v3(mesh.n_cells, 0.0);
  for (label f = 0; f < mesh.n_faces(); ++f) {
    estimate[mesh.owner[f]] += g.face_centres[f];
    ++count[mesh.owner[f]];
  }
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    estimate[mesh.neighbour[f]] += g.face_centres[f];
    ++count[mesh.neighbour[f]];
  }
  for (label c = 0; c < mesh.n_cells; ++c) estimate[c] /= std::max(1, count[c]);
  const auto add = [&](label c, label f, double sign) {
    const double pyr3 = sign * dot(g.face_areas[f], g.face_centres[f] - estimate[c]);
    centre[c] += pyr3 * (0.75 * g.face_centres[f] + 0.25 * estimate[c]);
    v3[c] += pyr3;
  };
  for (label f = 0; f < mesh.n_faces(); ++f) add(mesh.owner[f], f, 1.0);
  for (label f = 0; f < mesh.n_internal_faces(); ++f) add(mesh.neighbour[f], f, -1.0);
  for (label c = 0; c < mesh.n_cells; ++c) {
    const Vec3 expected = centre[c] / v3[c];
    ASSERT_EQ(g.cell_volumes[c], v3[c] / 3.0) << "cell " << c;  // to the bit
    ASSERT_EQ(g.cell_centres[c].x, expected.x) << "cell " << c;
    ASSERT_EQ(g.cell_centres[c].y, expected.y) << "cell " << c;
    ASSERT_EQ(g.cell_centres[c].z, expected.z) << "cell " << c;
  }
  // --- one thread: the same geometry and the same check report
  test::Threads one(1);
  const MeshGeometry serial = compute_geometry(mesh);
  EXPECT_EQ(serial.cell_volumes, g.cell_volumes);
  const MeshCheckReport a = check_mesh(mesh, serial);
  const MeshCheckReport b = [&] {
    test::Threads threads(4);
    return check_mesh(mesh, g);
  }();
  EXPECT_EQ(format_mesh_check(a), format_mesh_check(b));
  // the lists made once for both (as the app does) give the same geometry and report
  const CellFaceLists cells = cell_face_lists(mesh);
  const MeshGeometry shared = compute_geometry(mesh, cells);
  EXPECT_EQ(shared.cell_volumes, serial.cell_volumes);
  EXPECT_EQ(format_mesh_check(check_mesh(mesh, shared, cells)), format_mesh_check(a));
  EXPECT_EQ(a.max_skewness, b.max_skewness);
  EXPECT_EQ(a.cell_types.hexahedra, mesh.n_cells);
  EXPECT_GT(a.max_skewness, 0.01);  // the moved points make every cell a little skew
}

}  // namespace
}  // namespace fvmmini
