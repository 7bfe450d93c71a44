#include "kernels/reference/symmetric_spmv.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "linalg/parallel.hpp"

namespace fvmmini::reference {

namespace {

// Row i's transposed entries a_ij x_i land on rows j in (i, i + reach]. Each thread keeps them
// in a ring of R > reach slots (slot j mod R) instead of in y: the ring stays in cache, y is
// written once per row, and no two threads write the same y. What a thread's rows send past
// its own last row waits in its ring until the receiving thread adds it after a barrier.
struct Rings {
  std::int64_t reach = 0;
  std::int64_t mask = 0;
  std::int64_t size = 1;
  std::vector<double> slots;

  Rings(const SymmetricMatrix& a, int threads) : reach(a.max_offset) {
    while (size <= reach) size *= 2;
    mask = size - 1;
    slots.assign(static_cast<std::size_t>(threads) * size, 0.0);
  }
  double* of(int t) { return slots.data() + t * size; }
};

// Thread t of nt owns rows [begin, end), an equal static share.
struct Block {
  label n;
  int nt;
  label end_of(int t) const { return static_cast<label>(static_cast<std::int64_t>(n) * (t + 1) / nt); }
  label begin_of(int t) const { return t == 0 ? 0 : end_of(t - 1); }
};

// y_i = ring_i + a_ii x_i + sum_{j>i} a_ij x_j, and ring_j += a_ij x_i for j > i.
inline double product_row(const SymmetricMatrix& a, const double* x, label i, double* ring, std::int64_t mask) {
  const label* col = a.col.data();
  const double* val = a.values.data();
  const double xi = x[i];
  double& pending = ring[i & mask];
  double sum = pending + a.diagonal()[i] * xi;
  pending = 0.0;
  for (label k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    const label j = col[k];
    const double v = val[k];
    sum += v * x[j];
    ring[j & mask] += v * xi;
  }
  return sum;
}

// Calls receive(j, c) for each row j of thread t's block that earlier threads' rows sent c to,
// in thread order (deterministic). Call after a barrier that follows every thread's products.
template <class F>
void receive_from_earlier_threads(Rings& rings, const Block& blocks, int t, F&& receive) {
  const label begin = blocks.begin_of(t), end = blocks.end_of(t);
  for (int u = 0; u < t; ++u) {
    const label u_end = blocks.end_of(u);
    const label from = std::max(begin, u_end);
    const label to = static_cast<label>(std::min<std::int64_t>(end, u_end + rings.reach + 1));
    const double* ring = rings.of(u);
    for (label j = from; j < to; ++j) receive(j, ring[j & rings.mask]);
  }
}

int threads_for(label n) { return n >= min_parallel_rows ? omp_get_max_threads() : 1; }

}  // namespace

double symmetric_spmv(const SymmetricMatrix& a, std::span<const double> x, std::span<double> y) {
  const label n = a.n_rows;
  if (n == 0) return 0.0;
  const int max_threads = threads_for(n);
  Rings rings(a, max_threads);
  std::vector<double> partial(max_threads, 0.0);
  int n_threads = 1;
#pragma omp parallel num_threads(max_threads)
  {
    const int t = omp_get_thread_num();
    const Block blocks{n, omp_get_num_threads()};
    if (t == 0) n_threads = blocks.nt;  // read after the region: no barrier needed here
    double* ring = rings.of(t);
    double dot = 0.0;
    // --- y = A x over the own rows; x . y
    for (label i = blocks.begin_of(t); i < blocks.end_of(t); ++i) {
      const double yi = product_row(a, x.data(), i, ring, rings.mask);
      y[i] = yi;
      dot += x[i] * yi;
    }
#pragma omp barrier
    // --- y_j += what earlier threads' rows sent to row j
    receive_from_earlier_threads(rings, blocks, t, [&](label j, double c) {
      y[j] += c;
      dot += x[j] * c;
    });
    partial[t] = dot;
  }
  double total = 0.0;
  for (int t = 0; t < n_threads; ++t) total += partial[t];
  return total;
}

namespace {

// The sweep for one preconditioner (a template parameter, so the row loop has no test on it).
template <bool Jacobi>
CgSweepSums cg_sweep(const SymmetricMatrix& a, double alpha, double beta, double* x, double* r, double* p, double* q) {
  const label n = a.n_rows;
  const double* diag = a.diagonal();
  const int max_threads = threads_for(n);
  Rings rings(a, max_threads);
  std::vector<CgSweepSums> partial(max_threads);
  int n_threads = 1;
#pragma omp parallel num_threads(max_threads)
  {
    const int t = omp_get_thread_num();
    const Block blocks{n, omp_get_num_threads()};
    if (t == 0) n_threads = blocks.nt;  // read after the region: no barrier needed here
    const label begin = blocks.begin_of(t), end = blocks.end_of(t);
    const auto reach = static_cast<label>(std::min<std::int64_t>(rings.reach, n));
    double* ring = rings.of(t);
    // Plain local sums (not a struct the lambdas share) so they stay in registers.
    double r_norm1 = 0.0, rz = 0.0, pq = 0.0, rq = 0.0, qq = 0.0;

    // --- r -= alpha q; x += alpha p; p = M^-1 r + beta p (old q and p); |r|_1, r . M^-1 r
    auto update = [&](label i) {
      const double ri = r[i] - alpha * q[i];
      r[i] = ri;
      x[i] += alpha * p[i];
      const double zi = Jacobi ? ri / diag[i] : ri;
      p[i] = zi + beta * p[i];
      r_norm1 += std::abs(ri);
      rz += ri * zi;
    };
    // --- q_i = (A p)_i; then p . q, r . M^-1 q, q . M^-1 q of a finished row
    auto product = [&](label i) { q[i] = product_row(a, p, i, ring, rings.mask); };
    auto sum_products = [&](label i) {
      const double qi = q[i];
      const double mq = Jacobi ? qi / diag[i] : qi;
      pq += p[i] * qi;
      rq += r[i] * mq;
      qq += qi * mq;
    };

    // --- the first reach + 1 rows' updates before any thread's products: a row's product reads
    //     p up to reach rows on, into the next threads' first rows
    const label lead_end = static_cast<label>(std::min<std::int64_t>(end, static_cast<std::int64_t>(begin) + reach + 1));
    for (label i = begin; i < lead_end; ++i) update(i);
#pragma omp barrier
    // --- row i's product after row i + reach's update (rows lead_end.. are updated from i = begin + 1
    //     on); the rows earlier threads still send to (the first reach + 1) are summed after those arrive
    const label received_end = t == 0 ? begin : lead_end;
    const label updating_end = std::max(begin, end - reach);  // rows i < this update row i + reach first
    label i = begin;
    if (i < end) product(i++);
    for (; i < std::min(received_end, updating_end); ++i) {
      update(i + reach);
      product(i);
    }
    for (; i < received_end; ++i) product(i);
    for (; i < updating_end; ++i) {
      update(i + reach);
      product(i);
      sum_products(i);
    }
    for (; i < end; ++i) {
      product(i);
      sum_products(i);
    }
    if (t == 0 && begin < end) sum_products(begin);
#pragma omp barrier
    // --- q_j += what earlier threads' rows sent to row j; then row j's sums
    receive_from_earlier_threads(rings, blocks, t, [&](label j, double c) { q[j] += c; });
    for (label j = begin; j < received_end; ++j) sum_products(j);
    partial[t] = {r_norm1, rz, pq, rq, qq};
  }
  CgSweepSums total;
  for (int t = 0; t < n_threads; ++t) {
    total.r_norm1 += partial[t].r_norm1;
    total.rz += partial[t].rz;
    total.pq += partial[t].pq;
    total.rq += partial[t].rq;
    total.qq += partial[t].qq;
  }
  return total;
}

}  // namespace

CgSweepSums symmetric_cg_sweep(const SymmetricMatrix& a, double alpha, double beta, std::span<double> x,
                               std::span<double> r, std::span<double> p, std::span<double> q, bool jacobi) {
  if (a.n_rows == 0) return {};
  return jacobi ? cg_sweep<true>(a, alpha, beta, x.data(), r.data(), p.data(), q.data())
                : cg_sweep<false>(a, alpha, beta, x.data(), r.data(), p.data(), q.data());
}

}  // namespace fvmmini::reference
