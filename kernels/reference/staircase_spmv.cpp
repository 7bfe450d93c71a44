#include "kernels/reference/staircase_spmv.hpp"

#include <algorithm>
#include <cstdint>

namespace fvmmini::reference {

void staircase_spmv(const StaircaseMatrix& a, std::span<const double> x, std::span<double> y) {
  const auto& idx = a.index;
  const label n = a.n_rows;
  const std::int64_t sh = a.slice_height;
  const label* col = a.col.data();
  const double* val = a.values.data();
#pragma omp parallel
  for (label g = 0; g < idx.n_groups(); ++g) {
    const label length = idx.step_lengths[g];
    const label row_start = idx.row_ptr[g];
    // --- slice b of group g, lane t: row row_start + b sh + t reads slots step_ptr[g] + b L sh + k sh + t
#pragma omp for schedule(static) nowait
    for (label b = 0; b < idx.step_blocks[g]; ++b) {
      const std::int64_t slice_start = idx.step_ptr[g] + b * length * sh;
      const label first_row = row_start + static_cast<label>(b * sh);
      const label lanes = static_cast<label>(std::min<std::int64_t>(sh, n - first_row));
      for (label t = 0; t < lanes; ++t) {
        double sum = 0.0;
        std::int64_t slot = slice_start + t;
        for (label k = 0; k < length; ++k, slot += sh) {
          const label j = col[slot];
          if (j < 0) break;  // a row's padding is its tail; column 0 is real
          sum += val[slot] * x[j];
        }
        y[first_row + t] = sum;
      }
    }
  }
}

}  // namespace fvmmini::reference
