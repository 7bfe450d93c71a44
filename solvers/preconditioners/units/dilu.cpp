// "DILU": OpenFOAM's diagonal incomplete LU, for matrices that need not be symmetric: DIC's
// recurrence with each triangle's own coefficients, d~_i = a_ii - sum_{j in L(i)} a_ij a_ji / d~_j,
// its triangles solved level by level in the solve's ordering (its cuda twin: units/cuda/dilu.cpp).

#include <memory>

#include "solvers/preconditioners/preconditioner_unit.hpp"
#include "solvers/preconditioners/triangular/host_triangular_preconditioner.hpp"

namespace fvmmini {

const PreconditionerUnit& preconditioner_unit_dilu() {
  static const PreconditionerUnit unit{
      .name = incomplete_lu.name,
      .summary = "diagonal incomplete LU (OpenFOAM's DILU; DIC on a symmetric matrix), levels from the ordering",
      .cg_step = CgStep::applied,
      .make = [](const PreconditionerInput& in) -> std::unique_ptr<PreconditionerMethod> {
        return std::make_unique<HostTriangularPreconditioner>(in, incomplete_lu, 1);
      },
  };
  return unit;
}

}  // namespace fvmmini
