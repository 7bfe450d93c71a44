#pragma once
// CG and PCG (Jacobi fused into the vector passes, or a DevicePreconditioner applied) on the
// device, with the reference CG's stopping rules, checks and errors and OpenFOAM's residual
// normalisation (solvers/krylov/cg_rules.hpp). A matrix with a float32 twin (precision mixed) iterates
// with the twin and replaces the residual with the float64 matrix's. The matrix stays on the device; vectors cross only at
// the start and the end of a solve, or not at all (solve_resident). Plain C++ interface.

#include <memory>
#include <span>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/l2_window.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DevicePreconditioner;
class DeviceRanks;

class DeviceCg final : public DeviceKrylov {
 public:
  /// @param[in] matrix on the device; must outlive this object
  /// @param[in] diagonal the matrix diagonal in the matrix's ordering (Jacobi, singularity check)
  /// @param[in] ranks across ranks (matrix is the rank's block): the halo and the sums over ranks,
  ///            every solve then collective; null on one rank. Must outlive this object
  DeviceCg(DeviceMatrix& matrix, std::span<const double> diagonal, DeviceRanks* ranks = nullptr);
  ~DeviceCg() override;
  DeviceCg(const DeviceCg&) = delete;
  DeviceCg& operator=(const DeviceCg&) = delete;

  /// After new values were uploaded to the matrix: new diagonal, row sums recomputed on the device.
  void refresh(std::span<const double> diagonal) override;

  /// Solve A x = b (vectors in the matrix's ordering); x holds the initial guess on entry.
  /// The iterations run as one loop on the device, which tests the CG's status after each, so
  /// the host waits once; without an applied preconditioner most of the last solve's count runs
  /// unrolled ahead of it (cg_loop_lead), and past that lead no iteration runs past convergence.
  /// Where the device cannot loop (mixed precision, whose residual replacements need the host;
  /// ranks over MPI; a driver without conditional graph nodes) the host queues one iteration
  /// fewer than the last solve took, reads the device's state, and queues batches sized from the
  /// residual's fall so far (at most `check_interval` iterations in mixed precision), each ending
  /// short of the stopping point: an iteration queued past convergence does its products for
  /// nothing.
  /// @throws SolverError on breakdown (p'Ap <= 0, r'M^-1 r <= 0, or not finite), a NaN residual, a
  ///         singular system or a non-positive diagonal under Jacobi
  SolverPerformance solve(std::span<double> x, std::span<const double> b, const SolverSettings& settings) override;

  /// The same solve on the device's own vectors: x_device() holds the guess (the solution on
  /// return), b_device() the right-hand side; whoever writes them orders that work before stream().
  SolverPerformance solve_resident(const SolverSettings& settings) override;
  double* x_device() override;
  double* b_device() override;
  /// 1 / diagonal in the matrix's ordering, for a caller that updates the diagonal on the device.
  double* inverse_diagonal_device() override;
  /// The stream every kernel of the solver runs on.
  CUstream_st* stream() const override;
  /// After the caller changed the matrix values and inverse_diagonal_device() on stream(): the
  /// row sums (and the float32 twin's values) are recomputed there. The host-side checks (singular system, positive diagonal for
  /// Jacobi) are not repeated: the caller vouches for a non-singular matrix with positive diagonal.
  void refresh_on_device() override;

  /// The matrix it solves with.
  DeviceMatrix& matrix();
  /// Across ranks, the other ranks' rows (halo and sums); null on one rank alone.
  DeviceRanks* ranks() const;
  /// A 1 in the matrix's ordering, on the device (the residual normalisation's row sums).
  const double* row_sums_device() const;
  /// The checks a solve makes before it iterates. @throws SolverError for a singular system, or a
  /// diagonal entry that is not positive under Jacobi (settings.preconditioner diagonal)
  void check_solvable(const SolverSettings& settings) const;

  /// Residuals of the last solve: [0] the initial one, [k] after iteration k (read from the device
  /// on the first call after a solve).
  const std::vector<double>& residual_history() const;
  /// Device time of the last solve's iterations (events), milliseconds.
  double last_iterations_ms() const;
  /// Whether solves run their iterations as one loop on the device where it can (on until set):
  /// off, the host queues them in batches, as where the device cannot loop.
  void set_device_loop(bool on);
  /// Whether the last solve's iterations ran as one loop on the device (else in batches).
  bool last_solve_looped() const;
  /// Iterations the host queues between convergence checks where the device cannot loop, and
  /// ahead of the loop in a first solve without a preconditioner (>= 1).
  void set_check_interval(int iterations);
  /// The preconditioner that settings DIC, mcsgs and GAMG apply (null for none and diagonal); must
  /// outlive the solves.
  void set_preconditioner(DevicePreconditioner* preconditioner) override;
  /// The preconditioner set (null: none or diagonal), which a block CG of this one applies too.
  DevicePreconditioner* preconditioner() const;
  /// Whether each solve keeps a persisting-L2 window over the vector its SpMVs gather (p),
  /// cleared when the solve ends (l2_window.hpp). Off until set.
  void set_l2_window(bool on) override;
  /// The block CG of k systems (device_block_cg.hpp), borrowing this one's matrix, diagonal,
  /// checks and stream.
  bool has_block() const override { return true; }
  std::unique_ptr<DeviceBlockKrylov> make_block(int k) override;
  /// The window of the last solve (empty: none).
  L2Window last_l2_window() const;
  /// Residual replacements from the float64 matrix in the last solve (precision mixed: the matrix
  /// has a float32 twin, and the iterations multiply with it; 0 otherwise).
  int last_replacements() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
