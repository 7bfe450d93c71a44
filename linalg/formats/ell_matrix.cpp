#include "linalg/formats/ell_matrix.hpp"


namespace fvmmini {

EllMatrix build_ell(const CsrMatrix& csr) {
  EllMatrix m;
  const label n = csr.n_rows;
  m.n_rows = n;
  m.n_nonzeros = csr.nnz();
  for (label i = 0; i < n; ++i) m.width = std::max(m.width, static_cast<label>(csr.row_ptr[i + 1] - csr.row_ptr[i]));
  const auto stored = static_cast<std::int64_t>(n) * m.width;
  m.col.assign(stored, padding_column);
  m.values.assign(stored, 0.0);
  m.value_slot.resize(csr.nnz());
  // --- entry k of row i goes to slot k * n + i
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) place_row_column_major(csr, i, i, n, m);
  return m;
}

}  // namespace fvmmini
