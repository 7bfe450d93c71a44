#pragma once
// The projection step of ProjectionSolver with every field resident on the GPU: the same
// operators and formulas (projection_solver.hpp), face loops and cell gathers as CUDA kernels,
// the momentum and pressure systems solved by DeviceSolver on device vectors. Per step the host
// only launches work and reads back one small block of statistics (and each solve's status), so
// no field crosses the bus until output asks for it. Plain C++ interface.

#include <memory>
#include <string>

#include "discretisation/incompressible/projection_solver.hpp"

namespace fvmmini {

class DeviceProjection {
 public:
  /// Upload the host solver's operators and current state and build both linear systems on the
  /// device (backend cuda: the format, ordering and preconditioner of each setting).
  /// `host` must outlive this object. @throws CudaError without a device; std::invalid_argument
  /// for settings the cuda backend does not accept
  DeviceProjection(const ProjectionSolver& host, const SolverSettings& velocity_solver,
                   const SolverSettings& pressure_solver);
  ~DeviceProjection();
  DeviceProjection(const DeviceProjection&) = delete;
  DeviceProjection& operator=(const DeviceProjection&) = delete;

  /// The Courant number of the current fluxes over a step dt.
  CourantNumber courant_number(double dt) const;

  /// One projection step of length dt: the same report as ProjectionSolver::advance; phase times
  /// are the device's (events between the phases).
  StepReport advance(double dt);

  /// Copy U, p and phi into `host` (for output).
  void copy_state_to(ProjectionSolver& host) const;

  /// The log lines of the two linear systems.
  std::string describe_velocity_solver() const;
  std::string describe_pressure_solver() const;
  /// Their preconditioners' set-up, refresh and cost (the run summary's).
  PreconditionerInfo velocity_preconditioner() const;
  PreconditionerInfo pressure_preconditioner() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini
