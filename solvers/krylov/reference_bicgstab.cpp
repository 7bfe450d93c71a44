#include "solvers/krylov/reference_bicgstab.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/reference/vector_ops.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/reference_steps.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace ops = reference;

void BiCgStabWorkspace::resize(label n) {
  const auto size = static_cast<std::size_t>(n);
  int buffer = 0;
  for (auto* v : {&r, &r0, &p, &v, &t, &y, &z, &row_sums, &inv_diag}) *v = store->take(buffer++, size);
}

namespace {

/// OpenFOAM's VSMALL: below it r0.r and omega count as zero (its checkSingularity).
constexpr double vanishing = 1e-300;

}  // namespace

SolverPerformance reference_bicgstab(const HostOperator& a, std::span<double> x, std::span<const double> b,
                                     const SolverSettings& s, BiCgStabWorkspace& w, HostPreconditioner* m) {
  const label n = a.n_rows();
  w.resize(n);  // views taken anew: a solver sharing the store may have grown it
  KrylovStart start = start_solve("reference_bicgstab", a, x, b, s, m, {w.p, w.row_sums, w.inv_diag, w.v, w.r});
  SolverPerformance& perf = start.perf;
  if (start.done) return perf;
  const Communicator& comm = a.communicator();
  const bool jacobi = start.jacobi, applied = start.applied;
  const CgStop& stop = start.stop;
  const double norm_factor = start.norm_factor;

  // --- out = M^-1 in: the preconditioner's, Jacobi's, or in itself under none
  const auto precondition = [&](std::span<const double> in, std::span<double> out) -> std::span<const double> {
    if (applied) {
      m->apply(a, in, out);
      return out;
    }
    if (!jacobi) return in;
#pragma omp parallel for schedule(static)
    for (label i = 0; i < n; ++i) out[i] = w.inv_diag[i] * in[i];
    return out;
  };
  std::copy(w.r.begin(), w.r.end(), w.r0.begin());
  double rho = 0.0, alpha = 0.0, omega = 0.0;
  while (true) {
    // --- rho = r0 . r; p = r, then p = r + beta (p - omega v)
    const double rho_old = rho;
    rho = comm.sum(ops::dot(w.r0, w.r));
    if (std::abs(rho) < vanishing) break;
    if (perf.iterations == 0) {
      std::copy(w.r.begin(), w.r.end(), w.p.begin());
    } else {
      if (std::abs(omega) < vanishing) break;
      const double beta = (rho / rho_old) * (alpha / omega);
#pragma omp parallel for schedule(static)
      for (label i = 0; i < n; ++i) w.p[i] = w.r[i] + beta * (w.p[i] - omega * w.v[i]);
    }

    // --- y = M^-1 p; v = A y; alpha = rho / r0 . v; s = r - alpha v (in r)
    const std::span<const double> y = precondition(w.p, w.y);
    a.multiply(y, w.v);
    alpha = rho / comm.sum(ops::dot(w.r0, w.v));
    ops::axpy(-alpha, w.v, w.r);
    const double s_residual = comm.sum(ops::sum_abs(w.r)) / norm_factor;
    if (!std::isfinite(s_residual)) throw cg_error({CgStatus::residual_not_finite, perf.iterations + 1});
    if (cg_converged(s_residual, perf.initial_residual, stop)) {  // x += alpha y, the last step
      ops::axpy(alpha, y, x);
      ++perf.iterations;
      perf.final_residual = s_residual;
      break;
    }

    // --- z = M^-1 s; t = A z; omega = t.s / t.t; x += alpha y + omega z; r = s - omega t
    const std::span<const double> z = precondition(w.r, w.z);
    a.multiply(z, w.t);
    double ts = ops::dot(w.t, w.r), tt = ops::dot(w.t, w.t);
    sum_pair(comm, ts, tt);
    omega = tt > 0.0 ? ts / tt : 0.0;
#pragma omp parallel for schedule(static)
    for (label i = 0; i < n; ++i) {
      x[i] += alpha * y[i] + omega * z[i];
      w.r[i] -= omega * w.t[i];
    }
    if (finish_iteration(comm.sum(ops::sum_abs(w.r)) / norm_factor, stop, perf)) break;
  }
  perf.converged = cg_converged(perf.final_residual, perf.initial_residual, stop);
  return perf;
}

}  // namespace fvmmini
