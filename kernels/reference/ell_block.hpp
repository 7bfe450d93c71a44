#pragma once
// The inner loop shared by the column-major formats (ELL, SELL, Staircase) on the CPU:
// one block of up to ell_block_lanes rows whose k-th entries lie contiguously.

#include <cstdint>

#include "linalg/ldu_matrix.hpp"

namespace fvmmini::reference {

inline constexpr label ell_block_lanes = 256;

/// acc[t] = sum_k val[s] x[col[s]], s = base + k * stride + t, for t < lanes (<= ell_block_lanes).
/// Padding (col -1, value 0) adds nothing; column 0 is a real column.
inline void ell_block(const label* col, const double* val, std::int64_t base, std::int64_t stride, label width,
                      label lanes, const double* x, double* acc) {
  for (label t = 0; t < lanes; ++t) acc[t] = 0.0;
  for (label k = 0; k < width; ++k) {
    const label* c = col + base + k * stride;
    const double* v = val + base + k * stride;
    // --- acc_t += a_tk x_col(t,k): one contiguous k-column at a time (sequential streams for the prefetcher)
    for (label t = 0; t < lanes; ++t)
      if (c[t] >= 0) acc[t] += v[t] * x[c[t]];
  }
}

}  // namespace fvmmini::reference
