#pragma once
// y = A x for ELLPACK on the CPU (OpenMP over rows).

#include <span>

#include "linalg/formats/ell_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten)
void ell_spmv(const EllMatrix& a, std::span<const double> x, std::span<double> y);

/// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp), the matrix read once.
void ell_spmv_block(const EllMatrix& a, int k, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
