// RankTransport in a CUDA build without NCCL: only MPI with host staging (device_ranks.cu).

#include "linalg/solver_settings.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"
#include "solvers/distributed/cuda/rank_transport.cuh"

namespace fvmmini::cuda {

bool nccl_built() { return false; }

std::unique_ptr<RankTransport> make_nccl_transport(const Communicator&, const HaloPattern&) {
  throw SolverError("transport nccl: this build has no NCCL (it was not found at configure time); use mpi");
}

}  // namespace fvmmini::cuda
