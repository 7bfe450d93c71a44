#pragma once
// y = A x for SELL-C-sigma on the CPU (OpenMP over chunks; y scattered through row_order).

#include <span>

#include "linalg/formats/sell_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten)
void sell_spmv(const SellMatrix& a, std::span<const double> x, std::span<double> y);

/// Y = A X for k vectors interleaved by row (linalg/block_vectors.hpp), the matrix read once.
/// @param[in] x length k n_rows; @param[out] y length k n_rows (overwritten)
void sell_spmv_block(const SellMatrix& a, int k, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
