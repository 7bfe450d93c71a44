#include "linalg/formats/csr_format.hpp"

#include <algorithm>
#include <utility>

namespace fvmmini {

CsrFormat build_csr_format(CsrMatrix csr) {
  CsrFormat f;
  f.matrix = std::move(csr);
  const label n = f.matrix.n_rows;
  if (n > 0) {
    f.min_row_length = f.max_row_length = static_cast<label>(f.matrix.row_ptr[1] - f.matrix.row_ptr[0]);
    for (label i = 1; i < n; ++i) {
      const auto len = static_cast<label>(f.matrix.row_ptr[i + 1] - f.matrix.row_ptr[i]);
      f.min_row_length = std::min(f.min_row_length, len);
      f.max_row_length = std::max(f.max_row_length, len);
    }
    f.mean_row_length = static_cast<double>(f.matrix.nnz()) / n;
  }
  return f;
}

}  // namespace fvmmini
