#include "kernels/cuda/cuda_backend.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <atomic>
#include <sstream>

#include "kernels/cuda/cuda_check.cuh"

namespace fvmmini::cuda {

bool cuda_device_available() {
  static const bool available = [] {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    cudaGetLastError();  // no driver or no device is an answer here, not a sticky error
    return status == cudaSuccess && count > 0;
  }();
  return available;
}

namespace {
std::atomic<long long> device_bytes_in_use{0};
std::atomic<long long> device_bytes_most{0};
}  // namespace

void count_device_bytes(long long delta) {
  const long long now = device_bytes_in_use.fetch_add(delta) + delta;
  long long most = device_bytes_most.load();
  while (now > most && !device_bytes_most.compare_exchange_weak(most, now)) {
  }
}

std::size_t device_bytes_peak() { return static_cast<std::size_t>(device_bytes_most.load()); }

DeviceInfo device_info() {
  if (!cuda_device_available()) throw CudaError("no CUDA device is available (no driver or no GPU)");
  int device = 0;
  FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  FVMMINI_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.name = prop.name;
  info.compute_capability_major = prop.major;
  info.compute_capability_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_memory_bytes = prop.totalGlobalMem;
  FVMMINI_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  FVMMINI_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  cusparseHandle_t handle = nullptr;
  FVMMINI_CUSPARSE_CHECK(cusparseCreate(&handle));
  const cusparseStatus_t status = cusparseGetVersion(handle, &info.cusparse_version);
  cusparseDestroy(handle);
  FVMMINI_CUSPARSE_CHECK(status);
  return info;
}

std::string describe(const DeviceInfo& info) {
  std::ostringstream s;
  s << info.name << " (sm_" << info.compute_capability_major << info.compute_capability_minor << ", "
    << info.multiprocessors << " SMs, " << info.l2_bytes / (1024 * 1024) << " MiB L2, "
    << info.global_memory_bytes / (1024 * 1024 * 1024) << " GiB, CUDA runtime " << info.runtime_version / 1000 << "."
    << (info.runtime_version % 1000) / 10 << ")";
  return s.str();
}

}  // namespace fvmmini::cuda
