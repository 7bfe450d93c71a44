#pragma once
// Deterministic reductions: a fixed tree inside each block (warp shuffles, then one warp over the
// warps' partials), one partial per block, and a single-block pass over the partials in fixed
// order. No floating-point atomics: the same input and launch shape give bit-identical sums.

#include <cuda_runtime.h>

namespace fvmmini::cuda {

constexpr int reduce_block = 256;       ///< threads per block of the vector kernels
constexpr int reduce_max_blocks = 1024;  ///< grid cap of the vector kernels (fixed: no device dependence)
constexpr int spmv_max_threads = 1 << 20;  ///< thread cap of one Staircase group launch (sh threads a block)

/// Sums of N values; plain aggregate so kernels can carry several sums through one tree.
template <int N>
struct Sums {
  double v[N];
};

/// The two reductions the kernels use: + (sums) and max (of values known to be >= 0).
struct SumOp {
  __device__ static double apply(double a, double b) { return a + b; }
};
struct MaxOp {
  __device__ static double apply(double a, double b) { return fmax(a, b); }
};

template <class Op = SumOp>
__device__ inline double warp_reduce(double v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

/// The block's reduction of each of N values (blockDim.x a multiple of 32, at most 1024); 0 is
/// the identity (sums, or maxima of non-negative values). The result is valid in thread 0.
/// Uses shared memory: call at most once between barriers.
template <int N, class Op = SumOp>
__device__ inline Sums<N> block_sum(Sums<N> s) {
  __shared__ double warp_partial[N][32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < N; ++k) s.v[k] = warp_reduce<Op>(s.v[k]);
  if (lane == 0)
#pragma unroll
    for (int k = 0; k < N; ++k) warp_partial[k][warp] = s.v[k];
  __syncthreads();
  if (warp == 0) {
    const int n_warps = blockDim.x >> 5;
#pragma unroll
    for (int k = 0; k < N; ++k) s.v[k] = warp_reduce<Op>(lane < n_warps ? warp_partial[k][lane] : 0.0);
  }
  return s;
}

/// Thread 0 of the block writes its block's sums: partials[k * n_blocks + blockIdx.x].
template <int N, class Op = SumOp>
__device__ inline void write_block_partials(Sums<N> s, double* partials, int n_blocks, int block) {
  s = block_sum<N, Op>(s);
  if (threadIdx.x == 0)
#pragma unroll
    for (int k = 0; k < N; ++k) partials[k * n_blocks + block] = s.v[k];
}

/// Inside a single block: the totals of count partials per value (layout of write_block_partials).
/// Every thread combines a fixed strided subset in index order, then the block tree combines those.
template <int N, class Op = SumOp>
__device__ inline Sums<N> reduce_partials(const double* partials, int count) {
  Sums<N> s{};
#pragma unroll 8
  for (int i = threadIdx.x; i < count; i += blockDim.x)
#pragma unroll
    for (int k = 0; k < N; ++k) s.v[k] = Op::apply(s.v[k], partials[k * count + i]);
  return block_sum<N, Op>(s);
}

/// Grid of the vector kernels for n elements: enough blocks to fill the device, capped at a
/// constant so that the reduction order depends on n alone.
inline int vector_grid(long long n) {
  const long long blocks = (n + reduce_block - 1) / reduce_block;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > reduce_max_blocks ? reduce_max_blocks : blocks));
}

}  // namespace fvmmini::cuda
