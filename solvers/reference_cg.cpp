#include "solvers/reference_cg.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "kernels/reference/vector_ops.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini {

namespace ops = reference;

void CgWorkspace::resize(label n) {
  for (auto* v : {&r, &p, &q, &row_sums, &inv_diag, &z}) v->assign(n, 0.0);
}

namespace {

constexpr double small = 1e-20;  // OpenFOAM's SMALL: keeps the normalisation finite for b = 0, x = 0

bool converged(double residual, double initial, const SolverSettings& s) {
  return residual < s.tolerance || (s.rel_tol > 0.0 && residual < s.rel_tol * initial);
}

// A system whose every row sums to zero has the constant vector in its null space.
void require_nonsingular(std::span<const double> row_sums, std::span<const double> diag) {
  for (size_t i = 0; i < row_sums.size(); ++i)
    if (std::abs(row_sums[i]) > 1e-12 * std::abs(diag[i])) return;
  throw SolverError(
      "singular system: every row sums to zero (no fixedValue boundary and no reference level); "
      "set a fixedValue patch or discretisation.referenceCell");
}

void check_curvature(double pq, int iteration) {
  if (!(pq > 0.0))
    throw SolverError(fmt::format("CG breakdown at iteration {}: p'Ap = {:.3g} (the matrix is not positive definite{})",
                                  iteration, pq, std::isfinite(pq) ? "" : ", or NaN appeared"));
}

// Counts an iteration with its residual. @return whether CG stops here (converged or maxIter)
bool finish_iteration(double residual, const SolverSettings& s, SolverPerformance& perf) {
  ++perf.iterations;
  perf.final_residual = residual;
  if (!std::isfinite(residual)) throw SolverError(fmt::format("CG: residual is NaN at iteration {}", perf.iterations));
  return converged(residual, perf.initial_residual, s) || perf.iterations >= s.max_iter;
}

// Three passes per iteration: q = A p with p.q; the residual step with both reductions; then
// x += alpha p (deferred from the residual step, where it would read p a second time) with the
// new direction. Starts from r; leaves x and perf at the last iteration.
void iterate_in_three_passes(const HostOperator& a, std::span<double> x, std::span<const double> inv_diag,
                             const SolverSettings& s, double norm_factor, CgWorkspace& w, SolverPerformance& perf) {
  // --- p = M^-1 r; rz = r . p
  double rz;
  if (!inv_diag.empty()) {
    rz = ops::jacobi_apply_dot(w.r, inv_diag, w.p);
  } else {
    std::copy(w.r.begin(), w.r.end(), w.p.begin());
    rz = ops::dot(w.r, w.r);
  }
  while (true) {
    // --- q = A p; alpha = rz / p.q
    const double pq = a.multiply_dot(w.p, w.q);
    check_curvature(pq, perf.iterations + 1);
    const double alpha = rz / pq;

    // --- r -= alpha q; residual = |r|_1 / normFactor; rz_new = r . M^-1 r
    double rz_new = 0.0;
    const double r_norm = ops::residual_update(alpha, w.q, inv_diag, w.r, rz_new);
    if (finish_iteration(r_norm / norm_factor, s, perf)) {
      // --- x += alpha p, the last step's deferred update
      ops::axpy(alpha, w.p, x);
      return;
    }

    // --- x += alpha p; beta = rz_new / rz; p = M^-1 r + beta p
    ops::solution_and_direction_update(alpha, rz_new / rz, w.r, inv_diag, w.p, x);
    rz = rz_new;
  }
}

// r . M^-1 r must be positive for an SPD preconditioner (0 only when r is).
void check_preconditioned(double rz, int iteration) {
  if (!(rz > 0.0))
    throw SolverError(fmt::format("PCG breakdown at iteration {}: r'M^-1 r = {:.3g} (the preconditioner is not "
                                  "positive definite{})",
                                  iteration, rz, std::isfinite(rz) ? "" : ", or NaN appeared"));
}

// Three passes per iteration around an applied preconditioner (DIC, mcsgs): q = A p with p.q; the
// residual step; z = M^-1 r with r.z; then x += alpha p with the new direction p = z + beta p.
void iterate_preconditioned(const HostOperator& a, std::span<double> x, HostPreconditioner& m, const SolverSettings& s,
                            double norm_factor, CgWorkspace& w, SolverPerformance& perf) {
  // --- p = M^-1 r; rz = r . p
  m.apply(a, w.r, w.p);
  double rz = ops::dot(w.r, w.p);
  check_preconditioned(rz, 1);
  while (true) {
    // --- q = A p; alpha = rz / p.q
    const double pq = a.multiply_dot(w.p, w.q);
    check_curvature(pq, perf.iterations + 1);
    const double alpha = rz / pq;

    // --- r -= alpha q; residual = |r|_1 / normFactor
    double unused = 0.0;
    const double r_norm = ops::residual_update(alpha, w.q, {}, w.r, unused);
    if (finish_iteration(r_norm / norm_factor, s, perf)) {
      ops::axpy(alpha, w.p, x);
      return;
    }

    // --- z = M^-1 r; beta = r.z / rz; x += alpha p; p = z + beta p
    m.apply(a, w.r, w.z);
    const double rz_new = ops::dot(w.r, w.z);
    check_preconditioned(rz_new, perf.iterations + 1);
    ops::solution_and_direction_update(alpha, rz_new / rz, w.z, {}, w.p, x);
    rz = rz_new;
  }
}

// One pass per iteration through the operator's fused sweep: each pass first finishes the
// previous iteration (r -= alpha q, x += alpha p, the residual) and then starts the next
// (p = M^-1 r + beta p, q = A p, p.q). beta needs r.M^-1 r of the new r before the pass that
// forms it, so it comes from the old one expanded: |r - alpha q|^2_M = rz - 2 alpha r.M^-1 q +
// alpha^2 q.M^-1 q, all summed in the previous pass; alpha uses the exact rz of the pass. The
// pass after convergence computes one product that is not used.
void iterate_in_one_pass(const HostOperator& a, std::span<double> x, bool jacobi,
                         const SolverSettings& s, double norm_factor, CgWorkspace& w, SolverPerformance& perf) {
  double alpha = 0.0, beta = 0.0;  // the first pass: p = M^-1 r, q = A p
  for (bool first = true;; first = false) {
    // --- r -= alpha q; x += alpha p; p = M^-1 r + beta p; q = A p; with the sums
    const reference::CgSweepSums sums = a.cg_sweep(alpha, beta, x, w.r, w.p, w.q, jacobi);
    if (!first && finish_iteration(sums.r_norm1 / norm_factor, s, perf)) return;

    // --- alpha = rz / p.q; beta = |r - alpha q|^2_M / rz (0 if rounding made it <= 0: restart along z)
    check_curvature(sums.pq, perf.iterations + 1);
    alpha = sums.rz / sums.pq;
    const double rz_next = sums.rz - 2.0 * alpha * sums.rq + alpha * alpha * sums.qq;
    beta = rz_next > 0.0 ? rz_next / sums.rz : 0.0;
  }
}

}  // namespace

SolverPerformance reference_cg(const HostOperator& a, std::span<double> x, std::span<const double> b,
                               const SolverSettings& s, CgWorkspace& w, HostPreconditioner* m) {
  const label n = a.n_rows();
  if (static_cast<label>(w.r.size()) != n) w.resize(n);
  const bool jacobi = s.preconditioner == Preconditioner::diagonal;
  const bool applied = is_applied(s.preconditioner);
  if (applied && (!m || m->kind() != s.preconditioner || !m->applied()))
    throw std::invalid_argument("reference_cg: preconditioner " + name(s.preconditioner) + " is not set up");
  SolverPerformance perf;
  perf.solver_name = solver_name(s.preconditioner, a.format_name());
  if (n == 0) {
    perf.converged = true;
    return perf;
  }

  // --- row sums s = A 1, for the normalisation and the singularity check
  std::fill(w.p.begin(), w.p.end(), 1.0);
  a.multiply(w.p, w.row_sums);
  const auto diag = a.diagonal();
  require_nonsingular(w.row_sums, diag);
  if (jacobi)
    for (label i = 0; i < n; ++i) {
      if (!(diag[i] > 0.0)) throw SolverError(fmt::format("Jacobi: diagonal entry {} is {} (not positive)", i, diag[i]));
      w.inv_diag[i] = 1.0 / diag[i];
    }

  // --- r = b - A x; residual = |r|_1 / normFactor
  a.multiply(x, w.q);
  double norm_factor = 0.0;
  const double r_norm = ops::residual_and_norm_factor(b, w.q, w.row_sums, ops::mean(x), w.r, norm_factor);
  norm_factor += small;
  perf.initial_residual = perf.final_residual = r_norm / norm_factor;
  if (!std::isfinite(perf.initial_residual)) throw SolverError("CG: initial residual is not finite (NaN or Inf in A, x or b)");
  if (converged(perf.initial_residual, perf.initial_residual, s) || s.max_iter == 0) {
    perf.converged = converged(perf.initial_residual, perf.initial_residual, s);
    return perf;
  }

  const std::span<const double> inv_diag = jacobi ? std::span<const double>(w.inv_diag) : std::span<const double>();
  if (applied)
    iterate_preconditioned(a, x, *m, s, norm_factor, w, perf);
  else if (a.has_cg_sweep())
    iterate_in_one_pass(a, x, jacobi, s, norm_factor, w, perf);
  else
    iterate_in_three_passes(a, x, inv_diag, s, norm_factor, w, perf);
  perf.converged = converged(perf.final_residual, perf.initial_residual, s);
  return perf;
}

}  // namespace fvmmini
