// The mesh check: a good mesh passes; open cells and boundaries, flipped faces, inverted
// cells, zero-area faces and broken ordering fail it; severe non-orthogonality, high
// skewness, high aspect ratio, unused points and more than one region warn; each cell shape is
// told by its faces and distinct vertices.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <numbers>
#include <random>
#include <string>

#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_regions.hpp"
#include "tests/linalg/omp_threads.hpp"
#include "tests/mesh/two_boxes.hpp"

namespace fvmmini {
namespace {

Mesh box(label n) {
  BoxSpec spec;
  spec.cells = {n, n, n};
  spec.patches = {{"walls", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::ymax, BoxSide::zmin, BoxSide::zmax}}};
  return generate_box(spec);
}

MeshCheckReport check(const Mesh& mesh) { return check_mesh(mesh, compute_geometry(mesh)); }

/// A 1 x 1 x n column of unit cubes: the z ends one patch of the given type, the sides walls.
Mesh column(label n, const std::string& z_sides_type) {
  BoxSpec spec;
  spec.cells = {1, 1, n};
  spec.max = {1.0, 1.0, static_cast<double>(n)};
  spec.patches = {{"sides", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::ymax}},
                  {"ends", z_sides_type, {BoxSide::zmin, BoxSide::zmax}}};
  return generate_box(spec);
}

bool has_message(const std::vector<std::string>& messages, const std::string& fragment) {
  return std::any_of(messages.begin(), messages.end(), [&](const std::string& m) { return m.find(fragment) != std::string::npos; });
}

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

TEST(MeshCheck, CoordinatesWhoseProductsOverflowAreSaidSo) {
  // coordinates near 1e300 are finite, but an area (a product of two) is not: said as such, not as
  // open, inverted or wrongly oriented cells
  Mesh mesh = box(2);
  for (Vec3& p : mesh.points) p = 1e300 * p;
  const MeshCheckReport r = check(mesh);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("the geometry overflows a double"), std::string::npos) << r.failures[0];
  EXPECT_NE(r.failures[0].find("coordinates up to 1e+300"), std::string::npos) << r.failures[0];
  EXPECT_EQ(r.n_wrongly_oriented_faces, 0);
  EXPECT_NE(format_mesh_check(r).find("Geometry not finite"), std::string::npos);
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

TEST(MeshCheck, TheSameReportToTheBitOnAnyNumberOfThreads) {
  // --- a box shaken hard enough that cells invert and faces turn: every figure, sum and offender
  //     list over several chunks of faces and of cells
  BoxSpec spec;
  spec.cells = {60, 50, 30};
  Mesh mesh = generate_box(spec);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> shake(-0.9, 0.9);
  for (auto& p : mesh.points) p += Vec3{shake(rng) / 60, shake(rng) / 50, shake(rng) / 30};
  const MeshGeometry g = compute_geometry(mesh);
  const auto report_on = [&](int threads) {
    const test::Threads scope(threads);
    return check_mesh(mesh, g);
  };
  const MeshCheckReport one = report_on(1), several = report_on(3);
  EXPECT_FALSE(one.ok());
  EXPECT_GT(one.n_non_positive_volumes, 0);
  EXPECT_GT(one.n_wrongly_oriented_faces, 0);
  EXPECT_EQ(format_mesh_check(one), format_mesh_check(several));
  for (const auto& [a, b] : {std::pair{one.total_volume, several.total_volume},
                             {one.avg_non_orthogonality, several.avg_non_orthogonality},
                             {one.max_skewness, several.max_skewness},
                             {one.max_aspect_ratio, several.max_aspect_ratio},
                             {one.max_cell_openness, several.max_cell_openness},
                             {one.min_volume, several.min_volume}})
    EXPECT_EQ(a, b);
  EXPECT_EQ(one.non_positive_cells, several.non_positive_cells);
  EXPECT_EQ(one.wrongly_oriented_faces, several.wrongly_oriented_faces);
  EXPECT_EQ(one.cell_types.hexahedra, several.cell_types.hexahedra);
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

TEST(MeshCheck, DetectsOpenBoundary) {
  // --- a boundary face with a vertex pulled away no longer closes the boundary either
  Mesh mesh = box(2);
  mesh.face_vertices[mesh.face_offsets[mesh.n_faces() - 1]] = 0;
  const MeshCheckReport r = check(mesh);
  EXPECT_GT(std::abs(r.boundary_openness.x), 1e-3);
  EXPECT_TRUE(has_message(r.failures, "open boundary")) << format_mesh_check(r);
  EXPECT_NE(format_mesh_check(r).find("Boundary openness (-0.0392935 -0.0392935 0.0392935) ***FAILED***"), std::string::npos)
      << format_mesh_check(r);
}

TEST(MeshCheck, DetectsZeroAreaFaces) {
  // --- move the plane x = 1 onto x = 2: the 9 cells between lose their volume and the
  //     12 + 12 faces across the slab their area
  Mesh mesh = box(3);
  for (auto& p : mesh.points)
    if (p.x == 1.0 / 3.0) p.x = 2.0 / 3.0;
  const MeshCheckReport r = check(mesh);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.n_zero_area_faces, 24);
  EXPECT_EQ(r.min_face_area, 0.0);
  EXPECT_EQ(r.n_non_positive_volumes, 9);
  EXPECT_TRUE(has_message(r.failures, "24 faces with zero area")) << format_mesh_check(r);
  EXPECT_NE(format_mesh_check(r).find("Face area magnitudes ***FAILED***"), std::string::npos) << format_mesh_check(r);
}

TEST(MeshCheck, WarnsOnSevereNonOrthogonality) {
  // --- lean a 3 x 3 x 1 box by x += 3 y: every internal face ends up atan(3) = 71.6 degrees off
  BoxSpec spec;
  spec.cells = {3, 3, 1};
  Mesh mesh = generate_box(spec);
  for (auto& p : mesh.points) p.x += 3.0 * p.y;
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_NEAR(r.max_non_orthogonality, std::atan(3.0) * 180.0 / std::numbers::pi, 1e-9);
  EXPECT_EQ(r.n_severely_non_orthogonal, 12);
  EXPECT_EQ(r.n_highly_skew_faces, 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "12 severely non-orthogonal faces (> 70 degrees)");
}

TEST(MeshCheck, WarnsOnHighlySkewFaces) {
  // --- shift the middle plane of a two-cell column by 10: the cells lean opposite ways, so
  //     the line between their centres meets the shared face 5 away from its centre, and
  //     the normals through the centres meet the end faces 5 away from theirs
  Mesh mesh = column(2, "wall");
  for (auto& p : mesh.points)
    if (p.z == 1.0) p.x += 10.0;
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_LT(r.max_non_orthogonality, 1e-6);  // the centres still line up along the face normal
  EXPECT_NEAR(r.max_skewness, 10.0, 1e-9);   // 5 over the face's half width 0.5
  EXPECT_EQ(r.n_highly_skew_faces, 3);       // the shared face and the two end faces
  EXPECT_TRUE(has_message(r.warnings, "highly skew faces (skewness > 4)")) << format_mesh_check(r);
}

TEST(MeshCheck, WarnsOnHighAspectRatio) {
  Mesh mesh = box(3);
  for (auto& p : mesh.points) p.z *= 1e-4;
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_EQ(r.n_high_aspect_ratio_cells, 27);
  EXPECT_GT(r.max_aspect_ratio, 1000.0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "27 cells with aspect ratio above 1000");
}

TEST(MeshCheck, AspectRatioLeavesOutTheEmptyDirection) {
  // --- a thin one-cell-thick slab: as a 2-D mesh (empty ends) its thickness does not count
  Mesh flat = column(1, "empty");
  for (auto& p : flat.points) p.z *= 1e-4;
  const MeshCheckReport r2d = check(flat);
  EXPECT_NEAR(r2d.max_aspect_ratio, 1.0, 1e-12);
  EXPECT_TRUE(r2d.warnings.empty());

  Mesh walled = column(1, "wall");
  for (auto& p : walled.points) p.z *= 1e-4;
  EXPECT_EQ(check(walled).n_high_aspect_ratio_cells, 1);
}

TEST(MeshCheck, CountsTheRegionsThatNoInternalFaceConnects) {
  // --- one box: one region, nothing said
  const MeshRegions one = mesh_regions(box(3));
  EXPECT_EQ(one.count, 1);
  EXPECT_EQ(one.cells, std::vector<label>{27});
  EXPECT_EQ(check(box(3)).regions.count, 1);
  EXPECT_EQ(format_mesh_check(check(box(3))).find("regions"), std::string::npos);

  // --- two boxes apart: two regions, numbered by their lowest cell, a warning and a report line
  const Mesh mesh = test::two_boxes({2, 2, 2}, {3, 1, 1}, "left", "right");
  const MeshRegions two = mesh_regions(mesh);
  ASSERT_EQ(two.count, 2);
  EXPECT_EQ(two.cells, (std::vector<label>{8, 3}));
  EXPECT_EQ(two.first_cell, (std::vector<label>{0, 8}));
  for (label c = 0; c < mesh.n_cells; ++c) EXPECT_EQ(two.of_cell[c], c < 8 ? 0 : 1) << "cell " << c;
  EXPECT_EQ(two.touched_by(mesh, {1}), (std::vector<bool>{false, true}));
  EXPECT_EQ(two.touched_by(mesh, {}), (std::vector<bool>{false, false}));
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_EQ(r.regions.count, 2);
  EXPECT_EQ(r.regions.of_cell, two.of_cell);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "2 regions that no internal face connects (8 cells from cell 0, 3 cells from cell 8): "
                           "a steady equation needs a fixed value in each");
  EXPECT_NE(format_mesh_check(r).find("   *Number of regions: 2 (cells that no internal face connects)\n"),
            std::string::npos)
      << format_mesh_check(r);

  // --- a region whose lowest cell is not its first in face order: joined through later faces
  Mesh chain;
  chain.n_cells = 4;
  chain.owner = {0, 1};
  chain.neighbour = {2, 3};  // regions {0, 2} and {1, 3}
  const MeshRegions crossed = mesh_regions(chain);
  EXPECT_EQ(crossed.count, 2);
  EXPECT_EQ(crossed.of_cell, (std::vector<label>{0, 1, 0, 1}));
  EXPECT_EQ(crossed.first_cell, (std::vector<label>{0, 1}));
  EXPECT_EQ(mesh_regions(Mesh{}).count, 0);
}

TEST(MeshCheck, RegionsAreTheSameOnAnyNumberOfThreads) {
  // --- cells 0..n: pairs across the threads' ranges (c with c + 7 where c % 5 == 1, c with c + 3
  //     where c % 5 == 2), the rest alone, in upper-triangular order; the regions found by a serial
  //     relaxation
  Mesh mesh;
  mesh.n_cells = 5003;
  std::vector<label> lowest(mesh.n_cells);
  std::iota(lowest.begin(), lowest.end(), 0);
  for (label c = 0; c < mesh.n_cells; ++c)
    for (const label step : {7, 3})
      if (c % 5 == (step == 7 ? 1 : 2) && c + step < mesh.n_cells) {
        mesh.owner.push_back(c);
        mesh.neighbour.push_back(c + step);
      }
  std::vector<std::size_t> order(mesh.owner.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(mesh.owner[a], mesh.neighbour[a]) < std::pair(mesh.owner[b], mesh.neighbour[b]);
  });
  UnfilledVector<label> owner, neighbour;
  for (const std::size_t k : order) {
    owner.push_back(mesh.owner[k]);
    neighbour.push_back(mesh.neighbour[k]);
  }
  mesh.owner = owner;
  mesh.neighbour = neighbour;
  for (bool changed = true; changed;) {  // each cell's lowest connected cell, by relaxation
    changed = false;
    for (std::size_t f = 0; f < mesh.owner.size(); ++f) {
      label& a = lowest[mesh.owner[f]];
      label& b = lowest[mesh.neighbour[f]];
      if (a != b) {
        a = b = std::min(a, b);
        changed = true;
      }
    }
  }
  std::vector<label> first_cell, cells, of_cell(mesh.n_cells);
  std::map<label, label> number;
  for (label c = 0; c < mesh.n_cells; ++c) {
    if (!number.contains(lowest[c])) {
      number[lowest[c]] = static_cast<label>(first_cell.size());
      first_cell.push_back(c);
      cells.push_back(0);
    }
    of_cell[c] = number[lowest[c]];
    ++cells[of_cell[c]];
  }
  for (const int n : {1, 2, 3, 7}) {
    const test::Threads scope(n);
    const MeshRegions r = mesh_regions(mesh);
    EXPECT_EQ(r.count, static_cast<label>(first_cell.size())) << n << " threads";
    EXPECT_EQ(r.first_cell, first_cell) << n << " threads";
    EXPECT_EQ(r.cells, cells) << n << " threads";
    EXPECT_EQ(r.of_cell, of_cell) << n << " threads";
  }
}

/// A mesh of one cell whose faces are `faces` (vertex ids alone: the shape is told by counts).
mesh_formulas::CellShape shape_of(const std::vector<std::vector<label>>& faces) {
  Mesh mesh;
  mesh.n_cells = 1;
  label highest = 0;
  for (const auto& face : faces) {
    mesh.add_face(face, 0);
    for (const label v : face) highest = std::max(highest, v);
  }
  mesh.points.assign(static_cast<std::size_t>(highest) + 1, Vec3{});
  const CellFaceLists cells = cell_face_lists(mesh);
  return mesh_formulas::cell_shape(mesh_formulas::mesh_view(mesh), mesh_formulas::cell_list_view(cells), 0);
}

TEST(MeshCheck, CellShapesByTheirFacesAndDistinctVertices) {
  using enum mesh_formulas::CellShape;
  const std::vector<std::vector<label>> hex = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                               {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  EXPECT_EQ(shape_of(hex), hexahedron);
  auto nine = hex;  // six quadrilaterals over nine vertices, or over seven
  nine[5] = {3, 0, 8, 7};
  EXPECT_EQ(shape_of(nine), polyhedron);
  auto seven = hex;
  seven[1] = {4, 5, 6, 6}, seven[4] = {2, 3, 6, 6}, seven[5] = {3, 0, 4, 6};
  EXPECT_EQ(shape_of(seven), polyhedron);
  // --- the hexahedron with vertex 7 collapsed onto 6: OpenFOAM's wedge
  EXPECT_EQ(shape_of({{0, 3, 2, 1}, {4, 5, 6}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 6}, {3, 0, 4, 6}}), wedge);
  EXPECT_EQ(shape_of({{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}}), prism);
  // --- the prism with vertex 5 collapsed onto 4 (its top face gone): a tet wedge
  EXPECT_EQ(shape_of({{0, 2, 1}, {0, 1, 4, 3}, {1, 2, 4}, {2, 0, 3, 4}}), tet_wedge);
  EXPECT_EQ(shape_of({{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}), pyramid);
  EXPECT_EQ(shape_of({{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}}), tetrahedron);
  EXPECT_EQ(shape_of({{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 4}}), polyhedron);  // five vertices
  auto seven_faces = hex;
  seven_faces.push_back({0, 1, 2});
  EXPECT_EQ(shape_of(seven_faces), polyhedron);
}

}  // namespace
}  // namespace fvmmini
