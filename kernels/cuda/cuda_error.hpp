#pragma once
// The error every CUDA or cuSPARSE failure becomes: a SolverError (a device failure during a solve)
// that names the call, the file and the line.

#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

class CudaError : public SolverError {
 public:
  using SolverError::SolverError;
};

}  // namespace fvmmini::cuda
