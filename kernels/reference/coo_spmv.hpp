#pragma once
// y = A x for COO on the CPU (threads take row-aligned ranges of entries).

#include <span>

#include "linalg/formats/coo_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten)
void coo_spmv(const CooMatrix& a, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
