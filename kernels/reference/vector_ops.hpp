#pragma once
// Vector operations of the reference backend, fused where CG makes consecutive
// passes over the same vectors. Reductions add fixed per-thread blocks in thread
// order: the same input and thread count give bit-identical results.

#include <span>

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

/// x += alpha p; r -= alpha q. @return sum |r| (the new residual's L1 norm)
double cg_update(double alpha, std::span<const double> p, std::span<const double> q, std::span<double> x,
                 std::span<double> r);

/// z = r .* inv_diag. @return r . z
double jacobi_apply_dot(std::span<const double> r, std::span<const double> inv_diag, std::span<double> z);

/// p = z + beta p
void xpby(std::span<const double> z, double beta, std::span<double> p);

/// @return the mean of a
double mean(std::span<const double> a);

}  // namespace fvmmini::reference
