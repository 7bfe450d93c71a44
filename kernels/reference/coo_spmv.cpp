#include "kernels/reference/coo_spmv.hpp"

#include <cstdint>

#include <omp.h>

namespace fvmmini::reference {

void coo_spmv(const CooMatrix& a, std::span<const double> x, std::span<double> y) {
  const std::int64_t nnz = a.nnz();
  const label* row = a.row.data();
  const label* col = a.col.data();
  const double* val = a.values.data();
#pragma omp parallel
  {
    // --- rows without entries (possible in a hand-made matrix) stay 0
#pragma omp for schedule(static)
    for (label i = 0; i < a.n_rows; ++i) y[i] = 0.0;

    // --- an equal share of entries per thread, both ends moved forward to a row start so no
    //     two threads write the same y entry (entries are in row order)
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    auto row_start_at = [&](std::int64_t k) {
      while (k > 0 && k < nnz && row[k] == row[k - 1]) ++k;
      return k;
    };
    const std::int64_t begin = row_start_at(nnz * t / nt);
    const std::int64_t end = row_start_at(nnz * (t + 1) / nt);
    // --- y[row] += a * x[col], accumulated per row before the store
    std::int64_t k = begin;
    while (k < end) {
      const label i = row[k];
      double sum = 0.0;
      for (; k < end && row[k] == i; ++k) sum += val[k] * x[col[k]];
      y[i] = sum;
    }
  }
}

}  // namespace fvmmini::reference
