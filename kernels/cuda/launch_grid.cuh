#pragma once
// Grids of one wave: as many blocks as the device holds at once for a kernel, each block then
// looping over its share. A grid of several waves ends in a part-filled wave that leaves SMs
// idle: the csr and staircase (interleaved) SpMV kernels are faster so; the sell kernel was
// slower and keeps a fixed cap (kernels/cuda/README.md). The dot-product partials of a one-wave
// grid (one per block) depend on the device, not on the run. A cooperative grid is at most one
// wave by definition: its blocks wait for each other.

#include <algorithm>
#include <utility>

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

/// Launches `kernel` on `blocks` x `threads` as a cooperative grid: every block is resident at
/// once, so the kernel may wait at cooperative_groups::this_grid().sync(); recordable in a CUDA
/// graph. `blocks` must not exceed one_wave_grid's count for the same kernel and threads.
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), int blocks, int threads, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  FVMMINI_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace fvmmini::cuda
