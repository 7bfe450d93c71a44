// "GAMG" on the cuda backend: the hierarchy built on the device (parallelPair, one rank, jacobi) or
// the host's uploaded, the V-cycle queued on the device.

#include <memory>

#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/gamg/cuda/device_gamg.hpp"

namespace fvmmini::cuda {

const DevicePreconditionerUnit& device_preconditioner_gamg() {
  static const DevicePreconditionerUnit unit{
      .name = "GAMG",
      .make = [](const DevicePreconditionerInput& in) -> std::unique_ptr<DevicePreconditioner> {
        return std::make_unique<DeviceGamg>(in.matrix, in.op, in.settings, in.spmv, in.sequence, in.ranks,
                                            in.device_ranks, in.fine_slots,
                                            dynamic_cast<const DeviceGamg*>(in.same_pattern));
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
