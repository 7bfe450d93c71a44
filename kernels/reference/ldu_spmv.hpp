#pragma once
// y = A x for the LDU matrix by a loop over faces: the independent reference
// every storage format is tested against.

#include <span>

#include "linalg/ldu_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten)
void ldu_spmv(const LduMatrix& a, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
