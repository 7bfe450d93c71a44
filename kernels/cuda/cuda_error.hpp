#pragma once
// The error every CUDA or cuSPARSE failure becomes: a DeviceError (a device failure during a solve)
// that names the call, the file and the line.

#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

class CudaError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

}  // namespace fvmmini::cuda
