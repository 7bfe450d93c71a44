#pragma once
// OpenFOAM's PBiCGStab on the device: the reference backend's iterates (solvers/krylov/
// reference_bicgstab.hpp), with its residual normalisation, stopping rules and errors
// (solvers/krylov/cg_rules.hpp), on a matrix that need not be symmetric, in any device format.
// Preconditioned on the right by nothing, by Jacobi (fused into the vector passes) or by a
// DevicePreconditioner applied twice an iteration. One rank, double precision. Plain C++ interface.

#include <memory>
#include <span>

#include "kernels/cuda/device_matrix.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DevicePreconditioner;

class DeviceBiCgStab final : public DeviceKrylov {
 public:
  /// @param[in] matrix on the device; must outlive this object
  /// @param[in] diagonal the matrix diagonal in the matrix's ordering (Jacobi, singularity check)
  /// @throws std::invalid_argument for a matrix with a float32 twin (precision mixed): the
  ///         method has no residual replacement, so it iterates with the float64 matrix only
  DeviceBiCgStab(DeviceMatrix& matrix, std::span<const double> diagonal);
  ~DeviceBiCgStab() override;
  DeviceBiCgStab(const DeviceBiCgStab&) = delete;
  DeviceBiCgStab& operator=(const DeviceBiCgStab&) = delete;

  /// After new values were uploaded to the matrix: new diagonal, row sums recomputed on the
  /// device and checked for a singular system (the host waits for them).
  void refresh(std::span<const double> diagonal) override;
  /// After the caller changed the matrix values and inverse_diagonal_device() on stream(): the
  /// row sums are recomputed there, with no host wait. The host-side checks (singular system,
  /// positive diagonal for Jacobi) are not repeated: the caller vouches for the matrix.
  void refresh_on_device() override;

  /// Solve A x = b (vectors in the matrix's ordering); x holds the initial guess on entry. The
  /// host queues iterations in batches and reads the device's state between them (no graphs).
  /// @throws SolverError for a singular system, a diagonal entry Jacobi cannot take, or a
  ///         residual that is not finite, as reference_bicgstab; CudaError for settings whose
  ///         applied preconditioner is not the one set (set_preconditioner)
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
  /// The preconditioner that settings DIC, DILU, mcsgs or GAMG apply (null for none and
  /// diagonal); must outlive the solves.
  void set_preconditioner(DevicePreconditioner* preconditioner) override;
  /// Whether each solve keeps a persisting-L2 window over the two vectors its products gather
  /// (held side by side so that one window covers both), cleared when the solve ends. Off until set.
  void set_l2_window(bool on) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
