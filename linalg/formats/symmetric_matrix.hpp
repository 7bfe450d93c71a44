#pragma once
// Symmetric storage for the reference (CPU) backend: the diagonal plus the strict upper
// triangle in CSR form, each off-diagonal pair stored once. The FVM Laplacian is symmetric,
// so this halves the off-diagonal values and column indices an SpMV must stream, which is
// what bounds a CPU CG (memory-bound). The lower triangle is applied as the transpose of the
// upper one (a scatter; see kernels/reference/symmetric_spmv).

#include <cstdint>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"

namespace fvmmini {

struct SymmetricMatrix {
  label n_rows = 0;
  /// n_rows + 1 offsets into col: row i's upper entries (j > i) are [row_ptr[i], row_ptr[i+1]).
  /// 32-bit: the builder refuses more than 2^31 - 1 upper entries.
  std::vector<label> row_ptr{0};
  std::vector<label> col;  ///< upper entries' columns, ascending within each row, all > the row
  /// n_upper upper values (col's layout), then the n_rows diagonal entries: values[n_upper + i] = a_ii.
  std::vector<double> values;
  /// nnz entries: CSR slot -> slot in values; (i, j) and (j, i) share the upper slot.
  std::vector<std::int64_t> value_slot;
  /// max (j - i) over the upper entries (0 without off-diagonals): the reach of the transposed scatter.
  label max_offset = 0;
  std::int64_t n_nonzeros = 0;

  /// Upper entries stored (off-diagonal pairs).
  std::int64_t n_upper() const { return static_cast<std::int64_t>(col.size()); }
  /// The diagonal a_ii.
  const double* diagonal() const { return values.data() + n_upper(); }
  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return n_nonzeros; }
  /// Entries stored: upper pairs and the diagonal, (nnz + n_rows) / 2.
  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values.size()); }
  /// stored_entries / nnz (about 1/2: each off-diagonal pair is stored once).
  double padding_ratio() const { return nnz() > 0 ? static_cast<double>(stored_entries()) / nnz() : 1.0; }
  /// Bytes of the arrays a kernel reads: row_ptr, col, values.
  std::int64_t footprint_bytes() const {
    return static_cast<std::int64_t>(row_ptr.size() * sizeof(label) + col.size() * sizeof(label) +
                                     values.size() * sizeof(double));
  }
};

/// Symmetric storage from a CSR matrix with a symmetric pattern (every ldu_to_csr / permuted_csr
/// result); the lower triangle's values are taken to equal the upper's (LDU symmetry).
/// @throws std::invalid_argument when the pattern is not symmetric, a row lacks its diagonal
///         entry, or there are 2^31 or more upper entries
SymmetricMatrix build_symmetric(const CsrMatrix& csr);

}  // namespace fvmmini
