#include "kernels/reference/triangular_solve.hpp"

#include <cstdint>
#include <stdexcept>

#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {

// sum_k value * x[col] over the r-th row of level l's block of `part`.
inline double row_sum(const TrianglePart& part, label l, label size, label r, std::span<const double> x) {
  double s = 0.0;
  const std::int64_t base = part.offset[l] + r;
  for (label k = 0; k < part.width[l]; ++k) {
    const std::int64_t slot = base + static_cast<std::int64_t>(k) * size;
    s += part.value[slot] * x[part.col[slot]];
  }
  return s;
}

// The operator row of the k-th row of the level starting at `first`: without the indirection
// where the ordering numbers the rows level by level.
inline label row_of(const TriangularFactor& f, label first, label k) {
  return f.rows_contiguous ? first + k : f.rows[first + k];
}

/// fn(level, level size, k, row) for the k-th row of every level: the levels in order (forward)
/// or in reverse, the rows of one level in parallel.
template <class Fn>
inline void for_each_row(const TriangularFactor& f, bool forward, Fn&& fn) {
  const label levels = f.levels();
  for (label n = 0; n < levels; ++n) {
    const label l = forward ? n : levels - 1 - n;
    const label size = f.level_size(l), first = f.level_ptr[l];
#pragma omp parallel for schedule(static) if (size >= min_parallel_rows)
    for (label k = 0; k < size; ++k) fn(l, size, k, row_of(f, first, k));
  }
}

}  // namespace

void triangular_apply(const TriangularFactor& f, std::span<const double> r, std::span<double> z) {
  // --- forward: y_i = (r_i - L_i y) / d~_i; backward: z_i = y_i - U_i z / d~_i
  for_each_row(f, true, [&](label l, label size, label k, label i) {
    z[i] = (r[i] - row_sum(f.lower, l, size, k, z)) * f.rdiag[i];
  });
  for_each_row(f, false, [&](label l, label size, label k, label i) {
    z[i] -= row_sum(f.upper, l, size, k, z) * f.rdiag[i];
  });
}

void sgs_sweep(const TriangularFactor& f, std::span<const double> b, std::span<double> x, std::span<double> t,
               bool from_zero) {
  if (f.modified_diagonal) throw std::logic_error("sgs_sweep: a DIC factor is not a Gauss-Seidel splitting");
  for_each_row(f, true, [&](label l, label size, label k, label i) {
    const double ti = b[i] - row_sum(f.lower, l, size, k, x);
    t[i] = ti;
    x[i] = (from_zero ? ti : ti - row_sum(f.upper, l, size, k, x)) * f.rdiag[i];
  });
  for_each_row(f, false, [&](label l, label size, label k, label i) {
    x[i] = (t[i] - row_sum(f.upper, l, size, k, x)) * f.rdiag[i];
  });
}

void sgs_multiply(const TriangularFactor& f, std::span<const double> t, std::span<const double> x,
                  std::span<double> ax) {
  for_each_row(f, true, [&](label l, label size, label k, label i) {
    ax[i] = t[i] + row_sum(f.lower, l, size, k, x);
  });
}

}  // namespace fvmmini::reference
