#pragma once
// Shared by the CUDA tests: skip cleanly when there is no device, or fail when
// FVMMINI_REQUIRE_GPU=1 (tools/gpu-check sets it, so that a GPU run cannot pass by skipping).

#include <gtest/gtest.h>


#include "kernels/cuda/cuda_backend.hpp"
#include "tests/require_gpu.hpp"

namespace fvmmini::test {

/// A fixture whose tests skip, with a message, on a machine without a CUDA device or driver.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::cuda_device_available()) return;
    if (gpu_required()) FAIL() << "FVMMINI_REQUIRE_GPU=1 but no CUDA device or driver";
    GTEST_SKIP() << "no CUDA device or driver on this machine: CUDA test skipped";
  }
};

}  // namespace fvmmini::test
