#include "kernels/reference/ellwarp_spmv.hpp"

#include <cstdint>

#include "kernels/reference/ell_block.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini::reference {

void ellwarp_spmv(const EllWarpMatrix& a, std::span<const double> x, std::span<double> y) {
  constexpr label lanes = EllWarpMatrix::warp_size;
  const label* row_order = a.row_order.data();
  const bool in_place = a.rows_in_place;
  // --- per slice s: lane partials acc[l] = sum_k val[slice_ptr[s] + k 32 + l] x[col[...]], then the
  //     t lanes of each row folded into its first (t = 1: the partial is the row's sum)
#pragma omp parallel for schedule(static) if (a.n_rows >= min_parallel_rows)
  for (label s = 0; s < a.n_slices; ++s) {
    double acc[lanes];
    ell_block(a.col.data(), a.values.data(), a.slice_ptr[s], lanes, a.slice_width(s), lanes, x.data(), acc);
    const label t = a.threads_per_row[s];
    for (label r = 0; r < a.slice_rows(s); ++r) {
      double* part = acc + r * t;
      for (label offset = t / 2; offset > 0; offset /= 2)
        for (label j = 0; j < offset; ++j) part[j] += part[j + offset];
      const label p = a.slice_row[s] + r;
      y[in_place ? p : row_order[p]] = part[0];
    }
  }
}

}  // namespace fvmmini::reference
