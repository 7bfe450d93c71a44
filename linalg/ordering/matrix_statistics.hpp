#pragma once
// Structure statistics of the LDU matrix under an ordering: bandwidth and profile as
// OpenFOAM's renumberMesh prints them, and the distribution of row lengths.

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

/// Statistics of P A P^T.
MatrixStatistics matrix_statistics(const LduAddressing& addressing, const Permutation& p);

/// One line: "rows 1000, nnz 6400, bandwidth 110, profile 98340, row length 4..7 (mean 6.40)".
std::string describe(const MatrixStatistics& stats);

}  // namespace fvmmini
