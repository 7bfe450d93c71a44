// "smoothSolver": OpenFOAM's smoothSolver beside the Krylov methods. No Krylov space: nSweeps
// sweeps of its smoother (GaussSeidel: forward; symGaussSeidel: forward, then backward) on A x = b
// in the solve's ordering, then the residual, until it passes the tolerances; its iterations count
// sweeps, as OpenFOAM's do. Any matrix with a positive diagonal, symmetric or not (its cuda twin:
// units/cuda/smoothsolver.cpp).

#include <cmath>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "kernels/reference/vector_ops.hpp"
#include "solvers/krylov/krylov_unit.hpp"
#include "solvers/krylov/reference_steps.hpp"
#include "solvers/krylov/smooth_solver_settings.hpp"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"
#include "solvers/preconditioners/triangular/triangular_solve.hpp"

namespace fvmmini {

void check_smooth_solver_settings(const SolverSettings& s) {
  if (s.smoother != Smoother::gauss_seidel && s.smoother != Smoother::symmetric_gauss_seidel)
    throw std::invalid_argument(
        fmt::format("solver smoothSolver: smoother {} is GAMG's (smoothSolver's: GaussSeidel, symGaussSeidel)",
                    name(s.smoother)));
  if (s.n_sweeps < 1)
    throw std::invalid_argument(fmt::format("solver smoothSolver: nSweeps {} (at least 1)", s.n_sweeps));
}

namespace {

namespace ops = reference;

class SmoothSolverMethod final : public KrylovMethod {
 public:
  explicit SmoothSolverMethod(std::shared_ptr<WorkStore> store) : store_(std::move(store)) {}

  void set_up(const LduMatrix& matrix, const Permutation& op, std::span<const label> sequence,
              const SolverSettings& s, bool decomposed) override {
    check_smooth_solver_settings(s);
    // (a rank's sweep would need its neighbours' values at every row of a processor face)
    if (decomposed) throw std::invalid_argument("solver smoothSolver runs on one rank (use PBiCGStab across ranks)");
    factor_ = build_triangular_factor(matrix, op, gauss_seidel, sequence);
  }
  void refresh(const LduMatrix& matrix) override { refresh_triangular_factor(matrix, factor_); }

  SolverPerformance solve(const HostOperator& a, std::span<double> x, std::span<const double> b,
                          const SolverSettings& s, HostPreconditioner& /*unused: it has none*/) override {
    check_smooth_solver_settings(s);
    const label n = a.n_rows();
    if (factor_.n_rows != n) throw std::logic_error("smoothSolver: not set up for this operator");
    const auto size = static_cast<std::size_t>(n);
    const std::span<double> ones = store_->take(0, size), row_sums = store_->take(1, size),
                            ax = store_->take(2, size), r = store_->take(3, size), t = store_->take(4, size);
    KrylovStart start = start_solve("smoothSolver", a, x, b, s, nullptr, {ones, row_sums, {}, ax, r});
    SolverPerformance& perf = start.perf;
    if (start.done) return perf;

    // --- nSweeps sweeps, then |b - A x|_1 / normFactor, until converged or maxIter sweeps
    while (true) {
      for (int sweep = 0; sweep < s.n_sweeps; ++sweep) {
        if (s.smoother == Smoother::symmetric_gauss_seidel) reference::sgs_sweep(factor_, b, x, t, false);
        else reference::gs_sweep(factor_, b, x);
      }
      a.multiply(x, ax);
#pragma omp parallel for schedule(static)
      for (label i = 0; i < n; ++i) r[i] = b[i] - ax[i];
      perf.iterations += s.n_sweeps;
      perf.final_residual = ops::sum_abs(r) / start.norm_factor;
      const CgStatus status = cg_status_after(perf.final_residual, perf.initial_residual, perf.iterations, start.stop);
      if (status == CgStatus::residual_not_finite) throw cg_error({status, perf.iterations});
      if (status != CgStatus::running) break;
    }
    perf.converged = cg_converged(perf.final_residual, perf.initial_residual, start.stop);
    return perf;
  }

 private:
  std::shared_ptr<WorkStore> store_;
  TriangularFactor factor_;  ///< the diagonal and both triangles in the operator's numbering
};

}  // namespace

const KrylovUnit& krylov_unit_smoothsolver() {
  static const KrylovUnit unit{
      .name = "smoothSolver",
      .summary = "OpenFOAM's smoothSolver: nSweeps (sym)GaussSeidel sweeps between residual checks, any matrix "
                 "with a positive diagonal",
      .preconditioned = false,
      .make = [](std::shared_ptr<WorkStore> store) { return std::make_unique<SmoothSolverMethod>(std::move(store)); },
  };
  return unit;
}

}  // namespace fvmmini
