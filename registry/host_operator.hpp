#pragma once
// A matrix stored in some format on the reference (CPU) backend, in its own row
// ordering. The reference CG sees only this.

#include <cstdint>
#include <span>
#include <string>

#include "comm/communicator.hpp"
#include "kernels/reference/symmetric_spmv.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

class HostOperator {
 public:
  virtual ~HostOperator() = default;

  virtual label n_rows() const = 0;
  /// y = A x, both in the operator's ordering. @param[out] y overwritten
  virtual void multiply(std::span<const double> x, std::span<double> y) const = 0;
  /// y = A x and x . y (CG's p'Ap). Formats whose kernel can sum x . y in the same pass override
  /// this to save CG one read of both vectors; the default multiplies, then reads them again.
  /// @param[out] y overwritten. @return x . y, deterministic for a given thread count
  virtual double multiply_dot(std::span<const double> x, std::span<double> y) const;
  /// Whether multiply_block reads the matrix once for several vectors (else there is none).
  virtual bool has_multiply_block() const { return false; }
  /// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp), the matrix read once.
  /// @throws std::logic_error unless has_multiply_block()
  virtual void multiply_block(int k, std::span<const double> x, std::span<double> y) const;
  /// Whether cg_sweep is available; the reference CG then makes one pass per iteration.
  virtual bool has_cg_sweep() const { return false; }
  /// One fused CG pass, as reference::symmetric_cg_sweep: r -= alpha q; x += alpha p;
  /// p = M^-1 r + beta p; q = A p; with the sums of the new vectors. M = diag(A) if jacobi, else I.
  /// @throws std::logic_error unless has_cg_sweep()
  virtual reference::CgSweepSums cg_sweep(double alpha, double beta, std::span<double> x, std::span<double> r,
                                          std::span<double> p, std::span<double> q, bool jacobi) const;
  /// The diagonal in the operator's ordering (for Jacobi).
  virtual std::span<const double> diagonal() const = 0;
  /// New coefficients on the same addressing (LDU in mesh order), refreshed through the slot maps.
  virtual void refresh_values(const LduMatrix& matrix) = 0;
  /// The format's name as in case files ("csr", "staircase", ...).
  virtual std::string format_name() const = 0;
  /// The ranks the rows are spread over: the CG sums its dot products and norms over them
  /// (one rank alone unless the operator is a DistributedOperator).
  virtual const Communicator& communicator() const { return Communicator::serial(); }
  /// This rank's own block, without the couplings to other ranks: what a preconditioner acts on
  /// (block Jacobi over the ranks, as OpenFOAM's preconditioners on processor patches). Itself
  /// when not distributed.
  virtual const HostOperator& local_block() const { return *this; }
};

}  // namespace fvmmini
