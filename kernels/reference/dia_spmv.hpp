#pragma once
// y = A x for DIA on the CPU (OpenMP over blocks of rows).

#include <span>

#include "linalg/formats/dia_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten, rows without entries get 0)
void dia_spmv(const DiaMatrix& a, std::span<const double> x, std::span<double> y);

/// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp), the matrix read once.
void dia_spmv_block(const DiaMatrix& a, int k, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
