#include "solvers/preconditioners/gamg/cuda/multigrid_ops.cuh"

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

__device__ bool stopped(const int* status) { return status && *status != 0; }

__global__ void jacobi_start_kernel(int n, double weight, const double* __restrict__ inv_diag,
                                    const double* __restrict__ b, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = weight * inv_diag[i] * b[i];
}

__global__ void jacobi_correct_kernel(int n, double weight, const double* __restrict__ inv_diag,
                                      const double* __restrict__ b, const double* __restrict__ ax,
                                      double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] += weight * inv_diag[i] * (b[i] - ax[i]);
}

__global__ void residual_kernel(int n, const double* __restrict__ b, const double* ax, double* r, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) r[i] = b[i] - ax[i];
}

__global__ void add_kernel(int n, const double* __restrict__ z, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] += z[i];
}

__global__ void restrict_residual_kernel(int n_coarse, const int* __restrict__ group_ptr,
                                         const int* __restrict__ group_rows, const double* __restrict__ b,
                                         const double* __restrict__ ax, double* __restrict__ coarse,
                                         const int* status, double weight, const double* __restrict__ start_inv_diag,
                                         double* __restrict__ start) {
  if (stopped(status)) return;
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n_coarse; c += gridDim.x * blockDim.x) {
    double sum = 0.0;
    for (int k = group_ptr[c]; k < group_ptr[c + 1]; ++k) {
      const int i = group_rows[k];
      sum += b[i] - ax[i];
    }
    coarse[c] = sum;
    if (start) start[c] = weight * start_inv_diag[c] * sum;
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

__global__ void prolong_add_kernel(int n, const int* __restrict__ coarse_of, double scale,
                                   const double* __restrict__ coarse, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] += scale * coarse[coarse_of[i]];
}

__global__ void gather_kernel(int n, const int* __restrict__ rows, const double* __restrict__ from,
                              double* __restrict__ to, const int* status) {
  if (stopped(status)) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) to[i] = from[rows[i]];
}

/// A warp per row of the dense inverse.
__global__ void dense_multiply_kernel(int rows, int columns, const double* __restrict__ inverse,
                                      const double* __restrict__ b, double* __restrict__ x, const int* status) {
  if (stopped(status)) return;
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * blockDim.x / 32;
  for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += warps) {
    double sum = 0.0;
    for (int j = lane; j < columns; j += 32) sum += inverse[static_cast<long long>(row) * columns + j] * b[j];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) x[row] = sum;
  }
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

__device__ void one_block_multiply(const OneBlockLevel& v) {
  for (int i = threadIdx.x; i < v.n; i += blockDim.x) {
    double sum = v.diag[i] * v.x[i];
    for (int k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) sum += v.off[k] * v.x[v.col[k]];
    v.ax[i] = sum;
  }
  __syncthreads();
}

__device__ void one_block_sweep(const OneBlockLevel& v, double weight) {
  one_block_multiply(v);
  for (int i = threadIdx.x; i < v.n; i += blockDim.x) v.x[i] += weight * v.inv_diag[i] * (v.b[i] - v.ax[i]);
  __syncthreads();
}

__global__ void __launch_bounds__(one_block_threads)
    one_block_vcycle_kernel(const OneBlockLevel* levels, int smoothed, const double* __restrict__ inverse, int columns,
                            double weight, double scale, int sweeps, bool started, const int* status) {
  if (stopped(status)) return;
  const int t = threadIdx.x;
  if (!started) {  // the first level's sweep from zero
    const OneBlockLevel& v = levels[0];
    for (int i = t; i < v.n; i += blockDim.x) v.x[i] = sweeps > 0 ? weight * v.inv_diag[i] * v.b[i] : 0.0;
    __syncthreads();
  }
  for (int l = 0; l < smoothed; ++l) {
    const OneBlockLevel& v = levels[l];
    for (int sweep = 1; sweep < sweeps; ++sweep) one_block_sweep(v, weight);
    // --- the residual restricted, with the next level's sweep from zero (the coarsest's: none)
    one_block_multiply(v);
    const OneBlockLevel& next = levels[l + 1];
    const bool smoothed_next = l + 1 < smoothed;
    for (int c = t; c < next.n; c += blockDim.x) {
      double sum = 0.0;
      for (int k = v.group_ptr[c]; k < v.group_ptr[c + 1]; ++k) {
        const int i = v.group_rows[k];
        sum += v.b[i] - v.ax[i];
      }
      next.b[c] = sum;
      if (smoothed_next) next.x[c] = sweeps > 0 ? weight * next.inv_diag[c] * sum : 0.0;
    }
    __syncthreads();
  }
  {  // --- the coarsest: a warp a row of its inverse
    const OneBlockLevel& c = levels[smoothed];
    const int lane = t % 32;
    for (int row = t / 32; row < c.n; row += blockDim.x / 32) {
      double sum = 0.0;
      for (int j = lane; j < columns; j += 32) sum += inverse[static_cast<long long>(row) * columns + j] * c.b[j];
      for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
      if (lane == 0) c.x[row] = sum;
    }
    __syncthreads();
  }
  for (int l = smoothed - 1; l >= 0; --l) {
    const OneBlockLevel& v = levels[l];
    const double* coarse = levels[l + 1].x;
    for (int i = t; i < v.n; i += blockDim.x) v.x[i] += scale * coarse[v.coarse_of[i]];
    __syncthreads();
    for (int sweep = 0; sweep < sweeps; ++sweep) one_block_sweep(v, weight);
  }
}

}  // namespace

void enqueue_jacobi_start(int n, double weight, const double* inv_diag, const double* b, double* x,
                          const int* status, cudaStream_t stream) {
  jacobi_start_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, weight, inv_diag, b, x, status);
  FVMMINI_CUDA_CHECK_LAUNCH(jacobi_start_kernel);
}

void enqueue_jacobi_correct(int n, double weight, const double* inv_diag, const double* b, const double* ax, double* x,
                            const int* status, cudaStream_t stream) {
  jacobi_correct_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, weight, inv_diag, b, ax, x, status);
  FVMMINI_CUDA_CHECK_LAUNCH(jacobi_correct_kernel);
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
                               double weight, const double* start_inv_diag, double* start) {
  restrict_residual_kernel<<<vector_grid(n_coarse), reduce_block, 0, stream>>>(
      n_coarse, group_ptr, group_rows, b, ax, coarse, status, weight, start_inv_diag, start);
  FVMMINI_CUDA_CHECK_LAUNCH(restrict_residual_kernel);
}

void enqueue_restrict_add(int n_coarse, const int* group_ptr, const int* group_rows, const double* fine,
                          const double* extra, double* coarse, cudaStream_t stream) {
  restrict_add_kernel<<<vector_grid(n_coarse), reduce_block, 0, stream>>>(n_coarse, group_ptr, group_rows, fine, extra,
                                                                         coarse);
  FVMMINI_CUDA_CHECK_LAUNCH(restrict_add_kernel);
}

void enqueue_prolong_add(int n, const int* coarse_of, double scale, const double* coarse, double* x, const int* status,
                         cudaStream_t stream) {
  prolong_add_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, coarse_of, scale, coarse, x, status);
  FVMMINI_CUDA_CHECK_LAUNCH(prolong_add_kernel);
}

void enqueue_gather(int n, const int* rows, const double* from, double* to, const int* status, cudaStream_t stream) {
  gather_kernel<<<vector_grid(n), reduce_block, 0, stream>>>(n, rows, from, to, status);
  FVMMINI_CUDA_CHECK_LAUNCH(gather_kernel);
}

void enqueue_dense_multiply(int rows, int columns, const double* inverse, const double* b, double* x,
                            const int* status, cudaStream_t stream) {
  const int warps_per_block = reduce_block / 32;
  dense_multiply_kernel<<<(rows + warps_per_block - 1) / warps_per_block, reduce_block, 0, stream>>>(
      rows, columns, inverse, b, x, status);
  FVMMINI_CUDA_CHECK_LAUNCH(dense_multiply_kernel);
}

void enqueue_one_block_vcycle(const OneBlockLevel* levels, int smoothed, const double* inverse, int columns,
                              double weight, double scale, int sweeps, bool started, const int* status,
                              cudaStream_t stream) {
  one_block_vcycle_kernel<<<1, one_block_threads, 0, stream>>>(levels, smoothed, inverse, columns, weight, scale,
                                                                sweeps, started, status);
  FVMMINI_CUDA_CHECK_LAUNCH(one_block_vcycle_kernel);
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
