#pragma once
// The coarsest level of a multigrid is solved directly: its few rows' matrix inverted once per
// set-up or refresh, so that each solve is one dense product on either backend.

#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/solver_settings.hpp"  // max_direct_rows

namespace fvmmini {

/// A^-1 of a symmetric positive definite LDU matrix, dense and row-major, by Cholesky.
/// @throws SolverError when a pivot is not positive (the matrix is not SPD) or the matrix has
///         more than max_direct_rows rows
std::vector<double> dense_spd_inverse(const LduMatrix& matrix);

}  // namespace fvmmini
