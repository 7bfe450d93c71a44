#pragma once
// Coordinate format: one (row, col, value) triple per nonzero, in CSR order.

#include <cstdint>
#include <vector>

#include "linalg/csr_matrix.hpp"

namespace fvmmini {

struct CooMatrix {
  label n_rows = 0;
  std::vector<label> row;      ///< nnz entries, non-decreasing (CSR order)
  std::vector<label> col;      ///< nnz entries, sorted within each row
  std::vector<double> values;  ///< nnz entries; value slot k is CSR slot k (identity map, not stored)

  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  /// Entries stored, padding included.
  std::int64_t stored_entries() const { return nnz(); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return 1.0; }
  /// Bytes of the arrays a kernel reads.
  std::int64_t footprint_bytes() const {
    return static_cast<std::int64_t>((row.size() + col.size()) * sizeof(label) + values.size() * sizeof(double));
  }
};

/// COO from CSR (same entry order).
CooMatrix build_coo(const CsrMatrix& csr);

}  // namespace fvmmini
