// The flow's operators made on the GPU (DeviceFlowOperators) against the host's (FlowOperators on
// the same mesh): every face array, the gather lists, both matrices, the base diagonal and every
// boundary source to the bit, on the 2-D cavity (walls, empty patches, the reference cell's pin),
// the channel (inlet, outlet: no pin), a 3-D cavity on non-orthogonal prisms and pyramids (the
// corrections), the cavity on tetrahedra, a polyhedral box and a shaken box whose moving wall is
// skewed (the wall velocity's normal part removed). Skips without a CUDA device.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "discretisation/device_mesh_check.hpp"
#include "discretisation/incompressible/device_flow_operators.hpp"
#include "flow_cases.hpp"
#include "mesh/polymesh_reader.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

using namespace fvmmini::testing;

class DeviceFlowOperatorsTest : public test::CudaTest {};

struct Case {
  std::string name;
  Mesh mesh;
  FlowBoundary boundary;
  IncompressibleSettings settings;
};

template <class T>
std::vector<T> download(const T* device, std::size_t n) {
  std::vector<T> host(n);
  if (n > 0) {
    EXPECT_EQ(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  return host;
}

/// Whether the device's n entries are the host's, bit for bit.
template <class T>
::testing::AssertionResult same_bits(std::span<const T> host, const T* device, const char* what) {
  const std::vector<T> got = download(device, host.size());
  for (std::size_t i = 0; i < host.size(); ++i)
    if (std::memcmp(&got[i], &host[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << what << " differs at entry " << i << " of " << host.size();
  return ::testing::AssertionSuccess();
}

#define EXPECT_SAME(host, device) \
  EXPECT_TRUE(same_bits(std::span(std::data(host), std::size(host)), device, #host)) << c.name

void expect_the_hosts(const Case& c) {
  const MeshGeometry g = compute_geometry(c.mesh);
  const FlowOperators host(c.mesh, g, c.boundary, c.settings);
  const DeviceMeshGeometry on_device(c.mesh);
  const DeviceFlowOperators device(on_device, c.mesh, c.boundary, c.settings, host.reference_cell);
  ASSERT_EQ(device.orthogonal(), host.orthogonal) << c.name;

  const flow::Faces hf = host.faces(), df = device.faces();
  ASSERT_EQ(df.n_internal, hf.n_internal) << c.name;
  ASSERT_EQ(df.n_faces, hf.n_faces) << c.name;
  EXPECT_SAME(host.coupled_weight, df.weight);
  EXPECT_SAME(host.coupled_coeff, df.coeff);
  EXPECT_SAME(host.boundary_coeff, df.bcoeff);
  EXPECT_SAME(host.boundary_velocity, df.bvelocity);
  EXPECT_SAME(host.boundary_kind, df.kind);
  EXPECT_SAME(host.boundary_pressure, df.bpressure);
  EXPECT_SAME(host.rhie_chow_time, df.rhie_chow_time);
  if (!host.orthogonal) {
    EXPECT_SAME(host.laplacian.non_orthogonal_corrections(), df.correction);
  } else {
    EXPECT_EQ(df.correction, nullptr) << c.name;
  }

  const flow::Cells dc = device.cells();
  ASSERT_EQ(dc.n, c.mesh.n_cells) << c.name;
  EXPECT_SAME(host.cells.offsets(), dc.offsets);
  EXPECT_SAME(host.cells.faces(), dc.faces);
  EXPECT_SAME(host.cells.signs(), dc.signs);
  EXPECT_EQ(dc.lsq, nullptr) << c.name;

  const LduMatrix& helmholtz = host.helmholtz_system.local;
  EXPECT_SAME(helmholtz.diag, device.helmholtz().diag);
  EXPECT_SAME(helmholtz.upper, device.helmholtz().upper);
  EXPECT_SAME(host.helmholtz_base_diagonal, device.helmholtz_base_diagonal());
  for (int i = 0; i < 3; ++i) EXPECT_SAME(host.momentum_boundary_source[i], device.momentum_boundary_source()[i]);
  const LduMatrix& pressure = host.pressure_system.local;
  EXPECT_SAME(pressure.diag, device.pressure().diag);
  EXPECT_SAME(pressure.upper, device.pressure().upper);
  EXPECT_SAME(host.pressure_source, device.pressure_source());
}

std::vector<Case> cases() {
  std::vector<Case> all;
  all.push_back({"2-D cavity", cavity_mesh(24), cavity_boundary(), {}});
  all.back().settings.reference_value = 0.25;  // the pin's source term non-zero
  all.push_back({"channel", channel_mesh(30, 8, 3.0), channel_boundary(1.0), {}});
  all.back().boundary.patches[1].pressure = 0.5;
  Mesh prisms = read_gmsh(std::string(FVMMINI_FIXTURES_DIR) + "/gmsh/mix_prism_pyr.msh");
  FlowBoundary lid;
  for (const Patch& patch : prisms.patches)
    lid.patches.push_back({FlowPatchType::wall, patch.name == "top" ? Vec3{1.0, 0.0, 0.0} : Vec3{}, 0.0});
  all.push_back({"prisms and pyramids", std::move(prisms), lid, {}});
  Mesh tets = tetrahedral_cavity_mesh();
  const FlowBoundary tet_lid = lid_driven_boundary(tets);
  all.push_back({"tetrahedra", std::move(tets), tet_lid, {}});
  Mesh poly = read_polymesh(std::string(FVMMINI_FIXTURES_DIR) + "/polymesh/cube_poly_n16");
  FlowBoundary poly_walls;
  for (std::size_t p = 0; p < poly.patches.size(); ++p)
    poly_walls.patches.push_back({FlowPatchType::wall, p == 0 ? Vec3{0.3, -0.2, 1.0} : Vec3{}, 0.0});
  all.push_back({"polyhedra", std::move(poly), poly_walls, {}});
  // --- a box shaken so that its faces, the moving wall's too, are skewed
  BoxSpec spec;
  spec.cells = {12, 10, 8};
  spec.patches = {{"movingWall", "wall", {BoxSide::ymax}},
                  {"fixedWalls", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::zmin, BoxSide::zmax}}};
  Mesh shaken = generate_box(spec);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> shake(-0.2, 0.2);
  for (Vec3& p : shaken.points) p += Vec3{shake(rng) / 12, shake(rng) / 10, shake(rng) / 8};
  all.push_back({"shaken box", std::move(shaken), {}, {}});
  all.back().boundary.patches = {{FlowPatchType::wall, {1.0, 0.5, 0.0}, 0.0}, {FlowPatchType::wall, {}, 0.0}};
  all.back().settings.reference_cell = 17;
  for (Case& c : all) c.settings.viscosity = 0.013;
  return all;
}

TEST_F(DeviceFlowOperatorsTest, EveryArrayIsTheHostsToTheBit) {
  for (const Case& c : cases()) expect_the_hosts(c);
}

TEST_F(DeviceFlowOperatorsTest, AProcessorPatchIsRefused) {
  Case c{"2-D cavity", cavity_mesh(4), cavity_boundary(), {}};
  c.mesh.patches.back().neighbour_rank = 1;
  const DeviceMeshGeometry on_device(c.mesh);
  EXPECT_THROW(DeviceFlowOperators(on_device, c.mesh, c.boundary, c.settings, 0), std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
