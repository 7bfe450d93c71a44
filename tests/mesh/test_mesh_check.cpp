// The mesh check: a good mesh passes, and open cells, flipped faces, inverted cells and
// broken ordering are caught.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_check.hpp"

namespace fvmmini {
namespace {

Mesh box(label n) {
  BoxSpec spec;
  spec.cells = {n, n, n};
  spec.patches = {{"walls", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::ymax, BoxSide::zmin, BoxSide::zmax}}};
  return generate_box(spec);
}

MeshCheckReport check(const Mesh& mesh) { return check_mesh(mesh, compute_geometry(mesh)); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(MeshCheck, GoodBoxReportsOk) {
  const MeshCheckReport r = check(box(3));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.n_points, 64);
  EXPECT_EQ(r.n_cells, 27);
  EXPECT_EQ(r.n_internal_faces, 54);
  EXPECT_EQ(r.n_faces, 54 + 54);
  EXPECT_EQ(r.cell_types.hexahedra, 27);
  ASSERT_EQ(r.patches.size(), 1u);
  EXPECT_EQ(r.patches[0].name, "walls");
  EXPECT_EQ(r.patches[0].size, 54);
  EXPECT_NEAR(r.min_volume, 1.0 / 27.0, 1e-15);
  EXPECT_NEAR(r.max_volume, 1.0 / 27.0, 1e-15);
  EXPECT_NEAR(r.total_volume, 1.0, 1e-14);
  EXPECT_NEAR(r.max_aspect_ratio, 1.0, 1e-12);
  EXPECT_EQ(r.bounding_box_max, (Vec3{1.0, 1.0, 1.0}));
  const std::string text = format_mesh_check(r);
  EXPECT_TRUE(ends_with(text, "Mesh OK.\n")) << text;
  EXPECT_NE(text.find("hexahedra:     27"), std::string::npos) << text;
  EXPECT_NE(text.find("walls"), std::string::npos) << text;
}

TEST(MeshCheck, DetectsOpenCell) {
  // --- pull one vertex of a boundary face onto another point: its cell no longer closes
  Mesh mesh = box(2);
  const label f = mesh.n_faces() - 1;
  mesh.face_vertices[mesh.face_offsets[f]] = 0;
  const MeshCheckReport r = check(mesh);
  EXPECT_FALSE(r.ok());
  EXPECT_GE(r.n_open_cells, 1);
  EXPECT_NE(std::find(r.open_cells.begin(), r.open_cells.end(), mesh.owner[f]), r.open_cells.end());
  EXPECT_GT(r.max_cell_openness, 1e-3);
  const std::string text = format_mesh_check(r);
  EXPECT_TRUE(ends_with(text, "Failed " + std::to_string(r.failures.size()) + " mesh checks.\n")) << text;
  EXPECT_NE(text.find("open cells"), std::string::npos) << text;
}

TEST(MeshCheck, DetectsFlippedInternalFace) {
  Mesh mesh = box(3);
  const label f = 5;
  std::reverse(mesh.face_vertices.begin() + mesh.face_offsets[f] + 1, mesh.face_vertices.begin() + mesh.face_offsets[f + 1]);
  const MeshCheckReport r = check(mesh);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.n_wrongly_oriented_faces, 1);
  ASSERT_EQ(r.wrongly_oriented_faces.size(), 1u);
  EXPECT_EQ(r.wrongly_oriented_faces[0], f);
  EXPECT_EQ(r.n_open_cells, 2);  // both cells of the face see it wrongly
}

TEST(MeshCheck, DetectsFlippedBoundaryFace) {
  Mesh mesh = box(2);
  const label f = mesh.n_internal_faces() + 3;
  std::reverse(mesh.face_vertices.begin() + mesh.face_offsets[f] + 1, mesh.face_vertices.begin() + mesh.face_offsets[f + 1]);
  const MeshCheckReport r = check(mesh);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.n_wrongly_oriented_faces, 1);
  EXPECT_EQ(r.wrongly_oriented_faces.at(0), f);
  EXPECT_EQ(r.n_open_cells, 1);
  EXPECT_EQ(r.open_cells.at(0), mesh.owner[f]);
}

TEST(MeshCheck, DetectsInvertedCells) {
  // --- mirror the mesh: every face points into its owner, every volume is negative
  Mesh mesh = box(2);
  for (auto& p : mesh.points) p.x = -p.x;
  const MeshCheckReport r = check(mesh);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.n_non_positive_volumes, 8);
  EXPECT_EQ(r.n_wrongly_oriented_faces, mesh.n_faces());
  EXPECT_EQ(r.n_open_cells, 0);
  EXPECT_LT(r.max_volume, 0.0);
}

TEST(MeshCheck, DetectsBrokenOrderingAndPatches) {
  Mesh mesh = box(2);
  std::swap(mesh.owner[0], mesh.neighbour[0]);
  std::reverse(mesh.face_vertices.begin() + mesh.face_offsets[0] + 1, mesh.face_vertices.begin() + mesh.face_offsets[1]);
  MeshCheckReport r = check(mesh);
  EXPECT_FALSE(r.upper_triangular);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.n_wrongly_oriented_faces, 0);

  Mesh gap = box(2);
  gap.patches[0].size -= 1;
  r = check(gap);
  EXPECT_FALSE(r.boundary_definition_ok);
  EXPECT_FALSE(r.ok());
}

TEST(MeshCheck, SkewAndNonOrthogonalFaces) {
  // --- shear a 2x1x1 box: the middle plane leans, so d is no longer along Sf
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  spec.max = {2.0, 1.0, 1.0};
  Mesh mesh = generate_box(spec);
  for (auto& p : mesh.points)
    if (p.x == 1.0 && p.y == 1.0) p.x = 1.5;
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_GT(r.max_non_orthogonality, 1.0);
  EXPECT_LT(r.max_non_orthogonality, 70.0);
  EXPECT_NEAR(r.avg_non_orthogonality, r.max_non_orthogonality, 1e-12);  // one internal face
  EXPECT_GT(r.max_skewness, 0.01);
  EXPECT_NEAR(r.total_volume, 2.0, 1e-12);
}

TEST(MeshCheck, WarnsOnUnusedPoints) {
  Mesh mesh = box(1);
  mesh.points.push_back({5.0, 5.0, 5.0});
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.n_unused_points, 1);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(ends_with(format_mesh_check(r), "Mesh OK.\n"));
}

}  // namespace
}  // namespace fvmmini
