#include "solvers/krylov/reference_cg.hpp"

#include <stdexcept>

#include "kernels/reference/vector_ops.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/reference_steps.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace ops = reference;

void CgWorkspace::resize(label n) {
  const auto size = static_cast<std::size_t>(n);
  int buffer = 0;
  for (auto* v : {&r, &p, &q, &row_sums, &inv_diag, &z}) *v = store->take(buffer++, size);
}

void BlockCgWorkspace::resize(label n, int k) {
  const auto size = static_cast<std::size_t>(n);
  r = store->take(0, size * k);
  p = store->take(1, size * k);
  q = store->take(2, size * k);
  row_sums = store->take(3, size);
  inv_diag = store->take(4, size);
  z = {};  // an applied preconditioner's, taken on use (buffer 5)
}

namespace {

// Throws `status` when `curvature` fails the breakdown test: p'Ap (breakdown) or r'M^-1 r
// (preconditioner_breakdown) of the iteration after the perf.iterations done.
void check_curvature(CgStatus status, double curvature, const SolverPerformance& perf) {
  if (cg_breaks_down(curvature)) throw cg_error({status, perf.iterations, curvature});
}

// Three passes per iteration: q = A p with p.q; the residual step with both reductions; then
// x += alpha p (deferred from the residual step, where it would read p a second time) with the
// new direction. Starts from r; leaves x and perf at the last iteration.
void iterate_in_three_passes(const HostOperator& a, std::span<double> x, std::span<const double> inv_diag,
                             const CgStop& stop, double norm_factor, CgWorkspace& w, SolverPerformance& perf) {
  // --- p = M^-1 r; rz = r . p (every sum over all ranks)
  const Communicator& comm = a.communicator();
  double rz;
  if (!inv_diag.empty()) {
    rz = ops::jacobi_apply_dot(w.r, inv_diag, w.p);
  } else {
    std::copy(w.r.begin(), w.r.end(), w.p.begin());
    rz = ops::dot(w.r, w.r);
  }
  rz = comm.sum(rz);
  while (true) {
    // --- q = A p; alpha = rz / p.q
    const double pq = comm.sum(a.multiply_dot(w.p, w.q));
    check_curvature(CgStatus::breakdown, pq, perf);
    const double alpha = rz / pq;

    // --- r -= alpha q; residual = |r|_1 / normFactor; rz_new = r . M^-1 r
    double rz_new = 0.0;
    double r_norm = ops::residual_update(alpha, w.q, inv_diag, w.r, rz_new);
    sum_pair(comm, r_norm, rz_new);
    if (finish_iteration(r_norm / norm_factor, stop, perf)) {
      // --- x += alpha p, the last step's deferred update
      ops::axpy(alpha, w.p, x);
      return;
    }

    // --- x += alpha p; beta = rz_new / rz; p = M^-1 r + beta p
    ops::solution_and_direction_update(alpha, rz_new / rz, w.r, inv_diag, w.p, x);
    rz = rz_new;
  }
}

// Three passes per iteration around an applied preconditioner (DIC, mcsgs): q = A p with p.q; the
// residual step; z = M^-1 r with r.z; then x += alpha p with the new direction p = z + beta p.
void iterate_preconditioned(const HostOperator& a, std::span<double> x, HostPreconditioner& m, const CgStop& stop,
                            double norm_factor, CgWorkspace& w, SolverPerformance& perf) {
  // --- p = M^-1 r; rz = r . p (every sum over all ranks)
  const Communicator& comm = a.communicator();
  m.apply(a, w.r, w.p);
  double rz = comm.sum(ops::dot(w.r, w.p));
  check_curvature(CgStatus::preconditioner_breakdown, rz, perf);
  while (true) {
    // --- q = A p; alpha = rz / p.q
    const double pq = comm.sum(a.multiply_dot(w.p, w.q));
    check_curvature(CgStatus::breakdown, pq, perf);
    const double alpha = rz / pq;

    // --- r -= alpha q; residual = |r|_1 / normFactor
    double unused = 0.0;
    const double r_norm = comm.sum(ops::residual_update(alpha, w.q, {}, w.r, unused));
    if (finish_iteration(r_norm / norm_factor, stop, perf)) {
      ops::axpy(alpha, w.p, x);
      return;
    }

    // --- z = M^-1 r; beta = r.z / rz; x += alpha p; p = z + beta p
    m.apply(a, w.r, w.z);
    const double rz_new = comm.sum(ops::dot(w.r, w.z));
    check_curvature(CgStatus::preconditioner_breakdown, rz_new, perf);
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
                         const CgStop& stop, double norm_factor, CgWorkspace& w, SolverPerformance& perf) {
  double alpha = 0.0, beta = 0.0;  // the first pass: p = M^-1 r, q = A p
  for (bool first = true;; first = false) {
    // --- r -= alpha q; x += alpha p; p = M^-1 r + beta p; q = A p; with the sums
    const reference::CgSweepSums sums = a.cg_sweep(alpha, beta, x, w.r, w.p, w.q, jacobi);
    if (!first && finish_iteration(sums.r_norm1 / norm_factor, stop, perf)) return;

    // --- alpha = rz / p.q; beta = |r - alpha q|^2_M / rz (0 if rounding made it <= 0: restart along z)
    check_curvature(CgStatus::breakdown, sums.pq, perf);
    alpha = sums.rz / sums.pq;
    const double rz_next = sums.rz - 2.0 * alpha * sums.rq + alpha * alpha * sums.qq;
    beta = rz_next > 0.0 ? rz_next / sums.rz : 0.0;
  }
}

// Q = A P; alpha_j = rz_j / p_j . q_j for each running system (zero for the others).
ops::BlockScalars block_step_lengths(const HostOperator& a, int k, const ops::BlockScalars& rz,
                                     const std::vector<bool>& running, BlockCgWorkspace& w,
                                     std::vector<SolverPerformance>& perf) {
  a.multiply_block(k, w.p, w.q);
  const ops::BlockScalars pq = ops::block_dot(k, w.p, w.q);
  ops::BlockScalars alpha{};
  for (int j = 0; j < k; ++j)
    if (running[j]) {
      check_curvature(CgStatus::breakdown, pq[j], perf[j]);
      alpha[j] = rz[j] / pq[j];
    }
  return alpha;
}

// iterate_preconditioned for k systems together, M^-1 applied to the block: each running system
// as iterate_preconditioned takes it alone; a stopped one keeps alpha and beta zero.
void iterate_block_preconditioned(const HostOperator& a, int k, std::span<double> x, HostPreconditioner& m,
                                  const CgStop& stop, const ops::BlockScalars& norm_factor, std::vector<bool>& running,
                                  BlockCgWorkspace& w, std::vector<SolverPerformance>& perf) {
  // --- P = M^-1 R; rz_j = r_j . p_j
  w.z = w.store->take(5, w.r.size());
  m.apply_block(a, k, w.r, w.p);
  ops::BlockScalars rz = ops::block_dot(k, w.r, w.p);
  for (int j = 0; j < k; ++j)
    if (running[j]) check_curvature(CgStatus::preconditioner_breakdown, rz[j], perf[j]);
  while (std::find(running.begin(), running.end(), true) != running.end()) {
    const ops::BlockScalars alpha = block_step_lengths(a, k, rz, running, w, perf);
    ops::BlockScalars beta{};

    // --- r_j -= alpha_j q_j; residuals
    ops::BlockScalars unused{};
    const ops::BlockScalars norms = ops::block_residual_update(k, alpha, w.q, {}, w.r, unused);
    for (int j = 0; j < k; ++j)
      if (running[j] && finish_iteration(norms[j] / norm_factor[j], stop, perf[j])) {
        running[j] = false;  // x_j += alpha_j p_j below, its last step
        perf[j].converged = cg_converged(perf[j].final_residual, perf[j].initial_residual, stop);
      }

    // --- Z = M^-1 R (none once every system stopped); beta_j = r_j . z_j / rz_j; X += alpha P;
    //     P = Z + beta P
    if (std::find(running.begin(), running.end(), true) != running.end()) {
      m.apply_block(a, k, w.r, w.z);
      const ops::BlockScalars rz_new = ops::block_dot(k, w.r, w.z);
      for (int j = 0; j < k; ++j)
        if (running[j]) {
          check_curvature(CgStatus::preconditioner_breakdown, rz_new[j], perf[j]);
          beta[j] = rz_new[j] / rz[j];
          rz[j] = rz_new[j];
        }
    }
    ops::block_solution_and_direction_update(k, alpha, beta, w.z, {}, w.p, x);
  }
}

}  // namespace

SolverPerformance reference_cg(const HostOperator& a, std::span<double> x, std::span<const double> b,
                               const SolverSettings& s, CgWorkspace& w, HostPreconditioner* m) {
  w.resize(a.n_rows());  // views taken anew: a solver sharing the store may have grown it
  KrylovStart start = start_solve("reference_cg", a, x, b, s, m, {w.p, w.row_sums, w.inv_diag, w.q, w.r});
  SolverPerformance& perf = start.perf;
  if (start.done) return perf;
  const Communicator& comm = a.communicator();
  const bool jacobi = start.jacobi;
  const CgStop& stop = start.stop;
  const double norm_factor = start.norm_factor;
  const std::span<const double> inv_diag = jacobi ? std::span<const double>(w.inv_diag) : std::span<const double>();
  if (start.applied)
    iterate_preconditioned(a, x, *m, stop, norm_factor, w, perf);
  else if (a.has_cg_sweep() && !comm.distributed())
    iterate_in_one_pass(a, x, jacobi, stop, norm_factor, w, perf);
  else
    iterate_in_three_passes(a, x, inv_diag, stop, norm_factor, w, perf);
  perf.converged = cg_converged(perf.final_residual, perf.initial_residual, stop);
  return perf;
}

std::vector<SolverPerformance> reference_block_cg(const HostOperator& a, int k, std::span<double> x,
                                                  std::span<const double> b, const SolverSettings& s,
                                                  BlockCgWorkspace& w, HostPreconditioner* m) {
  const bool applied = cg_step(s) == CgStep::applied;
  if (applied && (!m || m->unit().name != find_preconditioner(s.preconditioner).name || !m->applies_block(a, k)))
    throw std::invalid_argument("reference_block_cg: preconditioner " + s.preconditioner +
                                " does not take " + std::to_string(k) + " vectors together here");
  if (!a.has_multiply_block())
    throw std::invalid_argument("reference_block_cg: format '" + a.format_name() + "' has no multi-vector SpMV");
  const label n = a.n_rows();
  w.resize(n, k);  // views taken anew: a solver sharing the store may have grown it
  const bool jacobi = cg_step(s) == CgStep::jacobi;
  std::vector<SolverPerformance> perf(k);
  for (auto& p : perf) p.solver_name = solver_name(s, a.format_name());
  if (n == 0) {
    for (auto& p : perf) p.converged = true;
    return perf;
  }

  // --- row sums s = A 1, the singularity and diagonal checks: reference_cg's
  check_system(a, jacobi, std::span<double>(w.p).first(n), w.row_sums, w.inv_diag);
  const std::span<const double> inv_diag = jacobi ? std::span<const double>(w.inv_diag) : std::span<const double>();

  // --- R = B - A X; each system's residual |r_j|_1 / normFactor_j
  a.multiply_block(k, x, w.q);
  ops::BlockScalars norm_factor{};
  const ops::BlockScalars r_norm =
      ops::block_residual_and_norm_factor(k, b, w.q, w.row_sums, ops::block_mean(k, x), w.r, norm_factor);
  const CgStop stop = cg_stop(s);
  std::vector<bool> running(k);
  for (int j = 0; j < k; ++j) {
    norm_factor[j] += cg_small;
    perf[j].initial_residual = perf[j].final_residual = r_norm[j] / norm_factor[j];
    const CgStatus status = cg_status_after(perf[j].initial_residual, perf[j].initial_residual, 0, stop);
    if (status == CgStatus::initial_not_finite) throw cg_error({status});
    running[j] = status == CgStatus::running;
    if (!running[j]) perf[j].converged = status == CgStatus::converged;
  }

  if (applied) {
    iterate_block_preconditioned(a, k, x, *m, stop, norm_factor, running, w, perf);
    return perf;
  }
  // --- P = M^-1 R; rz_j = r_j . p_j
  ops::BlockScalars rz;
  if (jacobi) {
    rz = ops::block_jacobi_apply_dot(k, w.r, inv_diag, w.p);
  } else {
    std::copy(w.r.begin(), w.r.end(), w.p.begin());
    rz = ops::block_dot(k, w.r, w.r);
  }
  // --- iterate_in_three_passes for each running system; a stopped one moves no more
  while (std::find(running.begin(), running.end(), true) != running.end()) {
    const ops::BlockScalars alpha = block_step_lengths(a, k, rz, running, w, perf);
    ops::BlockScalars beta{};

    // --- r_j -= alpha_j q_j; residuals; rz_new_j
    ops::BlockScalars rz_new{};
    const ops::BlockScalars norms = ops::block_residual_update(k, alpha, w.q, inv_diag, w.r, rz_new);
    for (int j = 0; j < k; ++j)
      if (running[j]) {
        if (finish_iteration(norms[j] / norm_factor[j], stop, perf[j])) {
          running[j] = false;  // x_j += alpha_j p_j below, its last step; then alpha_j = 0
          perf[j].converged = cg_converged(perf[j].final_residual, perf[j].initial_residual, stop);
        } else {
          beta[j] = rz_new[j] / rz[j];
          rz[j] = rz_new[j];
        }
      }

    // --- x_j += alpha_j p_j; p_j = M^-1 r_j + beta_j p_j
    ops::block_solution_and_direction_update(k, alpha, beta, w.r, inv_diag, w.p, x);
  }
  return perf;
}

}  // namespace fvmmini
