#pragma once
// Shared by the CUDA tests: skip cleanly when there is no device.

#include <gtest/gtest.h>

#include "kernels/cuda/cuda_backend.hpp"

namespace fvmmini::test {

/// A fixture whose tests skip, with a message, on a machine without a CUDA device or driver.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::cuda_device_available()) GTEST_SKIP() << "no CUDA device or driver on this machine: CUDA test skipped";
  }
};

}  // namespace fvmmini::test
