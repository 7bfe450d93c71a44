// "DIC": diagonal incomplete Cholesky, OpenFOAM's name: IC(0) on the LDU pattern with only the
// diagonal modified, its triangles solved level by level in the solve's ordering.

#include <memory>

#include "solvers/preconditioners/preconditioner_unit.hpp"
#include "solvers/preconditioners/triangular/host_triangular_preconditioner.hpp"

namespace fvmmini {

const PreconditionerUnit& preconditioner_unit_dic() {
  static const PreconditionerUnit unit{
      .name = incomplete_cholesky.name,
      .summary = "incomplete Cholesky (IC(0), diagonal modified), levels from the ordering",
      .cg_step = CgStep::applied,
      .symmetric_only = true,
      .keys = {"triangularSolve"},
      .make = [](const PreconditionerInput& in) -> std::unique_ptr<PreconditionerMethod> {
        return std::make_unique<HostTriangularPreconditioner>(in, incomplete_cholesky, 1);
      },
  };
  return unit;
}

}  // namespace fvmmini
