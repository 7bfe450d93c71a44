// "mcsgs" on the cuda backend: the colouring, levels and triangles built on the device, `sweeps`
// symmetric sweeps per application.

#include <memory>

#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

const DevicePreconditionerUnit& device_preconditioner_mcsgs() {
  static const DevicePreconditionerUnit unit{
      .name = multicolour_gauss_seidel.name,
      .make = [](const DevicePreconditionerInput& in) -> std::unique_ptr<DevicePreconditioner> {
        return std::make_unique<DeviceTriangularPreconditioner>(in.matrix, in.op, multicolour_gauss_seidel,
                                                                in.settings.triangular_solve, in.settings.sweeps,
                                                                &in.spmv, LevelLaunch::automatic, in.sequence);
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
