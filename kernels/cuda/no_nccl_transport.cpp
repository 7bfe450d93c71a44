// RankTransport in a CUDA build without NCCL: only MPI with host staging (device_ranks.cu).

#include "kernels/cuda/device_ranks.hpp"
#include "kernels/cuda/rank_transport.cuh"
#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

bool nccl_built() { return false; }

std::unique_ptr<RankTransport> make_nccl_transport(const Communicator&, const HaloPattern&) {
  throw SolverError("transport nccl: this build has no NCCL (it was not found at configure time); use mpi");
}

}  // namespace fvmmini::cuda
