#include "kernels/reference/sell_spmv.hpp"

#include <algorithm>
#include <cstdint>

namespace fvmmini::reference {

void sell_spmv(const SellMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  const label c_size = a.chunk_size;
  const label* col = a.col.data();
  const double* val = a.values.data();
  const label* row_order = a.row_order.data();
  const std::int64_t* chunk_ptr = a.chunk_ptr.data();
  // --- per chunk c and lane r: y[row_order[cC + r]] = sum_k val[chunk_ptr[c] + kC + r] x[col[...]]
#pragma omp parallel for schedule(static)
  for (label c = 0; c < a.n_chunks; ++c) {
    const label width = static_cast<label>((chunk_ptr[c + 1] - chunk_ptr[c]) / c_size);
    const label lanes = std::min(c_size, n - c * c_size);
    for (label r = 0; r < lanes; ++r) {
      double sum = 0.0;
      std::int64_t slot = chunk_ptr[c] + r;
      for (label k = 0; k < width; ++k, slot += c_size) {
        const label j = col[slot];
        if (j < 0) break;  // a lane's padding is its tail
        sum += val[slot] * x[j];
      }
      y[row_order[static_cast<std::int64_t>(c) * c_size + r]] = sum;
    }
  }
}

}  // namespace fvmmini::reference
