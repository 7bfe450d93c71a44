#pragma once
// The inner loop shared by the column-major formats (ELL, SELL, Staircase) on the CPU:
// one block of up to ell_block_lanes rows whose k-th entries lie contiguously.

#include <cstdint>

#include "linalg/ldu_matrix.hpp"

namespace fvmmini::reference {

inline constexpr label ell_block_lanes = 256;

/// acc[t K + j] = sum_k val[s] x[col[s] K + j], s = base + k * stride + t, for t < lanes (<=
/// ell_block_lanes) and K vectors interleaved by row (K = 1: one vector). Padding (col -1, value 0)
/// adds nothing; column 0 is a real column.
template <int K = 1>
inline void ell_block(const label* col, const double* val, std::int64_t base, std::int64_t stride, label width,
                      label lanes, const double* x, double* acc) {
  for (label t = 0; t < lanes * K; ++t) acc[t] = 0.0;
  for (label k = 0; k < width; ++k) {
    const label* c = col + base + k * stride;
    const double* v = val + base + k * stride;
    // --- acc_t += a_tk x_col(t,k): one contiguous k-column at a time (sequential streams for the prefetcher)
    for (label t = 0; t < lanes; ++t)
      if (c[t] >= 0)
        for (int j = 0; j < K; ++j) acc[t * K + j] += v[t] * x[static_cast<std::int64_t>(c[t]) * K + j];
  }
}

}  // namespace fvmmini::reference
