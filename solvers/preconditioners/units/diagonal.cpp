// "diagonal": Jacobi, z = D^-1 r, fused into both CGs' vector passes.

#include "solvers/preconditioners/preconditioner_unit.hpp"

namespace fvmmini {

const PreconditionerUnit& preconditioner_unit_diagonal() {
  static const PreconditionerUnit unit{
      .name = "diagonal",
      .aliases = {"jacobi"},
      .summary = "Jacobi: the diagonal (fused into CG's vector passes)",
      .cg_step = CgStep::jacobi,
  };
  return unit;
}

}  // namespace fvmmini
