#include "linalg/ordering/matrix_statistics.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace fvmmini {

RowLengthStats row_length_stats(const LduAddressing& addressing) { return row_length_stats(row_lengths(addressing)); }

RowLengthStats row_length_stats(std::span<const label> length) {
  return row_length_stats(static_cast<label>(length.size()), [&](label i) { return length[i]; });
}

MatrixStatistics matrix_statistics(const LduAddressing& addressing, const Permutation& p) {
  MatrixStatistics s;
  s.n_rows = addressing.n_rows;
  s.nnz = addressing.nnz();
  s.row_lengths = row_length_stats(addressing);
  // --- renumberMesh's getBand: per row the furthest lower neighbour; bandwidth = max, profile = sum
  std::vector<label> row_band(addressing.n_rows, 0);
  for (label f = 0; f < addressing.n_faces(); ++f) {
    const label a = p.old_to_new[addressing.lower[f]], b = p.old_to_new[addressing.upper[f]];
    const label hi = std::max(a, b);
    row_band[hi] = std::max(row_band[hi], std::abs(b - a));
  }
  for (label w : row_band) {
    s.bandwidth = std::max(s.bandwidth, w);
    s.profile += w;
  }
  return s;
}

std::string describe(const MatrixStatistics& s) {
  return fmt::format("rows {}, nnz {}, bandwidth {}, profile {}, row length {}..{} (mean {:.2f})", s.n_rows, s.nnz,
                     s.bandwidth, s.profile, s.row_lengths.min, s.row_lengths.max, s.row_lengths.mean);
}

}  // namespace fvmmini
