#pragma once
// y = A x for Staircase SELL on the CPU: one OpenMP region over the slices of all groups, each
// row's sum in a register, the entry loop unrolled for the common short row lengths.

#include <span>

#include "linalg/formats/staircase_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten)
void staircase_spmv(const StaircaseMatrix& a, std::span<const double> x, std::span<double> y);

/// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp), the matrix read once.
void staircase_spmv_block(const StaircaseMatrix& a, int k, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
