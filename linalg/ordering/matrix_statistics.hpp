#pragma once
// Structure statistics of the LDU matrix under an ordering: bandwidth and profile as
// OpenFOAM's renumberMesh prints them, and the distribution of row lengths.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// Nonzeros per row (diagonal included).
struct RowLengthStats {
  label min = 0;
  label max = 0;
  double mean = 0.0;
  std::vector<label> histogram;  ///< histogram[k] = number of rows with k nonzeros, k = 0..max
};

struct MatrixStatistics {
  label n_rows = 0;
  std::int64_t nnz = 0;
  label bandwidth = 0;      ///< max over faces of |new(u) - new(l)|
  std::int64_t profile = 0;  ///< sum over rows of the distance to the furthest lower neighbour
  RowLengthStats row_lengths;
};

/// Row lengths of the LDU matrix (the same in any ordering).
RowLengthStats row_length_stats(const LduAddressing& addressing);
/// The same from each row's length, as row_lengths() gives them.
RowLengthStats row_length_stats(std::span<const label> row_lengths);
/// The same from length(i), row i's length, for i < n: one pass on every thread, then the
/// histogram on every thread (each its own bins, added at the end).
template <class Length>
RowLengthStats row_length_stats(label n, const Length& length) {
  RowLengthStats s;
  if (n == 0) return s;
  label lo = length(0), hi = lo;
  std::int64_t nnz = 0;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) reduction(+ : nnz)
  for (label i = 0; i < n; ++i) {
    const label l = length(i);
    lo = std::min(lo, l);
    hi = std::max(hi, l);
    nnz += l;
  }
  s.min = lo;
  s.max = hi;
  s.mean = static_cast<double>(nnz) / n;
  s.histogram.assign(static_cast<std::size_t>(hi) + 1, 0);
#pragma omp parallel
  {
    std::vector<label> mine(s.histogram.size(), 0);
#pragma omp for schedule(static) nowait
    for (label i = 0; i < n; ++i) ++mine[length(i)];
#pragma omp critical
    for (std::size_t k = 0; k < mine.size(); ++k) s.histogram[k] += mine[k];
  }
  return s;
}

/// Statistics of P A P^T.
MatrixStatistics matrix_statistics(const LduAddressing& addressing, const Permutation& p);

/// One line: "rows 1000, nnz 6400, bandwidth 110, profile 98340, row length 4..7 (mean 6.40)".
std::string describe(const MatrixStatistics& stats);

}  // namespace fvmmini
