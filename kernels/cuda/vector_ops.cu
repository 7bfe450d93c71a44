#include "kernels/cuda/vector_ops.cuh"
#include "kernels/cuda/vector_ops.hpp"

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

__global__ void __launch_bounds__(reduce_block)
    dot_partials_kernel(long long n, const double* __restrict__ a, const double* __restrict__ b,
                        double* __restrict__ partials) {
  Sums<1> s{};
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    s.v[0] += a[i] * b[i];
  write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

__global__ void __launch_bounds__(1024) sum_partials_kernel(const double* __restrict__ partials, int count,
                                                            double* __restrict__ result) {
  const Sums<1> s = reduce_partials<1>(partials, count);
  if (threadIdx.x == 0) *result = s.v[0];
}

}  // namespace

int enqueue_dot_partials(long long n, const double* a, const double* b, double* partials, cudaStream_t stream) {
  const int grid = vector_grid(n);
  dot_partials_kernel<<<grid, reduce_block, 0, stream>>>(n, a, b, partials);
  FVMMINI_CUDA_CHECK_LAUNCH(dot_partials_kernel);
  return grid;
}

void enqueue_sum_partials(const double* partials, int count, double* result, cudaStream_t stream) {
  sum_partials_kernel<<<1, 1024, 0, stream>>>(partials, count, result);
  FVMMINI_CUDA_CHECK_LAUNCH(sum_partials_kernel);
}

double dot(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) throw CudaError("cuda::dot: vectors of different lengths");
  const auto n = static_cast<long long>(a.size());
  DeviceBuffer<double> da(a), db(b), partials(vector_grid(n)), result(1);
  Stream stream;
  const int count = enqueue_dot_partials(n, da.data(), db.data(), partials.data(), stream.get());
  enqueue_sum_partials(partials.data(), count, result.data(), stream.get());
  stream.synchronize();
  double value = 0.0;
  result.download(std::span<double>(&value, 1));
  return value;
}

}  // namespace fvmmini::cuda
