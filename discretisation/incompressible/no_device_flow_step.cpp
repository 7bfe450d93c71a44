// The device step in a build without CUDA (FVMMINI_WITH_CUDA=OFF): the solver settings never
// resolve to the cuda backend there, and asking for it anyway is a clear error.

#include "discretisation/incompressible/flow_step_factory.hpp"

namespace fvmmini {

std::unique_ptr<FlowStep> make_device_flow_step(const FlowOperators&, const SolverSettings&, const SolverSettings&) {
  throw SolverError("the device flow step needs the CUDA backend, which this build does not have");
}

std::unique_ptr<FlowStep> make_device_piso_step(const FlowOperators&, const SolverSettings&, const SolverSettings&,
                                                const SolverSettings&) {
  throw SolverError("the device PISO step needs the CUDA backend, which this build does not have");
}

}  // namespace fvmmini
