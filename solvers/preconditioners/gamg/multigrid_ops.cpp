#include "solvers/preconditioners/gamg/multigrid_ops.hpp"

#include <cstddef>

#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {
std::ptrdiff_t size(std::span<const double> v) { return static_cast<std::ptrdiff_t>(v.size()); }
}  // namespace

void residual(std::span<const double> b, std::span<const double> ax, std::span<double> r) {
  const std::ptrdiff_t n = size(b);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i) r[i] = b[i] - ax[i];
}

void restrict_residual(const Transfer& t, std::span<const double> b, std::span<const double> ax,
                       std::span<double> coarse) {
  const std::ptrdiff_t n = size(coarse);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t c = 0; c < n; ++c) {
    double sum = 0.0;
    for (label k = t.group_ptr[c]; k < t.group_ptr[c + 1]; ++k) sum += b[t.group_rows[k]] - ax[t.group_rows[k]];
    coarse[c] = sum;
  }
}

void prolong_add(const Transfer& t, double scale, std::span<const double> coarse, std::span<double> fine) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(fine.size());
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i) fine[i] += scale * coarse[t.coarse_of[i]];
}

void jacobi_start(double weight, std::span<const double> inv_diag, std::span<const double> b, std::span<double> x) {
  const std::ptrdiff_t n = size(b);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i) x[i] = weight * inv_diag[i] * b[i];
}

void jacobi_correct(double weight, std::span<const double> inv_diag, std::span<const double> b,
                    std::span<const double> ax, std::span<double> x) {
  const std::ptrdiff_t n = size(b);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i) x[i] += weight * inv_diag[i] * (b[i] - ax[i]);
}

void dense_multiply(std::span<const double> inverse, std::span<const double> b, std::span<double> x) {
  const std::ptrdiff_t rows = size(x), columns = size(b);
  for (std::ptrdiff_t i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (std::ptrdiff_t j = 0; j < columns; ++j) sum += inverse[i * columns + j] * b[j];
    x[i] = sum;
  }
}

}  // namespace fvmmini::reference
