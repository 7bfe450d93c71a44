#pragma once
// SpMV on symmetric storage (diagonal + strict upper triangle).

#include <span>

#include "linalg/formats/symmetric_matrix.hpp"

namespace fvmmini::reference {

/// y = A x with A = D + U + U^T stored as SymmetricMatrix.
/// @param[out] y overwritten
/// @return x . y (CG's p'Ap, summed in the same pass; deterministic for a given thread count)
double symmetric_spmv(const SymmetricMatrix& a, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
