#include "discretisation/device_mesh_check.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "mesh/mesh_formulas.hpp"

namespace fvmmini {

namespace {

using namespace mesh_formulas;
using cuda::DeviceBuffer;
using cuda::poisoned;

constexpr int block = 256;  // a power of two: merge_in_block halves it

#define FVMMINI_GRID_STRIDE(i, n)                                                     \
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += std::int64_t{gridDim.x} * blockDim.x)

// --- cell_face_lists: each cell's entries counted, their starts scanned, then every entry as a
//     key (cell, owned 0 or neighboured 1, face) sorted: the host's order, owned faces ascending
//     then neighboured ones ascending.

__global__ void __launch_bounds__(block)
    count_faces_kernel(MeshView m, label* __restrict__ owned, label* __restrict__ neighboured) {
  FVMMINI_GRID_STRIDE(f, m.n_faces) {
    atomicAdd(owned + m.owner[f], 1);
    if (f < m.n_internal) atomicAdd(neighboured + m.neighbour[f], 1);
  }
}

/// sizes[c] = owned + neighboured faces of cell c; sizes[n_cells] = 0 (the scan's total).
__global__ void __launch_bounds__(block) list_sizes_kernel(const label* __restrict__ owned,
                                                           const label* __restrict__ neighboured, label n_cells,
                                                           std::int64_t* __restrict__ sizes) {
  FVMMINI_GRID_STRIDE(c, std::int64_t{n_cells} + 1) {
    sizes[c] = c < n_cells ? std::int64_t{owned[c]} + neighboured[c] : 0;
  }
}

constexpr int side_bit = 32, cell_shift = 33;  // a key: cell << 33 | neighboured << 32 | face

__global__ void __launch_bounds__(block) entry_keys_kernel(MeshView m, std::uint64_t* __restrict__ keys) {
  FVMMINI_GRID_STRIDE(f, m.n_faces) {
    keys[f] = std::uint64_t(m.owner[f]) << cell_shift | std::uint64_t(f);
    if (f < m.n_internal)
      keys[m.n_faces + f] =
          std::uint64_t(m.neighbour[f]) << cell_shift | std::uint64_t{1} << side_bit | std::uint64_t(f);
  }
}

__global__ void __launch_bounds__(block)
    faces_of_keys_kernel(const std::uint64_t* __restrict__ keys, std::int64_t n, label* __restrict__ faces) {
  FVMMINI_GRID_STRIDE(k, n) faces[k] = static_cast<label>(keys[k] & 0xffffffffu);
}

__global__ void __launch_bounds__(block) face_geometry_kernel(MeshView m, Vec3* centres, Vec3* areas) {
  FVMMINI_GRID_STRIDE(f, m.n_faces) face_centre_and_area(m, static_cast<label>(f), centres[f], areas[f]);
}

__global__ void __launch_bounds__(block)
    cell_geometry_kernel(CellListView cells, label n_cells, const Vec3* __restrict__ face_centres,
                         const Vec3* __restrict__ face_areas, Vec3* centres, double* volumes) {
  FVMMINI_GRID_STRIDE(c, n_cells)
  cell_centre_and_volume(cells, face_centres, face_areas, static_cast<label>(c), centres[c], volumes[c]);
}

/// The block's threads' figures merged into partials[blockIdx.x] (a tree over shared memory).
template <class Figures>
__device__ void merge_in_block(const Figures& mine, Figures* partials) {
  __shared__ alignas(Figures) unsigned char storage[block * sizeof(Figures)];
  Figures* shared = reinterpret_cast<Figures*>(storage);
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (int half = block / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x].merge(shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

/// Every face's figures, the internal faces' cosines to cosines (summed in order afterwards).
__global__ void __launch_bounds__(block) face_figures_kernel(MeshView m, GeometryView g, double severe_cos,
                                                             double* cosines, FaceFigures* partials) {
  FaceFigures mine;
  FVMMINI_GRID_STRIDE(f, m.n_faces) {
    const double cos = add_face_figures(mine, m, g, static_cast<label>(f), severe_cos);
    if (f < m.n_internal) cosines[f] = cos;
  }
  merge_in_block(mine, partials);
}

__global__ void __launch_bounds__(block) cell_figures_kernel(MeshView m, CellListView cells, GeometryView g,
                                                             AspectDirections dirs, CellFigures* partials) {
  CellFigures mine;
  FVMMINI_GRID_STRIDE(c, m.n_cells) add_cell_figures(mine, m, cells, g, static_cast<label>(c), dirs);
  merge_in_block(mine, partials);
}

/// sums[k] = 0.0 + values[k figure_chunk] + ... + the chunk's last value below n, added in order:
/// one thread a chunk, as the host sums its chunks.
__global__ void __launch_bounds__(block) chunk_sums_kernel(const double* __restrict__ values, std::int64_t n,
                                                           std::int64_t n_chunks, double* sums) {
  FVMMINI_GRID_STRIDE(k, n_chunks) {
    double sum = 0.0;
    for (std::int64_t i = k * figure_chunk; i < std::min(n, (k + 1) * figure_chunk); ++i) sum += values[i];
    sums[k] = sum;
  }
}

#undef FVMMINI_GRID_STRIDE

template <class T>
DeviceBuffer<T> upload(const T* data, std::size_t size) {
  return DeviceBuffer<T>(std::span<const T>(data, size));
}

template <class T>
std::vector<T> download(const DeviceBuffer<T>& buffer) {
  std::vector<T> host(buffer.size());
  buffer.download(std::span<T>(host.data(), host.size()));
  return host;
}

template <class Kernel>
int grid_for(Kernel kernel, std::int64_t n) {
  return cuda::one_wave_grid_over(kernel, block, n);
}

/// The sums of values[0 .. n) in the host's chunks of a pass over `items` (n <= items), merged
/// in order as the host merges them.
double sum_in_chunks(const double* values, std::int64_t n, std::int64_t items) {
  const std::int64_t n_chunks = (items + figure_chunk - 1) / figure_chunk;
  DeviceBuffer<double> sums(static_cast<std::size_t>(n_chunks));
  chunk_sums_kernel<<<grid_for(chunk_sums_kernel, n_chunks), block>>>(values, n, n_chunks, sums.data());
  FVMMINI_CUDA_CHECK_LAUNCH(chunk_sums_kernel);
  double total = 0.0;
  for (const double s : download(sums)) total += s;
  return total;
}

/// The partials of a figures kernel merged in block order.
template <class Figures>
Figures merged(const DeviceBuffer<Figures>& partials) {
  Figures all;
  for (const Figures& p : download(partials)) all.merge(p);
  return all;
}

/// The number of bits that hold a value up to n (at least 1).
int bits_for(std::uint64_t n) {
  int bits = 1;
  while (bits < 64 && (n >> bits) != 0) ++bits;
  return bits;
}

}  // namespace

/// The mesh, its cell lists and its geometry on the device.
struct DeviceMeshGeometry::Impl {
  explicit Impl(const Mesh& mesh)
      : points(upload(mesh.points.data(), mesh.points.size())),
        face_offsets(upload(mesh.face_offsets.data(), mesh.face_offsets.size())),
        face_vertices(upload(mesh.face_vertices.data(), mesh.face_vertices.size())),
        owner(upload(mesh.owner.data(), mesh.owner.size())),
        neighbour(upload(mesh.neighbour.data(), mesh.neighbour.size())),
        face_centres(poisoned<Vec3>(mesh.owner.size())),
        face_areas(poisoned<Vec3>(mesh.owner.size())),
        cell_centres(poisoned<Vec3>(mesh.n_cells)),
        cell_volumes(poisoned<double>(mesh.n_cells)) {
    view = {.n_cells = mesh.n_cells,
            .n_faces = mesh.n_faces(),
            .n_internal = mesh.n_internal_faces(),
            .points = points.data(),
            .face_offsets = face_offsets.data(),
            .face_vertices = face_vertices.data(),
            .owner = owner.data(),
            .neighbour = neighbour.data()};
    make_lists();
    lists = {.start = start.data(), .faces = faces.data(), .owned = owned.data()};
    face_geometry_kernel<<<grid_for(face_geometry_kernel, view.n_faces), block>>>(view, face_centres.data(),
                                                                                    face_areas.data());
    FVMMINI_CUDA_CHECK_LAUNCH(face_geometry_kernel);
    cell_geometry_kernel<<<grid_for(cell_geometry_kernel, view.n_cells), block>>>(
        lists, view.n_cells, face_centres.data(), face_areas.data(), cell_centres.data(), cell_volumes.data());
    FVMMINI_CUDA_CHECK_LAUNCH(cell_geometry_kernel);
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
    geometry = {.face_centres = face_centres.data(),
                .face_areas = face_areas.data(),
                .cell_centres = cell_centres.data(),
                .cell_volumes = cell_volumes.data()};
  }

  /// start, faces and owned: cell_face_lists' on the device.
  void make_lists() {
    const label n = view.n_cells;
    owned = DeviceBuffer<label>(n);
    DeviceBuffer<label> neighboured(n);
    FVMMINI_CUDA_CHECK(cudaMemset(owned.data(), 0, owned.bytes()));
    FVMMINI_CUDA_CHECK(cudaMemset(neighboured.data(), 0, neighboured.bytes()));
    count_faces_kernel<<<grid_for(count_faces_kernel, view.n_faces), block>>>(view, owned.data(), neighboured.data());
    FVMMINI_CUDA_CHECK_LAUNCH(count_faces_kernel);
    DeviceBuffer<std::int64_t> sizes(std::size_t(n) + 1);
    list_sizes_kernel<<<grid_for(list_sizes_kernel, std::int64_t{n} + 1), block>>>(owned.data(), neighboured.data(),
                                                                                    n, sizes.data());
    FVMMINI_CUDA_CHECK_LAUNCH(list_sizes_kernel);
    start = DeviceBuffer<std::int64_t>(std::size_t(n) + 1);
    std::size_t bytes = 0;
    const std::int64_t n_starts = std::int64_t{n} + 1;
    FVMMINI_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, sizes.data(), start.data(), n_starts));
    DeviceBuffer<char> scan_temp(std::max<std::size_t>(bytes, 1));
    FVMMINI_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.data(), bytes, sizes.data(), start.data(), n_starts));

    const std::int64_t entries = std::int64_t{view.n_faces} + view.n_internal;
    DeviceBuffer<std::uint64_t> keys(entries), sorted(entries);
    entry_keys_kernel<<<grid_for(entry_keys_kernel, view.n_faces), block>>>(view, keys.data());
    FVMMINI_CUDA_CHECK_LAUNCH(entry_keys_kernel);
    const int end_bit = cell_shift + bits_for(static_cast<std::uint64_t>(n));
    bytes = 0;
    FVMMINI_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys.data(), sorted.data(), entries, 0, end_bit));
    DeviceBuffer<char> sort_temp(std::max<std::size_t>(bytes, 1));
    FVMMINI_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(sort_temp.data(), bytes, keys.data(), sorted.data(), entries, 0, end_bit));
    faces = poisoned<label>(entries);
    faces_of_keys_kernel<<<grid_for(faces_of_keys_kernel, entries), block>>>(sorted.data(), entries, faces.data());
    FVMMINI_CUDA_CHECK_LAUNCH(faces_of_keys_kernel);
  }

  DeviceBuffer<Vec3> points;
  DeviceBuffer<label> face_offsets, face_vertices, owner, neighbour;
  DeviceBuffer<std::int64_t> start;
  DeviceBuffer<label> faces, owned;
  DeviceBuffer<Vec3> face_centres, face_areas, cell_centres;
  DeviceBuffer<double> cell_volumes;
  MeshView view;
  CellListView lists;
  GeometryView geometry;
};

DeviceMeshGeometry::DeviceMeshGeometry(const Mesh& mesh) : impl_(std::make_unique<Impl>(mesh)) {}

bool DeviceMeshGeometry::fits(const Mesh& mesh) {
  const std::size_t points = mesh.points.size(), faces = mesh.owner.size(), internal = mesh.neighbour.size(),
                    cells = static_cast<std::size_t>(mesh.n_cells), entries = faces + internal;
  const std::size_t bytes = sizeof(Vec3) * points + sizeof(label) * (mesh.face_vertices.size() + 2 * faces + internal) +
                            sizeof(std::int64_t) * 2 * (cells + 1) + sizeof(label) * (entries + 2 * cells) +
                            3 * sizeof(std::uint64_t) * entries  // the keys, sorted and the sort's own copy
                            + 2 * sizeof(Vec3) * faces + (sizeof(Vec3) + sizeof(double)) * cells;
  std::size_t free = 0, total = 0;
  FVMMINI_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return bytes + bytes / 10 < free;
}

DeviceMeshGeometry::~DeviceMeshGeometry() = default;

namespace {

template <class Buffer, class Host>
void copy_to(const Buffer& buffer, Host& host) {
  host.resize(buffer.size());
  buffer.download(std::span(host.data(), host.size()));
}

}  // namespace

CellFaceLists DeviceMeshGeometry::download_lists() const {
  CellFaceLists cells;
  copy_to(impl_->start, cells.start);
  copy_to(impl_->faces, cells.faces);
  copy_to(impl_->owned, cells.owned);
  return cells;
}

MeshGeometry DeviceMeshGeometry::download_geometry() const {
  MeshGeometry g;
  copy_to(impl_->face_centres, g.face_centres);
  copy_to(impl_->face_areas, g.face_areas);
  copy_to(impl_->cell_centres, g.cell_centres);
  copy_to(impl_->cell_volumes, g.cell_volumes);
  return g;
}

MeshView DeviceMeshGeometry::mesh_view() const { return impl_->view; }
CellListView DeviceMeshGeometry::list_view() const { return impl_->lists; }
GeometryView DeviceMeshGeometry::geometry_view() const { return impl_->geometry; }

MeshFigures DeviceMeshGeometry::figures(const FigureRules& rules) const {
  const Impl& d = *impl_;
  MeshFigures figures;
  const int face_grid = grid_for(face_figures_kernel, d.view.n_faces);
  DeviceBuffer<FaceFigures> face_partials(face_grid);
  DeviceBuffer<double> cosines = poisoned<double>(d.view.n_internal);
  face_figures_kernel<<<face_grid, block>>>(d.view, d.geometry, rules.severe_cos, cosines.data(),
                                            face_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(face_figures_kernel);
  figures.faces = merged(face_partials);
  figures.faces.sum_cos = sum_in_chunks(cosines.data(), d.view.n_internal, d.view.n_faces);

  const int cell_grid = grid_for(cell_figures_kernel, d.view.n_cells);
  DeviceBuffer<CellFigures> cell_partials(cell_grid);
  cell_figures_kernel<<<cell_grid, block>>>(d.view, d.lists, d.geometry, rules.directions, cell_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(cell_figures_kernel);
  figures.cells = merged(cell_partials);
  figures.cells.total_volume = sum_in_chunks(d.cell_volumes.data(), d.view.n_cells, d.view.n_cells);
  return figures;
}

}  // namespace fvmmini
