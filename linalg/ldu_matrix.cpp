#include "linalg/ldu_matrix.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include <omp.h>

namespace fvmmini {

namespace {

/// The faces' 2 n_faces ends, each a (row, face): first every face's upper end, then every lower
/// end, so that a stable sort by row puts row i's faces in face order (its upper ends, faces
/// whose lower row is below i, come first in upper-triangular order). An end is stored as one
/// label: f for face f's upper end, -1 - f for its lower end.
struct FaceEnds {
  const LduAddressing& a;
  std::int64_t count() const { return 2 * static_cast<std::int64_t>(a.n_faces()); }
  label code(std::int64_t e) const {
    const label f = static_cast<label>(e < a.n_faces() ? e : e - a.n_faces());
    return e < a.n_faces() ? f : -1 - f;
  }
  static label face(label code) { return code >= 0 ? code : -1 - code; }
  label row(label code) const { return code >= 0 ? a.upper[code] : a.lower[-1 - code]; }
};

/// The ends counted per row (count[i]: the faces of row i) and, with `r`, listed row by row in
/// face order. A stable counting sort on every thread without atomics: each thread buckets its
/// own range of ends by blocks of rows (counted, then placed), then each block is one thread's,
/// its ends read in their order. (Atomic counters and a sort of each row took 2.3 times as long
/// at 64 M rows on 16 threads.)
void sort_ends_by_row(const LduAddressing& a, std::vector<label>& count, RowFaces* r) {
  const FaceEnds ends{a};
  const label n = a.n_rows;
  const std::int64_t n_ends = ends.count();
  count.assign(n, 0);
  if (r) {
    r->ptr.assign(n + 1, 0);
    r->faces.resize(n_ends);
  }
  if (n == 0) return;
  const int max_threads = omp_get_max_threads();
  int shift = 10;  // blocks of 2^shift rows: at least 1024, about 16 a thread
  while ((std::int64_t{n} >> shift) > 16 * max_threads) ++shift;
  const label n_blocks = ((n - 1) >> shift) + 1;
  std::vector<std::int64_t> offset(static_cast<std::size_t>(n_blocks) * max_threads + 1);  // block-major
  const std::unique_ptr<label[]> bucketed(new label[n_ends]);  // no zeroing: every end is placed
  bool lower_sorted = true;
#pragma omp parallel reduction(&& : lower_sorted)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const std::int64_t first = n_ends * t / nt, last = n_ends * (t + 1) / nt;
    std::vector<std::int64_t> next(n_blocks, 0);
    for (std::int64_t e = first; e < last; ++e) ++next[ends.row(ends.code(e)) >> shift];
    for (label b = 0; b < n_blocks; ++b) offset[static_cast<std::size_t>(b) * nt + t] = next[b];
#pragma omp barrier
#pragma omp single
    {
      std::int64_t sum = 0;
      for (std::size_t k = 0; k < static_cast<std::size_t>(n_blocks) * nt; ++k) sum += std::exchange(offset[k], sum);
      offset[static_cast<std::size_t>(n_blocks) * nt] = sum;
    }
    for (label b = 0; b < n_blocks; ++b) next[b] = offset[static_cast<std::size_t>(b) * nt + t];
    for (std::int64_t e = first; e < last; ++e) {
      const label c = ends.code(e);
      bucketed[next[ends.row(c) >> shift]++] = c;
    }
#pragma omp barrier
    std::vector<label> cursor;
#pragma omp for schedule(dynamic, 1)
    for (label b = 0; b < n_blocks; ++b) {
      const label row0 = b << shift, row1 = std::min<std::int64_t>(n, std::int64_t{row0} + (label{1} << shift));
      const std::int64_t begin = offset[static_cast<std::size_t>(b) * nt];
      const std::int64_t end = offset[static_cast<std::size_t>(b + 1) * nt];
      for (std::int64_t k = begin; k < end; ++k) ++count[ends.row(bucketed[k])];
      if (!r) continue;
      cursor.resize(row1 - row0);
      label at = static_cast<label>(begin);
      for (label i = row0; i < row1; ++i) {
        r->ptr[i] = cursor[i - row0] = at;
        at += count[i];
      }
      for (std::int64_t k = begin; k < end; ++k) {
        const label c = bucketed[k];
        r->faces[cursor[ends.row(c) - row0]++] = FaceEnds::face(c);
      }
    }
    if (r) {
#pragma omp for schedule(static)
      for (label f = 1; f < a.n_faces(); ++f) lower_sorted = lower_sorted && a.lower[f - 1] <= a.lower[f];
    }
  }
  if (!r) return;
  r->ptr[n] = static_cast<label>(n_ends);
  if (lower_sorted) return;
  // --- faces not in upper-triangular order: a row's upper ends need not all come first
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) std::sort(r->faces.begin() + r->ptr[i], r->faces.begin() + r->ptr[i + 1]);
}

}  // namespace

std::vector<label> row_lengths(const LduAddressing& a) {
  // --- each thread counts its slice of the faces' ends into its own window of rows, those its
  //     ends span, then each row sums the windows that hold it: no atomics, no sort. On a mesh
  //     numbered with any locality the windows are the thread's rows and a band beyond; where
  //     they would hold more than the buckets of row_faces' sort (a random numbering on many
  //     threads), that sort counts instead.
  const label n = a.n_rows;
  const label n_faces = a.n_faces();
  std::vector<label> length(n, 1);  // the diagonal
  if (n_faces == 0) return length;
  const int max_threads = omp_get_max_threads();
  std::vector<label> first_row(max_threads, 0), last_row(max_threads, -1);
  std::vector<std::vector<label>> window(max_threads);
  bool windows_fit = true;
#pragma omp parallel
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const label f0 = static_cast<label>(std::int64_t{n_faces} * t / nt);
    const label f1 = static_cast<label>(std::int64_t{n_faces} * (t + 1) / nt);
    label lo = n, hi = -1;
    for (label f = f0; f < f1; ++f) {
      lo = std::min({lo, a.lower[f], a.upper[f]});
      hi = std::max({hi, a.lower[f], a.upper[f]});
    }
    first_row[t] = lo;
    last_row[t] = hi;
#pragma omp barrier
#pragma omp single
    {
      std::int64_t held = 0;
      for (int k = 0; k < nt; ++k) held += std::max<std::int64_t>(0, std::int64_t{last_row[k]} - first_row[k] + 1);
      windows_fit = held <= 2 * std::int64_t{n_faces};
    }
    if (windows_fit) {
      std::vector<label>& w = window[t];
      w.assign(static_cast<std::size_t>(std::max(0, hi - lo + 1)), 0);
      for (label f = f0; f < f1; ++f) {
        ++w[a.lower[f] - lo];
        ++w[a.upper[f] - lo];
      }
#pragma omp barrier
      // --- rows in the same static ranges on every thread; each adds the windows over its range
      const label r0 = static_cast<label>(std::int64_t{n} * t / nt);
      const label r1 = static_cast<label>(std::int64_t{n} * (t + 1) / nt);
      for (int k = 0; k < nt; ++k) {
        const label from = std::max(r0, first_row[k]), to = std::min(r1 - 1, last_row[k]);
        for (label i = from; i <= to; ++i) length[i] += window[k][i - first_row[k]];
      }
    }
  }
  if (windows_fit) return length;
  std::vector<label> count;
  sort_ends_by_row(a, count, nullptr);
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) length[i] += count[i];
  return length;
}

std::vector<label> row_lengths(const RowFaces& faces) {
  const auto n = static_cast<label>(faces.ptr.empty() ? 0 : faces.ptr.size() - 1);
  std::vector<label> length(n);
#pragma omp parallel for schedule(static)
  for (label i = 0; i < n; ++i) length[i] = 1 + faces.ptr[i + 1] - faces.ptr[i];
  return length;
}

RowFaces row_faces(const LduAddressing& a) {
  std::vector<label> count;
  RowFaces r;
  sort_ends_by_row(a, count, &r);
  return r;
}

void require_symmetric(const LduMatrix& m, const std::string& what) {
  if (!m.symmetric()) throw std::invalid_argument(what + " takes symmetric matrices only, and this matrix is asymmetric");
}

}  // namespace fvmmini
