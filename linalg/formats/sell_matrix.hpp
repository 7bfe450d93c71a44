#pragma once
// SELL-C-sigma (Kreutzer et al. 2014): rows sorted by length (longest first, stable)
// within windows of sigma rows, then cut into chunks of C rows; each chunk is an ELLPACK
// block as wide as its longest row, stored column-major. The sort is a row-only
// permutation kept in `row_order`: x and y stay in the CSR's numbering.

#include <cstdint>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"

namespace fvmmini {

struct SellMatrix {
  label n_rows = 0;
  int chunk_size = 32;   ///< C: rows per chunk (lanes)
  int sort_window = 1;   ///< sigma: rows are sorted by length within windows of this many rows (1: no sort)
  label n_chunks = 0;    ///< ceil(n_rows / C)
  /// Sorted position p (0 <= p < n_rows) holds CSR row row_order[p]; chunk c, lane r is position
  /// p = c * C + r. Lanes with p >= n_rows (only in the last chunk) are padding and write nothing.
  std::vector<label> row_order;
  /// n_chunks + 1 entries: chunk c occupies slots [chunk_ptr[c], chunk_ptr[c+1]) of col/values;
  /// its width (entries per lane) is (chunk_ptr[c+1] - chunk_ptr[c]) / C.
  std::vector<std::int64_t> chunk_ptr;
  /// chunk_ptr[n_chunks] entries; entry k of lane r in chunk c is at slot chunk_ptr[c] + k * C + r.
  /// A lane's real entries come first (columns ascending, CSR numbering); the rest is padding (-1).
  std::vector<label> col;
  std::vector<double> values;             ///< same layout as col; padding holds 0
  std::vector<std::int64_t> value_slot;  ///< nnz entries: CSR slot -> slot in values/col
  std::int64_t n_nonzeros = 0;

  /// Entries per lane in chunk c.
  label chunk_width(label c) const { return static_cast<label>((chunk_ptr[c + 1] - chunk_ptr[c]) / chunk_size); }
  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return n_nonzeros; }
  /// Entries stored, padding included.
  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values.size()); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return nnz() > 0 ? static_cast<double>(stored_entries()) / nnz() : 1.0; }
  /// Bytes of the arrays a kernel reads: col, values, chunk_ptr, row_order.
  std::int64_t footprint_bytes() const {
    return static_cast<std::int64_t>(col.size() * sizeof(label) + values.size() * sizeof(double) +
                                     chunk_ptr.size() * sizeof(std::int64_t) + row_order.size() * sizeof(label));
  }
};

/// SELL-C-sigma from CSR.
/// @throws std::invalid_argument unless chunk_size > 0 and sort_window >= 1
SellMatrix build_sell(const CsrMatrix& csr, int chunk_size, int sort_window);

}  // namespace fvmmini
