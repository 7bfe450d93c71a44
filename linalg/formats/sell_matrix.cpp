#include "linalg/formats/sell_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace fvmmini {

SellMatrix build_sell(const CsrMatrix& csr, int chunk_size, int sort_window) {
  if (chunk_size <= 0)
    throw std::invalid_argument("sell: chunk_size must be > 0 (got " + std::to_string(chunk_size) + ")");
  if (sort_window < 1)
    throw std::invalid_argument("sell: sort_window must be >= 1 (got " + std::to_string(sort_window) + ")");
  SellMatrix m;
  const label n = csr.n_rows;
  const label c_size = chunk_size;
  m.n_rows = n;
  m.chunk_size = chunk_size;
  m.sort_window = sort_window;
  m.n_nonzeros = csr.nnz();
  m.n_chunks = n == 0 ? 0 : (n - 1) / c_size + 1;
  auto length = [&](label i) { return static_cast<label>(csr.row_ptr[i + 1] - csr.row_ptr[i]); };

  // --- sigma-sort: within each window of sort_window rows, longest rows first (stable)
  m.row_order.resize(n);
  std::iota(m.row_order.begin(), m.row_order.end(), 0);
  if (sort_window > 1)
    for (label w = 0; w < n; w += std::min<label>(sort_window, n - w))
      std::stable_sort(m.row_order.begin() + w, m.row_order.begin() + std::min<std::int64_t>(std::int64_t{w} + sort_window, n),
                       [&](label a, label b) { return length(a) > length(b); });

  // --- chunk c is as wide as its longest row: chunk_ptr[c+1] = chunk_ptr[c] + C * width
  m.chunk_ptr.assign(m.n_chunks + 1, 0);
  for (label c = 0; c < m.n_chunks; ++c) {
    label width = 0;
    for (label p = c * c_size; p < std::min(n, (c + 1) * c_size); ++p) width = std::max(width, length(m.row_order[p]));
    m.chunk_ptr[c + 1] = m.chunk_ptr[c] + static_cast<std::int64_t>(width) * c_size;
  }
  m.col.assign(m.chunk_ptr[m.n_chunks], padding_column);
  m.values.assign(m.chunk_ptr[m.n_chunks], 0.0);
  m.value_slot.resize(csr.nnz());

  // --- entry k of the row at position p = c*C + r goes to chunk_ptr[c] + k*C + r
#pragma omp parallel for schedule(static)
  for (label p = 0; p < n; ++p) {
    const label c = p / c_size, r = p % c_size, row = m.row_order[p];
    place_row_column_major(csr, row, m.chunk_ptr[c] + r, c_size, m);
  }
  return m;
}

}  // namespace fvmmini
