#include "app/run_case.hpp"

#include "app/case_error.hpp"
#include "app/flow_simulation.hpp"
#include "app/scalar_simulation.hpp"
#include "app/simulation.hpp"

namespace fvmmini {

int run_case(const ResolvedCase& c, const RunContext& context) {
  if (c.get_string("physics.type") == "incompressible") {
    // --- every rank refuses it alike, before the mesh is read or an output written
    if (c.get_string("physics.algorithm") == "PISO" && context.ranks->distributed())
      throw CaseError(c.where("physics.algorithm"), "physics.algorithm: PISO runs on one rank (mpirun -np N runs "
                                                    "the projection, algorithm: projection)");
    return run_simulation(c, context, make_flow_simulation);
  }
  return run_simulation(c, context, make_scalar_simulation);  // poisson, diffusion
}

}  // namespace fvmmini
