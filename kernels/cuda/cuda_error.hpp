#pragma once
// The error every CUDA or cuSPARSE failure becomes: a SolverError (a device failure during a solve)
// that names the call, the file and the line.

#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

class CudaError : public SolverError {
 public:
  using SolverError::SolverError;
  CudaError(const std::string& what, bool out_of_memory) : SolverError(what), out_of_memory_(out_of_memory) {}
  /// The device lacked the memory a call asked for (a caller may take a leaner way).
  bool out_of_memory() const { return out_of_memory_; }

 private:
  bool out_of_memory_ = false;
};

}  // namespace fvmmini::cuda
