#include "kernels/reference/sell_spmv.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/reference/ell_block.hpp"
#include "linalg/block_vectors.hpp"

namespace fvmmini::reference {

namespace {

template <int K>
void sell_spmv_k(const SellMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  const label c_size = a.chunk_size;
  const label* row_order = a.row_order.data();
  const std::int64_t* chunk_ptr = a.chunk_ptr.data();
  // --- per chunk c and lane r: y[row_order[cC + r]] = sum_k val[chunk_ptr[c] + kC + r] x[col[...]]
#pragma omp parallel for schedule(static)
  for (label c = 0; c < a.n_chunks; ++c) {
    double acc[ell_block_lanes * K];
    const label width = static_cast<label>((chunk_ptr[c + 1] - chunk_ptr[c]) / c_size);
    const label lanes = std::min(c_size, n - c * c_size);
    for (label r0 = 0; r0 < lanes; r0 += ell_block_lanes) {
      const label block = std::min(ell_block_lanes, lanes - r0);
      ell_block<K>(a.col.data(), a.values.data(), chunk_ptr[c] + r0, c_size, width, block, x.data(), acc);
      const label* rows = row_order + static_cast<std::int64_t>(c) * c_size + r0;
      for (label t = 0; t < block; ++t)
        for (int j = 0; j < K; ++j) y[static_cast<std::int64_t>(rows[t]) * K + j] = acc[t * K + j];
    }
  }
}

}  // namespace

void sell_spmv(const SellMatrix& a, std::span<const double> x, std::span<double> y) { sell_spmv_k<1>(a, x, y); }

void sell_spmv_block(const SellMatrix& a, int k, std::span<const double> x, std::span<double> y) {
  dispatch_block(k, [&]<int K>() { sell_spmv_k<K>(a, x, y); });
}

}  // namespace fvmmini::reference
