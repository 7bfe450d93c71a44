#include "kernels/reference/csr_spmv.hpp"

#include <cstdint>

#include "linalg/block_vectors.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {

template <int K>
void csr_spmv_k(const CsrMatrix& a, std::span<const double> x, std::span<double> y) {
  const auto* row_ptr = a.row_ptr.data();
  const auto* col = a.col.data();
  const auto* val = a.values.data();
#pragma omp parallel for schedule(static) if (a.n_rows >= min_parallel_rows)
  for (label i = 0; i < a.n_rows; ++i) {
    double sum[K] = {};
    for (auto k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      for (int j = 0; j < K; ++j) sum[j] += val[k] * x[static_cast<std::int64_t>(col[k]) * K + j];
    for (int j = 0; j < K; ++j) y[static_cast<std::int64_t>(i) * K + j] = sum[j];
  }
}

}  // namespace

void csr_spmv(const CsrMatrix& a, std::span<const double> x, std::span<double> y) { csr_spmv_k<1>(a, x, y); }

void csr_spmv_block(const CsrMatrix& a, int k, std::span<const double> x, std::span<double> y) {
  dispatch_block(k, [&]<int K>() { csr_spmv_k<K>(a, x, y); });
}

}  // namespace fvmmini::reference
