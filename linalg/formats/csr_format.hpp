#pragma once
// The own CSR format: the plain CsrMatrix plus the row-length figures a GPU kernel
// uses to choose how many threads share one row (a sub-warp).

#include <cstdint>

#include "linalg/csr_matrix.hpp"

namespace fvmmini {

struct CsrFormat {
  /// row_ptr (int64, n_rows+1), col (int32, nnz, sorted within rows), values (nnz).
  /// Value slots are the CSR's own: value_slot is the identity and is not stored.
  CsrMatrix matrix;
  label min_row_length = 0;     ///< fewest nonzeros in a row
  label max_row_length = 0;     ///< most nonzeros in a row
  double mean_row_length = 0.0;  ///< nnz / n_rows

  /// Rows of the matrix.
  label n_rows() const { return matrix.n_rows; }
  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return matrix.nnz(); }
  /// Entries stored, padding included.
  std::int64_t stored_entries() const { return matrix.nnz(); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return 1.0; }
  /// Bytes of the arrays a kernel reads: row_ptr, col, values.
  std::int64_t footprint_bytes() const {
    return static_cast<std::int64_t>(matrix.row_ptr.size() * sizeof(std::int64_t) + matrix.col.size() * sizeof(label) +
                                     matrix.values.size() * sizeof(double));
  }
};

/// Wrap a CSR matrix (taken by value: move it in) and measure its row lengths.
CsrFormat build_csr_format(CsrMatrix csr);

}  // namespace fvmmini
