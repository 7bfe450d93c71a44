#include "solvers/preconditioners/triangular/host_triangular_preconditioner.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "solvers/preconditioners/triangular/triangular_solve.hpp"

namespace fvmmini {

namespace {

int checked_sweeps(int sweeps) {
  if (sweeps < 1) throw std::invalid_argument(fmt::format("sweeps: {} (must be at least 1)", sweeps));
  return sweeps;
}

}  // namespace

HostTriangularPreconditioner::HostTriangularPreconditioner(const PreconditionerInput& in,
                                                           const TriangularMethod& method, int sweeps)
    : sweeps_(checked_sweeps(sweeps)),
      factor_(build_triangular_factor(in.matrix, in.op, method, in.sequence)) {}

void HostTriangularPreconditioner::apply(const HostOperator& across, std::span<const double> r,
                                         std::span<double> z) {
  const HostOperator& a = across.local_block();
  reference::triangular_apply(factor_, r, z);
  if (sweeps_ == 1) return;
  // --- each further symmetric sweep relaxes the residual: z += M^-1 (r - A z)
  const std::size_t n = r.size();
  residual_.resize(n);
  correction_.resize(n);
  for (int sweep = 1; sweep < sweeps_; ++sweep) {
    a.multiply(z, residual_);
    for (std::size_t i = 0; i < n; ++i) residual_[i] = r[i] - residual_[i];
    reference::triangular_apply(factor_, residual_, correction_);
    for (std::size_t i = 0; i < n; ++i) z[i] += correction_[i];
  }
}

void HostTriangularPreconditioner::refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>*) {
  refresh_triangular_factor(matrix, factor_);
}

void HostTriangularPreconditioner::describe(PreconditionerInfo& info, std::int64_t nnz) const {
  info.colours = factor_.colours;
  info.levels = factor_.levels();
  info.level_sizes = factor_.level_sizes();
  info.spmv_equivalents = spmv_equivalents(factor_.n_rows, factor_.lower.slots() + factor_.upper.slots(),
                                           factor_.rows_contiguous, sweeps_, nnz);
}

}  // namespace fvmmini
