#include "linalg/formats/coo_matrix.hpp"


namespace fvmmini {

CooMatrix build_coo(const CsrMatrix& csr) {
  CooMatrix m;
  m.n_rows = csr.n_rows;
  m.row.resize(csr.nnz());
  for (label i = 0; i < csr.n_rows; ++i)
    for (auto k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) m.row[k] = i;
  m.col = csr.col;
  m.values = csr.values;
  return m;
}

}  // namespace fvmmini
