#include "linalg/csr_matrix.hpp"

namespace fvmmini {

CsrMatrix ldu_to_csr(const LduMatrix& ldu, LduToCsrMap* map) {
  const label n = ldu.n_rows();
  const auto& lower = ldu.lower_addr();
  const auto& upper = ldu.upper_addr();
  const label n_faces = static_cast<label>(lower.size());

  // --- row lengths: 1 (diagonal) + one per face touching the row
  CsrMatrix csr;
  csr.n_rows = n;
  csr.row_ptr.assign(n + 1, 0);
  for (label i = 0; i < n; ++i) csr.row_ptr[i + 1] = 1;
  for (label f = 0; f < n_faces; ++f) {
    ++csr.row_ptr[lower[f] + 1];
    ++csr.row_ptr[upper[f] + 1];
  }
  for (label i = 0; i < n; ++i) csr.row_ptr[i + 1] += csr.row_ptr[i];
  csr.col.resize(csr.row_ptr[n]);
  csr.values.assign(csr.row_ptr[n], 0.0);

  UnfilledVector<std::int64_t> diag_slot(n), upper_slot(n_faces), lower_slot(n_faces);
  // --- fill in sorted column order without sorting: faces are ordered by (lower, upper), so
  //     row i gets first its lower-triangle entries (faces where upper == i, in increasing lower),
  //     then the diagonal, then its upper-triangle entries (faces where lower == i, increasing upper).
  std::vector<std::int64_t> next(csr.row_ptr.begin(), csr.row_ptr.end() - 1);
  // Lower-triangle entries (row = upper[f], col = lower[f]): iterate faces in order of lower, which is
  // increasing column within each row.
  for (label f = 0; f < n_faces; ++f) {
    const label row = upper[f];
    lower_slot[f] = next[row];
    csr.col[next[row]++] = lower[f];
  }
  for (label i = 0; i < n; ++i) {
    diag_slot[i] = next[i];
    csr.col[next[i]++] = i;
  }
  for (label f = 0; f < n_faces; ++f) {
    const label row = lower[f];
    upper_slot[f] = next[row];
    csr.col[next[row]++] = upper[f];
  }
  LduToCsrMap local{std::move(diag_slot), std::move(upper_slot), std::move(lower_slot)};
  refresh_csr_values(ldu, local, csr.values);
  if (map) *map = std::move(local);
  return csr;
}

void refresh_csr_values(const LduMatrix& ldu, const LduToCsrMap& map, std::span<double> values) {
  const label n = ldu.n_rows();
  const label n_faces = static_cast<label>(ldu.upper.size());
  const Coefficients& lower = ldu.lower_coeffs();
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) values[map.diag_slot[i]] = ldu.diag[i];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    values[map.upper_slot[f]] = ldu.upper[f];
    values[map.lower_slot[f]] = lower[f];
  }
}

}  // namespace fvmmini
