#pragma once
// What every device Krylov method does before its first iteration, as the reference units do
// (cg_rules.hpp): the mean of x, OpenFOAM's normFactor = sum(|Ax - A x̄| + |b - A x̄|) + SMALL
// (A x̄ as the row sums of A times x̄), the initial residual |b - Ax|_1 / normFactor and the
// stopping tests; and the grid-stride loop of their vector kernels. The kernels are templates so
// that each .cu that launches one instantiates its own. For .cu files only.

#include <cuda_runtime.h>

#include "kernels/cuda/reduction.cuh"
#include "solvers/krylov/cg_rules.hpp"

namespace fvmmini::cuda {

/// Threads of the single-block kernels that reduce the partials into a method's scalars.
constexpr int finalize_block = 1024;

/// Every index in [0, n) of a 1-D grid, each thread striding by the grid's size.
#define FVMMINI_GRID_STRIDE(i, n)                                                                   \
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < (n);      \
       i += static_cast<long long>(gridDim.x) * blockDim.x)

/// a = value (the ones whose product gives the row sums).
template <class T>
__global__ void fill_kernel(long long n, T value, T* __restrict__ a) {
  FVMMINI_GRID_STRIDE(i, n) a[i] = value;
}

/// Partials of sum a (the mean of x).
template <class T>
__global__ void __launch_bounds__(reduce_block) sum_kernel(long long n, const T* __restrict__ a,
                                                           double* __restrict__ partials) {
  Sums<1> s{};
  FVMMINI_GRID_STRIDE(i, n) s.v[0] += a[i];
  write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

/// state->x_mean = the total of sum_kernel's partials / n (n: the rows of every rank).
template <class State>
__global__ void __launch_bounds__(finalize_block) mean_finalize(long long n, const double* __restrict__ partials,
                                                                int count, State* state) {
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x == 0) state->x_mean = s.v[0] / static_cast<double>(n);
}

/// r_i = b_i - (Ax)_i; adds |r_i| to s.v[0] and |(Ax)_i - (A x̄)_i| + |b_i - (A x̄)_i| to s.v[1].
template <int N>
__device__ inline double start_residual(double b, double ax, double row_sum, double x_mean, Sums<N>& s) {
  const double a_ref = row_sum * x_mean;
  const double r = b - ax;
  s.v[0] += fabs(r);
  s.v[1] += fabs(ax - a_ref) + fabs(b - a_ref);
  return r;
}

/// From the totals of start_residual's two sums: normFactor, the initial residual, no iterations
/// and the stopping tests before the first one.
template <class State>
__device__ inline void start_state(double r_norm, double norm_terms, State& state, CgStop stop) {
  state.norm_factor = norm_terms + cg_small;
  state.initial_residual = state.residual = r_norm / state.norm_factor;
  state.iterations = 0;
  state.status = static_cast<int>(cg_status_after(state.residual, state.residual, 0, stop));
}

}  // namespace fvmmini::cuda
