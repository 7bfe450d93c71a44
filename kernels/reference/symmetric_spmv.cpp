#include "kernels/reference/symmetric_spmv.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/reference/parallel.hpp"

namespace fvmmini::reference {

double symmetric_spmv(const SymmetricMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  if (n == 0) return 0.0;
  const label* row_ptr = a.row_ptr.data();
  const label* col = a.col.data();
  const double* val = a.values.data();
  const double* diag = a.diagonal();
  const std::int64_t reach = a.max_offset;

  // Row i's transposed entries a_ij x_i land on rows j in (i, i + reach]. Each thread keeps
  // them in a ring of R > reach slots (slot j mod R) instead of in y: the ring stays in cache,
  // y is written once per row, and no two threads write the same y. What a thread's rows send
  // past its own last row is added by the receiving thread after a barrier.
  std::int64_t ring_size = 1;
  while (ring_size <= reach) ring_size *= 2;
  const std::int64_t mask = ring_size - 1;
  const int max_threads = n >= min_parallel_rows ? omp_get_max_threads() : 1;
  std::vector<double> rings(static_cast<std::size_t>(max_threads) * ring_size);
  std::vector<double> partial(max_threads, 0.0);
  int n_threads = 1;
#pragma omp parallel num_threads(max_threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
#pragma omp single
    n_threads = nt;
    auto block_end = [&](int u) { return static_cast<label>(static_cast<std::int64_t>(n) * (u + 1) / nt); };
    const label begin = t == 0 ? 0 : block_end(t - 1);
    const label end = block_end(t);
    double* ring = rings.data() + t * ring_size;
    double dot = 0.0;
    // --- y_i = (sum_{k<i} a_ki x_k, from the ring) + a_ii x_i + sum_{j>i} a_ij x_j; ring_j += a_ij x_i
    for (label i = begin; i < end; ++i) {
      const double xi = x[i];
      double& pending = ring[i & mask];
      double sum = pending + diag[i] * xi;
      pending = 0.0;
      for (label k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const label j = col[k];
        const double v = val[k];
        sum += v * x[j];
        ring[j & mask] += v * xi;
      }
      y[i] = sum;
      dot += xi * sum;
    }
#pragma omp barrier
    // --- y_j += what earlier threads' rows sent to row j of this block (in thread order: deterministic)
    for (int u = 0; u < t; ++u) {
      const label u_end = block_end(u);
      const label from = std::max(begin, u_end);
      const label to = static_cast<label>(std::min<std::int64_t>(end, u_end + reach + 1));
      const double* ring_u = rings.data() + u * ring_size;
      for (label j = from; j < to; ++j) {
        const double c = ring_u[j & mask];
        y[j] += c;
        dot += x[j] * c;
      }
    }
    partial[t] = dot;
  }
  double total = 0.0;
  for (int t = 0; t < n_threads; ++t) total += partial[t];
  return total;
}

}  // namespace fvmmini::reference
