#pragma once
// One CG system's scalars on the device, as DeviceCg and DeviceBlockCg (one per system) keep them
// between their kernels. For .cu files only.

#include <cuda_runtime.h>

#include "solvers/krylov/cg_rules.hpp"

namespace fvmmini::cuda {

struct CgState {
  double x_mean;
  double norm_factor;
  double initial_residual;
  double residual;
  double rz;  ///< r.z of the current search direction
  double alpha;
  double beta;
  double rejected;  ///< the p'Ap or r'M^-1 r that failed the breakdown test
  int iterations;
  int status;     ///< a CgStatus, as the int the preconditioners' kernels read
  int x_pending;  ///< the last iteration's x += alpha p is still to be applied (by the direction kernel)
  int restart;    ///< the last residual replacement undid a stop: the direction restarts, p = z
};

__host__ __device__ inline bool running(const CgState& state) {
  return state.status == static_cast<int>(CgStatus::running);
}
__host__ __device__ inline void set_status(CgState* state, CgStatus status) { state->status = static_cast<int>(status); }

}  // namespace fvmmini::cuda
