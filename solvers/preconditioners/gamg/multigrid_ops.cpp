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
                       std::span<double> coarse, int k) {
  const std::ptrdiff_t n = size(coarse) / k;
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t c = 0; c < n; ++c)
    for (int j = 0; j < k; ++j) {
      double sum = 0.0;
      for (label g = t.group_ptr[c]; g < t.group_ptr[c + 1]; ++g) {
        const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(t.group_rows[g]) * k + j;
        sum += b[at] - ax[at];
      }
      coarse[c * k + j] = sum;
    }
}

void prolong_add(const Transfer& t, double scale, std::span<const double> coarse, std::span<double> fine, int k) {
  const std::ptrdiff_t n = size(fine) / k;
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) fine[i * k + j] += scale * coarse[static_cast<std::ptrdiff_t>(t.coarse_of[i]) * k + j];
}

void jacobi_start(double weight, std::span<const double> inv_diag, std::span<const double> b, std::span<double> x,
                  int k) {
  const std::ptrdiff_t n = size(inv_diag);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) x[i * k + j] = weight * inv_diag[i] * b[i * k + j];
}

void jacobi_correct(double weight, std::span<const double> inv_diag, std::span<const double> b,
                    std::span<const double> ax, std::span<double> x, int k) {
  const std::ptrdiff_t n = size(inv_diag);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) x[i * k + j] += weight * inv_diag[i] * (b[i * k + j] - ax[i * k + j]);
}

void dense_multiply(std::span<const double> inverse, std::span<const double> b, std::span<double> x, int k) {
  const std::ptrdiff_t rows = size(x) / k, columns = size(b) / k;
  for (std::ptrdiff_t i = 0; i < rows; ++i)
    for (int j = 0; j < k; ++j) {
      double sum = 0.0;
      for (std::ptrdiff_t c = 0; c < columns; ++c) sum += inverse[i * columns + c] * b[c * k + j];
      x[i * k + j] = sum;
    }
}

}  // namespace fvmmini::reference
