#include "linalg/reference_cg.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kernels/reference/vector_ops.hpp"
#include "linalg/linear_solver.hpp"

namespace fvmmini {

namespace ops = reference;

void CgWorkspace::resize(label n) {
  for (auto* v : {&r, &p, &q, &row_sums, &inv_diag}) v->assign(n, 0.0);
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

}  // namespace

SolverPerformance reference_cg(const HostOperator& a, std::span<double> x, std::span<const double> b,
                               const SolverSettings& s, CgWorkspace& w) {
  const label n = a.n_rows();
  if (static_cast<label>(w.r.size()) != n) w.resize(n);
  const bool jacobi = s.preconditioner == "jacobi";
  SolverPerformance perf;
  perf.solver_name = fmt::format("{}[{}]", jacobi ? "PCG" : "CG", a.format_name());
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
  double r_norm = ops::residual_and_norm_factor(b, w.q, w.row_sums, ops::mean(x), w.r, norm_factor);
  norm_factor += small;
  perf.initial_residual = perf.final_residual = r_norm / norm_factor;
  if (!std::isfinite(perf.initial_residual)) throw SolverError("CG: initial residual is not finite (NaN or Inf in A, x or b)");
  if (converged(perf.initial_residual, perf.initial_residual, s) || s.max_iter == 0) {
    perf.converged = converged(perf.initial_residual, perf.initial_residual, s);
    return perf;
  }

  // --- p = M^-1 r; rz = r . p
  const std::span<const double> inv_diag = jacobi ? std::span<const double>(w.inv_diag) : std::span<const double>();
  double rz;
  if (jacobi) {
    rz = ops::jacobi_apply_dot(w.r, w.inv_diag, w.p);
  } else {
    std::copy(w.r.begin(), w.r.end(), w.p.begin());
    rz = ops::dot(w.r, w.r);
  }

  // Three passes per iteration: q = A p with p.q; the residual step with both reductions; then
  // x += alpha p (deferred from the residual step, where it would read p a second time) with
  // the new direction.
  while (true) {
    // --- q = A p; alpha = rz / p.q
    const double pq = a.multiply_dot(w.p, w.q);
    if (!(pq > 0.0))
      throw SolverError(fmt::format("CG breakdown at iteration {}: p'Ap = {:.3g} (the matrix is not positive definite{})",
                                    perf.iterations + 1, pq, std::isfinite(pq) ? "" : ", or NaN appeared"));
    const double alpha = rz / pq;

    // --- r -= alpha q; residual = |r|_1 / normFactor; rz_new = r . M^-1 r
    double rz_new = 0.0;
    r_norm = ops::residual_update(alpha, w.q, inv_diag, w.r, rz_new);
    ++perf.iterations;
    perf.final_residual = r_norm / norm_factor;
    if (!std::isfinite(perf.final_residual)) throw SolverError(fmt::format("CG: residual is NaN at iteration {}", perf.iterations));
    if (converged(perf.final_residual, perf.initial_residual, s) || perf.iterations >= s.max_iter) {
      // --- x += alpha p, the last step's deferred update
      ops::axpy(alpha, w.p, x);
      break;
    }

    // --- x += alpha p; beta = rz_new / rz; p = M^-1 r + beta p
    ops::solution_and_direction_update(alpha, rz_new / rz, w.r, inv_diag, w.p, x);
    rz = rz_new;
  }
  perf.converged = converged(perf.final_residual, perf.initial_residual, s);
  return perf;
}

}  // namespace fvmmini
