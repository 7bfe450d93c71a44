#include "solvers/krylov/cg_rules.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace fvmmini {

bool cg_singular(std::span<const double> row_sums, std::span<const double> diagonal) {
  for (size_t i = 0; i < row_sums.size(); ++i)
    if (std::abs(row_sums[i]) > 1e-12 * std::abs(diagonal[i])) return false;
  return true;
}

label cg_nonpositive_diagonal(std::span<const double> diagonal) {
  for (size_t i = 0; i < diagonal.size(); ++i)
    if (!(diagonal[i] > 0.0)) return static_cast<label>(i);
  return -1;
}

void cg_check_diagonal(std::span<const double> diagonal, const Communicator& comm) {
  const label row = cg_nonpositive_diagonal(diagonal);
  cg_check_nonpositive(row, row >= 0 ? diagonal[row] : 0.0, comm);
}

void cg_check_nonpositive(label row, double value, const Communicator& comm) {
  if (!comm.any(row >= 0)) return;
  const std::vector<long long> rows = comm.gather(static_cast<long long>(row));
  const std::vector<double> values = comm.gather(row >= 0 ? value : 0.0);
  std::size_t first = 0;
  while (rows[first] < 0) ++first;
  throw cg_error({CgStatus::nonpositive_diagonal, 0, values[first], static_cast<label>(rows[first])});
}

SolverError cg_error(const CgFailure& f) {
  const char* nan_note = std::isfinite(f.value) ? "" : ", or NaN appeared";
  switch (f.status) {
    case CgStatus::breakdown:
      return SolverError(fmt::format("CG breakdown at iteration {}: p'Ap = {:.3g} (the matrix is not positive definite{})",
                                     f.iterations + 1, f.value, nan_note));
    case CgStatus::preconditioner_breakdown:
      return SolverError(fmt::format("PCG breakdown at iteration {}: r'M^-1 r = {:.3g} (the preconditioner is not "
                                     "positive definite{})",
                                     f.iterations + 1, f.value, nan_note));
    case CgStatus::residual_not_finite:
      return SolverError(fmt::format("CG: residual is NaN at iteration {}", f.iterations));
    case CgStatus::initial_not_finite:
      return SolverError("CG: initial residual is not finite (NaN or Inf in A, x or b)");
    case CgStatus::singular:
      return SolverError(
          "singular system: every row sums to zero (no fixedValue boundary and no reference level); "
          "set a fixedValue patch or discretisation.referenceCell");
    case CgStatus::nonpositive_diagonal:
      return SolverError(fmt::format("Jacobi: diagonal entry {} is {:.6g} (not positive)", f.row, f.value));
    case CgStatus::running:
    case CgStatus::converged:
    case CgStatus::max_iterations:
      break;
  }
  throw std::invalid_argument(fmt::format("cg_error: status {} is not a failure", static_cast<int>(f.status)));
}

}  // namespace fvmmini
