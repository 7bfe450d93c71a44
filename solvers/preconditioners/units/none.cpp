// "none": plain CG.

#include "solvers/preconditioners/preconditioner_unit.hpp"

namespace fvmmini {

const PreconditionerUnit& preconditioner_unit_none() {
  static const PreconditionerUnit unit{
      .name = "none",
      .summary = "no preconditioner: plain CG or BiCGStab",
      .cg_step = CgStep::none,
  };
  return unit;
}

}  // namespace fvmmini
