// The mesh's face lists, geometry and check on the GPU against the host's: the lists, the geometry
// to the bit, every figure to the bit (the largest aspect ratio, whose pow is the device's, to 4
// ulps) and the same printed report, on hexahedra, tetrahedra, prisms and pyramids, polyhedra, a
// 2-D box and a box shaken until cells invert and faces turn.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "discretisation/device_mesh_check.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/polymesh_reader.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

class DeviceMeshCheck : public test::CudaTest {};

struct Named {
  std::string name;
  Mesh mesh;
};

Mesh box(label nx, label ny, label nz, std::vector<BoxPatch> patches = {}) {
  BoxSpec spec;
  spec.cells = {nx, ny, nz};
  spec.patches = std::move(patches);
  return generate_box(spec);
}

/// Several chunks of faces and of cells: the shaken box inverts cells and turns faces.
std::vector<Named> meshes() {
  std::vector<Named> all;
  all.push_back({"one cell", box(1, 1, 1)});
  all.push_back({"2-D box", box(40, 30, 1, {{"frontAndBack", "empty", {BoxSide::zmin, BoxSide::zmax}}})});
  Mesh shaken = box(60, 50, 30);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> shake(-0.9, 0.9);
  for (auto& p : shaken.points) p += Vec3{shake(rng) / 60, shake(rng) / 50, shake(rng) / 30};
  all.push_back({"shaken box", std::move(shaken)});
  const auto fixtures = std::filesystem::path(FVMMINI_FIXTURES_DIR);
  all.push_back({"tetrahedra", read_gmsh(fixtures / "gmsh" / "cube_tet_h8.msh")});
  all.push_back({"prisms and pyramids", read_gmsh(fixtures / "gmsh" / "mix_prism_pyr.msh")});
  all.push_back({"polyhedra", read_polymesh(fixtures / "polymesh" / "cube_poly_n16")});
  all.push_back({"dual polyhedra", read_polymesh(fixtures / "polymesh" / "box_dual")});
  return all;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

TEST_F(DeviceMeshCheck, TheFaceListsAreTheHostsAndTheGeometryToTheBit) {
  for (const auto& [name, mesh] : meshes()) {
    const CellFaceLists cells = cell_face_lists(mesh);
    EXPECT_TRUE(DeviceMeshGeometry::fits(mesh)) << name;
    const DeviceMeshGeometry on_device(mesh);
    const CellFaceLists device_cells = on_device.download_lists();
    EXPECT_EQ(cells.start, device_cells.start) << name;
    EXPECT_TRUE(same_bits(cells.faces, device_cells.faces)) << name;
    EXPECT_EQ(cells.owned, device_cells.owned) << name;
    const MeshGeometry host = compute_geometry(mesh, cells), device = on_device.download_geometry();
    EXPECT_TRUE(same_bits(host.face_centres, device.face_centres)) << name;
    EXPECT_TRUE(same_bits(host.face_areas, device.face_areas)) << name;
    EXPECT_TRUE(same_bits(host.cell_centres, device.cell_centres)) << name;
    EXPECT_TRUE(same_bits(host.cell_volumes, device.cell_volumes)) << name;
  }
}

TEST_F(DeviceMeshCheck, TheFiguresAndTheReportAreTheHosts) {
  CellTypeCounts shapes;
  for (const auto& [name, mesh] : meshes()) {
    const CellFaceLists cells = cell_face_lists(mesh);
    const MeshGeometry g = compute_geometry(mesh, cells);
    const MeshFigures host = mesh_figures(mesh, g, cells);
    const MeshFigures device = DeviceMeshGeometry(mesh).figures(figure_rules(mesh, g));
    const auto& [hf, hc] = host;
    const auto& [df, dc] = device;
    for (const auto& [a, b] : {std::pair{hf.non_finite, df.non_finite}, {hf.zero_area, df.zero_area},
                               {hf.wrongly_oriented, df.wrongly_oriented},
                               {hf.severely_non_orthogonal, df.severely_non_orthogonal},
                               {hf.highly_skew, df.highly_skew}, {hc.non_finite, dc.non_finite},
                               {hc.non_positive, dc.non_positive}, {hc.open, dc.open},
                               {hc.high_aspect, dc.high_aspect}, {hc.types.hexahedra, dc.types.hexahedra},
                               {hc.types.prisms, dc.types.prisms}, {hc.types.wedges, dc.types.wedges},
                               {hc.types.pyramids, dc.types.pyramids}, {hc.types.tet_wedges, dc.types.tet_wedges},
                               {hc.types.tetrahedra, dc.types.tetrahedra}, {hc.types.polyhedra, dc.types.polyhedra}})
      EXPECT_EQ(a, b) << name;
    for (const auto& [a, b] :
         {std::pair{hf.min_area, df.min_area}, {hf.max_area, df.max_area}, {hf.min_cos, df.min_cos},
          {hf.sum_cos, df.sum_cos}, {hf.max_skewness, df.max_skewness}, {hc.min_volume, dc.min_volume},
          {hc.max_volume, dc.max_volume}, {hc.total_volume, dc.total_volume}, {hc.max_openness, dc.max_openness}})
      EXPECT_EQ(a, b) << name;
    EXPECT_DOUBLE_EQ(hc.max_aspect, dc.max_aspect) << name;
    EXPECT_EQ(format_mesh_check(check_mesh(mesh, g, cells)), format_mesh_check(check_mesh(mesh, g, cells, device)))
        << name;
    shapes.merge(dc.types);
    if (name == "shaken box") {
      EXPECT_GT(dc.non_positive, 0);
      EXPECT_GT(df.wrongly_oriented, 0);
    }
  }
  for (const label count : {shapes.hexahedra, shapes.prisms, shapes.pyramids, shapes.tetrahedra, shapes.polyhedra})
    EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace fvmmini
