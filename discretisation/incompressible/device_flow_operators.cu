#include "discretisation/incompressible/device_flow_operators.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "discretisation/face_interpolation.hpp"
#include "discretisation/laplacian_formulas.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/launch_grid.cuh"

namespace fvmmini {

namespace {

using cuda::DeviceBuffer;
using cuda::poisoned;
using laplacian_formulas::face_terms;
using mesh_formulas::CellListView;
using mesh_formulas::GeometryView;
using mesh_formulas::MeshView;

constexpr int block = 256;

#define FVMMINI_GRID_STRIDE(i, n)                                                     \
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += std::int64_t{gridDim.x} * blockDim.x)

constexpr int wall = static_cast<int>(FlowPatchType::wall);
constexpr int inlet = static_cast<int>(FlowPatchType::velocity_inlet);
constexpr int empty = static_cast<int>(FlowPatchType::empty);

/// What the face pass writes.
struct FaceOutputs {
  double* weight;          ///< internal faces
  double* coeff;           ///< internal faces
  double* bcoeff;          ///< boundary faces
  Vec3* bvelocity;         ///< boundary faces
  double* helmholtz_upper;
  double* pressure_upper;
  int* non_orthogonal;  ///< set to 1 where some face is not orthogonal
};

/// Each face's weight and coefficient (Laplacian's constructor), its velocity where a wall or an
/// inlet (boundary_face_velocities), and the matrices' upper coefficients (Laplacian::assemble).
__global__ void __launch_bounds__(block) face_kernel(MeshView m, GeometryView g, const int* __restrict__ kind,
                                                     const Vec3* __restrict__ patch_velocity, double nu,
                                                     FaceOutputs out) {
  FVMMINI_GRID_STRIDE(f, m.n_faces) {
    const label o = m.owner[f];
    const Vec3 area = g.face_areas[f];
    if (f < m.n_internal) {
      const label n = m.neighbour[f];
      out.weight[f] = linear_weight(area, g.face_centres[f], g.cell_centres[o], g.cell_centres[n]);
      const auto t = face_terms(area, g.cell_centres[n] - g.cell_centres[o]);
      out.coeff[f] = t.coeff;
      out.helmholtz_upper[f] = -nu * t.coeff;
      out.pressure_upper[f] = -1.0 * t.coeff;
      if (!t.orthogonal()) *out.non_orthogonal = 1;
    } else {
      const std::int64_t b = f - m.n_internal;
      const auto t = face_terms(area, g.face_centres[f] - g.cell_centres[o]);
      out.bcoeff[b] = t.coeff;
      out.bvelocity[b] = kind[b] == wall    ? flow::wall_velocity(patch_velocity[b], area)
                         : kind[b] == inlet ? patch_velocity[b]
                                            : Vec3{};
      if (!t.orthogonal()) *out.non_orthogonal = 1;
    }
  }
}

/// Every face's correction vector (Laplacian::keep_corrections), on a non-orthogonal mesh.
__global__ void __launch_bounds__(block) correction_kernel(MeshView m, GeometryView g, Vec3* __restrict__ correction) {
  FVMMINI_GRID_STRIDE(f, m.n_faces) {
    const Vec3 far_end = f < m.n_internal ? g.cell_centres[m.neighbour[f]] : g.face_centres[f];
    correction[f] = face_terms(g.face_areas[f], far_end - g.cell_centres[m.owner[f]]).correction;
  }
}

// --- the gather lists (CellFaces): each cell's faces in face order, empty patches' left out

__device__ bool listed(const MeshView& m, const int* kind, label f) { return f < m.n_internal || kind[f - m.n_internal] != empty; }

__global__ void __launch_bounds__(block)
    list_counts_kernel(MeshView m, CellListView lists, const int* __restrict__ kind, label* __restrict__ counts) {
  FVMMINI_GRID_STRIDE(c, std::int64_t{m.n_cells} + 1) {
    label count = 0;
    if (c < m.n_cells)
      for_each_face_in_face_order(lists, static_cast<label>(c), [&](label f) { count += listed(m, kind, f); });
    counts[c] = count;
  }
}

__global__ void __launch_bounds__(block)
    list_entries_kernel(MeshView m, CellListView lists, const int* __restrict__ kind, const label* __restrict__ offsets,
                        label* __restrict__ faces, std::int8_t* __restrict__ signs) {
  FVMMINI_GRID_STRIDE(c, m.n_cells) {
    label k = offsets[c];
    for_each_face_in_face_order(lists, static_cast<label>(c), [&](label f) {
      if (!listed(m, kind, f)) return;
      faces[k] = f;
      signs[k++] = m.owner[f] == c ? 1 : -1;
    });
  }
}

/// What the cell pass writes.
struct CellOutputs {
  double* helmholtz_diag;
  double* base_diag;
  double* momentum_source[3];
  double* pressure_diag;
  double* pressure_source;
};

/// Each cell's diagonals and boundary sources (FlowOperators::assemble_helmholtz, assemble_pressure).
__global__ void __launch_bounds__(block)
    cell_kernel(MeshView m, CellListView lists, const double* __restrict__ volume, double nu,
                const double* __restrict__ coeff, const double* __restrict__ bcoeff,
                const std::uint8_t* __restrict__ fixed_velocity, const std::uint8_t* __restrict__ fixed_pressure,
                const Vec3* __restrict__ bvelocity, const double* __restrict__ bpressure, CellOutputs out) {
  using laplacian_formulas::cell_boundary_source;
  using laplacian_formulas::cell_diagonal;
  FVMMINI_GRID_STRIDE(i, m.n_cells) {
    const label c = static_cast<label>(i);
    const double base = cell_diagonal(lists, c, m.n_internal, nu, coeff, bcoeff, fixed_velocity);
    out.base_diag[c] = base;
    out.helmholtz_diag[c] = base + volume[c];
    for (int k = 0; k < 3; ++k)
      out.momentum_source[k][c] = cell_boundary_source(lists, c, m.n_internal, nu, bcoeff, fixed_velocity,
                                                       [&](std::int64_t b) { return bvelocity[b][k]; });
    out.pressure_diag[c] = cell_diagonal(lists, c, m.n_internal, 1.0, coeff, bcoeff, fixed_pressure);
    out.pressure_source[c] = cell_boundary_source(lists, c, m.n_internal, 1.0, bcoeff, fixed_pressure,
                                                  [&](std::int64_t b) { return bpressure[b]; });
  }
}

__global__ void __launch_bounds__(block)
    rhie_chow_kernel(MeshView m, const double* __restrict__ weight, const double* __restrict__ volume,
                     const double* __restrict__ base_diag, double* __restrict__ time) {
  FVMMINI_GRID_STRIDE(f, m.n_faces) {
    time[f] = f < m.n_internal ? flow::rhie_chow_time(m.owner[f], m.neighbour[f], weight[f], volume, base_diag)
                               : flow::rhie_chow_time(m.owner[f], volume, base_diag);
  }
}

/// The weak pin of the reference cell r (FlowOperators::pin_reference_cell).
__global__ void pin_kernel(label r, double value, double* __restrict__ diag, double* __restrict__ source) {
  source[r] += pressure_reference_pin * diag[r] * value;
  diag[r] *= 1.0 + pressure_reference_pin;
}

#undef FVMMINI_GRID_STRIDE

template <class Kernel>
int grid_for(Kernel kernel, std::int64_t n) {
  return cuda::one_wave_grid_over(kernel, block, n);
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
  return DeviceBuffer<T>(std::span<const T>(host.data(), host.size()));
}

}  // namespace

struct DeviceFlowOperators::Impl {
  Impl(const DeviceMeshGeometry& on_device, const Mesh& mesh, const FlowBoundary& boundary,
       const IncompressibleSettings& settings, label reference_cell)
      : m(on_device.mesh_view()), lists(on_device.list_view()), g(on_device.geometry_view()) {
    for (const Patch& patch : mesh.patches)
      if (patch.neighbour_rank >= 0)
        throw std::invalid_argument("the flow's operators on the device take one rank's whole mesh (patch '" +
                                    patch.name + "' is a processor patch)");
    const std::size_t n_faces = m.n_faces, n_internal = m.n_internal, n_boundary = n_faces - n_internal,
                      n_cells = m.n_cells;
    // --- the boundary faces' conditions, and which faces fix U and p
    const BoundaryFaceConditions conditions = boundary_face_conditions(mesh, boundary, m.n_internal);
    std::vector<std::uint8_t> fixes_velocity(n_boundary), fixes_pressure(n_boundary);
    for (std::size_t b = 0; b < n_boundary; ++b) {
      const auto type = static_cast<FlowPatchType>(conditions.kind[b]);
      fixes_velocity[b] = type == FlowPatchType::wall || type == FlowPatchType::velocity_inlet;
      fixes_pressure[b] = type == FlowPatchType::pressure_outlet;
    }
    kind = upload(conditions.kind);
    bpressure = upload(conditions.pressure);
    const DeviceBuffer<Vec3> patch_velocity = upload(conditions.velocity);
    const DeviceBuffer<std::uint8_t> fixed_velocity = upload(fixes_velocity), fixed_pressure = upload(fixes_pressure);

    // --- faces
    weight = poisoned<double>(n_internal);
    coeff = poisoned<double>(n_internal);
    bcoeff = poisoned<double>(n_boundary);
    bvelocity = poisoned<Vec3>(n_boundary);
    helmholtz_upper = poisoned<double>(n_internal);
    pressure_upper = poisoned<double>(n_internal);
    DeviceBuffer<int> non_orthogonal(1);
    FVMMINI_CUDA_CHECK(cudaMemset(non_orthogonal.data(), 0, sizeof(int)));
    const FaceOutputs faces_out{weight.data(),          coeff.data(),          bcoeff.data(), bvelocity.data(),
                                helmholtz_upper.data(), pressure_upper.data(), non_orthogonal.data()};
    face_kernel<<<grid_for(face_kernel, n_faces), block>>>(m, g, kind.data(), patch_velocity.data(),
                                                            settings.viscosity, faces_out);
    FVMMINI_CUDA_CHECK_LAUNCH(face_kernel);
    int flag = 0;
    non_orthogonal.download(std::span<int>(&flag, 1));
    is_orthogonal = flag == 0;
    if (!is_orthogonal) {
      correction = poisoned<Vec3>(n_faces);
      correction_kernel<<<grid_for(correction_kernel, n_faces), block>>>(m, g, correction.data());
      FVMMINI_CUDA_CHECK_LAUNCH(correction_kernel);
    }

    // --- the gather lists: counted, their offsets scanned, then filled
    offsets = poisoned<label>(n_cells + 1);
    label n_entries = 0;
    {  // (the scan's buffers freed once its total is back)
      DeviceBuffer<label> counts(n_cells + 1);
      list_counts_kernel<<<grid_for(list_counts_kernel, n_cells + 1), block>>>(m, lists, kind.data(), counts.data());
      FVMMINI_CUDA_CHECK_LAUNCH(list_counts_kernel);
      std::size_t bytes = 0;
      const auto n_offsets = static_cast<std::int64_t>(n_cells + 1);
      FVMMINI_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.data(), offsets.data(), n_offsets));
      DeviceBuffer<char> scan_temp(std::max<std::size_t>(bytes, 1));
      FVMMINI_CUDA_CHECK(
          cub::DeviceScan::ExclusiveSum(scan_temp.data(), bytes, counts.data(), offsets.data(), n_offsets));
      FVMMINI_CUDA_CHECK(cudaMemcpy(&n_entries, offsets.data() + n_cells, sizeof(label), cudaMemcpyDeviceToHost));
    }
    cell_faces = poisoned<label>(static_cast<std::size_t>(n_entries));
    signs = poisoned<std::int8_t>(static_cast<std::size_t>(n_entries));
    list_entries_kernel<<<grid_for(list_entries_kernel, n_cells), block>>>(m, lists, kind.data(), offsets.data(),
                                                                            cell_faces.data(), signs.data());
    FVMMINI_CUDA_CHECK_LAUNCH(list_entries_kernel);

    // --- cells: the diagonals and sources, then the Rhie-Chow times and the pin
    helmholtz_diag = poisoned<double>(n_cells);
    base_diag = poisoned<double>(n_cells);
    pressure_diag = poisoned<double>(n_cells);
    pressure_source = poisoned<double>(n_cells);
    CellOutputs cells_out{helmholtz_diag.data(), base_diag.data(), {}, pressure_diag.data(), pressure_source.data()};
    for (int k = 0; k < 3; ++k) {
      momentum_source[k] = poisoned<double>(n_cells);
      cells_out.momentum_source[k] = momentum_source[k].data();
    }
    cell_kernel<<<grid_for(cell_kernel, n_cells), block>>>(m, lists, g.cell_volumes, settings.viscosity, coeff.data(),
                                                            bcoeff.data(), fixed_velocity.data(), fixed_pressure.data(),
                                                            bvelocity.data(), bpressure.data(), cells_out);
    FVMMINI_CUDA_CHECK_LAUNCH(cell_kernel);
    rhie_chow_time = poisoned<double>(n_faces);
    rhie_chow_kernel<<<grid_for(rhie_chow_kernel, n_faces), block>>>(m, weight.data(), g.cell_volumes,
                                                                      base_diag.data(), rhie_chow_time.data());
    FVMMINI_CUDA_CHECK_LAUNCH(rhie_chow_kernel);
    if (reference_cell >= 0) {
      if (reference_cell >= m.n_cells) throw std::invalid_argument("reference cell out of range");
      pin_kernel<<<1, 1>>>(reference_cell, settings.reference_value, pressure_diag.data(), pressure_source.data());
      FVMMINI_CUDA_CHECK_LAUNCH(pin_kernel);
    }
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // the uploads' sources go out of scope
  }

  MeshView m;
  CellListView lists;
  GeometryView g;
  bool is_orthogonal = true;
  DeviceBuffer<int> kind;
  DeviceBuffer<double> bpressure, weight, coeff, bcoeff, helmholtz_upper, pressure_upper, rhie_chow_time;
  DeviceBuffer<Vec3> bvelocity, correction;
  DeviceBuffer<label> offsets, cell_faces;
  DeviceBuffer<std::int8_t> signs;
  DeviceBuffer<double> helmholtz_diag, base_diag, pressure_diag, pressure_source;
  std::array<DeviceBuffer<double>, 3> momentum_source;
};

DeviceFlowOperators::DeviceFlowOperators(const DeviceMeshGeometry& on_device, const Mesh& mesh,
                                         const FlowBoundary& boundary, const IncompressibleSettings& settings,
                                         label reference_cell)
    : impl_(std::make_unique<Impl>(on_device, mesh, boundary, settings, reference_cell)) {}

DeviceFlowOperators::~DeviceFlowOperators() = default;

bool DeviceFlowOperators::orthogonal() const { return impl_->is_orthogonal; }

flow::Faces DeviceFlowOperators::faces() const {
  const Impl& d = *impl_;
  flow::Faces f;
  f.n_internal = d.m.n_internal;
  f.n_faces = d.m.n_faces;
  f.owner = d.m.owner;
  f.neighbour = d.m.neighbour;
  f.weight = d.weight.data();
  f.coeff = d.coeff.data();
  f.bcoeff = d.bcoeff.data();
  f.area = d.g.face_areas;
  f.centre = d.g.face_centres;
  f.correction = d.is_orthogonal ? nullptr : d.correction.data();
  f.rhie_chow_time = d.rhie_chow_time.data();
  f.kind = d.kind.data();
  f.bvelocity = d.bvelocity.data();
  f.bpressure = d.bpressure.data();
  return f;
}

flow::Cells DeviceFlowOperators::cells() const {
  const Impl& d = *impl_;
  return {d.m.n_cells, d.g.cell_volumes, d.offsets.data(), d.cell_faces.data(), d.signs.data(), nullptr};
}

DeviceLduView DeviceFlowOperators::helmholtz() const { return {impl_->helmholtz_diag.data(), impl_->helmholtz_upper.data()}; }
const double* DeviceFlowOperators::helmholtz_base_diagonal() const { return impl_->base_diag.data(); }
std::array<const double*, 3> DeviceFlowOperators::momentum_boundary_source() const {
  return {impl_->momentum_source[0].data(), impl_->momentum_source[1].data(), impl_->momentum_source[2].data()};
}
DeviceLduView DeviceFlowOperators::pressure() const { return {impl_->pressure_diag.data(), impl_->pressure_upper.data()}; }
const double* DeviceFlowOperators::pressure_source() const { return impl_->pressure_source.data(); }

}  // namespace fvmmini
