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
  std::size_t total() const { return offsets.empty() ? 0 : offsets.back(); }
};

/// The most values all_gather takes at once (the block CG's sums: three a vector).
constexpr int max_totals = 3 * max_block_vectors;

/// What a halo sends, value k of the pattern's total: x[k] where rows is null, else
/// x[rows[k / width] width + k % width] (the face cells' values, `width` vectors interleaved by row).
struct HaloSource {
  const double* x = nullptr;
  const int* rows = nullptr;
  int width = 1;
};

/// A round's counter of an IPC exchange, and each sender's flag (ipc_transport.cu).
using HaloFlag = unsigned long long;

/// Where one kernel finds a halo's received values (halo_device.cuh reads it): `values`, complete
/// in stream order where `flags` is null; else an IPC inbox, which the kernel waits for itself,
/// one kernel boundary fewer than a wait kernel before it.
struct HaloArrival {
  const double* values = nullptr;  ///< the values, or the inbox's slot 0 (round e's at values + (e % 2) slot)
  long long slot = 0;
  const HaloFlag* flags = nullptr;  ///< this rank's flag from each rank (by rank)
  const int* senders = nullptr;     ///< the ranks that send (device), n_senders of them
  int n_senders = 0;
  HaloFlag* round = nullptr;        ///< the exchange's rounds so far
  unsigned int* finished = nullptr;  ///< the blocks that read this round
  int rank = 0;                     ///< this rank (a message if a sender never comes)
};

class RankTransport {
 public:
  virtual ~RankTransport() = default;
  /// Whether what it queues can be captured in a CUDA graph (no host wait inside).
  virtual bool capturable() const = 0;
  /// Sends the source's values (the pattern's total) and receives into recv[] (a device buffer as
  /// long), ordered after the work queued on `stream` so far; work queued on `stream` afterwards
  /// may run meanwhile.
  virtual void start(const HaloSource& source, double* recv, cudaStream_t stream) = 0;
  /// Work queued on `stream` after this sees recv[] complete.
  virtual void finish(double* recv, cudaStream_t stream) = 0;
  /// Where the next kernel queued on `stream` finds the values received (instead of finish): it
  /// must read them with halo_device.cuh's halo_values and done_with_halo.
  virtual HaloArrival arrival(double* recv, cudaStream_t stream) {
    finish(recv, stream);
    return {.values = recv};
  }
  /// gathered[j * ranks + r] = local[j] of rank r for j < k <= max_totals (device arrays), on `stream`.
  virtual void all_gather(const double* local, double* gathered, int k, cudaStream_t stream) = 0;
  /// gathered[r * count + j] = local[j] of rank r for j < count (device arrays), on `stream`.
  virtual void gather_rows(const double* local, double* gathered, std::size_t count, cudaStream_t stream) = 0;
  /// Makes ready (collectively, outside graph capture) what gather_rows of `count` rows needs.
  virtual void reserve_rows(std::size_t /*count*/) {}
};

/// send[k] = the source's value k for k < count, on `stream` (device_ranks.cu): what a transport
/// that sends from one buffer sends.
void enqueue_pack(const HaloSource& source, long long count, double* send, cudaStream_t stream);

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
