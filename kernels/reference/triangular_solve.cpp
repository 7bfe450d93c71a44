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

}  // namespace

void triangular_apply(const TriangularFactor& f, std::span<const double> r, std::span<double> z) {
  const label levels = f.levels();
  // --- forward: y_i = (r_i - L_i y) / d~_i, level by level
  for (label l = 0; l < levels; ++l) {
    const label size = f.level_size(l), first = f.level_ptr[l];
#pragma omp parallel for schedule(static) if (size >= min_parallel_rows)
    for (label k = 0; k < size; ++k) {
      const label i = row_of(f, first, k);
      z[i] = (r[i] - row_sum(f.lower, l, size, k, z)) * f.rdiag[i];
    }
  }
  // --- backward: z_i = y_i - U_i z / d~_i, the levels in reverse
  for (label l = levels - 1; l >= 0; --l) {
    const label size = f.level_size(l), first = f.level_ptr[l];
#pragma omp parallel for schedule(static) if (size >= min_parallel_rows)
    for (label k = 0; k < size; ++k) {
      const label i = row_of(f, first, k);
      z[i] -= row_sum(f.upper, l, size, k, z) * f.rdiag[i];
    }
  }
}

void sgs_sweep(const TriangularFactor& f, std::span<const double> b, std::span<double> x, std::span<double> t,
               bool from_zero) {
  if (f.modified_diagonal) throw std::logic_error("sgs_sweep: a DIC factor is not a Gauss-Seidel splitting");
  const label levels = f.levels();
  for (label l = 0; l < levels; ++l) {
    const label size = f.level_size(l), first = f.level_ptr[l];
#pragma omp parallel for schedule(static) if (size >= min_parallel_rows)
    for (label k = 0; k < size; ++k) {
      const label i = row_of(f, first, k);
      const double ti = b[i] - row_sum(f.lower, l, size, k, x);
      t[i] = ti;
      x[i] = (from_zero ? ti : ti - row_sum(f.upper, l, size, k, x)) * f.rdiag[i];
    }
  }
  for (label l = levels - 1; l >= 0; --l) {
    const label size = f.level_size(l), first = f.level_ptr[l];
#pragma omp parallel for schedule(static) if (size >= min_parallel_rows)
    for (label k = 0; k < size; ++k) {
      const label i = row_of(f, first, k);
      x[i] = (t[i] - row_sum(f.upper, l, size, k, x)) * f.rdiag[i];
    }
  }
}

void sgs_multiply(const TriangularFactor& f, std::span<const double> t, std::span<const double> x,
                  std::span<double> ax) {
  for (label l = 0; l < f.levels(); ++l) {
    const label size = f.level_size(l), first = f.level_ptr[l];
#pragma omp parallel for schedule(static) if (size >= min_parallel_rows)
    for (label k = 0; k < size; ++k) {
      const label i = row_of(f, first, k);
      ax[i] = t[i] + row_sum(f.lower, l, size, k, x);
    }
  }
}

}  // namespace fvmmini::reference
