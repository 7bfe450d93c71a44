#include "kernels/reference/csr_spmv.hpp"

#include "linalg/parallel.hpp"

namespace fvmmini::reference {

void csr_spmv(const CsrMatrix& a, std::span<const double> x, std::span<double> y) {
  const auto* row_ptr = a.row_ptr.data();
  const auto* col = a.col.data();
  const auto* val = a.values.data();
#pragma omp parallel for schedule(static) if (a.n_rows >= min_parallel_rows)
  for (label i = 0; i < a.n_rows; ++i) {
    double sum = 0.0;
    for (auto k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = sum;
  }
}

}  // namespace fvmmini::reference
