#pragma once
// How DeviceRanks (device_ranks.hpp) moves device data between ranks: NCCL (nccl_transport.cu,
// built where NCCL was found), CUDA IPC on one host (ipc_transport.cu) or MPI through host copies
// (device_ranks.cu). Internal to the CUDA library.

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/block_vectors.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

/// The halo's shape: with neighbours[i], send counts[i] doubles from offsets[i] of the send buffer
/// and receive as many at offsets[i] of the receive buffer (both sides list the same faces).
struct HaloPattern {
  std::vector<int> neighbours;
  std::vector<std::size_t> offsets;  ///< one more than neighbours: offsets.back() is the total
  std::size_t count(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
};

/// The most values all_gather takes at once (the block CG's sums: three a vector).
constexpr int max_totals = 3 * max_block_vectors;

class RankTransport {
 public:
  virtual ~RankTransport() = default;
  /// Whether what it queues can be captured in a CUDA graph (no host wait inside).
  virtual bool capturable() const = 0;
  /// Sends send[] and receives into recv[] (device buffers of the pattern's total), ordered after
  /// the work queued on `stream` so far; work queued on `stream` afterwards may run meanwhile.
  virtual void start(const double* send, double* recv, cudaStream_t stream) = 0;
  /// Work queued on `stream` after this sees recv[] complete.
  virtual void finish(double* recv, cudaStream_t stream) = 0;
  /// gathered[j * ranks + r] = local[j] of rank r for j < k <= max_totals (device arrays), on `stream`.
  virtual void all_gather(const double* local, double* gathered, int k, cudaStream_t stream) = 0;
  /// gathered[r * count + j] = local[j] of rank r for j < count (device arrays), on `stream`.
  virtual void gather_rows(const double* local, double* gathered, std::size_t count, cudaStream_t stream) = 0;
  /// Makes ready (collectively, outside graph capture) what gather_rows of `count` rows needs.
  virtual void reserve_rows(std::size_t /*count*/) {}
};

/// NCCL: the process's NCCL communicator over comm's ranks (one GPU each; the current device),
/// shared by every transport alive on comm, the halo on a side stream. @throws SolverError in a
/// build without NCCL
std::unique_ptr<RankTransport> make_nccl_transport(const Communicator& comm, const HaloPattern& pattern);

/// CUDA IPC (ipc_transport.cu): every rank of one host maps the others' device memory and writes
/// its halo and sums straight into theirs. @throws SolverError where a GPU cannot map another's
std::unique_ptr<RankTransport> make_ipc_transport(const Communicator& comm, const HaloPattern& pattern);

/// Whether every rank of comm runs on this rank's host (collective).
bool ranks_on_one_host(const Communicator& comm);

/// Whether every rank of comm can map every other rank's GPU memory through CUDA IPC: a small
/// block of each mapped and closed again (collective; ranks on one host, one GPU each).
bool ipc_maps_every_rank(const Communicator& comm);

/// The transport asked (nccl, mpi or ipc, already resolved) for a halo of this pattern.
std::unique_ptr<RankTransport> make_transport(Transport transport, const Communicator& comm, const HaloPattern& pattern);

}  // namespace fvmmini::cuda
