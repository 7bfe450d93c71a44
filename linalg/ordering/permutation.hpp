#pragma once
// A symmetric row/column renumbering of the matrix, and the ways to apply it to
// vectors and to the LDU matrix while keeping the maps that refresh values in place.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

/// A bijection of 0..n-1. Row (and column) i of the permuted matrix is row new_to_old[i]
/// of the original; old_to_new is the inverse. Vectors follow the same rule:
/// x_new[i] = x_old[new_to_old[i]].
struct Permutation {
  std::vector<label> new_to_old;  ///< n entries: new index -> old index (sigma in Wikberg 2025)
  std::vector<label> old_to_new;  ///< n entries: old index -> new index (sigma^-1)

  /// Number of indices permuted.
  label size() const { return static_cast<label>(new_to_old.size()); }
  /// True when new_to_old[i] == i for every i.
  bool is_identity() const;

  /// The identity on n indices.
  static Permutation identity(label n);
  /// Build from new -> old, computing the inverse.
  /// @throws std::invalid_argument when the array is not a bijection of 0..n-1
  static Permutation from_new_to_old(std::vector<label> new_to_old);
};

/// The permutation that applies `first` and then renumbers its result by `second`:
/// new_to_old[i] = first.new_to_old[second.new_to_old[i]].
/// @throws std::invalid_argument on a size mismatch
Permutation compose(const Permutation& first, const Permutation& second);

/// x_new[i] = x_old[new_to_old[i]]. @param[out] x_new length n
void permute_to_new(const Permutation& p, std::span<const double> x_old, std::span<double> x_new);

/// x_old[new_to_old[i]] = x_new[i]. @param[out] x_old length n
void permute_to_old(const Permutation& p, std::span<const double> x_new, std::span<double> x_old);

/// The LDU matrix renumbered symmetrically: its own upper-triangular face order, with the
/// map from each new face to the original face (values refresh by a gather through it).
struct PermutedLdu {
  LduMatrix matrix;                    ///< in the new numbering
  std::vector<label> face_to_old_face;  ///< per new face: the original face it came from
};

/// Renumber the LDU matrix: new face (min(p(l),p(u)), max(p(l),p(u))) sorted upper-triangular.
PermutedLdu permute_ldu(const LduMatrix& ldu, const Permutation& p);

/// Copy new coefficients of the original LDU matrix into an already permuted one.
void refresh_permuted_ldu(const LduMatrix& original, const Permutation& p, PermutedLdu& permuted);

/// The rows of P A P^T one mesh row at a time, each row's entries in column order with the LDU
/// coefficient each comes from: what permuted_csr stores, for a builder that places the rows
/// straight into its own format (no CSR in between). The rows' face lists are made once, here.
class PermutedRows {
 public:
  /// An entry's column (new numbering) and source: -1 the diagonal, 2 f the upper coefficient of
  /// face f (the row its lower cell), 2 f + 1 its lower coefficient.
  struct Entry {
    label column;
    std::int64_t source;
  };

  /// @pre p.size() == ldu.n_rows(); ldu and p outlive the rows
  PermutedRows(const LduMatrix& ldu, const Permutation& p) : PermutedRows(ldu, p, row_faces(*ldu.addressing)) {}
  /// The same with the rows' face lists made already (row_faces(*ldu.addressing)).
  PermutedRows(const LduMatrix& ldu, const Permutation& p, RowFaces faces)
      : ldu_(ldu), p_(p), faces_(std::move(faces)) {}

  label n_rows() const { return p_.size(); }
  std::int64_t nnz() const { return ldu_.addressing->nnz(); }
  const Permutation& permutation() const { return p_; }
  /// Entries of mesh row c (new row permutation().old_to_new[c]): the diagonal and one a face.
  label length(label c) const { return 1 + faces_.ptr[c + 1] - faces_.ptr[c]; }
  /// Mesh row c's entries into `row` (cleared first), columns ascending.
  void entries(label c, std::vector<Entry>& row) const;
  /// The coefficient of entry e of mesh row c.
  double coefficient(label c, const Entry& e) const {
    if (e.source < 0) return ldu_.diag[c];
    return (e.source % 2 == 0 ? ldu_.upper : ldu_.lower_coeffs())[e.source / 2];
  }
  /// `map` sized for this matrix (a slot per row and two per face; the entries unset).
  void size_map(LduToCsrMap& map) const;
  /// The slot map's entry of entry e of mesh row c.
  static std::int64_t& slot(LduToCsrMap& map, label c, const Entry& e) {
    if (e.source < 0) return map.diag_slot[c];
    return (e.source % 2 == 0 ? map.upper_slot : map.lower_slot)[e.source / 2];
  }

 private:
  const LduMatrix& ldu_;
  const Permutation& p_;
  RowFaces faces_;
};

/// CSR of P A P^T (columns sorted within rows, diagonal always present), with the map from the
/// ORIGINAL LDU rows and faces to its value slots, so refresh_csr_values(original, map, values)
/// refreshes it in place. For the identity this equals ldu_to_csr.
/// @param[out] map if not null, receives the original-LDU -> permuted-CSR slot map
CsrMatrix permuted_csr(const LduMatrix& ldu, const Permutation& p, LduToCsrMap* map = nullptr);

}  // namespace fvmmini
