#pragma once
// What every storage format shares: the padding marker and the CSR -> format value map.
//
// Every format is built from a CSR matrix (already in the ordering's numbering, columns
// sorted within rows). Formats that store the values in another order keep
// `value_slot[k]` = the index in their own `values` array of CSR value slot k, so new
// coefficients are scattered in place (values[value_slot[k]] = csr.values[k]) without
// rebuilding anything. Padding entries are not in the map: they stay 0 with column -1.

#include <cstdint>

#include "linalg/csr_matrix.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

/// Column index of a padding entry (its value is 0). Column 0 is a real column: test `col >= 0`.
inline constexpr label padding_column = -1;

/// Copy CSR row `row` into a column-major (ELLPACK-style) block: its entry k goes to slot
/// first_slot + k * stride of m.col / m.values, and value_slot records where.
template <class Format>
void place_row_column_major(const CsrMatrix& csr, label row, std::int64_t first_slot, std::int64_t stride,
                            Format& m) {
  for (auto k = csr.row_ptr[row]; k < csr.row_ptr[row + 1]; ++k) {
    const std::int64_t slot = first_slot + (k - csr.row_ptr[row]) * stride;
    m.col[slot] = csr.col[k];
    m.values[slot] = csr.values[k];
    m.value_slot[k] = slot;
  }
}

}  // namespace fvmmini
