// "CG": conjugate gradients (Hestenes & Stiefel 1952) for symmetric positive definite matrices,
// flat and annotated in the manner of HPCG (krylov/reference_cg.hpp); k systems of one operator
// together where the format has a multi-vector SpMV and the preconditioner is fused or takes the
// k vectors together (GAMG).

#include <memory>

#include "linalg/block_vectors.hpp"
#include "solvers/krylov/krylov_unit.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace {

class CgMethod final : public KrylovMethod {
 public:
  explicit CgMethod(std::shared_ptr<WorkStore> store) {
    work_.store = store;
    block_work_.store = std::move(store);
  }
  SolverPerformance solve(const HostOperator& a, std::span<double> x, std::span<const double> b,
                          const SolverSettings& settings, HostPreconditioner& preconditioner) override {
    return reference_cg(a, x, b, settings, work_, &preconditioner);
  }
  bool solves_together(const HostOperator& a, const SolverSettings& settings, const HostPreconditioner& preconditioner,
                       int k) const override {
    return k >= 2 && k <= max_block_vectors && a.has_multiply_block() &&
           (cg_step(settings) != CgStep::applied || preconditioner.applies_block(a, k));
  }
  std::vector<SolverPerformance> solve_block(const HostOperator& a, int k, std::span<double> x,
                                             std::span<const double> b, const SolverSettings& settings,
                                             HostPreconditioner& preconditioner) override {
    return reference_block_cg(a, k, x, b, settings, block_work_, &preconditioner);
  }

 private:
  CgWorkspace work_;
  BlockCgWorkspace block_work_;
};

}  // namespace

const KrylovUnit& krylov_unit_cg() {
  static const KrylovUnit unit{
      .name = "CG",
      .summary = "conjugate gradients: symmetric positive definite matrices",
      .symmetric_only = true,
      .make = [](std::shared_ptr<WorkStore> store) { return std::make_unique<CgMethod>(std::move(store)); },
  };
  return unit;
}

}  // namespace fvmmini
