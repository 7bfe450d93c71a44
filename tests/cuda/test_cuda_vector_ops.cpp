// Device reductions against the reference: dot products agree to rounding and repeat bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cuda/vector_ops.hpp"
#include "kernels/reference/vector_ops.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

using CudaVectorOps = test::CudaTest;

std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& e : v) e = d(rng);
  return v;
}

TEST_F(CudaVectorOps, DotMatchesReferenceOnManySizes) {
  // sizes around the block (256) and the grid cap (1024 blocks), and one that spans many passes
  for (std::size_t n : {0u, 1u, 2u, 255u, 256u, 257u, 262144u, 262145u, 3000001u}) {
    const auto a = random_vector(n, 7 + n), b = random_vector(n, 11 + n);
    double abs_sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) abs_sum += std::abs(a[i] * b[i]);
    const double expected = reference::dot(a, b);
    const double got = cuda::dot(a, b);
    EXPECT_NEAR(got, expected, 1e-14 * abs_sum + 1e-300) << "n = " << n;
  }
}

TEST_F(CudaVectorOps, DotIsBitIdenticalOnRepeat) {
  const auto a = random_vector(1234567, 3), b = random_vector(1234567, 4);
  const double first = cuda::dot(a, b);
  for (int k = 0; k < 5; ++k) {
    const double again = cuda::dot(a, b);
    EXPECT_EQ(std::memcmp(&first, &again, sizeof(double)), 0) << "repeat " << k << ": " << first << " vs " << again;
  }
}

}  // namespace
}  // namespace fvmmini
