#pragma once
// Grids of one wave: as many blocks as the device holds at once for a kernel, each block then
// looping over its share. A grid of several waves ends in a part-filled wave that leaves SMs
// idle: the csr and staircase (interleaved) SpMV kernels are faster so; the sell kernel was
// slower and keeps a fixed cap (kernels/cuda/README.md). The dot-product partials of a one-wave
// grid (one per block) depend on the device, not on the run.

#include <algorithm>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.cuh"

namespace fvmmini::cuda {

/// min(units, blocks of `threads` threads of `kernel` resident on the current device), at least 1.
template <class Kernel>
int one_wave_grid(Kernel kernel, int threads, int units) {
  int device = 0, sms = 0, per_sm = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  FVMMINI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  FVMMINI_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return std::max(1, std::min(units, sms * per_sm));
}

/// one_wave_grid for a grid-stride loop of `kernel` over n items (64-bit), a block an item at most.
template <class Kernel>
int one_wave_grid_over(Kernel kernel, int threads, std::int64_t n) {
  const std::int64_t blocks = std::max<std::int64_t>(1, (n + threads - 1) / threads);
  return one_wave_grid(kernel, threads, static_cast<int>(std::min<std::int64_t>(blocks, 1 << 30)));
}

}  // namespace fvmmini::cuda
