#include "solvers/krylov/reference_steps.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/reference/vector_ops.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace ops = reference;

namespace {

/// The mean of x over all ranks (ops::mean's bits on one rank).
double global_mean(const Communicator& comm, std::span<const double> x) {
  if (!comm.distributed()) return ops::mean(x);
  double sums[2] = {ops::mean(x) * static_cast<double>(x.size()), static_cast<double>(x.size())};
  comm.sum(sums);
  return sums[0] / sums[1];
}

}  // namespace

void check_system(const HostOperator& a, bool jacobi, std::span<double> ones, std::span<double> row_sums,
                  std::span<double> inv_diag) {
  const Communicator& comm = a.communicator();
  std::fill(ones.begin(), ones.end(), 1.0);
  a.multiply(ones, row_sums);
  const auto diag = a.diagonal();
  if (comm.all(cg_singular(row_sums, diag))) throw cg_error({CgStatus::singular});
  if (!jacobi) return;
  cg_check_diagonal(diag, comm);
  for (std::size_t i = 0; i < diag.size(); ++i) inv_diag[i] = 1.0 / diag[i];
}

KrylovStart start_solve(const std::string& method, const HostOperator& a, std::span<const double> x,
                        std::span<const double> b, const SolverSettings& s, const HostPreconditioner* m,
                        const KrylovStartVectors& v) {
  KrylovStart start;
  const CgStep step = cg_step(s);
  start.jacobi = step == CgStep::jacobi;
  start.applied = step == CgStep::applied;
  if (start.applied && (!m || m->unit().name != find_preconditioner(s.preconditioner).name || !m->applied()))
    throw std::invalid_argument(method + ": preconditioner " + s.preconditioner + " is not set up");
  start.perf.solver_name = solver_name(s, a.format_name());
  const Communicator& comm = a.communicator();
  if (a.n_rows() == 0 && !comm.distributed()) {
    start.perf.converged = start.done = true;
    return start;
  }

  // --- row sums s = A 1, for the normalisation and the singularity check
  check_system(a, start.jacobi, v.ones, v.row_sums, v.inv_diag);

  // --- r = b - A x; residual = |r|_1 / normFactor (sums over all ranks)
  a.multiply(x, v.ax);
  double r_norm =
      ops::residual_and_norm_factor(b, v.ax, v.row_sums, global_mean(comm, x), v.r, start.norm_factor);
  sum_pair(comm, r_norm, start.norm_factor);
  start.norm_factor += cg_small;
  start.perf.initial_residual = start.perf.final_residual = r_norm / start.norm_factor;
  start.stop = cg_stop(s);
  const CgStatus status = cg_status_after(start.perf.initial_residual, start.perf.initial_residual, 0, start.stop);
  if (status == CgStatus::initial_not_finite) throw cg_error({status});
  start.done = status != CgStatus::running;
  start.perf.converged = status == CgStatus::converged;
  return start;
}

void sum_pair(const Communicator& comm, double& a, double& b) {
  if (!comm.distributed()) return;
  double sums[2] = {a, b};
  comm.sum(sums);
  a = sums[0];
  b = sums[1];
}

bool finish_iteration(double residual, const CgStop& stop, SolverPerformance& perf) {
  ++perf.iterations;
  perf.final_residual = residual;
  const CgStatus status = cg_status_after(residual, perf.initial_residual, perf.iterations, stop);
  if (status == CgStatus::residual_not_finite) throw cg_error({status, perf.iterations});
  return status != CgStatus::running;
}

}  // namespace fvmmini
