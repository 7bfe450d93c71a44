// DeviceProjection in a build without CUDA (FVMMINI_WITH_CUDA=OFF): the solver settings never
// resolve to the cuda backend there, and constructing one anyway is a clear error.

#include "discretisation/incompressible/device_projection.hpp"

namespace fvmmini {

struct DeviceProjection::Impl {};

DeviceProjection::DeviceProjection(const ProjectionSolver&, const SolverSettings&, const SolverSettings&) {
  throw SolverError("the device projection step needs the CUDA backend, which this build does not have");
}

DeviceProjection::~DeviceProjection() = default;

// --- unreachable: no DeviceProjection is ever constructed in this build
CourantNumber DeviceProjection::courant_number(double) const { return {}; }
StepReport DeviceProjection::advance(double) { return {}; }
void DeviceProjection::copy_state_to(ProjectionSolver&) const {}
std::string DeviceProjection::describe_velocity_solver() const { return {}; }
std::string DeviceProjection::describe_pressure_solver() const { return {}; }
PreconditionerInfo DeviceProjection::velocity_preconditioner() const { return {}; }
PreconditionerInfo DeviceProjection::pressure_preconditioner() const { return {}; }

}  // namespace fvmmini
