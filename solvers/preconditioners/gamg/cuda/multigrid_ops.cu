#include "solvers/preconditioners/gamg/cuda/multigrid_ops.cuh"

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/block_vectors.hpp"

namespace fvmmini::cuda {

namespace {

__device__ bool stopped(const int* status) { return status && *status != 0; }

// K vectors interleaved by row (linalg/block_vectors.hpp): a thread per value v of row v / K.

/// The grid-stride loop over the K n values of n rows.
#define FVMMINI_EACH_VALUE(v, rows)                                                                \
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;                \
       v < (rows) * static_cast<long long>(K); v += static_cast<long long>(gridDim.x) * blockDim.x)

template <int K>
__global__ void jacobi_start_kernel(int n, double weight, const double* __restrict__ inv_diag,
                                    const double* __restrict__ b, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  FVMMINI_EACH_VALUE(v, n) x[v] = weight * inv_diag[v / K] * b[v];
}

template <int K>
__global__ void jacobi_correct_kernel(int n, double weight, const double* __restrict__ inv_diag,
                                      const double* __restrict__ b, const double* __restrict__ ax,
                                      double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  FVMMINI_EACH_VALUE(v, n) x[v] += weight * inv_diag[v / K] * (b[v] - ax[v]);
}

__global__ void residual_kernel(int n, const double* __restrict__ b, const double* ax, double* r, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) r[i] = b[i] - ax[i];
}

__global__ void add_kernel(int n, const double* __restrict__ z, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += z[i];
}

template <int K>
__global__ void restrict_residual_kernel(int n_coarse, const int* __restrict__ group_ptr,
                                         const int* __restrict__ group_rows, const double* __restrict__ b,
                                         const double* __restrict__ ax, double* __restrict__ coarse,
                                         const int* status, double weight, const double* __restrict__ start_inv_diag,
                                         double* __restrict__ start) {
  if (stopped(status)) return;
  FVMMINI_EACH_VALUE(v, n_coarse) {
    const long long c = v / K, q = v % K;
    double sum = 0.0;
    for (int k = group_ptr[c]; k < group_ptr[c + 1]; ++k) {
      const long long i = static_cast<long long>(group_rows[k]) * K + q;
      sum += b[i] - ax[i];
    }
    coarse[v] = sum;
    if (start) start[v] = weight * start_inv_diag[c] * sum;
  }
}

__global__ void restrict_add_kernel(int n_coarse, const int* __restrict__ group_ptr, const int* __restrict__ group_rows,
                                    const double* __restrict__ fine, const double* __restrict__ extra,
                                    double* __restrict__ coarse) {
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n_coarse; c += gridDim.x * blockDim.x) {
    double sum = extra[c];
    for (int k = group_ptr[c]; k < group_ptr[c + 1]; ++k) sum += fine[group_rows[k]];
    coarse[c] = sum;
  }
}

template <int K>
__global__ void prolong_add_kernel(int n, const int* __restrict__ coarse_of, double scale,
                                   const double* __restrict__ coarse, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  FVMMINI_EACH_VALUE(v, n) x[v] += scale * coarse[static_cast<long long>(coarse_of[v / K]) * K + v % K];
}

__global__ void gather_kernel(int n, const int* __restrict__ rows, const double* __restrict__ from,
                              double* __restrict__ to, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) to[i] = from[rows[i]];
}

/// x = inverse b, a warp per value (row, vector) of x, its lanes stepping through the columns,
/// from `first` in strides of `stride` warps (a grid's warps, or one block's).
template <int K>
__device__ void dense_multiply_values(int rows, int columns, const double* __restrict__ inverse, const double* b,
                                      double* x, int first, int stride) {
  const int lane = threadIdx.x % 32;
  for (int w = first; w < rows * K; w += stride) {
    const int row = w / K, q = w % K;
    double sum = 0.0;
    for (int j = lane; j < columns; j += 32)
      sum += inverse[static_cast<long long>(row) * columns + j] * b[static_cast<long long>(j) * K + q];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) x[w] = sum;
  }
}

template <int K>
__global__ void dense_multiply_kernel(int rows, int columns, const double* __restrict__ inverse,
                                      const double* __restrict__ b, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  dense_multiply_values<K>(rows, columns, inverse, b, x, (blockIdx.x * blockDim.x + threadIdx.x) / 32,
                           gridDim.x * blockDim.x / 32);
}

__global__ void set_diagonal_kernel(int n, const double* __restrict__ d, const long long* __restrict__ slot,
                                    double* __restrict__ values, double* __restrict__ inv_diag) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (values) values[slot[i]] = d[i];
    if (inv_diag) inv_diag[i] = 1.0 / d[i];
  }
}

/// values[slot[i]] = 0 (a level's off-diagonals from a copy of its values).
__global__ void zero_slots_kernel(int n, const long long* __restrict__ slot, double* __restrict__ values) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) values[slot[i]] = 0.0;
}

// --- one_block_vcycle: every step a loop of the block over the level's rows, then a barrier
// --- (no __restrict__ on what the block writes: the barrier, not the read-only cache, orders it)

template <int K>
__device__ void one_block_multiply(const OneBlockLevel& v) {
  for (int w = threadIdx.x; w < v.n * K; w += blockDim.x) {
    const int i = w / K, q = w % K;
    double sum = v.diag[i] * v.x[w];
    for (int k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) sum += v.off[k] * v.x[v.col[k] * K + q];
    v.ax[w] = sum;
  }
  __syncthreads();
}

template <int K>
__device__ void one_block_sweep(const OneBlockLevel& v, double weight) {
  one_block_multiply<K>(v);
  for (int w = threadIdx.x; w < v.n * K; w += blockDim.x) v.x[w] += weight * v.inv_diag[w / K] * (v.b[w] - v.ax[w]);
  __syncthreads();
}

template <int K>
__global__ void __launch_bounds__(one_block_threads)
    one_block_vcycle_kernel(const OneBlockLevel* levels, int smoothed, const double* __restrict__ inverse, int columns,
                            double weight, double scale, int sweeps, bool started, const int* status) {
  if (stopped(status)) return;
  const int t = threadIdx.x;
  if (!started) {  // the first level's sweep from zero
    const OneBlockLevel& v = levels[0];
    for (int w = t; w < v.n * K; w += blockDim.x) v.x[w] = sweeps > 0 ? weight * v.inv_diag[w / K] * v.b[w] : 0.0;
    __syncthreads();
  }
  for (int l = 0; l < smoothed; ++l) {
    const OneBlockLevel& v = levels[l];
    for (int sweep = 1; sweep < sweeps; ++sweep) one_block_sweep<K>(v, weight);
    // --- the residual restricted, with the next level's sweep from zero (the coarsest's: none)
    one_block_multiply<K>(v);
    const OneBlockLevel& next = levels[l + 1];
    const bool smoothed_next = l + 1 < smoothed;
    for (int w = t; w < next.n * K; w += blockDim.x) {
      const int c = w / K, q = w % K;
      double sum = 0.0;
      for (int k = v.group_ptr[c]; k < v.group_ptr[c + 1]; ++k) {
        const int i = v.group_rows[k] * K + q;
        sum += v.b[i] - v.ax[i];
      }
      next.b[w] = sum;
      if (smoothed_next) next.x[w] = sweeps > 0 ? weight * next.inv_diag[c] * sum : 0.0;
    }
    __syncthreads();
  }
  {  // --- the coarsest: a warp a value of its inverse times b
    const OneBlockLevel& c = levels[smoothed];
    dense_multiply_values<K>(c.n, columns, inverse, c.b, c.x, t / 32, blockDim.x / 32);
    __syncthreads();
  }
  for (int l = smoothed - 1; l >= 0; --l) {
    const OneBlockLevel& v = levels[l];
    const double* coarse = levels[l + 1].x;
    for (int w = t; w < v.n * K; w += blockDim.x) v.x[w] += scale * coarse[v.coarse_of[w / K] * K + w % K];
    __syncthreads();
    for (int sweep = 0; sweep < sweeps; ++sweep) one_block_sweep<K>(v, weight);
  }
}

}  // namespace

void enqueue_jacobi_start(int n, double weight, const double* inv_diag, const double* b, double* x,
                          const int* status, cudaStream_t stream, int k) {
  dispatch_block(k, [&]<int K>() {
    jacobi_start_kernel<K><<<vector_grid(static_cast<long long>(n) * K), reduce_block, 0, stream>>>(n, weight, inv_diag,
                                                                                                    b, x, status);
    FVMMINI_CUDA_CHECK_LAUNCH(jacobi_start_kernel);
  });
}

void enqueue_jacobi_correct(int n, double weight, const double* inv_diag, const double* b, const double* ax, double* x,
                            const int* status, cudaStream_t stream, int k) {
  dispatch_block(k, [&]<int K>() {
    jacobi_correct_kernel<K><<<vector_grid(static_cast<long long>(n) * K), reduce_block, 0, stream>>>(
        n, weight, inv_diag, b, ax, x, status);
    FVMMINI_CUDA_CHECK_LAUNCH(jacobi_correct_kernel);
  });
}

void enqueue_residual(int n, const double* b, const double* ax, double* r, const int* status, cudaStream_t stream) {
  residual_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, b, ax, r, status);
  FVMMINI_CUDA_CHECK_LAUNCH(residual_kernel);
}

void enqueue_add(int n, const double* z, double* x, const int* status, cudaStream_t stream) {
  add_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, z, x, status);
  FVMMINI_CUDA_CHECK_LAUNCH(add_kernel);
}

void enqueue_restrict_residual(int n_coarse, const int* group_ptr, const int* group_rows, const double* b,
                               const double* ax, double* coarse, const int* status, cudaStream_t stream,
                               double weight, const double* start_inv_diag, double* start, int k) {
  dispatch_block(k, [&]<int K>() {
    restrict_residual_kernel<K><<<vector_grid(static_cast<long long>(n_coarse) * K), reduce_block, 0, stream>>>(
        n_coarse, group_ptr, group_rows, b, ax, coarse, status, weight, start_inv_diag, start);
    FVMMINI_CUDA_CHECK_LAUNCH(restrict_residual_kernel);
  });
}

void enqueue_restrict_add(int n_coarse, const int* group_ptr, const int* group_rows, const double* fine,
                          const double* extra, double* coarse, cudaStream_t stream) {
  restrict_add_kernel<<<vector_grid(n_coarse), reduce_block, 0, stream>>>(n_coarse, group_ptr, group_rows, fine, extra,
                                                                         coarse);
  FVMMINI_CUDA_CHECK_LAUNCH(restrict_add_kernel);
}

void enqueue_prolong_add(int n, const int* coarse_of, double scale, const double* coarse, double* x, const int* status,
                         cudaStream_t stream, int k) {
  dispatch_block(k, [&]<int K>() {
    prolong_add_kernel<K><<<vector_grid(static_cast<long long>(n) * K), reduce_block, 0, stream>>>(n, coarse_of, scale,
                                                                                                   coarse, x, status);
    FVMMINI_CUDA_CHECK_LAUNCH(prolong_add_kernel);
  });
}

void enqueue_gather(int n, const int* rows, const double* from, double* to, const int* status, cudaStream_t stream) {
  gather_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, rows, from, to, status);
  FVMMINI_CUDA_CHECK_LAUNCH(gather_kernel);
}

void enqueue_dense_multiply(int rows, int columns, const double* inverse, const double* b, double* x,
                            const int* status, cudaStream_t stream, int k) {
  const int warps_per_block = reduce_block / 32;
  dispatch_block(k, [&]<int K>() {
    dense_multiply_kernel<K><<<std::max(1, (rows * K + warps_per_block - 1) / warps_per_block), reduce_block, 0,
                               stream>>>(rows, columns, inverse, b, x, status);
    FVMMINI_CUDA_CHECK_LAUNCH(dense_multiply_kernel);
  });
}

void enqueue_one_block_vcycle(const OneBlockLevel* levels, int smoothed, const double* inverse, int columns,
                              double weight, double scale, int sweeps, bool started, const int* status,
                              cudaStream_t stream, int k) {
  dispatch_block(k, [&]<int K>() {
    one_block_vcycle_kernel<K><<<1, one_block_threads, 0, stream>>>(levels, smoothed, inverse, columns, weight, scale,
                                                                     sweeps, started, status);
    FVMMINI_CUDA_CHECK_LAUNCH(one_block_vcycle_kernel);
  });
}

void enqueue_set_diagonal(int n, const double* d, const long long* slot, double* values, double* inv_diag,
                          cudaStream_t stream) {
  set_diagonal_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, d, slot, values, inv_diag);
  FVMMINI_CUDA_CHECK_LAUNCH(set_diagonal_kernel);
}

void enqueue_without_diagonal(int n, long long entries, const double* values, const long long* diag_slot, double* off,
                              cudaStream_t stream) {
  if (entries > 0)
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(off, values, sizeof(double) * entries, cudaMemcpyDeviceToDevice, stream));
  if (n == 0) return;
  zero_slots_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, diag_slot, off);
  FVMMINI_CUDA_CHECK_LAUNCH(zero_slots_kernel);
}

}  // namespace fvmmini::cuda
