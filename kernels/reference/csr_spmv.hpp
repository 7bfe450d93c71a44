#pragma once
// y = A x for CSR on the CPU (OpenMP over rows).

#include <span>

#include "linalg/csr_matrix.hpp"

namespace fvmmini::reference {

void csr_spmv(const CsrMatrix& a, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
