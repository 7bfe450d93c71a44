#pragma once
// The canonical matrix: OpenFOAM's LDU form. A diagonal coefficient per cell and, per internal
// face f, an upper coefficient at (lower[f], upper[f]) and a lower one at (upper[f], lower[f]);
// a symmetric matrix (the Laplacian, the projection's momentum) stores the upper ones only.
// Every storage format is built from this and refreshed from it in place.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/unfilled_vector.hpp"

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
/// The same from the rows' face lists.
std::vector<label> row_lengths(const RowFaces& faces);

/// The coefficients' arrays: a resize leaves new entries unwritten (make_ldu_matrix fills them on
/// every thread; an assembly that writes every entry takes them unfilled).
using Coefficients = UnfilledVector<double>;

struct LduMatrix {
  std::shared_ptr<const LduAddressing> addressing;
  Coefficients diag;   ///< one per row
  Coefficients upper;  ///< one per face, at (lower[f], upper[f]): the owner's row
  /// One per face, at (upper[f], lower[f]): the neighbour's row (OpenFOAM's lower coefficients);
  /// empty for a symmetric matrix, whose lower coefficients are its upper ones.
  Coefficients lower;

  bool symmetric() const { return lower.empty(); }
  /// The coefficients at (upper[f], lower[f]): lower, or upper where the matrix is symmetric.
  const Coefficients& lower_coeffs() const { return symmetric() ? upper : lower; }
  label n_rows() const { return addressing->n_rows; }
  const std::vector<label>& lower_addr() const { return addressing->lower; }
  const std::vector<label>& upper_addr() const { return addressing->upper; }
};

/// @throws std::invalid_argument "<what> takes symmetric matrices only, and this matrix is
///   asymmetric" unless m is symmetric (what: "format symmetric", "solver CG", ...)
void require_symmetric(const LduMatrix& m, const std::string& what);

/// A zero symmetric matrix on the given addressing (filled on every thread).
inline LduMatrix make_ldu_matrix(std::shared_ptr<const LduAddressing> addressing) {
  LduMatrix m;
  m.diag = filled_on_every_thread<double>(addressing->n_rows, 0.0);
  m.upper = filled_on_every_thread<double>(addressing->lower.size(), 0.0);
  m.addressing = std::move(addressing);
  return m;
}

/// A symmetric matrix on the given addressing whose coefficients are unwritten: for an assembly
/// that writes every one.
inline LduMatrix make_unfilled_ldu_matrix(std::shared_ptr<const LduAddressing> addressing) {
  LduMatrix m;
  m.diag.resize(addressing->n_rows);
  m.upper.resize(addressing->lower.size());
  m.addressing = std::move(addressing);
  return m;
}

}  // namespace fvmmini
