// The built-in box generator: exact geometry, patch layout, upper-triangular ordering.

#include <gtest/gtest.h>

#include <cmath>

#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_assembly.hpp"
#include "mesh/mesh_check.hpp"

namespace fvmmini {
namespace {

TEST(BoxGenerator, CountsAndUpperTriangularOrder) {
  BoxSpec spec;
  spec.cells = {3, 4, 5};
  const Mesh mesh = generate_box(spec);
  EXPECT_EQ(mesh.n_cells, 60);
  EXPECT_EQ(mesh.n_points(), 4 * 5 * 6);
  EXPECT_EQ(mesh.n_internal_faces(), 2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4);
  EXPECT_EQ(mesh.n_faces(), mesh.n_internal_faces() + 2 * (4 * 5 + 3 * 5 + 3 * 4));
  EXPECT_TRUE(is_upper_triangular(mesh));
  EXPECT_NO_THROW(check_mesh_addressing(mesh, "box"));
}

TEST(BoxGenerator, GeometryIsExact) {
  BoxSpec spec;
  spec.cells = {4, 2, 5};
  spec.min = {-1.0, 0.0, 2.0};
  spec.max = {1.0, 3.0, 4.5};
  const Mesh mesh = generate_box(spec);
  const MeshGeometry g = compute_geometry(mesh);
  const Vec3 h{0.5, 1.5, 0.5};
  const double volume = h.x * h.y * h.z;
  for (label k = 0; k < 5; ++k)
    for (label j = 0; j < 2; ++j)
      for (label i = 0; i < 4; ++i) {
        const label c = i + 4 * (j + 2 * k);
        EXPECT_NEAR(g.cell_volumes[c], volume, 1e-14);
        EXPECT_NEAR(g.cell_centres[c].x, -1.0 + (i + 0.5) * h.x, 1e-14);
        EXPECT_NEAR(g.cell_centres[c].y, 0.0 + (j + 0.5) * h.y, 1e-14);
        EXPECT_NEAR(g.cell_centres[c].z, 2.0 + (k + 0.5) * h.z, 1e-14);
      }
  // --- every internal face: area vector along owner -> neighbour, magnitude of the cross-section
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const Vec3 d = g.cell_centres[mesh.neighbour[f]] - g.cell_centres[mesh.owner[f]];
    const Vec3& s = g.face_areas[f];
    const double expected = std::abs(d.x) > 0 ? h.y * h.z : (std::abs(d.y) > 0 ? h.x * h.z : h.x * h.y);
    EXPECT_NEAR(mag(s), expected, 1e-14);
    EXPECT_NEAR(dot(d, s), mag(d) * mag(s), 1e-14);
    EXPECT_NEAR((g.face_centres[f] - 0.5 * (g.cell_centres[mesh.owner[f]] + g.cell_centres[mesh.neighbour[f]])).x, 0.0, 1e-14);
  }
  // --- boundary faces point out of the box and lie on its sides
  double sum_boundary_area = 0.0;
  for (label f = mesh.n_internal_faces(); f < mesh.n_faces(); ++f) {
    EXPECT_GT(dot(g.face_centres[f] - g.cell_centres[mesh.owner[f]], g.face_areas[f]), 0.0);
    sum_boundary_area += mag(g.face_areas[f]);
  }
  EXPECT_NEAR(sum_boundary_area, 2.0 * (2.0 * 3.0 + 2.0 * 2.5 + 3.0 * 2.5), 1e-12);
  const MeshCheckReport report = check_mesh(mesh, g);
  EXPECT_TRUE(report.ok()) << format_mesh_check(report);
  EXPECT_NEAR(report.total_volume, 2.0 * 3.0 * 2.5, 1e-12);
  EXPECT_NEAR(report.max_non_orthogonality, 0.0, 1e-6);
  EXPECT_LT(report.max_skewness, 1e-12);
  EXPECT_EQ(report.cell_types.hexahedra, 40);
}

TEST(BoxGenerator, PatchesInOrderWithSizes) {
  BoxSpec spec;
  spec.cells = {2, 3, 1};
  spec.patches = {{"movingWall", "wall", {BoxSide::ymax}},
                  {"fixedWalls", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin}},
                  {"frontAndBack", "empty", {BoxSide::zmin, BoxSide::zmax}}};
  const Mesh mesh = generate_box(spec);
  ASSERT_EQ(mesh.patches.size(), 3u);
  EXPECT_EQ(mesh.patches[0].name, "movingWall");
  EXPECT_EQ(mesh.patches[0].size, 2);
  EXPECT_EQ(mesh.patches[1].size, 3 + 3 + 2);
  EXPECT_EQ(mesh.patches[2].type, "empty");
  EXPECT_EQ(mesh.patches[2].size, 2 * 6);
  EXPECT_EQ(mesh.patches[0].start, mesh.n_internal_faces());
  EXPECT_NO_THROW(check_mesh_addressing(mesh, "box"));
  const MeshGeometry g = compute_geometry(mesh);
  for (label f = mesh.patches[0].start; f < mesh.patches[0].start + mesh.patches[0].size; ++f) {
    EXPECT_DOUBLE_EQ(g.face_centres[f].y, 1.0);
    EXPECT_GT(g.face_areas[f].y, 0.0);
  }
  // --- the empty direction is not a solution direction: one thin layer is no aspect-ratio problem
  const MeshCheckReport report = check_mesh(mesh, g);
  EXPECT_TRUE(report.ok());
  EXPECT_NEAR(report.max_aspect_ratio, 1.5, 1e-12);
}

TEST(BoxGenerator, UnnamedSidesBecomeOwnPatches) {
  BoxSpec spec;
  spec.patches = {{"walls", "wall", {BoxSide::xmin}}};
  const Mesh mesh = generate_box(spec);
  ASSERT_EQ(mesh.patches.size(), 6u);
  EXPECT_EQ(mesh.patches[0].name, "walls");
  EXPECT_EQ(mesh.patches[1].name, "xmax");
  EXPECT_NE(mesh.find_patch("zmin"), nullptr);
}

}  // namespace
}  // namespace fvmmini
