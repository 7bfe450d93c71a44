#pragma once
// The level-scheduled triangular solves of DIC and symmetric Gauss-Seidel on the reference
// backend: the levels one after another, the rows of a level in parallel, in blocks of the
// column-major formats' inner loop (ell_block.hpp).

#include <span>

#include "solvers/preconditioners/triangular/triangular_factor.hpp"

namespace fvmmini::reference {

/// The rows a factor's levels hold on average (and min_parallel_rows in all) before the threads
/// share each level, a barrier after it. Each level deciding alone by min_parallel_rows left a
/// Cuthill-McKee order of the 100^3 box (3356 rows a level, none of 8192) on one thread; a
/// barrier costs microseconds against a level's tens.
inline constexpr label min_parallel_level = 2048;

/// Whether the threads share the levels of `factor` (its rows and levels against the thresholds).
bool threads_share_levels(const TriangularFactor& factor);

/// z = M^-1 r for M = (D~ + L) D~^-1 (D~ + U): the forward solve y = (D~ + L)^-1 r, then the
/// backward solve z = y - D~^-1 U z in place. r and z must not alias.
void triangular_apply(const TriangularFactor& factor, std::span<const double> r, std::span<double> z);

/// One symmetric Gauss-Seidel sweep on A x = b in place, x += M^-1 (b - A x) for an SGS factor
/// (D~ = diag A): forward x_i = (b_i - L_i x - U_i x) / a_ii, then backward
/// x_i = (t_i - U_i x) / a_ii, where t_i = b_i - L_i x is kept from the forward pass so that the
/// backward pass reads only the upper triangle. From zero the forward pass skips U as well, and
/// the sweep is triangular_apply. Leaves t for sgs_multiply.
/// @throws std::logic_error for a DIC factor
void sgs_sweep(const TriangularFactor& factor, std::span<const double> b, std::span<double> x, std::span<double> t,
               bool from_zero);

/// One forward Gauss-Seidel sweep on A x = b in place for an SGS factor (D~ = diag A):
/// x_i = (b_i - L_i x - U_i x) / a_ii, L_i x of this sweep, U_i x of the last.
/// @throws std::logic_error for a DIC factor
void gs_sweep(const TriangularFactor& factor, std::span<const double> b, std::span<double> x);

/// ax = A x = t + L x right after sgs_sweep (a_ii x_i = t_i - U_i x): the residual costs the lower
/// triangle only. ax may alias t.
void sgs_multiply(const TriangularFactor& factor, std::span<const double> t, std::span<const double> x,
                  std::span<double> ax);

}  // namespace fvmmini::reference
