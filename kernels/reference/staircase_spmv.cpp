#include "kernels/reference/staircase_spmv.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/reference/ell_block.hpp"

namespace fvmmini::reference {

void staircase_spmv(const StaircaseMatrix& a, std::span<const double> x, std::span<double> y) {
  const auto& idx = a.index;
  const label n = a.n_rows;
  const std::int64_t sh = a.slice_height;
#pragma omp parallel
  for (label g = 0; g < idx.n_groups(); ++g) {
    const label length = idx.step_lengths[g];
    // --- slice b of group g, lane t: row row_ptr[g] + b sh + t reads slots step_ptr[g] + b L sh + k sh + t
#pragma omp for schedule(static) nowait
    for (label b = 0; b < idx.step_blocks[g]; ++b) {
      const std::int64_t slice_start = idx.step_ptr[g] + static_cast<std::int64_t>(b) * length * sh;
      const label first_row = idx.row_ptr[g] + static_cast<label>(b * sh);
      const label lanes = static_cast<label>(std::min<std::int64_t>(sh, n - first_row));  // padding rows write nothing
      for (label t0 = 0; t0 < lanes; t0 += ell_block_lanes)
        ell_block(a.col.data(), a.values.data(), slice_start + t0, sh, length, std::min(ell_block_lanes, lanes - t0),
                  x.data(), y.data() + first_row + t0);
    }
  }
}

}  // namespace fvmmini::reference
