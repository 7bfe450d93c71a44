// Decomposition (mesh/decomposition.hpp): parts from METIS and the simple split (the plain
// stable sorts' parts on any thread count), and each part's mesh with its processor patches,
// checked against the whole mesh's geometry.

#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "mesh/box_generator.hpp"
#include "mesh/decomposition.hpp"
#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/polymesh_reader.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace fvmmini {
namespace {

Mesh box(label nx, label ny, label nz) {
  BoxSpec spec;
  spec.cells = {nx, ny, nz};
  return generate_box(spec);
}

std::vector<label> part_sizes(std::span<const int> part, int parts) {
  std::vector<label> sizes(static_cast<std::size_t>(parts), 0);
  for (int p : part) ++sizes[p];
  return sizes;
}

TEST(Decomposition, MetisGivesBalancedNonEmptyParts) {
  const Mesh mesh = box(12, 12, 12);
  const MeshGeometry g = compute_geometry(mesh);
  for (int parts : {1, 2, 3, 4, 7}) {
    const auto part = decompose_cells(mesh, g, {DecompositionMethod::metis, parts, {}});
    ASSERT_EQ(part.size(), static_cast<std::size_t>(mesh.n_cells));
    const auto sizes = part_sizes(part, parts);
    for (label s : sizes) EXPECT_GT(s, 0) << parts << " parts";
    const auto figures = decomposition_figures(mesh, part, parts);
    EXPECT_LT(figures.imbalance, 0.05) << parts << " parts";
    EXPECT_EQ(figures.cells, sizes);
    // the same mesh and count give the same parts
    EXPECT_EQ(part, decompose_cells(mesh, g, {DecompositionMethod::metis, parts, {}}));
  }
}

TEST(Decomposition, MetisKeepsGroupsWholeAndBalanced) {
  // --- groups of 2 x 2 x 2 cells on a 24^3 box: each part a union of whole groups
  const Mesh mesh = box(24, 24, 24);
  const MeshGeometry g = compute_geometry(mesh);
  DecompositionSettings s{DecompositionMethod::metis, 4, {}};
  for (label c = 0; c < mesh.n_cells; ++c) {
    const label i = c % 24, j = c / 24 % 24, k = c / 576;
    s.groups.push_back(i / 2 + 12 * (j / 2) + 144 * (k / 2));
  }
  const auto part = decompose_cells(mesh, g, s);
  std::vector<int> part_of_group(1728, -1);
  for (label c = 0; c < mesh.n_cells; ++c) {
    int& p = part_of_group[s.groups[c]];
    if (p < 0) p = part[c];
    ASSERT_EQ(p, part[c]) << "group " << s.groups[c] << " split";
  }
  EXPECT_LT(decomposition_figures(mesh, part, 4).imbalance, 0.01);
  s.groups.pop_back();
  EXPECT_THROW(decompose_cells(mesh, g, s), std::invalid_argument);  // not one a cell
}

TEST(Decomposition, MetisBalancesMatrixEntriesWhenAsked) {
  // --- prisms and pyramids: rows of 4 to 6 entries (and fewer at the boundary)
  const Mesh mesh = read_gmsh(test::fixtures() / "gmsh" / "mix_prism_pyr.msh");
  const MeshGeometry g = compute_geometry(mesh);
  DecompositionSettings by_cells{DecompositionMethod::metis, 4, {}};
  DecompositionSettings by_entries = by_cells;
  by_entries.weights = DecompositionWeights::row_entries;
  const auto cells = decomposition_figures(mesh, decompose_cells(mesh, g, by_cells), 4);
  const auto entries = decomposition_figures(mesh, decompose_cells(mesh, g, by_entries), 4);
  // every part's entries: its cells and both sides of each face to another cell
  for (const auto& f : {cells, entries}) {
    long long total = 0;
    for (long long e : f.entries) total += e;
    EXPECT_EQ(total, mesh.n_cells + 2LL * mesh.n_internal_faces());
  }
  EXPECT_LT(entries.entry_imbalance, 0.05);
  EXPECT_LE(entries.entry_imbalance, cells.entry_imbalance + 1e-12);
}

TEST(Decomposition, SimpleSplitsAlongTheAxes) {
  const Mesh mesh = box(8, 6, 2);
  const MeshGeometry g = compute_geometry(mesh);
  const auto part = decompose_cells(mesh, g, {DecompositionMethod::simple, 4, {2, 2, 1}});
  for (label c = 0; c < mesh.n_cells; ++c) {
    const Vec3& x = g.cell_centres[c];
    const int expected = (x.x > 0.5 ? 2 : 0) + (x.y > 0.5 ? 1 : 0);
    ASSERT_EQ(part[c], expected) << "cell " << c;
  }
  const auto figures = decomposition_figures(mesh, part, 4);
  EXPECT_EQ(figures.cells, (std::vector<label>{24, 24, 24, 24}));
  EXPECT_EQ(figures.neighbours, (std::vector<int>{2, 2, 2, 2}));  // face neighbours; diagonals share an edge only
  EXPECT_EQ(figures.processor_faces, (std::vector<label>{3 * 2 + 4 * 2, 3 * 2 + 4 * 2, 3 * 2 + 4 * 2, 3 * 2 + 4 * 2}));
  EXPECT_DOUBLE_EQ(figures.imbalance, 0.0);
}

/// OpenFOAM's simple split as written plainly: the cells stable-sorted by each axis's coordinate
/// in turn and cut into equal counts.
void plain_simple_split(std::span<label> cells, const MeshGeometry& g, const std::array<int, 3>& counts, int axis,
                        int first_part, std::vector<int>& part) {
  if (axis == 3) {
    for (label c : cells) part[c] = first_part;
    return;
  }
  if (counts[axis] > 1)
    std::stable_sort(cells.begin(), cells.end(),
                     [&](label a, label b) { return g.cell_centres[a][axis] < g.cell_centres[b][axis]; });
  const int stride = axis == 0 ? counts[1] * counts[2] : axis == 1 ? counts[2] : 1;
  for (int i = 0; i < counts[axis]; ++i) {
    const std::size_t begin = cells.size() * i / counts[axis], end = cells.size() * (i + 1) / counts[axis];
    plain_simple_split(cells.subspan(begin, end - begin), g, counts, axis + 1, first_part + i * stride, part);
  }
}

TEST(Decomposition, SimpleSplitIsTheStableSortsOnAnyThreadCount) {
  // 61 x-planes in 7 parts: the cuts fall inside planes, whose cells tie on x, so which of them
  // each side gets is the stable sort's order; the whole is sorted in chunks merged in pairs
  const Mesh mesh = box(61, 37, 33);
  const MeshGeometry g = compute_geometry(mesh);
  const std::array<int, 3> counts{7, 3, 1};
  std::vector<label> cells(static_cast<std::size_t>(mesh.n_cells));
  std::iota(cells.begin(), cells.end(), 0);
  std::vector<int> expected(cells.size(), -1);
  plain_simple_split(cells, g, counts, 0, 0, expected);
  const int threads = omp_get_max_threads();
  for (const int t : {1, 2, 3, 4}) {
    omp_set_num_threads(t);
    EXPECT_EQ(decompose_cells(mesh, g, {DecompositionMethod::simple, 21, counts}), expected) << t << " threads";
  }
  omp_set_num_threads(threads);
}

TEST(Decomposition, RefusesWhatCannotBeSplit) {
  const Mesh mesh = box(2, 2, 1);
  const MeshGeometry g = compute_geometry(mesh);
  EXPECT_THROW(
      {
        try {
          decompose_cells(mesh, g, {DecompositionMethod::metis, 5, {}});
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("5 parts for a mesh of 4 cells"), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_THROW(decompose_cells(mesh, g, {DecompositionMethod::simple, 4, {2, 1, 1}}), std::invalid_argument);
  EXPECT_THROW(decompose_cells(mesh, g, {DecompositionMethod::metis, 0, {}}), std::invalid_argument);
  // a split whose product wraps a 32-bit int to the part count (5 x 858993460 = 2^32 + 4) is refused,
  // not cut into parts past the last
  EXPECT_THROW(
      {
        try {
          decompose_cells(mesh, g, {DecompositionMethod::simple, 4, {5, 858993460, 1}});
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("past the range"), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_THROW(decompose_cells(mesh, g, {DecompositionMethod::simple, 4, {65536, 65536, 2}}), std::invalid_argument);
  // the simple split cuts by count: four parts of a 1 x 1 x 4 column along x are a cell each
  const Mesh column = box(1, 1, 4);
  const auto part = decompose_cells(column, compute_geometry(column), {DecompositionMethod::simple, 4, {4, 1, 1}});
  EXPECT_EQ(std::set<int>(part.begin(), part.end()).size(), 4u);
}

/// Every part's mesh against the whole: cells and their geometry, the patches kept, and each
/// processor face met from both sides in the same order with opposite area vectors.
void expect_parts_rebuild(const Mesh& mesh, std::span<const int> part, int parts) {
  const MeshGeometry whole = compute_geometry(mesh);
  std::vector<LocalMesh> locals;
  std::vector<MeshGeometry> geometry;
  label cells = 0;
  for (int p = 0; p < parts; ++p) {
    locals.push_back(extract_local_mesh(mesh, part, p));
    geometry.push_back(compute_geometry(locals.back().mesh));
    const LocalMesh& l = locals.back();
    cells += l.mesh.n_cells;
    ASSERT_TRUE(std::is_sorted(l.global_cell.begin(), l.global_cell.end()));
    ASSERT_EQ(l.global_face.size(), static_cast<std::size_t>(l.mesh.n_faces()));
    for (label c = 0; c < l.mesh.n_cells; ++c) {
      const label gc = l.global_cell[c];
      EXPECT_EQ(part[gc], p);
      EXPECT_NEAR(geometry[p].cell_volumes[c], whole.cell_volumes[gc], 1e-12 * std::abs(whole.cell_volumes[gc]));
      EXPECT_NEAR(mag(geometry[p].cell_centres[c] - whole.cell_centres[gc]), 0.0, 1e-12);
    }
    // internal faces upper-triangular, as the LDU addressing needs
    for (label f = 0; f < l.mesh.n_internal_faces(); ++f) {
      EXPECT_LT(l.mesh.owner[f], l.mesh.neighbour[f]);
      if (f > 0) {
        EXPECT_TRUE(std::pair(l.mesh.owner[f - 1], l.mesh.neighbour[f - 1]) < std::pair(l.mesh.owner[f], l.mesh.neighbour[f]));
      }
    }
    // processor patches first, right after the internal faces; then the whole mesh's patches in order
    std::size_t processor = 0;
    while (processor < l.mesh.patches.size() && l.mesh.patches[processor].neighbour_rank >= 0) ++processor;
    ASSERT_EQ(l.mesh.patches.size(), processor + mesh.patches.size());
    if (processor > 0) {
      EXPECT_EQ(l.mesh.patches.front().start, l.mesh.n_internal_faces());
    }
    for (std::size_t i = 0; i < mesh.patches.size(); ++i) {
      EXPECT_EQ(l.mesh.patches[processor + i].name, mesh.patches[i].name);
      EXPECT_EQ(l.mesh.patches[processor + i].neighbour_rank, -1);
    }
    EXPECT_TRUE(check_mesh(l.mesh, geometry[p]).ok()) << "part " << p;
  }
  EXPECT_EQ(cells, mesh.n_cells);
  // --- processor patches in pairs: same faces, same order, opposite orientation
  int pairs = 0;
  for (int p = 0; p < parts; ++p)
    for (const Patch& patch : locals[p].mesh.patches) {
      if (patch.type != "processor") continue;
      const int q = patch.neighbour_rank;
      EXPECT_EQ(patch.name, processor_patch_name(p, q));
      const Patch* back = locals[q].mesh.find_patch(processor_patch_name(q, p));
      ASSERT_NE(back, nullptr);
      ASSERT_EQ(back->size, patch.size);
      for (label k = 0; k < patch.size; ++k) {
        const label f = patch.start + k, fb = back->start + k;
        EXPECT_EQ(locals[p].global_face[f], locals[q].global_face[fb]);
        EXPECT_NEAR(mag(geometry[p].face_areas[f] + geometry[q].face_areas[fb]), 0.0, 1e-12);
        EXPECT_NEAR(mag(geometry[p].face_centres[f] - geometry[q].face_centres[fb]), 0.0, 1e-12);
      }
      ++pairs;
    }
  const auto figures = decomposition_figures(mesh, part, parts);
  int neighbours = 0;
  for (int n : figures.neighbours) neighbours += n;
  EXPECT_EQ(pairs, neighbours);
}

TEST(Decomposition, PartsRebuildTheBoxWithMatchingProcessorPatches) {
  const Mesh mesh = box(6, 5, 4);
  const MeshGeometry g = compute_geometry(mesh);
  expect_parts_rebuild(mesh, decompose_cells(mesh, g, {DecompositionMethod::metis, 3, {}}), 3);
  expect_parts_rebuild(mesh, decompose_cells(mesh, g, {DecompositionMethod::simple, 4, {2, 1, 2}}), 4);
}

TEST(Decomposition, PartsRebuildUnstructuredMeshes) {
  for (const Mesh& mesh : {read_gmsh(test::fixtures() / "gmsh" / "cube_tet_h4.msh"),
                           read_gmsh(test::fixtures() / "gmsh" / "mix_prism_pyr.msh"),
                           read_polymesh(test::fixtures() / "polymesh" / "cube_poly_n4")}) {
    const MeshGeometry g = compute_geometry(mesh);
    expect_parts_rebuild(mesh, decompose_cells(mesh, g, {DecompositionMethod::metis, 4, {}}), 4);
  }
}

TEST(Decomposition, APartPacksAndUnpacksWhole) {
  const Mesh mesh = read_polymesh(test::fixtures() / "polymesh" / "cube_poly_n4");
  const auto part = decompose_cells(mesh, compute_geometry(mesh), {DecompositionMethod::metis, 3, {}});
  const LocalMesh local = extract_local_mesh(mesh, part, 1);
  const std::vector<std::byte> bytes = pack_local_mesh(local);
  const LocalMesh back = unpack_local_mesh(bytes);
  EXPECT_EQ(back.mesh.face_vertices, local.mesh.face_vertices);
  EXPECT_EQ(back.mesh.face_offsets, local.mesh.face_offsets);
  EXPECT_EQ(back.mesh.owner, local.mesh.owner);
  EXPECT_EQ(back.mesh.neighbour, local.mesh.neighbour);
  EXPECT_EQ(back.mesh.n_cells, local.mesh.n_cells);
  EXPECT_EQ(back.mesh.description, local.mesh.description);
  ASSERT_EQ(back.mesh.points.size(), local.mesh.points.size());
  for (std::size_t i = 0; i < back.mesh.points.size(); ++i) EXPECT_EQ(mag(back.mesh.points[i] - local.mesh.points[i]), 0.0);
  ASSERT_EQ(back.mesh.patches.size(), local.mesh.patches.size());
  for (std::size_t i = 0; i < back.mesh.patches.size(); ++i) {
    EXPECT_EQ(back.mesh.patches[i].name, local.mesh.patches[i].name);
    EXPECT_EQ(back.mesh.patches[i].neighbour_rank, local.mesh.patches[i].neighbour_rank);
    EXPECT_EQ(back.mesh.patches[i].start, local.mesh.patches[i].start);
  }
  EXPECT_EQ(back.global_cell, local.global_cell);
  EXPECT_EQ(back.global_face, local.global_face);
  EXPECT_THROW(unpack_local_mesh(std::span(bytes).first(bytes.size() - 3)), std::runtime_error);
  EXPECT_THROW(unpack_local_mesh(std::span(bytes).subspan(1)), std::runtime_error);
}

}  // namespace
}  // namespace fvmmini
