// "DILU" on the cuda backend: DIC's factor built on the device, each triangle gathering its own
// coefficients of an asymmetric matrix and the pivots reading a_ij a_ji, its triangles solved by
// fvmmini's level kernels (the unit reads no triangularSolve, as on the reference backend).

#include <memory>

#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

const DevicePreconditionerUnit& device_preconditioner_dilu() {
  static const DevicePreconditionerUnit unit{
      .name = incomplete_lu.name,
      .make = [](const DevicePreconditionerInput& in) -> std::unique_ptr<DevicePreconditioner> {
        return std::make_unique<DeviceTriangularPreconditioner>(in.matrix, in.op, incomplete_lu,
                                                                TriangularSolve::levels, 1, &in.spmv,
                                                                LevelLaunch::automatic, in.sequence);
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
