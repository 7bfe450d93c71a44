#include "linalg/formats/coo_matrix.hpp"

#include <chrono>

namespace fvmmini {

CooMatrix build_coo(const CsrMatrix& csr) {
  const auto t0 = std::chrono::steady_clock::now();
  CooMatrix m;
  m.n_rows = csr.n_rows;
  m.row.resize(csr.nnz());
  for (label i = 0; i < csr.n_rows; ++i)
    for (auto k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) m.row[k] = i;
  m.col = csr.col;
  m.values = csr.values;
  m.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace fvmmini
