#pragma once
// y = A x for CSR on the CPU (OpenMP over rows).

#include <span>

#include "linalg/csr_matrix.hpp"

namespace fvmmini::reference {

void csr_spmv(const CsrMatrix& a, std::span<const double> x, std::span<double> y);

/// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp), the matrix read once.
void csr_spmv_block(const CsrMatrix& a, int k, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
