#include "solvers/distributed/cuda/device_ghosts.hpp"

#include <stdexcept>
#include <string>

#include "kernels/cuda/device_memory.cuh"
#include "solvers/distributed/cuda/rank_transport.cuh"

namespace fvmmini::cuda {

namespace {

HaloPattern pattern_of(const std::vector<int>& neighbours, const std::vector<std::size_t>& patch_faces, int width) {
  HaloPattern p;
  p.neighbours = neighbours;
  p.offsets.push_back(0);
  for (std::size_t faces : patch_faces) p.offsets.push_back(p.offsets.back() + faces * width);
  return p;
}

}  // namespace

struct DeviceGhosts::Impl {
  Impl(const Communicator& comm, Transport transport, std::vector<int> neighbours,
       const std::vector<std::size_t>& patch_faces, const std::vector<int>& face_cells, int cells)
      : n_cells(cells), ghosts(face_cells.size()) {
    if (neighbours.size() != patch_faces.size())
      throw std::invalid_argument("DeviceGhosts: one face count per neighbour needed");
    std::size_t total = 0;
    for (std::size_t faces : patch_faces) total += faces;
    if (total != face_cells.size())
      throw std::invalid_argument("DeviceGhosts: " + std::to_string(face_cells.size()) + " face cells for " +
                                  std::to_string(total) + " processor faces");
    for (int c : face_cells)
      if (c < 0 || c >= cells)
        throw std::invalid_argument("DeviceGhosts: face cell " + std::to_string(c) + " is not one of the " +
                                    std::to_string(cells) + " cells");
    rows = DeviceBuffer<int>(std::span<const int>(face_cells));
    scalar = make_transport(transport, comm, pattern_of(neighbours, patch_faces, 1));
    vector = make_transport(transport, comm, pattern_of(neighbours, patch_faces, 3));
  }

  void fill(double* values, int width, RankTransport& link, cudaStream_t stream) {
    double* ghost_slots = values + static_cast<long long>(n_cells) * width;  // the pattern's layout
    link.start({.x = values, .rows = rows.data(), .width = width}, ghost_slots, stream);
    link.finish(ghost_slots, stream);
  }

  int n_cells;
  std::size_t ghosts;
  DeviceBuffer<int> rows;  ///< the face cells, patch after patch
  std::unique_ptr<RankTransport> scalar, vector;  ///< one double a face; three
};

DeviceGhosts::DeviceGhosts(const Communicator& comm, Transport transport, std::vector<int> neighbours,
                           const std::vector<std::size_t>& patch_faces, const std::vector<int>& face_cells, int n_cells)
    : impl_(std::make_unique<Impl>(comm, transport, std::move(neighbours), patch_faces, face_cells, n_cells)) {}

DeviceGhosts::~DeviceGhosts() = default;

std::size_t DeviceGhosts::ghosts() const { return impl_->ghosts; }

void DeviceGhosts::fill(double* values, int width, CUstream_st* stream) {
  if (width != 1 && width != 3) throw std::invalid_argument("DeviceGhosts::fill: 1 or 3 doubles a cell");
  impl_->fill(values, width, width == 1 ? *impl_->scalar : *impl_->vector, stream);
}

}  // namespace fvmmini::cuda
