#pragma once
// Device vector kernels shared by the solvers (launchers; CUDA types allowed here).

#include <cuda_runtime.h>

namespace fvmmini::cuda {

/// Per-block partial sums of a_i b_i (vector_grid(n) of them, layout of write_block_partials).
/// @return the number of partials written
int enqueue_dot_partials(long long n, const double* a, const double* b, double* partials, cudaStream_t stream);

/// *result = the total of count partials (one block, fixed order).
void enqueue_sum_partials(const double* partials, int count, double* result, cudaStream_t stream);

}  // namespace fvmmini::cuda
