#pragma once
// DIC, DILU, multicolour SGS and smoothSolver's Gauss-Seidel splitting on the device (plain C++
// interface), set up there: the factor's pattern (factor_pattern.cuh), mcsgs's greedy colouring,
// the level analysis and the triangles (level_analysis.cuh) are built on the device and give the
// same factor as build_triangular_factor. Solved level by level (LevelLaunch) or, for triangles
// split by index, by cuSPARSE's cusparseSpSV on the same factor stored as CSR (the baseline). On
// an asymmetric matrix each slot takes its own coefficient of its face, as the host's factor does:
// a byte per slot says which, and DILU's pivots read a_ij a_ji from a product kept per lower slot
// (a symmetric matrix needs neither).

#include <cstdint>
#include <memory>
#include <span>

#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DeviceSpmv;

/// How the level-scheduled sweeps run on the device.
enum class LevelLaunch {
  automatic,  ///< automatic_level_launch
  per_level,  ///< a launch per level: no waits, a kernel boundary between levels
  sync_free,  ///< a launch per triangle, each row waiting for the rows it needs (sync_free.cuh)
};
/// What automatic chooses: per_level when the levels average at least 2^16 rows. Below that the
/// boundaries of a launch per level cost more than the waits and unset passes of a sync-free
/// sweep (H200, 200^3 box and polyhedral-like matrix: levels of 4 M and 0.9 M rows faster per
/// level, levels of 13 k and 6.7 k rows faster sync-free).
LevelLaunch automatic_level_launch(long long rows, int levels);

class DeviceTriangularPreconditioner final : public DevicePreconditioner {
 public:
  /// Set up `method` (incomplete_cholesky, incomplete_lu, multicolour_gauss_seidel, gauss_seidel)
  /// for `matrix` in the operator's numbering `op`: the analysis and the factor on the device; for
  /// TriangularSolve::cusparse also both cusparseSpSV analyses.
  /// @param[in] spmv the operator, for mcsgs sweeps after the first (may be null when sweeps ==
  ///            1); must outlive this object
  /// @throws std::invalid_argument for cusparse on triangles split by colour, or sweeps < 1
  /// @throws SolverError naming the row and mesh cell when a pivot is not positive
  /// @param[in] launch automatic but where a caller compares the two (tests, the benchmark)
  /// @param[in] sequence the solve's ordering before a format's grouping (schedule_order)
  DeviceTriangularPreconditioner(const LduMatrix& matrix, const Permutation& op, const TriangularMethod& method,
                                 TriangularSolve solve, int sweeps, DeviceSpmv* spmv,
                                 LevelLaunch launch = LevelLaunch::automatic, std::span<const label> sequence = {});
  ~DeviceTriangularPreconditioner() override;
  DeviceTriangularPreconditioner(const DeviceTriangularPreconditioner&) = delete;
  DeviceTriangularPreconditioner& operator=(const DeviceTriangularPreconditioner&) = delete;

  void apply(const double* r, double* z, const int* status, CUstream_st* stream) override;
  /// z = (D~ + L)^-1 r, the forward solve alone, once whatever `sweeps` (smoothSolver's
  /// GaussSeidel: x += (D + L)^-1 (b - A x) is its forward sweep); status as apply's.
  void apply_lower(const double* r, double* z, const int* status, CUstream_st* stream);

  /// New values on the same addressing (the matrix's faces and diagonal uploaded): triangles and
  /// pivots recomputed on the device, the analysis kept (cusparseSpSV_updateMatrix for cusparse).
  /// @throws SolverError as the constructor; std::invalid_argument for an asymmetric matrix where
  ///         the set-up's was symmetric (its slots do not know their sides)
  void refresh(const LduMatrix& matrix) override;

  /// New values on the device (the faces' upper and lower coefficients, the diagonal in operator
  /// numbering): the triangles gathered and the pivots recomputed on `stream`, no host copy or wait.
  /// @throws std::invalid_argument for lower coefficients of their own (lower != upper) where the
  ///         set-up's matrix was symmetric
  void refresh_on_device(const DeviceCoefficients& coefficients, CUstream_st* stream) override;

  /// A new diagonal of the operator (device vector, operator numbering) after the off-diagonal
  /// values stayed: the pivots recomputed on `stream`, level by level (DIC) or 1/a_ii (SGS). A
  /// pivot that is not positive shows as the CG's breakdown, not here (nothing waits for it).
  void refactor(const double* diagonal, CUstream_st* stream) override;

  /// Seconds of the analysis alone, its input and workspace already on the device: the level
  /// analysis (levels: find_levels), or both cusparseSpSV analyses (cusparse).
  double analysis_seconds() const;
  /// Seconds to lay out both triangles by the levels after the analysis (lay_out_triangles,
  /// allocations included); zero for cusparse, which solves on its CSR as it stands.
  double layout_seconds() const;
  /// How the sweeps (and DIC's pivots) run: per_level or sync_free, never automatic.
  LevelLaunch level_launch() const;
  /// The method it was set up for.
  const TriangularMethod& method() const;
  /// Set-up and refresh times, levels, colours and the modelled cost of one application; the
  /// name shows the triangles' solver where it is not fvmmini's own ("DIC/cusparse").
  PreconditionerInfo info(std::int64_t nnz) const override;
  /// The factor as the device holds it, downloaded (tests compare it with the host's).
  TriangularFactor download() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
