#pragma once
// y = A x for ELL-WARP on the CPU (OpenMP over slices; y scattered through row_order unless the
// rows are in place). K2 rows sum their t lane partials in the CUDA kernel's shuffle-tree order.

#include <span>

#include "linalg/formats/ellwarp_matrix.hpp"

namespace fvmmini::reference {

/// @param[in] x length n_rows; @param[out] y length n_rows (overwritten, every row)
void ellwarp_spmv(const EllWarpMatrix& a, std::span<const double> x, std::span<double> y);

}  // namespace fvmmini::reference
