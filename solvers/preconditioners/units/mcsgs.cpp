// "mcsgs": multicolour symmetric Gauss-Seidel, one level per colour of a greedy colouring,
// `sweeps` symmetric sweeps per application.

#include <memory>

#include "solvers/preconditioners/preconditioner_unit.hpp"
#include "solvers/preconditioners/triangular/host_triangular_preconditioner.hpp"

namespace fvmmini {

const PreconditionerUnit& preconditioner_unit_mcsgs() {
  static const PreconditionerUnit unit{
      .name = multicolour_gauss_seidel.name,
      .summary = "multicolour symmetric Gauss-Seidel, a level per colour",
      .cg_step = CgStep::applied,
      .symmetric_only = true,
      .keys = {"sweeps"},
      .make = [](const PreconditionerInput& in) -> std::unique_ptr<PreconditionerMethod> {
        return std::make_unique<HostTriangularPreconditioner>(in, multicolour_gauss_seidel, in.settings.sweeps);
      },
  };
  return unit;
}

}  // namespace fvmmini
