#pragma once
// Several systems with one matrix on the device (the velocity components of one momentum matrix):
// k CGs, Jacobi-PCGs or PCGs whose preconditioner takes the k vectors together (GAMG,
// DevicePreconditioner::apply_block) in lockstep on vectors interleaved by row
// (linalg/block_vectors.hpp), one multi-vector SpMV per iteration with the k dot products fused,
// each system with its own scalars and the stopping rules and errors of
// solvers/krylov/cg_rules.hpp; a system that has stopped is left as it is while the others go on.
// It borrows a DeviceCg's matrix, inverse diagonal, row sums, preconditioner, checks and stream, so
// a value refresh through that DeviceCg serves both. Plain C++ interface.

#include <memory>
#include <span>
#include <vector>

#include "linalg/solver_settings.hpp"
#include "solvers/krylov/cuda/device_cg.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DeviceBlockCg final : public DeviceBlockKrylov {
 public:
  /// @param[in] single the one-system CG whose matrix (with a multi-vector SpMV of k vectors:
  ///            DeviceMatrix::max_block() >= k), diagonal, stream and preconditioner (where it takes
  ///            the k vectors together, its buffers for them reserved here) it uses; must outlive this object
  /// @throws CudaError when the matrix has no multi-vector SpMV of k vectors
  DeviceBlockCg(DeviceCg& single, int k);
  ~DeviceBlockCg() override;
  DeviceBlockCg(const DeviceBlockCg&) = delete;
  DeviceBlockCg& operator=(const DeviceBlockCg&) = delete;

  int vectors() const override;

  /// Solve the k systems, x and b of k n values interleaved by row (x: the guesses in, the
  /// solutions out), preconditioner none, diagonal or one the DeviceCg applies that takes the k
  /// vectors together. As DeviceCg: from the second solve on, the iterations loop on the device
  /// while a system runs; else the host queues them in batches and reads the k states between them.
  /// @return the k performance records (fields left empty)
  /// @throws SolverError as DeviceCg::solve, for the first system that fails; CudaError for a
  ///         preconditioner that does not take the k vectors together
  std::vector<SolverPerformance> solve(std::span<double> x, std::span<const double> b,
                                       const SolverSettings& settings) override;
  /// The same on the device's own vectors (interleaved): x_device() the guesses in, the solutions
  /// out; b_device() the right-hand sides; whoever writes them orders that work before stream().
  std::vector<SolverPerformance> solve_resident(const SolverSettings& settings) override;
  double* x_device() override;
  double* b_device() override;
  /// Device time of the last solve's iterations (events), milliseconds.
  double last_iterations_ms() const;
  /// Whether solves may run their iterations as the device loop (the default) or in batches.
  void set_device_loop(bool on);
  /// Whether the last solve ran as the device loop.
  bool last_solve_looped() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
