#pragma once
// A rank's device side of a CG across ranks: the processor interfaces' halo (x at the face cells
// packed on the device, sent, the neighbours' values received and their couplings added to A x)
// and the sums over ranks of the CG's per-block partials, through NCCL (device buffers, on the
// solver's stream, the halo on a side stream while the local product runs) or MPI with host
// staging (device to host, MPI, host to device). Every rank computes the same totals from the
// same gathered values in rank order, so every rank takes the same steps. Plain C++ interface.

#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/solver_settings.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

/// Whether this build has the NCCL transport (NCCL found at configure time).
bool nccl_built();

/// Makes the node_rank-th GPU of the host (round robin over them) this process's device. Call
/// before the first CUDA work of a rank. @throws CudaError without a device
void select_device(int node_rank);

/// Whether two ranks of comm run on the same GPU (the same device of the same host). Collective.
bool ranks_share_a_gpu(const Communicator& comm);

/// transport auto made concrete: nccl where the build has it and no two ranks share a GPU, else
/// mpi. Collective. @throws SolverError for nccl in a build without it, or with ranks sharing a GPU
Transport resolve_transport(Transport asked, const Communicator& comm);

/// The couplings' share of a product's dot products (DeviceRanks::finish_halo's dot_with):
/// per-block partials of `width` values, in write_block_partials' layout; none when count is 0.
struct CouplingDot {
  const double* partials = nullptr;
  int count = 0;
};

class DeviceRanks {
 public:
  /// @param interfaces the rank's processor interfaces, face cells already in the operator's
  ///        ordering (the device matrix's rows)
  /// @param transport nccl, mpi or ipc (resolve_transport)
  /// @param n_rows the rank's rows (their total over the ranks is taken here: collective)
  /// @throws std::invalid_argument for a face cell outside the rows or an interface to this rank
  DeviceRanks(const Communicator& comm, Transport transport, const std::vector<ProcessorInterface>& interfaces,
              int n_rows);
  ~DeviceRanks();
  DeviceRanks(const DeviceRanks&) = delete;
  DeviceRanks& operator=(const DeviceRanks&) = delete;

  const Communicator& communicator() const;
  Transport transport() const;
  /// Whether the work it queues can be captured in a CUDA graph (nccl; mpi's host waits cannot).
  bool capturable() const;
  long long total_rows() const;
  /// Shared faces over all of this rank's interfaces.
  std::size_t interface_faces() const;

  /// x (device, the operator's rows) at the face cells sent to the neighbours, their values
  /// received; the local product may be queued on `stream` between this and finish_halo. With
  /// width w, x holds w vectors interleaved by row (x[row w + j], the block CG's layout, w up to
  /// max_block_vectors; each width's transport is made on its first use, collectively).
  void start_halo(const double* x, CUstream_st* stream, int width = 1);
  /// y += the couplings to the values received, on `stream` once they are there. With dot_with
  /// (the product's input x), also the partials of x_j . (the couplings added to y_j): a local
  /// kernel that fused x.y before them plus this share gives x.y without another pass over both.
  /// Valid until the next finish_halo.
  CouplingDot finish_halo(double* y, CUstream_st* stream, int width = 1, const double* dot_with = nullptr);
  /// Whether work queued between start_halo and finish_halo runs while the halo travels (the
  /// default) or after it arrived (start_halo then waits for it).
  void set_overlap(bool overlap);
  bool overlap() const;

  /// The totals over ranks of k values (k 1 to 4, 6 or 9), each given as `count` per-block partials
  /// (partials[j * count + b], the layout of write_block_partials): returns a device array of
  /// k * size() partials in the same layout (value j of rank r at j * size() + r), which the
  /// CG's finalize kernels reduce as they reduce their own partials; `couplings` (finish_halo's,
  /// k values) added to this rank's totals. Valid until the next call.
  const double* gather_totals(const double* partials, int count, int k, CUstream_st* stream,
                              CouplingDot couplings = {});

  /// gathered[r * count + j] = local[j] of rank r, j < count, for every rank r (device arrays of
  /// count and count * ranks values), on `stream`: GAMG's coarsest right-hand sides.
  void all_gather(const double* local, double* gathered, int count, CUstream_st* stream);
  /// Makes all_gather of `count` values a rank ready (collective, before any graph captures it:
  /// ipc maps an inbox for them here).
  void reserve_all_gather(int count);

  /// New coefficients on the same faces (a new time step's matrix).
  /// @throws std::invalid_argument for another set of interfaces or faces
  void refresh_coefficients(const std::vector<ProcessorInterface>& interfaces);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
