#pragma once
// A triangular method (DIC, mcsgs) on the reference backend: the factor built on the host in the
// operator's numbering (build_triangular_factor), its triangles solved level by level
// (triangular_solve.hpp); the cuda backend builds the same factor on the device
// (cuda/triangular_preconditioner.hpp).

#include <span>
#include <vector>

#include "solvers/preconditioners/preconditioner_unit.hpp"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"

namespace fvmmini {

class HostTriangularPreconditioner final : public PreconditionerMethod {
 public:
  /// @param[in] sweeps symmetric sweeps per application (after the first, each relaxes the
  ///            residual of the rank's block)
  /// @throws std::invalid_argument for sweeps < 1; SolverError when a pivot is not positive
  HostTriangularPreconditioner(const PreconditionerInput& input, const TriangularMethod& method, int sweeps);

  void apply(const HostOperator& a, std::span<const double> r, std::span<double> z) override;
  void refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces) override;
  void describe(PreconditionerInfo& info, std::int64_t nnz) const override;
  const TriangularFactor* factor() const override { return &factor_; }

 private:
  int sweeps_;  // before factor_: checked before the factor is built
  TriangularFactor factor_;
  std::vector<double> residual_, correction_;  ///< sweeps after the first
};

}  // namespace fvmmini
