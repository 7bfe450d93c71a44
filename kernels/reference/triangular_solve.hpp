#pragma once
// The level-scheduled triangular solves of DIC and symmetric Gauss-Seidel on the reference
// backend: the levels one after another, the rows of a level in parallel.

#include <span>

#include "linalg/preconditioners/triangular_factor.hpp"

namespace fvmmini::reference {

/// z = M^-1 r for M = (D~ + L) D~^-1 (D~ + U): the forward solve y = (D~ + L)^-1 r, then the
/// backward solve z = y - D~^-1 U z in place. r and z must not alias.
void triangular_apply(const TriangularFactor& factor, std::span<const double> r, std::span<double> z);

}  // namespace fvmmini::reference
