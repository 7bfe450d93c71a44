#include "linalg/formats/symmetric_matrix.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace fvmmini {

SymmetricMatrix build_symmetric(const CsrMatrix& csr) {
  const label n = csr.n_rows;
  SymmetricMatrix m;
  m.n_rows = n;
  m.n_nonzeros = csr.nnz();
  // --- first upper slot of each CSR row (columns are sorted), and the upper row pointer
  std::vector<std::int64_t> upper_begin(n);
  std::int64_t n_upper = 0;
  for (label i = 0; i < n; ++i) {
    const auto* first = csr.col.data() + csr.row_ptr[i];
    const auto* last = csr.col.data() + csr.row_ptr[i + 1];
    const auto* above = std::upper_bound(first, last, i);
    if (above == first || above[-1] != i) throw std::invalid_argument(fmt::format("symmetric: row {} has no diagonal entry", i));
    upper_begin[i] = above - csr.col.data();
    n_upper += last - above;
  }
  if (n_upper > std::numeric_limits<label>::max())
    throw std::invalid_argument(fmt::format("symmetric: {} upper entries do not fit 32-bit offsets", n_upper));
  m.row_ptr.resize(static_cast<std::size_t>(n) + 1);
  m.row_ptr[0] = 0;
  for (label i = 0; i < n; ++i)
    m.row_ptr[i + 1] = m.row_ptr[i] + static_cast<label>(csr.row_ptr[i + 1] - upper_begin[i]);
  m.col.resize(n_upper);
  m.values.resize(n_upper + n);
  m.value_slot.resize(csr.nnz());

  // --- copy the upper triangle; map each CSR slot: diagonal -> n_upper + i, (i, j>i) -> its slot,
  //     (i, j<i) -> the slot of (j, i) in row j
  label max_offset = 0;
  bool asymmetric = false;
  std::int64_t n_lower = 0;  // each found mirror is a distinct upper entry: all found and as many as upper
#pragma omp parallel for schedule(static) reduction(max : max_offset) reduction(|| : asymmetric) reduction(+ : n_lower)
  for (label i = 0; i < n; ++i) {
    for (auto k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) {
      const label j = csr.col[k];
      if (j == i) {
        m.value_slot[k] = n_upper + i;
        m.values[n_upper + i] = csr.values[k];
      } else if (j > i) {
        const std::int64_t slot = m.row_ptr[i] + (k - upper_begin[i]);
        m.value_slot[k] = slot;
        m.col[slot] = j;
        m.values[slot] = csr.values[k];
        max_offset = std::max(max_offset, j - i);
      } else {
        const label* first = csr.col.data() + upper_begin[j];
        const label* last = csr.col.data() + csr.row_ptr[j + 1];
        const label* at = std::lower_bound(first, last, i);
        if (at == last || *at != i) {
          asymmetric = true;
          continue;
        }
        m.value_slot[k] = m.row_ptr[j] + (at - first);
        ++n_lower;
      }
    }
  }
  if (asymmetric || n_lower != n_upper) throw std::invalid_argument("symmetric: the matrix pattern is not symmetric");
  m.max_offset = max_offset;
  return m;
}

}  // namespace fvmmini
