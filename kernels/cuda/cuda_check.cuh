#pragma once
// Checked CUDA and cuSPARSE calls: a failure throws CudaError naming the call, file and line.

#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

#include "kernels/cuda/cuda_error.hpp"

namespace fvmmini::cuda::detail {

[[noreturn]] inline void throw_cuda(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ") in " +
                      call + " at " + file + ":" + std::to_string(line),
                  code == cudaErrorMemoryAllocation);
}

[[noreturn]] inline void throw_cusparse(cusparseStatus_t code, const char* call, const char* file, int line) {
  throw CudaError(std::string("cuSPARSE error ") + cusparseGetErrorName(code) + " (" + cusparseGetErrorString(code) +
                  ") in " + call + " at " + file + ":" + std::to_string(line));
}

}  // namespace fvmmini::cuda::detail

#define FVMMINI_CUDA_CHECK(call)                                                                 \
  do {                                                                                           \
    const cudaError_t fvmmini_status_ = (call);                                                  \
    if (fvmmini_status_ != cudaSuccess)                                                          \
      ::fvmmini::cuda::detail::throw_cuda(fvmmini_status_, #call, __FILE__, __LINE__);           \
  } while (0)

#define FVMMINI_CUSPARSE_CHECK(call)                                                             \
  do {                                                                                           \
    const cusparseStatus_t fvmmini_status_ = (call);                                             \
    if (fvmmini_status_ != CUSPARSE_STATUS_SUCCESS)                                              \
      ::fvmmini::cuda::detail::throw_cusparse(fvmmini_status_, #call, __FILE__, __LINE__);       \
  } while (0)

/// After a kernel launch: the launch was accepted (names the kernel on failure).
#define FVMMINI_CUDA_CHECK_LAUNCH(kernel)                                                        \
  do {                                                                                           \
    const cudaError_t fvmmini_status_ = cudaGetLastError();                                      \
    if (fvmmini_status_ != cudaSuccess)                                                          \
      ::fvmmini::cuda::detail::throw_cuda(fvmmini_status_, "launch of " #kernel, __FILE__, __LINE__); \
  } while (0)
