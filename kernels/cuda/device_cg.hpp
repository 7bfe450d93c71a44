#pragma once
// CG and Jacobi-PCG on the device, with the reference CG's stopping rules and OpenFOAM's residual
// normalisation (linalg/reference_cg.hpp). The matrix stays on the device; vectors cross only at
// the start and the end of a solve. Plain C++ interface.

#include <memory>
#include <span>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

class DeviceCg {
 public:
  /// @param[in] matrix on the device; must outlive this object
  /// @param[in] diagonal the matrix diagonal in the matrix's ordering (Jacobi, singularity check)
  DeviceCg(DeviceMatrix& matrix, std::span<const double> diagonal);
  ~DeviceCg();
  DeviceCg(const DeviceCg&) = delete;
  DeviceCg& operator=(const DeviceCg&) = delete;

  /// After new values were uploaded to the matrix: new diagonal, row sums recomputed on the device.
  void refresh(std::span<const double> diagonal);

  /// Solve A x = b (vectors in the matrix's ordering); x holds the initial guess on entry.
  /// The host looks at the device's convergence flag every `check_interval` iterations, reading
  /// it asynchronously; kernels queued past convergence do nothing.
  /// @throws SolverError on breakdown (p'Ap <= 0 or not finite), a NaN residual, a singular system
  ///         or a non-positive diagonal under Jacobi
  SolverPerformance solve(std::span<double> x, std::span<const double> b, const SolverSettings& settings);

  /// Residuals of the last solve: [0] the initial one, [k] after iteration k.
  const std::vector<double>& residual_history() const;
  /// Device time of the last solve's iterations (events), milliseconds.
  double last_iterations_ms() const;
  /// Iterations the host queued between convergence checks (>= 1).
  void set_check_interval(int iterations);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
