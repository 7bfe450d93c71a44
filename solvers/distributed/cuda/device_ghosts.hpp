#pragma once
// The ghost cells of a rank's device fields on a part of a decomposed mesh: the values at the
// processor faces' cells packed on the device and sent to the neighbours, the values across
// received straight into the ghost slots after the rank's cells (the flow step's layout:
// ghost n_cells + k is the cell across processor face k). Through the solvers' transports: NCCL
// (device buffers, no host round trip) or MPI with host staging. Plain C++ interface.

#include <cstddef>
#include <memory>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/solver_settings.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DeviceGhosts {
 public:
  /// @param neighbours the rank across each processor patch, in patch order
  /// @param patch_faces the faces of each processor patch
  /// @param face_cells the rank's cell at each processor face, patch after patch (ProcessorFaces order)
  /// @param n_cells the rank's cells: ghost k is at n_cells + k
  /// @param transport nccl, mpi or ipc (resolve_transport). Collective.
  /// @throws std::invalid_argument for sizes that do not agree or a face cell outside the cells
  DeviceGhosts(const Communicator& comm, Transport transport, std::vector<int> neighbours,
               const std::vector<std::size_t>& patch_faces, const std::vector<int>& face_cells, int n_cells);
  ~DeviceGhosts();
  DeviceGhosts(const DeviceGhosts&) = delete;
  DeviceGhosts& operator=(const DeviceGhosts&) = delete;

  std::size_t ghosts() const;
  /// values[n_cells + k] = the value of the cell across processor face k, `width` doubles a cell
  /// (1, or 3 for a vector field): values is a device array of (n_cells + ghosts()) * width,
  /// ordered after the work queued on `stream`; work queued on it afterwards sees them.
  /// Collective with the neighbours. @throws std::invalid_argument for another width
  void fill(double* values, int width, CUstream_st* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
