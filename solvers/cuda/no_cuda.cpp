// The cuda backend of a build without CUDA (FVMMINI_WITH_CUDA=OFF): no device, and asking for
// the backend is a clear error.

#include "solvers/cuda/cuda_linear_solver.hpp"

namespace fvmmini::cuda {

bool cuda_backend_built() { return false; }

bool cuda_device_ready() { return false; }

std::size_t device_memory_peak() { return 0; }

std::jthread start_device(int) { return {}; }

bool ranks_have_their_own_gpus(const Communicator&) { return false; }

std::unique_ptr<LinearSolver> make_cuda_linear_solver(const LduMatrix&, const SolverSettings&) {
  throw SolverError("backend cuda: this build has no CUDA backend (configure with FVMMINI_WITH_CUDA=ON)");
}

std::unique_ptr<LinearSolver> make_cuda_distributed_linear_solver(const DistributedLdu&, const SolverSettings&,
                                                                  const Communicator&) {
  throw SolverError("backend cuda: this build has no CUDA backend (configure with FVMMINI_WITH_CUDA=ON)");
}

}  // namespace fvmmini::cuda
