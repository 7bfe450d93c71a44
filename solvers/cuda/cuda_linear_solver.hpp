#pragma once
// The LinearSolver of backend "cuda" (plain C++ header): the lead's make_linear_solver calls
// make_cuda_linear_solver when the settings ask for backend cuda.

#include <memory>

#include "solvers/linear_solver.hpp"

namespace fvmmini::cuda {

/// Order and build the format on the host (prepare_format), upload it once, solve by CG or
/// Jacobi-PCG on the device. update_coefficients refreshes values through the slot maps and
/// uploads only values.
/// @throws std::invalid_argument for an unknown format, ordering or preconditioner, or a format
///         with no CUDA kernel; CudaError when no CUDA device is available
std::unique_ptr<LinearSolver> make_cuda_linear_solver(const LduMatrix& matrix, const SolverSettings& settings);

}  // namespace fvmmini::cuda
