#include "solvers/preconditioners/triangular/triangular_solve.hpp"

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
/// rows split evenly among the threads (not whole blocks a thread: a level of fewer than two
/// blocks would leave a thread idle), a barrier after each level.
template <class Fn>
inline void for_each_block(const TriangularFactor& f, bool forward, Fn&& fn) {
  const label levels = f.levels();
#pragma omp parallel if (threads_share_levels(f))
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

enum class Sums { lower, upper, both };

/// fn(i, L_i x, U_i x) for every row i, level by level (for_each_block), the sums a row's block
/// needs (`sums`; the other passed as 0) taken for the whole block before fn writes any of its rows:
/// none of a level's rows reads another's.
template <class Fn>
inline void for_each_row(const TriangularFactor& f, bool forward, Sums sums, std::span<const double> x, Fn&& fn) {
  for_each_block(f, forward, [&](label l, label size, label k0, label lanes) {
    const bool with_lower = sums != Sums::upper, with_upper = sums != Sums::lower;
    double lower[ell_block_lanes], upper[ell_block_lanes];
    if (with_lower) block_sums(f.lower, l, size, k0, lanes, x, lower);
    if (with_upper) block_sums(f.upper, l, size, k0, lanes, x, upper);
    for (label t = 0; t < lanes; ++t)
      fn(row_of(f, f.level_ptr[l], k0 + t), with_lower ? lower[t] : 0.0, with_upper ? upper[t] : 0.0);
  });
}

}  // namespace

bool threads_share_levels(const TriangularFactor& f) {
  return f.n_rows >= min_parallel_rows && f.n_rows >= std::int64_t{min_parallel_level} * f.levels();
}

void triangular_apply(const TriangularFactor& f, std::span<const double> r, std::span<double> z) {
  // --- forward: y_i = (r_i - L_i y) / d~_i; backward: z_i = y_i - U_i z / d~_i
  for_each_row(f, true, Sums::lower, z, [&](label i, double lz, double) { z[i] = (r[i] - lz) * f.rdiag[i]; });
  for_each_row(f, false, Sums::upper, z, [&](label i, double, double uz) { z[i] -= uz * f.rdiag[i]; });
}

void sgs_sweep(const TriangularFactor& f, std::span<const double> b, std::span<double> x, std::span<double> t,
               bool from_zero) {
  if (f.modified_diagonal) throw std::logic_error("sgs_sweep: a DIC factor is not a Gauss-Seidel splitting");
  for_each_row(f, true, from_zero ? Sums::lower : Sums::both, x, [&](label i, double lx, double ux) {
    const double ti = b[i] - lx;
    t[i] = ti;
    x[i] = (ti - ux) * f.rdiag[i];
  });
  for_each_row(f, false, Sums::upper, x, [&](label i, double, double ux) { x[i] = (t[i] - ux) * f.rdiag[i]; });
}

void gs_sweep(const TriangularFactor& f, std::span<const double> b, std::span<double> x) {
  if (f.modified_diagonal) throw std::logic_error("gs_sweep: a DIC factor is not a Gauss-Seidel splitting");
  for_each_row(f, true, Sums::both, x, [&](label i, double lx, double ux) { x[i] = (b[i] - lx - ux) * f.rdiag[i]; });
}

void sgs_multiply(const TriangularFactor& f, std::span<const double> t, std::span<const double> x,
                  std::span<double> ax) {
  for_each_row(f, true, Sums::lower, x, [&](label i, double lx, double) { ax[i] = t[i] + lx; });
}

}  // namespace fvmmini::reference
