#include "kernels/reference/staircase_spmv.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "linalg/block_vectors.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {

// y_row = sum_k val[s] x[col[s]], s = slice_start + k sh + lane, for the slice's first `lanes` rows:
// one row at a time, its sum in a register; padding (column -1) adds nothing, column 0 is a real
// column. Length > 0 unrolls the k loop for that many entries per row (the common short groups);
// Length 0 takes the length at run time.
// K vectors interleaved by row: y[lane K + i] against x[col K + i] (K = 1: one vector).
template <int Length, int K>
void slice_rows(const label* col, const double* val, std::int64_t sh, label length, label lanes, const double* x,
                double* y) {
  const label entries = Length > 0 ? Length : length;
  for (label lane = 0; lane < lanes; ++lane) {
    const label* c = col + lane;
    const double* v = val + lane;
    double sum[K] = {};
    for (label k = 0; k < entries; ++k) {
      const label j = c[k * sh];
      if (j >= 0)
        for (int i = 0; i < K; ++i) sum[i] += v[k * sh] * x[static_cast<std::int64_t>(j) * K + i];
    }
    for (int i = 0; i < K; ++i) y[static_cast<std::int64_t>(lane) * K + i] = sum[i];
  }
}

template <int K>
void staircase_spmv_k(const StaircaseMatrix& a, std::span<const double> x, std::span<double> y) {
  const auto& idx = a.index;
  const label n = a.n_rows;
  const std::int64_t sh = a.slice_height;
  const label n_groups = idx.n_groups();
  const std::int64_t n_slices = std::accumulate(idx.step_blocks.begin(), idx.step_blocks.end(), std::int64_t{0});
  const label* col = a.col.data();
  const double* val = a.values.data();
  // One parallel region for all groups (not one per group): thread t takes an equal share of all
  // slices in order, whichever groups they fall in.
#pragma omp parallel if (n >= min_parallel_rows)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int64_t first = n_slices * t / nt, last = n_slices * (t + 1) / nt;
    // --- slice s is slice b = s - (slices of the groups before) of group g
    label g = 0;
    std::int64_t group_first = 0;
    while (g < n_groups && group_first + idx.step_blocks[g] <= first) group_first += idx.step_blocks[g++];
    for (std::int64_t s = first; s < last; ++s) {
      while (s >= group_first + idx.step_blocks[g]) group_first += idx.step_blocks[g++];
      const std::int64_t b = s - group_first;
      const label length = idx.step_lengths[g];
      const std::int64_t slice_start = idx.step_ptr[g] + b * length * sh;
      const label first_row = idx.row_ptr[g] + static_cast<label>(b * sh);
      const label lanes = static_cast<label>(std::min<std::int64_t>(sh, n - first_row));  // padding rows write nothing
      // --- the slice's rows, unrolled for the usual FVM row lengths
      const label* c = col + slice_start;
      const double* v = val + slice_start;
      double* y_slice = y.data() + static_cast<std::int64_t>(first_row) * K;
      switch (length) {
        case 3: slice_rows<3, K>(c, v, sh, length, lanes, x.data(), y_slice); break;
        case 4: slice_rows<4, K>(c, v, sh, length, lanes, x.data(), y_slice); break;
        case 5: slice_rows<5, K>(c, v, sh, length, lanes, x.data(), y_slice); break;
        case 6: slice_rows<6, K>(c, v, sh, length, lanes, x.data(), y_slice); break;
        case 7: slice_rows<7, K>(c, v, sh, length, lanes, x.data(), y_slice); break;
        default: slice_rows<0, K>(c, v, sh, length, lanes, x.data(), y_slice); break;
      }
    }
  }
}

}  // namespace

void staircase_spmv(const StaircaseMatrix& a, std::span<const double> x, std::span<double> y) {
  staircase_spmv_k<1>(a, x, y);
}

void staircase_spmv_block(const StaircaseMatrix& a, int k, std::span<const double> x, std::span<double> y) {
  dispatch_block(k, [&]<int K>() { staircase_spmv_k<K>(a, x, y); });
}

}  // namespace fvmmini::reference
