#pragma once
// Vector operations of the reference backend, fused where CG makes consecutive
// passes over the same vectors. Reductions add fixed per-thread blocks in thread
// order: the same input and thread count give bit-identical results.

#include <array>
#include <span>

#include "linalg/block_vectors.hpp"

namespace fvmmini::reference {

/// @return a . b
double dot(std::span<const double> a, std::span<const double> b);

/// @return sum_i |a_i|
double sum_abs(std::span<const double> a);

/// r = b - Ax, and the OpenFOAM normalisation factor sum(|Ax - s x_ref| + |b - s x_ref|)
/// where s = A 1 (row sums) and x_ref the mean of x.
/// @param[out] r the residual; @param[out] norm_factor; @return sum |r|
double residual_and_norm_factor(std::span<const double> b, std::span<const double> ax, std::span<const double> row_sums,
                                double x_ref, std::span<double> r, double& norm_factor);

/// z = r .* inv_diag. @return r . z
double jacobi_apply_dot(std::span<const double> r, std::span<const double> inv_diag, std::span<double> z);

/// p = z + beta p
void xpby(std::span<const double> z, double beta, std::span<double> p);

/// x += alpha p
void axpy(double alpha, std::span<const double> p, std::span<double> x);

/// CG's residual step in one pass: r -= alpha q, r_dot_z = r . M^-1 r, where M^-1 = diag(inv_diag)
/// (Jacobi), or the identity when inv_diag is empty.
/// @param[out] r_dot_z the new r . z; @return sum |r| (the new residual's L1 norm)
double residual_update(double alpha, std::span<const double> q, std::span<const double> inv_diag, std::span<double> r,
                       double& r_dot_z);

/// CG's deferred solution step and new direction in one pass: x += alpha p (with the old p),
/// then p = M^-1 r + beta p (M as in residual_update), so z is never stored.
void solution_and_direction_update(double alpha, double beta, std::span<const double> r,
                                   std::span<const double> inv_diag, std::span<double> p, std::span<double> x);

/// @return the mean of a
double mean(std::span<const double> a);

// --- The same for k vectors interleaved by row (linalg/block_vectors.hpp: v[i * k + j]), one value
//     per vector in [0, k). Each vector's sums are added as the one-vector function adds them (the
//     same blocks of rows per thread): vector j's results are those of the one-vector function on
//     vector j, bit for bit. Vectors of k n values; row_sums and inv_diag of n.

/// One value per vector of a block.
using BlockScalars = std::array<double, max_block_vectors>;

BlockScalars block_mean(int k, std::span<const double> a);
BlockScalars block_dot(int k, std::span<const double> a, std::span<const double> b);
/// As residual_and_norm_factor, x_ref[j] for vector j. @return sum |r_j|
BlockScalars block_residual_and_norm_factor(int k, std::span<const double> b, std::span<const double> ax,
                                            std::span<const double> row_sums, const BlockScalars& x_ref,
                                            std::span<double> r, BlockScalars& norm_factor);
BlockScalars block_jacobi_apply_dot(int k, std::span<const double> r, std::span<const double> inv_diag,
                                    std::span<double> z);
/// As residual_update, alpha[j] for vector j. @return sum |r_j|
BlockScalars block_residual_update(int k, const BlockScalars& alpha, std::span<const double> q,
                                   std::span<const double> inv_diag, std::span<double> r, BlockScalars& r_dot_z);
/// As solution_and_direction_update, alpha[j] and beta[j] for vector j.
void block_solution_and_direction_update(int k, const BlockScalars& alpha, const BlockScalars& beta,
                                         std::span<const double> r, std::span<const double> inv_diag,
                                         std::span<double> p, std::span<double> x);

}  // namespace fvmmini::reference
