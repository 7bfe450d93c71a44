#pragma once
// The vector steps of a multigrid V-cycle on the reference backend: residual, restriction,
// prolongation, a damped Jacobi sweep and the coarsest level's dense solve. Each takes A x
// computed before and folds the residual into its own pass, as the cuda kernels do, so no
// residual vector is written and read back. Each takes k vectors at once, interleaved by row
// (linalg/block_vectors.hpp; k = 1: one vector): vector j's values are those of the one-vector
// step on vector j, bit for bit.

#include <span>

#include "solvers/preconditioners/gamg/agglomeration.hpp"

namespace fvmmini::reference {

/// r = b - ax, where ax = A x was computed before (r may alias ax).
void residual(std::span<const double> b, std::span<const double> ax, std::span<double> r);

/// coarse_c = sum of (b_i - ax_i) over the rows of group c: R (b - A x).
void restrict_residual(const Transfer& t, std::span<const double> b, std::span<const double> ax,
                       std::span<double> coarse, int k = 1);

/// fine_i += scale * coarse_{coarse_of[i]} (x += scale P coarse).
void prolong_add(const Transfer& t, double scale, std::span<const double> coarse, std::span<double> fine, int k = 1);

/// x = weight * b / diag: a Jacobi sweep from zero.
void jacobi_start(double weight, std::span<const double> inv_diag, std::span<const double> b, std::span<double> x,
                  int k = 1);

/// x += weight * (b - ax) / diag: a Jacobi sweep.
void jacobi_correct(double weight, std::span<const double> inv_diag, std::span<const double> b,
                    std::span<const double> ax, std::span<double> x, int k = 1);

/// x = inverse b for a dense row-major inverse of x.size() / k rows and b.size() / k columns.
void dense_multiply(std::span<const double> inverse, std::span<const double> b, std::span<double> x, int k = 1);

}  // namespace fvmmini::reference
