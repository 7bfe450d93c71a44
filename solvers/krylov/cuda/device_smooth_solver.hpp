#pragma once
// OpenFOAM's smoothSolver on the device (plain C++ interface): nSweeps GaussSeidel or symGaussSeidel
// sweeps on A x = b in the solve's ordering between residual checks, with the reference unit's
// iteration count (sweeps), residual normalisation, stopping rules and errors
// (solvers/krylov/units/smoothsolver.cpp, cg_rules.hpp). Each sweep is x += M^-1 (b - A x) with
// M = D + L (GaussSeidel) or (D + L) D^-1 (D + U) (symGaussSeidel), the splitting's triangles
// solved by a DeviceTriangularPreconditioner of the gauss_seidel method: mathematically the
// reference backend's in-place sweeps, equal to rounding, at an SpMV a sweep (the in-place sweep
// needs none) because the level kernels solve a triangle, not relax in place. One rank, and the
// float64 matrix alone (precision mixed is refused).

#include <memory>
#include <span>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/l2_window.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DevicePreconditioner;

class DeviceSmoothSolver final : public DeviceKrylov {
 public:
  /// @param[in] matrix on the device; must outlive this object
  /// @param[in] diagonal the matrix diagonal in the matrix's ordering (the singularity check)
  /// @throws std::invalid_argument for a matrix with a float32 twin (precision mixed)
  DeviceSmoothSolver(DeviceMatrix& matrix, std::span<const double> diagonal);
  ~DeviceSmoothSolver() override;
  DeviceSmoothSolver(const DeviceSmoothSolver&) = delete;
  DeviceSmoothSolver& operator=(const DeviceSmoothSolver&) = delete;

  /// After new values were uploaded to the matrix: the row sums recomputed, the singularity checked.
  void refresh(std::span<const double> diagonal) override;
  /// After the caller changed the matrix's values on stream(): the row sums recomputed there (the
  /// caller vouches for a nonsingular matrix). The sweeps' triangles refresh apart (their own
  /// refresh_on_device or refactor).
  void refresh_on_device() override;

  /// Solve A x = b (vectors in the matrix's ordering); x holds the initial guess on entry. The
  /// iterations run as one loop on the device, a pass (nSweeps sweeps and the residual) a body,
  /// where the driver has conditional graph nodes; else the host queues passes in batches of
  /// `check_interval` and reads the state after each (a pass queued past the stop changes nothing).
  /// @throws std::invalid_argument for settings smoothSolver cannot take (check_smooth_solver_settings)
  /// @throws SolverError for a singular system or a residual that is not finite
  SolverPerformance solve(std::span<double> x, std::span<const double> b, const SolverSettings& settings) override;
  /// The same solve on the device's own vectors (x_device(), b_device()); whoever writes them
  /// orders that work before stream().
  SolverPerformance solve_resident(const SolverSettings& settings) override;
  double* x_device() override;
  double* b_device() override;
  /// 1 / diagonal in the matrix's ordering (DeviceSolver::set_diagonal writes it; the sweeps read
  /// the splitting's own pivots).
  double* inverse_diagonal_device() override;
  CUstream_st* stream() const override;

  /// The sweeps: a DeviceTriangularPreconditioner of the gauss_seidel method set up in the solve's
  /// ordering with one sweep an application (make_smoother of the unit); must outlive the solves.
  /// @throws std::invalid_argument for any other preconditioner, or none
  void set_preconditioner(DevicePreconditioner* sweeps) override;
  /// Whether each solve keeps a persisting-L2 window over x, which every SpMV gathers.
  void set_l2_window(bool on) override;

  /// Whether solves run their passes as one loop on the device where it can (on until set): off,
  /// the host queues them in batches, as where the device cannot loop.
  void set_device_loop(bool on);
  /// Whether the last solve's passes ran as one loop on the device (else in batches).
  bool last_solve_looped() const;
  /// Passes the host queues between checks of the state where the device does not loop (>= 1).
  void set_check_interval(int passes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
