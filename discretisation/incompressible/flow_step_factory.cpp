#include "discretisation/incompressible/flow_step_factory.hpp"

#include "discretisation/incompressible/host_flow_step.hpp"
#include "discretisation/incompressible/piso_step.hpp"

namespace fvmmini {

std::unique_ptr<FlowStep> make_flow_step(const FlowOperators& operators, const SolverSettings& velocity_solver,
                                         const SolverSettings& pressure_solver,
                                         const SolverSettings* final_pressure_solver) {
  if (operators.settings.algorithm == FlowAlgorithm::piso) {
    SolverSettings final_settings = final_pressure_solver ? *final_pressure_solver : pressure_solver;
    if (!final_pressure_solver) final_settings.rel_tol = 0.0;
    const SolverSettings u = resolve_solver_settings(velocity_solver);
    const SolverSettings p = resolve_solver_settings(pressure_solver);
    const SolverSettings p_final = resolve_solver_settings(final_settings);
    if (u.backend == Backend::cuda && p.backend == Backend::cuda && p_final.backend == Backend::cuda)
      return make_device_piso_step(operators, u, p, p_final);
    return std::make_unique<PisoStep>(operators, velocity_solver, pressure_solver, final_settings);
  }
  if (operators.settings.convection == ConvectionScheme::upwind)
    throw std::invalid_argument("convection upwind is PISO's: the projection's is explicit (linear, linearUpwind)");
  const SolverSettings u = resolve_solver_settings(velocity_solver);
  const SolverSettings p = resolve_solver_settings(pressure_solver);
  if (u.backend == Backend::cuda && p.backend == Backend::cuda) return make_device_flow_step(operators, u, p);
  return std::make_unique<HostFlowStep>(operators, velocity_solver, pressure_solver);
}

}  // namespace fvmmini
