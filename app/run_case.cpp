#include "app/run_case.hpp"

#include "app/flow_simulation.hpp"
#include "app/scalar_simulation.hpp"
#include "app/simulation.hpp"

namespace fvmmini {

int run_case(const ResolvedCase& c, const RunContext& context) {
  if (c.get_string("physics.type") == "incompressible") return run_simulation(c, context, make_flow_simulation);
  return run_simulation(c, context, make_scalar_simulation);  // poisson, diffusion
}

}  // namespace fvmmini
