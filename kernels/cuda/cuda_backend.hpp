#pragma once
// What the rest of the program may ask of the CUDA backend without seeing a CUDA type.

#include <cstddef>
#include <string>

namespace fvmmini::cuda {

/// True when a CUDA device can be used. Returns false, without throwing or printing, when
/// there is no driver or no device.
bool cuda_device_available();

struct DeviceInfo {
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  int runtime_version = 0;   ///< e.g. 13000
  int driver_version = 0;    ///< the CUDA version the driver supports
  int cusparse_version = 0;  ///< cusparseGetVersion
};

/// The current device. @throws CudaError when no device is available
DeviceInfo device_info();

/// "NVIDIA H200 (sm_90, 132 SMs, 60 MB L2, CUDA 13.0)".
std::string describe(const DeviceInfo& info);

/// The most bytes fvmmini's device buffers (DeviceBuffer: cudaMalloc and the pool's stream-ordered
/// allocations) held at once in this process so far; the CUDA context and the libraries' own
/// workspaces are not counted. 0 where nothing was allocated.
std::size_t device_bytes_peak();
/// DeviceBuffer's count: `delta` bytes allocated (> 0) or freed (< 0).
void count_device_bytes(long long delta);

/// Whether solves may loop on the device (conditional while nodes): the environment variable
/// FVMMINI_DEVICE_LOOP, `on` (or unset) or `off`. Off, every loop falls back to the batches the
/// host queues, the same kernels: compute-sanitizer (CUDA 13.0's, driver 580) fails inside those
/// loops with an illegal address it ties to no kernel, so sanitizer runs turn them off.
/// @throws CudaError for any other value
bool device_loops_enabled();

}  // namespace fvmmini::cuda
