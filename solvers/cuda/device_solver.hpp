#pragma once
// One linear system resident on the device: the operator in the chosen format and ordering, and
// its CG. It solves host vectors (the cuda LinearSolver) or device vectors in the mesh's
// numbering (the device projection step), applying the ordering's permutation on the device.
// Plain C++ interface.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/format_registry.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

/// Upload a format prepared on the host (ordering, permuted CSR, format struct) to the device, with
/// its float32 twin in mixed precision. After refresh_format_values(matrix, prepared),
/// upload_values(prepared.format.values()) refreshes it.
/// @throws std::invalid_argument for a format with no CUDA kernel, or no mixed one when mixed
DeviceMatrix make_device_matrix(const PreparedFormat& prepared, Precision precision = Precision::full);

/// The timer of format keys set to auto (prepare_format): the SpMV the device CG runs (the dot
/// product fused where the format fuses it; the float32 twin in mixed precision; in a persisting-L2
/// window when the solve keeps one), uploaded per setting, median of 30 runs after 10.
SpmvTimer spmv_timer(Precision precision, bool l2_window);

/// Whether a cuda solve of n_rows rows with these settings keeps a persisting-L2 window over the
/// vector its SpMV gathers (l2Window on, or auto where it was measured to gain).
bool keeps_l2_window(const SolverSettings& settings, label n_rows);

class DeviceSolver {
 public:
  /// Order and build the format on the host (prepare_format, keys set to auto timed by
  /// spmv_timer) and upload it once. `same_pattern`: a solver whose host format this one shares
  /// where it fits (fits_model: the flow step's velocity solver for its pressure solver, one
  /// mesh's pattern), uploading its own values, and whose GAMG's agglomeration this one's takes
  /// where that fits (DeviceGamg); a later update_coefficients of either leaves the other's values
  /// alone.
  /// @throws std::invalid_argument for an unknown format, ordering or preconditioner, or a format
  ///         with no CUDA kernel; CudaError when no CUDA device is available
  DeviceSolver(const LduMatrix& matrix, const SolverSettings& settings, const DeviceSolver* same_pattern = nullptr);
  /// A rank's piece of a matrix decomposed over comm's ranks (every rank constructs, and then
  /// solves, together): the rank takes its host's GPU by node rank, its block is built and
  /// uploaded as above, and its CG is coupled to the other ranks through the processor interfaces
  /// by settings.transport (resolve_transport); the preconditioner acts on the rank's block.
  /// Solves take the rank's rows. comm must outlive the solver.
  /// @throws as above; SolverError for a transport this build or these ranks cannot use
  DeviceSolver(const DistributedLdu& system, const SolverSettings& settings, const Communicator& comm,
               const DeviceSolver* same_pattern = nullptr);
  ~DeviceSolver();
  DeviceSolver(DeviceSolver&&) noexcept;
  DeviceSolver(const DeviceSolver&) = delete;
  DeviceSolver& operator=(const DeviceSolver&) = delete;

  label n_rows() const;

  /// Solve A x = b for host vectors in the mesh's numbering; x holds the initial guess on entry.
  /// @param[in] field the field name the performance record carries (the log line's)
  SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field);

  /// Solve A x = b for device vectors in the mesh's numbering (x: the guess in, the solution out).
  /// The solve waits for the work queued so far on `caller`; work queued on `caller` after the
  /// return sees the solution.
  SolverPerformance solve(double* x, const double* b, const std::string& field, CUstream_st* caller);
  /// The same, stopping by `rules`' tolerance, relTol and maxIter (pFinal on p's solver: @pre
  /// same_but_stopping_rules of the solver's settings and `rules`).
  SolverPerformance solve(double* x, const double* b, const std::string& field, CUstream_st* caller,
                          const SolverSettings& rules);

  /// Several systems of this matrix at once (the velocity components): x[j], b[j] in the mesh's
  /// numbering, fields[j] each record's field. With preconditioner none or diagonal and a format
  /// with a multi-vector SpMV of that many vectors, one block CG (solvers/krylov/cuda/device_block_cg.hpp:
  /// each system's iterations and residuals as its own solve's, to rounding; across ranks too, the
  /// k vectors' halo one exchange); otherwise one solve after another.
  std::vector<SolverPerformance> solve_block(std::span<const std::span<double>> x,
                                             std::span<const std::span<const double>> b,
                                             std::span<const std::string> fields);
  /// Whether solve_block takes the block CG for k systems.
  bool solves_together(int k) const;
  /// The same for device vectors, ordered against `caller` as solve() on device vectors is.
  std::vector<SolverPerformance> solve_block(std::span<double* const> x, std::span<const double* const> b,
                                             std::span<const std::string> fields, CUstream_st* caller);

  /// New coefficients on the same addressing, from the host: only values are uploaded.
  void update_coefficients(const LduMatrix& matrix);
  /// The same for a rank's piece: the block's values and the interfaces' coefficients.
  /// @throws SolverError for a solver made without ranks
  void update_distributed(const DistributedLdu& system);
  /// What an iteration across ranks is made of (IterationParts), timed on the device.
  /// @throws std::logic_error for a solver made without ranks
  IterationParts time_iteration_parts(int repeats);
  /// LinearSolver::time_solves on device vectors: b uploaded once, each solve from a zero guess on
  /// the device (solve(double*, ...)), its end waited for before the clock stops.
  SolveTiming time_solves(std::span<const double> b, int solves, const Communicator& comm);

  /// New coefficients on the same addressing, from device arrays in the mesh's numbering (diag a
  /// row, upper and lower a face; lower null where the matrix is symmetric), set on the device
  /// once the work queued on `caller` is done: the format's values, the method's diagonal and the
  /// preconditioner's, with no host copy (but a GAMG hierarchy built on the host, refreshed from a
  /// download). The caller vouches for a nonsingular matrix: a breakdown shows in the next solve.
  /// @throws std::invalid_argument for asymmetric coefficients where the solver was set up on a
  ///         symmetric matrix, or in mixed precision
  void set_coefficients(const double* diag, const double* upper, const double* lower, CUstream_st* caller);
  /// The face -> format slot maps set_coefficients writes through, uploaded now (16 bytes a face):
  /// a caller that refreshes on the device calls it in its own set-up, so that the first
  /// set_coefficients, inside a time step, does no set-up work.
  void upload_face_slots();

  /// A new diagonal (device vector, mesh numbering, every entry positive), set on the device
  /// once the work queued on `caller` is done; the off-diagonal entries stay.
  void set_diagonal(const double* diagonal, CUstream_st* caller);

  /// The preconditioner's set-up (host analysis and device upload or cusparseSpSV analysis).
  PreconditionerInfo preconditioner_info() const;

  /// The format, its resolved keys and set-up, and what tuning timed when keys were auto.
  FormatInfo format_info() const;

  /// "backend cuda on NVIDIA H200 (...), staircase (sh 32, alpha 0.01), ordering ..., preconditioner none"
  /// (", precision mixed (16-bit columns on 67 % of entries)" in mixed precision, ", l2Window on"
  /// when each solve keeps a persisting-L2 window, both before the preconditioner).
  std::string describe() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
