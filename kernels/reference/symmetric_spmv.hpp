#pragma once
// SpMV on symmetric storage (diagonal + strict upper triangle), alone and fused with the
// vector updates of a CG iteration.

#include <span>

#include "linalg/formats/symmetric_matrix.hpp"

namespace fvmmini::reference {

/// y = A x with A = D + U + U^T stored as SymmetricMatrix.
/// @param[out] y overwritten
/// @return x . y (CG's p'Ap, summed in the same pass; deterministic for a given thread count)
double symmetric_spmv(const SymmetricMatrix& a, std::span<const double> x, std::span<double> y);

/// What one fused CG sweep sums (M = diag(A) for Jacobi, else the identity).
struct CgSweepSums {
  double r_norm1 = 0.0;  ///< sum |r| of the updated r
  double rz = 0.0;       ///< r . M^-1 r
  double pq = 0.0;       ///< p . q (p'Ap of the new direction)
  double rq = 0.0;       ///< r . M^-1 q
  double qq = 0.0;       ///< q . M^-1 q
};

/// One pass over the matrix and the CG vectors, in place:
///   r -= alpha q; x += alpha p; p = M^-1 r + beta p   (with the q and p given), then
///   q = A p                                            (with the new p),
/// and the sums of the updated vectors. Each row's update runs max_offset rows ahead of its
/// product, so p is new wherever the product reads it, and both stay in cache in between.
/// Jacobi divides by the stored diagonal (in cache for the product) rather than reading a
/// vector of inverses: one stream less.
/// @param[in] jacobi M = diag(A); otherwise M = I
CgSweepSums symmetric_cg_sweep(const SymmetricMatrix& a, double alpha, double beta, std::span<double> x,
                               std::span<double> r, std::span<double> p, std::span<double> q, bool jacobi);

}  // namespace fvmmini::reference
