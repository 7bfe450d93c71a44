// "PBiCGStab": OpenFOAM's stabilised bi-conjugate gradients (van der Vorst 1992) for matrices
// that need not be symmetric, on the reference backend (krylov/reference_bicgstab.hpp).

#include <memory>

#include "solvers/krylov/krylov_unit.hpp"
#include "solvers/krylov/reference_bicgstab.hpp"

namespace fvmmini {

namespace {

class BiCgStabMethod final : public KrylovMethod {
 public:
  explicit BiCgStabMethod(std::shared_ptr<WorkStore> store) { work_.store = std::move(store); }
  SolverPerformance solve(const HostOperator& a, std::span<double> x, std::span<const double> b,
                          const SolverSettings& settings, HostPreconditioner& preconditioner) override {
    return reference_bicgstab(a, x, b, settings, work_, &preconditioner);
  }

 private:
  BiCgStabWorkspace work_;
};

}  // namespace

const KrylovUnit& krylov_unit_pbicgstab() {
  static const KrylovUnit unit{
      .name = "PBiCGStab",
      .summary = "stabilised bi-conjugate gradients (OpenFOAM's PBiCGStab): any nonsingular matrix, symmetric or not",
      .make = [](std::shared_ptr<WorkStore> store) { return std::make_unique<BiCgStabMethod>(std::move(store)); },
  };
  return unit;
}

}  // namespace fvmmini
