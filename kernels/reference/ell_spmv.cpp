#include "kernels/reference/ell_spmv.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/reference/ell_block.hpp"
#include "linalg/block_vectors.hpp"

namespace fvmmini::reference {

namespace {

template <int K>
void ell_spmv_k(const EllMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  const label n_blocks = (n + ell_block_lanes - 1) / ell_block_lanes;
  // --- rows in blocks: y_i = sum_k val[k n + i] x[col[k n + i]]
#pragma omp parallel for schedule(static)
  for (label b = 0; b < n_blocks; ++b) {
    const label first = b * ell_block_lanes;
    ell_block<K>(a.col.data(), a.values.data(), first, n, a.width, std::min(ell_block_lanes, n - first), x.data(),
                 y.data() + static_cast<std::int64_t>(first) * K);
  }
}

}  // namespace

void ell_spmv(const EllMatrix& a, std::span<const double> x, std::span<double> y) { ell_spmv_k<1>(a, x, y); }

void ell_spmv_block(const EllMatrix& a, int k, std::span<const double> x, std::span<double> y) {
  dispatch_block(k, [&]<int K>() { ell_spmv_k<K>(a, x, y); });
}

}  // namespace fvmmini::reference
