#pragma once
// Compressed sparse row storage, built from the LDU matrix with the maps that
// refresh its values in place when the coefficients change.

#include <span>
#include <vector>

#include "base/unfilled_vector.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

struct CsrMatrix {
  label n_rows = 0;
  std::vector<std::int64_t> row_ptr{0};  ///< n_rows + 1 offsets
  std::vector<label> col;                ///< sorted within each row
  std::vector<double> values;

  std::int64_t nnz() const { return row_ptr.back(); }
};

/// Where each LDU coefficient lands in the CSR value array (unfilled arrays: their builder writes
/// every slot).
struct LduToCsrMap {
  UnfilledVector<std::int64_t> diag_slot;   ///< per row
  UnfilledVector<std::int64_t> upper_slot;  ///< per face: slot of (lower[f], upper[f])
  UnfilledVector<std::int64_t> lower_slot;  ///< per face: slot of (upper[f], lower[f])
};

/// CSR with sorted columns (diagonal included even when zero).
/// @param[out] map if not null, receives the LDU -> CSR slot map
CsrMatrix ldu_to_csr(const LduMatrix& ldu, LduToCsrMap* map = nullptr);

/// Copy the LDU coefficients into CSR values through the slot map.
void refresh_csr_values(const LduMatrix& ldu, const LduToCsrMap& map, std::span<double> values);

}  // namespace fvmmini
