#pragma once
// Where the flow step runs: make_flow_step picks the host step (HostFlowStep) or the step with
// every field resident on the GPU (device_flow_step.cu). In a build without CUDA the device
// factory throws, so no consumer needs to know how the project was built.

#include <memory>

#include "discretisation/incompressible/flow_step.hpp"

namespace fvmmini {

/// The step for these settings: where the operators' algorithm is PISO, PISO (its last pressure
/// solve of a step with final_pressure_solver; null: pressure_solver's with relTol 0, as
/// OpenFOAM's tutorials write pFinal) on the device when the three systems resolve to the cuda
/// backend, on the host otherwise; else the projection on the device when both systems resolve
/// to the cuda backend (on each rank's GPU across ranks), on the host otherwise. `operators` must outlive the step. @throws SolverSetupError (naming the field) for
/// settings that do not fit a matrix; std::invalid_argument for a PISO the step cannot run
std::unique_ptr<FlowStep> make_flow_step(const FlowOperators& operators, const SolverSettings& velocity_solver,
                                         const SolverSettings& pressure_solver,
                                         const SolverSettings* final_pressure_solver = nullptr);

/// The device step from the operators' initial state (both settings with backend cuda: the
/// format, ordering and preconditioner of each). Phase times in its reports are the device's
/// (events between the phases). `operators` must outlive the step.
/// @throws SolverError in a build without CUDA; CudaError without a device; SolverSetupError
/// (naming the field) for settings the cuda backend does not accept
std::unique_ptr<FlowStep> make_device_flow_step(const FlowOperators& operators, const SolverSettings& velocity_solver,
                                                const SolverSettings& pressure_solver);

/// PISO on the device (device_piso_step.cu) from the operators' initial state, the three settings
/// resolved to the cuda backend; pFinal solved by p's solver with its own stopping rules where
/// nothing else differs. One rank. Phase times are the device's.
/// @throws as make_device_flow_step; std::invalid_argument on several ranks
std::unique_ptr<FlowStep> make_device_piso_step(const FlowOperators& operators, const SolverSettings& velocity_solver,
                                                const SolverSettings& pressure_solver,
                                                const SolverSettings& final_pressure_solver);

}  // namespace fvmmini
