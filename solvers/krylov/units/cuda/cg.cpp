// "CG" on the cuda backend: DeviceCg (its iterations as CUDA graphs, looped on the device), and
// DeviceBlockCg for k systems at once.

#include <memory>

#include "solvers/krylov/cuda/device_cg.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"

namespace fvmmini::cuda {

const DeviceKrylovUnit& device_krylov_cg() {
  static const DeviceKrylovUnit unit{
      .name = "CG",
      .make = [](DeviceMatrix& matrix, std::span<const double> diagonal,
                 DeviceRanks* ranks) -> std::unique_ptr<DeviceKrylov> {
        return std::make_unique<DeviceCg>(matrix, diagonal, ranks);
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
