#include "kernels/reference/dia_spmv.hpp"

#include <algorithm>
#include <cstdint>

#include "linalg/block_vectors.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {
constexpr label dia_block_rows = 256;  ///< rows whose sums stay in a local array while the diagonals pass
}  // namespace

namespace {

template <int K>
void dia_spmv_k(const DiaMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  const int n_diag = a.n_diagonals();
  const label n_blocks = (n + dia_block_rows - 1) / dia_block_rows;
  // --- per block of rows, one contiguous stream per diagonal: y_i = sum_k val[k n + i] x[i + d_k],
  //     over the rows i whose column i + d_k lies inside the matrix (the range, not a test per entry)
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (label b = 0; b < n_blocks; ++b) {
    const label first = b * dia_block_rows;
    const label rows = std::min(dia_block_rows, n - first);
    double acc[dia_block_rows * K];
    for (label t = 0; t < rows * K; ++t) acc[t] = 0.0;
    for (int k = 0; k < n_diag; ++k) {
      const std::int64_t d = a.offsets[k];
      const auto lo = std::max<std::int64_t>(first, -d);
      const auto hi = std::min<std::int64_t>(first + rows, n - d);
      const double* v = a.values.data() + static_cast<std::int64_t>(k) * n;
      for (auto i = lo; i < hi; ++i)
        for (int j = 0; j < K; ++j) acc[(i - first) * K + j] += v[i] * x[(i + d) * K + j];
    }
    for (label t = 0; t < rows * K; ++t) y[static_cast<std::int64_t>(first) * K + t] = acc[t];
  }
}

}  // namespace

void dia_spmv(const DiaMatrix& a, std::span<const double> x, std::span<double> y) { dia_spmv_k<1>(a, x, y); }

void dia_spmv_block(const DiaMatrix& a, int k, std::span<const double> x, std::span<double> y) {
  dispatch_block(k, [&]<int K>() { dia_spmv_k<K>(a, x, y); });
}

}  // namespace fvmmini::reference
