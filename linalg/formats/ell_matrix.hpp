#pragma once
// ELLPACK: every row padded to the longest row's length, stored column-major
// (the k-th entries of all rows are contiguous), padding column -1, value 0.

#include <cstdint>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"

namespace fvmmini {

struct EllMatrix {
  label n_rows = 0;
  label width = 0;  ///< stored entries per row = the longest row's nonzeros
  /// n_rows * width entries; entry k (0 <= k < width) of row i is at slot k * n_rows + i.
  /// A row's real entries come first (k < its length), columns ascending; the rest is padding.
  std::vector<label> col;
  std::vector<double> values;             ///< same layout as col; padding holds 0
  std::vector<std::int64_t> value_slot;  ///< nnz entries: CSR slot -> slot in values/col
  std::int64_t n_nonzeros = 0;

  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return n_nonzeros; }
  /// Entries stored, padding included.
  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values.size()); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return nnz() > 0 ? static_cast<double>(stored_entries()) / nnz() : 1.0; }
  /// Bytes of the arrays a kernel reads.
  std::int64_t footprint_bytes() const {
    return static_cast<std::int64_t>(col.size() * sizeof(label) + values.size() * sizeof(double));
  }
};

/// ELL from CSR.
EllMatrix build_ell(const CsrMatrix& csr);

}  // namespace fvmmini
