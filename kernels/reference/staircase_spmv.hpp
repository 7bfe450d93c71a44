#pragma once
// y = A x for Staircase SELL on the CPU: group by group, OpenMP over the slices of each group.

#include <span>

#include "linalg/formats/staircase_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten)
void staircase_spmv(const StaircaseMatrix& a, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
