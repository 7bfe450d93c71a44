#include "kernels/reference/ell_spmv.hpp"

#include <cstdint>

namespace fvmmini::reference {

void ell_spmv(const EllMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  const label width = a.width;
  const label* col = a.col.data();
  const double* val = a.values.data();
  // --- y_i = sum_k val[k n + i] x[col[k n + i]]; a row's padding is its tail, so stop at the first -1
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) {
    double sum = 0.0;
    for (label k = 0; k < width; ++k) {
      const std::int64_t slot = static_cast<std::int64_t>(k) * n + i;
      const label c = col[slot];
      if (c < 0) break;
      sum += val[slot] * x[c];
    }
    y[i] = sum;
  }
}

}  // namespace fvmmini::reference
