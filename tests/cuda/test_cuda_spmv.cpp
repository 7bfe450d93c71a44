// Every CUDA format x ordering against the LDU face loop on random, box, star, ring and tiny
// matrices, with parameter sweeps (C, sigma, sh, alpha); device outputs start as NaN, so a
// row a kernel skips fails. Values refreshed in place against the new reference.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/format_registry.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaSpmv = test::CudaTest;

struct Case {
  std::string name;
  LduMatrix matrix;
};

std::vector<Case> test_matrices() {
  std::vector<Case> cases;
  cases.push_back({"one row", test::random_matrix(1, 0, 21)});
  cases.push_back({"two rows", test::random_values(test::addressing_from_pairs(2, {{0, 1}}), 22)});
  cases.push_back({"two uncoupled rows", test::random_values(test::addressing_from_pairs(2, {}), 23)});
  cases.push_back({"33 rows (a slice of one real row)", test::random_matrix(33, 3, 24)});
  cases.push_back({"random 700", test::random_matrix(700, 6, 25)});
  cases.push_back({"random 5000 wide rows", test::random_matrix(5000, 40, 26)});
  cases.push_back({"box 17x13x11", test::box_matrix(17, 13, 11, 27)});
  cases.push_back({"star 300 (hub row longer than a warp)", test::star_matrix(300, 28)});
  cases.push_back({"ring 100 (one row length)", test::ring_matrix(100, 29)});
  return cases;
}

std::vector<FormatParameters> parameter_sweep(const std::string& format, label n) {
  std::vector<FormatParameters> out;
  auto sell = [&](std::initializer_list<int> chunks, std::initializer_list<int> windows) {
    for (int c : chunks)
      for (int sigma : windows) {
        FormatParameters p;
        p.chunk_size = c;
        p.sort_window = sigma;
        out.push_back(p);
      }
  };
  if (format == "sell") {
    sell({1, 4, 32, 64}, {1, 8, 1024});
  } else if (format == "sell-cusparse") {
    sell({4, 32}, {1, 1024});
  } else if (format == "staircase") {
    for (int sh : {32, 64, 1024}) {
      const double lowest = n >= sh ? static_cast<double>(sh) / n : 0.01;
      for (double alpha : {lowest, std::min(1.0, std::max(lowest, 0.1)), 1.0}) {
        FormatParameters p;
        p.slice_height = sh;
        p.alpha = alpha;
        out.push_back(p);
      }
    }
  } else {
    out.emplace_back();
  }
  return out;
}

/// max_i |y_i - ref_i| / scale_i (scale = sum_j |a_ij x_j|); NaN anywhere gives infinity.
double worst_relative_error(std::span<const double> y, std::span<const double> ref, std::span<const double> scale) {
  double worst = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) return INFINITY;
    worst = std::max(worst, std::abs(y[i] - ref[i]) / std::max(scale[i], 1e-300));
  }
  return worst;
}

/// y = A x on the device in the prepared numbering, compared with the face loop in mesh order.
double device_error(const LduMatrix& m, const PreparedFormat& prepared, cuda::DeviceMatrix& device, std::uint64_t seed) {
  const label n = m.n_rows();
  const auto x = test::random_vector(n, seed);
  std::vector<double> y_ref(n), scale = test::abs_row_scale(m, x);
  reference::ldu_spmv(m, x, y_ref);
  std::vector<double> x_op(n), y_ref_op(n), scale_op(n), y(n);
  permute_to_new(prepared.permutation, x, x_op);
  permute_to_new(prepared.permutation, y_ref, y_ref_op);
  permute_to_new(prepared.permutation, scale, scale_op);
  device.multiply(x_op, y);
  return worst_relative_error(y, y_ref_op, scale_op);
}

TEST_F(CudaSpmv, EveryFormatOrderingAndParameterMatchesTheFaceLoop) {
  const double tolerance = 10 * 2.2e-16 * 8;  // a few rounding steps per row of up to ~40 terms
  int checked = 0;
  for (const auto& c : test_matrices())
    for (const auto& format : cuda::device_format_names())
      for (const std::string ordering : {"none", "rcm", "random"})
        for (const auto& parameters : parameter_sweep(format, c.matrix.n_rows())) {
          const PreparedFormat prepared = prepare_format(c.matrix, format, ordering, parameters, 5);
          cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
          EXPECT_EQ(device.n_rows(), c.matrix.n_rows());
          EXPECT_LE(device_error(c.matrix, prepared, device, 99), tolerance)
              << c.name << ", " << describe(prepared);
          ++checked;
        }
  EXPECT_GT(checked, 300);
}

TEST_F(CudaSpmv, EmptyMatrixLaunchesNothing) {
  const LduMatrix empty = test::random_values(test::addressing_from_pairs(0, {}), 1);
  for (const auto& format : cuda::device_format_names()) {
    const PreparedFormat prepared = prepare_format(empty, format, "none", FormatParameters{});
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
    std::vector<double> x, y;
    EXPECT_NO_THROW(device.multiply(x, y)) << format;
  }
}

TEST_F(CudaSpmv, RefreshUploadsNewValuesInPlace) {
  const LduMatrix first = test::random_matrix(2000, 8, 41);
  LduMatrix second = test::random_values(first.addressing, 42);
  for (const auto& format : cuda::device_format_names()) {
    FormatParameters parameters;
    parameters.alpha = 0.1;  // >= sh / rows for 2000 rows
    PreparedFormat prepared = prepare_format(first, format, "rcm", parameters);
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
    refresh_format_values(second, prepared);
    device.upload_values(format_values(prepared.format));
    EXPECT_LE(device_error(second, prepared, device, 7), 2e-15 * 8) << format;
  }
}

TEST_F(CudaSpmv, UnknownOrHostOnlyFormatIsRejected) {
  const LduMatrix m = test::random_matrix(50, 3, 5);
  const PreparedFormat coo = prepare_format(m, "coo", "none", FormatParameters{});
  EXPECT_THROW(cuda::make_device_matrix(coo), std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
