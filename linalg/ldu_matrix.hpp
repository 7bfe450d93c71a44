#pragma once
// The canonical matrix: OpenFOAM's LDU form of a symmetric matrix. A diagonal
// coefficient per cell and one off-diagonal coefficient per internal face f,
// standing at (lower[f], upper[f]) and, by symmetry, at (upper[f], lower[f]).
// Every storage format is built from this and refreshed from it in place.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace fvmmini {

using label = std::int32_t;

/// Who couples with whom: lower[f] < upper[f], faces sorted by (lower, upper).
struct LduAddressing {
  label n_rows = 0;
  std::vector<label> lower;  ///< row of the upper coefficient (the face's owner)
  std::vector<label> upper;  ///< column of the upper coefficient (the face's neighbour)

  label n_faces() const { return static_cast<label>(lower.size()); }
  /// Structural nonzeros: the diagonal plus two per face.
  std::int64_t nnz() const { return n_rows + 2 * static_cast<std::int64_t>(lower.size()); }
};

/// Each row's faces, CSR over rows: row i's are faces[ptr[i] .. ptr[i + 1]) in face order, so
/// (faces being sorted by (lower, upper)) its lower neighbours' faces ascending, then its upper ones.
struct RowFaces {
  std::vector<label> ptr, faces;
};
RowFaces row_faces(const LduAddressing& a);

/// Each row's stored entries: the diagonal and one per face that touches it.
std::vector<label> row_lengths(const LduAddressing& a);

struct LduMatrix {
  std::shared_ptr<const LduAddressing> addressing;
  std::vector<double> diag;   ///< one per row
  std::vector<double> upper;  ///< one per face; the matrix is symmetric, lower == upper

  label n_rows() const { return addressing->n_rows; }
  const std::vector<label>& lower_addr() const { return addressing->lower; }
  const std::vector<label>& upper_addr() const { return addressing->upper; }
};

/// A zero matrix on the given addressing.
inline LduMatrix make_ldu_matrix(std::shared_ptr<const LduAddressing> addressing) {
  LduMatrix m;
  m.diag.assign(addressing->n_rows, 0.0);
  m.upper.assign(addressing->lower.size(), 0.0);
  m.addressing = std::move(addressing);
  return m;
}

}  // namespace fvmmini
