// The multi-vector SpMV on the device (several right-hand sides, the matrix read once): for every
// format that has one, each of k vectors interleaved by row multiplies as the float64 face loop
// does, its fused dot products sum to x_j . y_j, and a format or k without it is a clear error.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaBlockSpmv = test::CudaTest;

struct BlockCase {
  std::string format;
  std::string ordering;
  FormatParameters parameters;
};

FormatParameters with(const char* key, ParameterValue value) {
  FormatParameters p;
  p.set(key, std::move(value));
  return p;
}

TEST_F(CudaBlockSpmv, EachVectorOfTheBlockMatchesTheFaceLoopAndItsDot) {
  // --- a box (short rows), and a random matrix with rows longer than the unrolled lengths (> 8)
  const std::vector<LduMatrix> matrices{test::box_matrix(23, 17, 11, 31), test::random_matrix(3001, 14, 32)};
  const std::vector<BlockCase> cases{{"staircase", "rcm", {}},
                                     {"staircase", "staircase", with("sliceHeight", 64.0)},
                                     {"sell", "rcm", {}},
                                     {"sell", "none", with("chunkSize", 4.0)}};
  for (const LduMatrix& m : matrices)
    for (const BlockCase& c : cases)
      for (int k = 2; k <= 3; ++k) {
        SCOPED_TRACE(c.format + " / " + c.ordering + " / " + std::to_string(m.n_rows()) + " rows / k " +
                     std::to_string(k));
        const PreparedFormat prepared = prepare_format(m, c.format, c.ordering, c.parameters);
        cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
        ASSERT_EQ(device.max_block(), 3);
        const label n = m.n_rows();
        // --- vector j in the mesh's numbering, interleaved in the operator's
        std::vector<std::vector<double>> x_mesh, expected(k, std::vector<double>(n)), scale;
        std::vector<double> x(static_cast<std::size_t>(n) * k), y(x.size());
        for (int j = 0; j < k; ++j) {
          x_mesh.push_back(test::random_vector(n, 100 + j));
          reference::ldu_spmv(m, x_mesh[j], expected[j]);
          scale.push_back(test::abs_row_scale(m, x_mesh[j]));
          for (label i = 0; i < n; ++i) x[static_cast<std::size_t>(i) * k + j] = x_mesh[j][prepared.permutation.new_to_old[i]];
        }
        for (bool with_dot : {false, true}) {
          const std::vector<double> partials = device.multiply_block(k, x, y, with_dot);
          for (int j = 0; j < k; ++j) {
            double dot = 0.0, dot_scale = 0.0;
            for (label i = 0; i < n; ++i) {
              const label old = prepared.permutation.new_to_old[i];
              const double got = y[static_cast<std::size_t>(i) * k + j];
              ASSERT_LE(std::abs(got - expected[j][old]), 1e-12 * scale[j][old])
                  << "vector " << j << ", row " << i << ": " << got << " vs " << expected[j][old];
              dot += x_mesh[j][old] * expected[j][old];
              dot_scale += std::abs(x_mesh[j][old]) * scale[j][old];
            }
            if (!with_dot) continue;
            const std::size_t count = partials.size() / k;
            ASSERT_EQ(partials.size(), count * k);
            double sum = 0.0;
            for (std::size_t b = 0; b < count; ++b) sum += partials[j * count + b];
            EXPECT_LE(std::abs(sum - dot), 1e-12 * dot_scale) << "vector " << j << ": " << sum << " vs " << dot;
          }
        }
      }
}

TEST_F(CudaBlockSpmv, AFormatWithoutItOrTooManyVectorsIsAClearError) {
  const LduMatrix m = test::box_matrix(8, 8, 8, 33);
  const std::vector<double> x(static_cast<std::size_t>(m.n_rows()) * 2, 1.0);
  std::vector<double> y(x.size());
  for (const BlockCase& c : {BlockCase{"csr", "none", {}}, BlockCase{"staircase", "rcm", with("launch", std::string("groups"))}}) {
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepare_format(m, c.format, c.ordering, c.parameters));
    EXPECT_EQ(device.max_block(), 1) << c.format;
    EXPECT_THROW(device.multiply_block(2, x, y), cuda::CudaError) << c.format;
  }
  cuda::DeviceMatrix sell = cuda::make_device_matrix(prepare_format(m, "sell", "none", {}));
  std::vector<double> x4(static_cast<std::size_t>(m.n_rows()) * 4, 1.0), y4(x4.size());
  EXPECT_THROW(sell.multiply_block(4, x4, y4), cuda::CudaError);
  // --- k = 1 is the usual SpMV
  std::vector<double> x1(m.n_rows(), 1.0), y1(m.n_rows()), y1_ref(m.n_rows());
  sell.multiply_block(1, x1, y1);
  sell.multiply(x1, y1_ref);
  EXPECT_EQ(y1, y1_ref);
}

}  // namespace
}  // namespace fvmmini
