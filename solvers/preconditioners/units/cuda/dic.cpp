// "DIC" on the cuda backend: the factor built on the device, its triangles solved by fvmmini's
// level kernels or by cusparseSpSV (triangularSolve).

#include <memory>

#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

const DevicePreconditionerUnit& device_preconditioner_dic() {
  static const DevicePreconditionerUnit unit{
      .name = incomplete_cholesky.name,
      .make = [](const DevicePreconditionerInput& in) -> std::unique_ptr<DevicePreconditioner> {
        return std::make_unique<DeviceTriangularPreconditioner>(in.matrix, in.op, incomplete_cholesky,
                                                                in.settings.triangular_solve, 1, &in.spmv,
                                                                LevelLaunch::automatic, in.sequence);
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
