#pragma once
// DIA (diagonal storage): every diagonal d = col - row that holds a nonzero is stored whole,
// n_rows entries, so no column index is kept: row i's entry on diagonal k sits in column
// i + offsets[k]. Diagonal-major, like the DIA data array "laid out as columns ... starting with
// the farthest sub-diagonal" (offsets ascending), so that consecutive rows (threads) read
// consecutive values. Only compact on structured meshes in natural ordering (7 diagonals on a
// hexahedral box); an unstructured or renumbered matrix has thousands and is rejected.
//
// The scalar case (1x1 blocks) of the Column Diagonal Storage of
//   Jeswin Godwin, Justin Holewinski, P. Sadayappan, "High-Performance Sparse Matrix-Vector
//   Multiplication on GPUs for Structured Grid Computations", GPGPU-5, March 3 2012, London, UK
//   (ACM, 2012), sections 2.3.2 and 3; with 1x1 blocks CDS reduces to DIA (section 3.2).

#include <cstdint>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"

namespace fvmmini {


struct DiaMatrix {
  label n_rows = 0;
  /// The distinct offsets d = col - row of the nonzeros, ascending (-n_rows < d < n_rows).
  std::vector<int> offsets;
  /// offsets.size() * n_rows entries, diagonal-major: values[k * n_rows + i] = A(i, i + offsets[k]).
  /// Padding holds 0: entries absent from the matrix and entries outside it
  /// (i + offsets[k] < 0 or >= n_rows; kernels must not read x there).
  std::vector<double> values;
  std::vector<std::int64_t> value_slot;  ///< nnz entries: CSR slot -> slot in values
  std::int64_t n_nonzeros = 0;

  /// Stored diagonals.
  int n_diagonals() const { return static_cast<int>(offsets.size()); }
  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return n_nonzeros; }
  /// Entries stored, padding included.
  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values.size()); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return nnz() > 0 ? static_cast<double>(stored_entries()) / nnz() : 1.0; }
  /// Bytes of the arrays a kernel reads: values and offsets (no column indices).
  std::int64_t footprint_bytes() const {
    return static_cast<std::int64_t>(values.size() * sizeof(double) + offsets.size() * sizeof(int));
  }
};

/// Distinct diagonals (offsets col - row) holding a CSR entry; O(n_rows + nnz).
/// @throws std::invalid_argument when a row's columns are not strictly ascending within 0 .. n_rows - 1
std::int64_t count_diagonals(const CsrMatrix& csr);

/// DIA from CSR (columns strictly ascending within rows).
/// @throws std::invalid_argument when max_diagonals < 1, when the matrix has more than
///         max_diagonals distinct diagonals (the message gives the count), or when a row's columns
///         are not strictly ascending within 0 .. n_rows - 1
DiaMatrix build_dia(const CsrMatrix& csr, int max_diagonals);

}  // namespace fvmmini
