#include "kernels/reference/triangular_solve.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kernels/reference/ell_block.hpp"
#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {

// The operator row of the k-th row of the level starting at `first`: without the indirection
// where the ordering numbers the rows level by level.
inline label row_of(const TriangularFactor& f, label first, label k) {
  return f.rows_contiguous ? first + k : f.rows[first + k];
}

/// fn(level, level size, k0, lanes) for each block of up to ell_block_lanes consecutive rows
/// k0 .. k0 + lanes - 1 of every level: the levels in order (forward) or in reverse, each level's
/// rows split evenly among the threads (a level of fewer rows than two blocks of 256 left one
/// thread idle), a barrier after each level.
template <class Fn>
inline void for_each_block(const TriangularFactor& f, bool forward, Fn&& fn) {
  const label levels = f.levels();
  const bool parallel = f.n_rows >= min_parallel_rows && f.n_rows >= min_parallel_level * levels;
#pragma omp parallel if (parallel)
  {
    const label threads = omp_get_num_threads(), thread = omp_get_thread_num();
    for (label n = 0; n < levels; ++n) {
      const label l = forward ? n : levels - 1 - n;
      const label size = f.level_size(l);
      const label end = static_cast<label>(std::int64_t{size} * (thread + 1) / threads);
      for (label k0 = static_cast<label>(std::int64_t{size} * thread / threads); k0 < end; k0 += ell_block_lanes)
        fn(l, size, k0, std::min(ell_block_lanes, end - k0));
#pragma omp barrier
    }
  }
}

/// acc[t] = sum_k value * x[col] over row k0 + t of level l's block of `part`, for t < lanes.
inline void block_sums(const TrianglePart& part, label l, label size, label k0, label lanes,
                       std::span<const double> x, double* acc) {
  ell_block(part.col.data(), part.value.data(), part.offset[l] + k0, size, part.width[l], lanes, x.data(), acc);
}

}  // namespace

void triangular_apply(const TriangularFactor& f, std::span<const double> r, std::span<double> z) {
  // --- forward: y_i = (r_i - L_i y) / d~_i; backward: z_i = y_i - U_i z / d~_i
  for_each_block(f, true, [&](label l, label size, label k0, label lanes) {
    double lower[ell_block_lanes];
    block_sums(f.lower, l, size, k0, lanes, z, lower);
    for (label t = 0; t < lanes; ++t) {
      const label i = row_of(f, f.level_ptr[l], k0 + t);
      z[i] = (r[i] - lower[t]) * f.rdiag[i];
    }
  });
  for_each_block(f, false, [&](label l, label size, label k0, label lanes) {
    double upper[ell_block_lanes];
    block_sums(f.upper, l, size, k0, lanes, z, upper);
    for (label t = 0; t < lanes; ++t) {
      const label i = row_of(f, f.level_ptr[l], k0 + t);
      z[i] -= upper[t] * f.rdiag[i];
    }
  });
}

void sgs_sweep(const TriangularFactor& f, std::span<const double> b, std::span<double> x, std::span<double> t,
               bool from_zero) {
  if (f.modified_diagonal) throw std::logic_error("sgs_sweep: a DIC factor is not a Gauss-Seidel splitting");
  // a block's rows are of one level: none reads another's x, so its sums come before its writes
  for_each_block(f, true, [&](label l, label size, label k0, label lanes) {
    double lower[ell_block_lanes], upper[ell_block_lanes];
    block_sums(f.lower, l, size, k0, lanes, x, lower);
    if (!from_zero) block_sums(f.upper, l, size, k0, lanes, x, upper);
    for (label k = 0; k < lanes; ++k) {
      const label i = row_of(f, f.level_ptr[l], k0 + k);
      const double ti = b[i] - lower[k];
      t[i] = ti;
      x[i] = (from_zero ? ti : ti - upper[k]) * f.rdiag[i];
    }
  });
  for_each_block(f, false, [&](label l, label size, label k0, label lanes) {
    double upper[ell_block_lanes];
    block_sums(f.upper, l, size, k0, lanes, x, upper);
    for (label k = 0; k < lanes; ++k) {
      const label i = row_of(f, f.level_ptr[l], k0 + k);
      x[i] = (t[i] - upper[k]) * f.rdiag[i];
    }
  });
}

void sgs_multiply(const TriangularFactor& f, std::span<const double> t, std::span<const double> x,
                  std::span<double> ax) {
  for_each_block(f, true, [&](label l, label size, label k0, label lanes) {
    double lower[ell_block_lanes];
    block_sums(f.lower, l, size, k0, lanes, x, lower);
    for (label k = 0; k < lanes; ++k) {
      const label i = row_of(f, f.level_ptr[l], k0 + k);
      ax[i] = t[i] + lower[k];
    }
  });
}

}  // namespace fvmmini::reference
