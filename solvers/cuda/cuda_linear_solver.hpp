#pragma once
// The cuda backend as the solver factory sees it (plain C++ header). A CPU-only build links the
// stub (no_cuda.cpp) instead: no device, and make_cuda_linear_solver is a clear error, so no
// consumer needs an #if.

#include <cstddef>
#include <memory>
#include <thread>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini::cuda {

/// Whether this build has the CUDA backend.
bool cuda_backend_built();

/// Whether a CUDA device can be used (false, silently, without a driver or a GPU, and always in a
/// build without the CUDA backend).
bool cuda_device_ready();

/// The driver and the context of the GPU that node rank `node_rank` takes, started on a thread of
/// their own (its errors left to the first solver, which meets them again and says so): a run
/// that starts it before its mesh gets the device's start-up beside the host's work. An empty
/// thread in a build without the CUDA backend.
std::jthread start_device(int node_rank);

/// cuda::device_bytes_peak (kernels/cuda/cuda_backend.hpp); 0 in a build without the CUDA backend.
std::size_t device_memory_peak();

/// Whether every rank of comm has a GPU of its own once each takes its node rank's (what the
/// nccl and ipc transports need). Collective; false in a build without the CUDA backend.
bool ranks_have_their_own_gpus(const Communicator& comm);

/// Order and build the format on the host (prepare_format), upload it once, solve by CG or
/// Jacobi-PCG on the device. update_coefficients refreshes values through the slot maps and
/// uploads only values.
/// @throws std::invalid_argument for an unknown format, ordering or preconditioner, or a format
///         with no CUDA kernel; CudaError when no CUDA device is available; SolverError in a build
///         without the CUDA backend
std::unique_ptr<LinearSolver> make_cuda_linear_solver(const LduMatrix& matrix, const SolverSettings& settings);

/// The same for a rank's piece of a matrix decomposed over comm's ranks (every rank calls it, then
/// every solve, together): its GPU chosen by node rank, the CG coupled through the processor
/// interfaces by settings.transport (nccl, mpi or ipc; auto picks), the preconditioner on the rank's
/// block. @throws as make_cuda_linear_solver; SolverError for a transport that cannot be used
std::unique_ptr<LinearSolver> make_cuda_distributed_linear_solver(const DistributedLdu& system,
                                                                  const SolverSettings& settings,
                                                                  const Communicator& comm);

}  // namespace fvmmini::cuda
