#include "linalg/ldu_matrix.hpp"

#include <algorithm>
#include <atomic>

namespace fvmmini {

namespace {

/// ++count[rows[f]] for every face, on every thread (the counts do not depend on the order).
void count_rows(const std::vector<label>& rows, std::vector<label>& count) {
  const label n_faces = static_cast<label>(rows.size());
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) std::atomic_ref<label>(count[rows[f]]).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

std::vector<label> row_lengths(const LduAddressing& a) {
  std::vector<label> length(a.n_rows, 1);
  count_rows(a.lower, length);
  count_rows(a.upper, length);
  return length;
}

RowFaces row_faces(const LduAddressing& a) {
  const label n = a.n_rows, n_faces = a.n_faces();
  const std::vector<label> length = row_lengths(a);
  RowFaces r;
  r.ptr.resize(n + 1);
  r.ptr[0] = 0;
  for (label i = 0; i < n; ++i) r.ptr[i + 1] = r.ptr[i] + length[i] - 1;
  r.faces.resize(r.ptr[n]);
  // --- placed on every thread in some order, then each row's run sorted: face order
  std::vector<label> next(r.ptr.begin(), r.ptr.end() - 1);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    r.faces[std::atomic_ref<label>(next[a.lower[f]]).fetch_add(1, std::memory_order_relaxed)] = f;
    r.faces[std::atomic_ref<label>(next[a.upper[f]]).fetch_add(1, std::memory_order_relaxed)] = f;
  }
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) std::sort(r.faces.begin() + r.ptr[i], r.faces.begin() + r.ptr[i + 1]);
  return r;
}

}  // namespace fvmmini
