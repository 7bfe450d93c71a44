// "PBiCGStab" on the cuda backend: DeviceBiCgStab, on one rank and in double precision.

#include <memory>
#include <stdexcept>

#include "solvers/krylov/cuda/device_bicgstab.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"

namespace fvmmini::cuda {

const DeviceKrylovUnit& device_krylov_pbicgstab() {
  static const DeviceKrylovUnit unit{
      .name = "PBiCGStab",
      .make = [](DeviceMatrix& matrix, std::span<const double> diagonal,
                 DeviceRanks* ranks) -> std::unique_ptr<DeviceKrylov> {
        // its sums and products have no halo or sums over ranks yet (DeviceCg's DeviceRanks)
        if (ranks) throw std::invalid_argument("PBiCGStab on the cuda backend runs on one rank");
        return std::make_unique<DeviceBiCgStab>(matrix, diagonal);
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
