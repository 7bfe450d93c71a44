#pragma once
// DIC and multicolour SGS on the device (plain C++ interface): the host's TriangularFactor
// (linalg/preconditioners/triangular_factor.hpp) uploaded once and solved level by level, one
// kernel per level with a thread per row, or, for DIC, by cuSPARSE's cusparseSpSV on the same
// factor stored as CSR (the baseline).

#include <memory>

#include "linalg/preconditioners/triangular_factor.hpp"
#include "linalg/solver_settings.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DeviceSpmv;

/// z = M^-1 r on the device, as the device CG applies it.
class DevicePreconditioner {
 public:
  virtual ~DevicePreconditioner() = default;
  /// z = M^-1 r on `stream` (r and z device vectors that do not alias). When `status` is not
  /// null, the level kernels return at once unless *status == 0 (the CG has stopped: its graphs
  /// replay iterations past convergence); cusparseSpSV runs regardless, on data nobody reads.
  virtual void apply(const double* r, double* z, const int* status, CUstream_st* stream) = 0;
};

class DeviceTriangularPreconditioner final : public DevicePreconditioner {
 public:
  /// Upload the factor; for TriangularSolve::cusparse also the CSR of D~ + L + U and both
  /// cusparseSpSV analyses. @param[in] spmv the operator, for mcsgs sweeps after the first (may
  /// be null when sweeps == 1); must outlive this object
  /// @throws std::invalid_argument for cusparse on a factor that is not split by index (mcsgs)
  DeviceTriangularPreconditioner(const TriangularFactor& factor, TriangularSolve solve, int sweeps, DeviceSpmv* spmv);
  ~DeviceTriangularPreconditioner() override;
  DeviceTriangularPreconditioner(const DeviceTriangularPreconditioner&) = delete;
  DeviceTriangularPreconditioner& operator=(const DeviceTriangularPreconditioner&) = delete;

  void apply(const double* r, double* z, const int* status, CUstream_st* stream) override;

  /// New values and pivots refreshed on the host (refresh_triangular_factor): uploaded, the
  /// analysis kept (cusparseSpSV_updateMatrix for cusparse).
  void upload(const TriangularFactor& factor);

  /// A new diagonal of the operator (device vector, operator numbering) after the off-diagonal
  /// values stayed: the pivots recomputed on `stream`, level by level (DIC) or 1/a_ii (SGS).
  void refactor(const double* diagonal, CUstream_st* stream);

  /// The solve alone, for the triangular-solve benchmark: the forward and the backward sweep.
  void forward(const double* r, double* y, CUstream_st* stream);
  void backward(double* z, CUstream_st* stream);
  /// Seconds the set-up took: the upload (levels), or the CSR upload and both cusparseSpSV
  /// analyses (cusparse). The host's level analysis is TriangularFactor's, timed by its caller.
  double analysis_seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
