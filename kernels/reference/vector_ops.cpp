#include "kernels/reference/vector_ops.hpp"

#include "linalg/parallel.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace fvmmini::reference {

namespace {

using index = std::ptrdiff_t;
constexpr int max_threads = 256;

/// Sums N terms over i in [0, n): each thread sums a fixed contiguous block and the
/// partial sums are added in thread order, so the result does not depend on timing.
/// @param[in] accumulate called as accumulate(i, acc) with acc a std::array<double, N>&
template <int N, class F>
std::array<double, N> parallel_sums(index n, F&& accumulate) {
  std::array<std::array<double, N>, max_threads> partial{};
  int n_threads = 1;
#pragma omp parallel num_threads(std::min(omp_get_max_threads(), max_threads)) if (n >= min_parallel_rows)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    if (t == 0) n_threads = nt;  // read after the region: no barrier needed here
    std::array<double, N> acc{};
    for (index i = n * t / nt; i < n * (t + 1) / nt; ++i) accumulate(i, acc);
    partial[t] = acc;
  }
  std::array<double, N> total{};
  for (int t = 0; t < n_threads; ++t)
    for (int k = 0; k < N; ++k) total[k] += partial[t][k];
  return total;
}

index size_of(std::span<const double> a) { return static_cast<index>(a.size()); }

}  // namespace

double dot(std::span<const double> a, std::span<const double> b) {
  return parallel_sums<1>(size_of(a), [&](index i, auto& acc) { acc[0] += a[i] * b[i]; })[0];
}

double sum_abs(std::span<const double> a) {
  return parallel_sums<1>(size_of(a), [&](index i, auto& acc) { acc[0] += std::abs(a[i]); })[0];
}

double mean(std::span<const double> a) {
  if (a.empty()) return 0.0;
  return parallel_sums<1>(size_of(a), [&](index i, auto& acc) { acc[0] += a[i]; })[0] / static_cast<double>(a.size());
}

double residual_and_norm_factor(std::span<const double> b, std::span<const double> ax, std::span<const double> row_sums,
                                double x_ref, std::span<double> r, double& norm_factor) {
  const auto sums = parallel_sums<2>(size_of(b), [&](index i, auto& acc) {
    const double a_ref = row_sums[i] * x_ref;
    r[i] = b[i] - ax[i];
    acc[0] += std::abs(r[i]);
    acc[1] += std::abs(ax[i] - a_ref) + std::abs(b[i] - a_ref);
  });
  norm_factor = sums[1];
  return sums[0];
}

double jacobi_apply_dot(std::span<const double> r, std::span<const double> inv_diag, std::span<double> z) {
  return parallel_sums<1>(size_of(r), [&](index i, auto& acc) {
    z[i] = r[i] * inv_diag[i];
    acc[0] += r[i] * z[i];
  })[0];
}

void xpby(std::span<const double> z, double beta, std::span<double> p) {
#pragma omp parallel for schedule(static) if (size_of(z) >= min_parallel_rows)
  for (index i = 0; i < size_of(z); ++i) p[i] = z[i] + beta * p[i];
}

void axpy(double alpha, std::span<const double> p, std::span<double> x) {
#pragma omp parallel for schedule(static) if (size_of(p) >= min_parallel_rows)
  for (index i = 0; i < size_of(p); ++i) x[i] += alpha * p[i];
}

double residual_update(double alpha, std::span<const double> q, std::span<const double> inv_diag, std::span<double> r,
                       double& r_dot_z) {
  // Two loops rather than a test per element: the Jacobi one reads one more vector.
  const auto sums = inv_diag.empty() ? parallel_sums<2>(size_of(r), [&](index i, auto& acc) {
    const double ri = r[i] - alpha * q[i];
    r[i] = ri;
    acc[0] += std::abs(ri);
    acc[1] += ri * ri;
  })
                                     : parallel_sums<2>(size_of(r), [&](index i, auto& acc) {
                                         const double ri = r[i] - alpha * q[i];
                                         r[i] = ri;
                                         acc[0] += std::abs(ri);
                                         acc[1] += ri * (ri * inv_diag[i]);
                                       });
  r_dot_z = sums[1];
  return sums[0];
}

void solution_and_direction_update(double alpha, double beta, std::span<const double> r,
                                   std::span<const double> inv_diag, std::span<double> p, std::span<double> x) {
  const index n = size_of(r);
  if (inv_diag.empty()) {
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
    for (index i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      p[i] = r[i] + beta * p[i];
    }
  } else {
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
    for (index i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      p[i] = r[i] * inv_diag[i] + beta * p[i];
    }
  }
}

// --- k vectors interleaved by row: the loops above with j inside, the sums of vector j at 2j, 2j + 1

namespace {

/// Rows of a block of k vectors.
index rows_of(int k, std::span<const double> a) { return size_of(a) / k; }

template <int K>
BlockScalars first_of_pairs(const std::array<double, 2 * K>& sums, BlockScalars* second = nullptr) {
  BlockScalars first{};
  for (int j = 0; j < K; ++j) {
    first[j] = sums[2 * j];
    if (second) (*second)[j] = sums[2 * j + 1];
  }
  return first;
}

template <int K>
BlockScalars block_sums_of_products(std::span<const double> a, std::span<const double> b) {
  const auto sums = parallel_sums<K>(size_of(a) / K, [&](index i, auto& acc) {
    for (int j = 0; j < K; ++j) acc[j] += a[i * K + j] * b[i * K + j];
  });
  BlockScalars out{};
  for (int j = 0; j < K; ++j) out[j] = sums[j];
  return out;
}

}  // namespace

BlockScalars block_mean(int k, std::span<const double> a) {
  BlockScalars out{};
  const index n = rows_of(k, a);
  if (n == 0) return out;
  dispatch_block(k, [&]<int K>() {
    const auto sums = parallel_sums<K>(n, [&](index i, auto& acc) {
      for (int j = 0; j < K; ++j) acc[j] += a[i * K + j];
    });
    for (int j = 0; j < K; ++j) out[j] = sums[j] / static_cast<double>(n);
  });
  return out;
}

BlockScalars block_dot(int k, std::span<const double> a, std::span<const double> b) {
  BlockScalars out{};
  dispatch_block(k, [&]<int K>() { out = block_sums_of_products<K>(a, b); });
  return out;
}

BlockScalars block_residual_and_norm_factor(int k, std::span<const double> b, std::span<const double> ax,
                                            std::span<const double> row_sums, const BlockScalars& x_ref,
                                            std::span<double> r, BlockScalars& norm_factor) {
  BlockScalars out{};
  dispatch_block(k, [&]<int K>() {
    const auto sums = parallel_sums<2 * K>(rows_of(K, b), [&](index i, auto& acc) {
      for (int j = 0; j < K; ++j) {
        const index v = i * K + j;
        const double a_ref = row_sums[i] * x_ref[j];
        r[v] = b[v] - ax[v];
        acc[2 * j] += std::abs(r[v]);
        acc[2 * j + 1] += std::abs(ax[v] - a_ref) + std::abs(b[v] - a_ref);
      }
    });
    out = first_of_pairs<K>(sums, &norm_factor);
  });
  return out;
}

BlockScalars block_jacobi_apply_dot(int k, std::span<const double> r, std::span<const double> inv_diag,
                                    std::span<double> z) {
  BlockScalars out{};
  dispatch_block(k, [&]<int K>() {
    const auto sums = parallel_sums<K>(rows_of(K, r), [&](index i, auto& acc) {
      for (int j = 0; j < K; ++j) {
        const index v = i * K + j;
        z[v] = r[v] * inv_diag[i];
        acc[j] += r[v] * z[v];
      }
    });
    for (int j = 0; j < K; ++j) out[j] = sums[j];
  });
  return out;
}

BlockScalars block_residual_update(int k, const BlockScalars& alpha, std::span<const double> q,
                                   std::span<const double> inv_diag, std::span<double> r, BlockScalars& r_dot_z) {
  BlockScalars out{};
  dispatch_block(k, [&]<int K>() {
    const auto sums = parallel_sums<2 * K>(rows_of(K, r), [&](index i, auto& acc) {
      for (int j = 0; j < K; ++j) {
        const index v = i * K + j;
        const double ri = r[v] - alpha[j] * q[v];
        r[v] = ri;
        acc[2 * j] += std::abs(ri);
        acc[2 * j + 1] += inv_diag.empty() ? ri * ri : ri * (ri * inv_diag[i]);
      }
    });
    out = first_of_pairs<K>(sums, &r_dot_z);
  });
  return out;
}

void block_solution_and_direction_update(int k, const BlockScalars& alpha, const BlockScalars& beta,
                                         std::span<const double> r, std::span<const double> inv_diag,
                                         std::span<double> p, std::span<double> x) {
  dispatch_block(k, [&]<int K>() {
    const index n = rows_of(K, r);
#pragma omp parallel for schedule(static) if (n >= min_parallel_rows)
    for (index i = 0; i < n; ++i)
      for (int j = 0; j < K; ++j) {
        const index v = i * K + j;
        x[v] += alpha[j] * p[v];
        p[v] = (inv_diag.empty() ? r[v] : r[v] * inv_diag[i]) + beta[j] * p[v];
      }
  });
}

}  // namespace fvmmini::reference
