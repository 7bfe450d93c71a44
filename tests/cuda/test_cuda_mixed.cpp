// precision mixed on the device: the float32 twin of every format that has one multiplies as the
// float64 face loop does with float32-rounded coefficients (in its narrow slices, whose columns are
// 16-bit offsets, and in its wide ones), follows a value refresh, and the CG iterating with it
// stops only where the float64 matrix's residual is below the tolerance.

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/mixed_spmv.cuh"
#include "kernels/reference/ldu_spmv.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/device_cg.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaMixed = test::CudaTest;

/// The matrix with every coefficient rounded to float32 (what the twin stores).
LduMatrix rounded_to_float(LduMatrix m) {
  for (auto& d : m.diag) d = static_cast<float>(d);
  for (auto& u : m.upper) u = static_cast<float>(u);
  return m;
}

/// Matrices whose twins have narrow and wide slices: a 40^3 box in the staircase ordering (its
/// grouping sends the boundary rows away from their neighbours: the slices touching them are wide)
/// for staircase; a 100 000-row star for sell (a hub row coupled to every row: its chunk, most of
/// the stored entries, and every chunk more than 2^15 rows from the hub are wide).
struct MixedCase {
  std::string format;
  std::string ordering;
  std::string launch;  ///< staircase's launch, empty for sell
  LduMatrix matrix;
  double min_narrow, max_narrow;  ///< the share of entries in narrow slices
  double alpha = 0.0;             ///< staircase's alpha; 0: its default
};

std::vector<MixedCase> mixed_cases() {
  const LduMatrix box = test::box_matrix(40, 40, 40, 11);
  // --- one group (alpha 0.5 merges the boundary rows' lengths): the rows keep CM's order, whose
  //     bandwidth (under 2^15) fits every slice
  return {{"staircase", "staircase", "interleaved", box, 0.05, 0.95},
          {"staircase", "staircase", "groups", box, 0.05, 0.95},
          {"staircase", "cm", "interleaved", box, 1.0, 1.0, 0.5},
          {"sell", "none", "", test::star_matrix(100000, 12), 0.02, 0.5}};
}

PreparedFormat prepare(const MixedCase& c) {
  FormatParameters p;
  if (!c.launch.empty()) p.set("launch", c.launch);
  if (c.alpha > 0) p.set("alpha", c.alpha);
  return prepare_format(c.matrix, c.format, c.ordering, p);
}

// --- host side: no device needed
TEST(NarrowColumns, ASliceKeepsOffsetsWhenAllFit16BitsOrFallsBack) {
  // --- 2 lanes x 2 entries a slice (entry k of lane t at 2k + t), rows 40000 + t (lane 1 of slice 1
  //     a padding lane): slice 0 the extreme offsets and a padding entry; slice 1 one offset past them
  const std::vector<int> col = {40000 + 32767, 40001 - 32767, -1, 40002,   // slice 0
                                40000 - 32768, -1, 40001, -1};               // slice 1
  const std::vector<cuda::EllSlice> slices = {{0, 2, 2}, {4, 2, 2}};
  const cuda::NarrowColumns n = cuda::narrow_columns(col, slices, [](std::size_t s, int t) {
    return s == 1 && t == 1 ? -1 : 40000 + t;
  });
  EXPECT_EQ(n.narrow, (std::vector<unsigned char>{1, 0}));
  EXPECT_EQ(n.offsets[0], 32767);
  EXPECT_EQ(n.offsets[1], -32767);
  EXPECT_EQ(n.offsets[2], cuda::narrow_padding);
  EXPECT_EQ(n.offsets[3], 1);
  EXPECT_EQ(n.narrow_entries, 4);
  EXPECT_EQ(n.entries, 8);
}

TEST_F(CudaMixed, EveryTwinMultipliesAsTheFaceLoopWithFloat32Coefficients) {
  EXPECT_EQ(cuda::mixed_format_names(), (std::vector<std::string>{"sell", "staircase"}));
  for (const MixedCase& c : mixed_cases()) {
    const std::string what = c.format + " " + c.launch;
    const PreparedFormat prepared = prepare(c);
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared, Precision::mixed);
    EXPECT_GE(device.narrow_fraction(), c.min_narrow) << what;
    EXPECT_LE(device.narrow_fraction(), c.max_narrow) << what;

    const label n = c.matrix.n_rows();
    const auto x = test::random_vector(n, 5);
    std::vector<double> x_mesh(n), y_mesh(n), y_ref(n), y_mixed(n), y_full(n);
    permute_to_old(prepared.permutation, x, x_mesh);
    reference::ldu_spmv(rounded_to_float(c.matrix), x_mesh, y_mesh);
    permute_to_new(prepared.permutation, y_mesh, y_ref);
    std::vector<double> scale_mesh = test::abs_row_scale(c.matrix, x_mesh), scale(n);
    permute_to_new(prepared.permutation, scale_mesh, scale);

    device.multiply_mixed(x, y_mixed);
    device.multiply(x, y_full);
    double worst = 0.0, float_effect = 0.0;
    for (label i = 0; i < n; ++i) {
      ASSERT_TRUE(std::isfinite(y_mixed[i])) << what << " row " << i;
      worst = std::max(worst, std::abs(y_mixed[i] - y_ref[i]) / scale[i]);
      float_effect = std::max(float_effect, std::abs(y_full[i] - y_mixed[i]) / scale[i]);
    }
    EXPECT_LT(worst, 1e-14) << what;
    // --- the twin does read float32 values (rounding moves y by about 2^-24 of the row's scale)
    EXPECT_GT(float_effect, 1e-9) << what;
  }
}

TEST_F(CudaMixed, TheTwinFollowsAValueRefresh) {
  for (const MixedCase& c : mixed_cases()) {
    const std::string what = c.format + " " + c.launch;
    PreparedFormat prepared = prepare(c);
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared, Precision::mixed);
    LduMatrix changed = c.matrix;
    for (auto& d : changed.diag) d *= 1.5;
    for (auto& u : changed.upper) u *= 0.75;
    refresh_format_values(changed, prepared);
    device.upload_values(prepared.format.values());

    const label n = c.matrix.n_rows();
    const auto x = test::random_vector(n, 6);
    std::vector<double> x_mesh(n), y_mesh(n), y_ref(n), y_mixed(n);
    permute_to_old(prepared.permutation, x, x_mesh);
    reference::ldu_spmv(rounded_to_float(changed), x_mesh, y_mesh);
    permute_to_new(prepared.permutation, y_mesh, y_ref);
    device.multiply_mixed(x, y_mixed);
    double worst = 0.0;
    for (label i = 0; i < n; ++i) worst = std::max(worst, std::abs(y_mixed[i] - y_ref[i]) / (std::abs(y_ref[i]) + 1.0));
    EXPECT_LT(worst, 1e-13) << what;
  }
}

TEST_F(CudaMixed, AFormatWithoutATwinIsRefusedNamingThoseWithOne) {
  const LduMatrix m = test::box_matrix(8, 8, 8, 3);
  const PreparedFormat prepared = prepare_format(m, "csr", "none", {});
  try {
    cuda::make_device_matrix(prepared, Precision::mixed);
    FAIL() << "csr has no float32 twin";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("format 'csr' has no mixed-precision kernel (formats with one: sell, "
                                         "staircase)"),
              std::string::npos)
        << e.what();
  }
}

/// The normalised residual of x for the float64 matrix, for a solve that started from x = 0
/// (OpenFOAM's normalisation, cg_rules.hpp: then |b - A x|_1 / |b|_1).
double float64_residual(const LduMatrix& m, std::span<const double> x, std::span<const double> b) {
  std::vector<double> ax(x.size());
  reference::ldu_spmv(m, x, ax);
  double r = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    r += std::abs(b[i] - ax[i]);
    norm += std::abs(b[i]);
  }
  return r / (norm + cg_small);
}

TEST_F(CudaMixed, TheMixedCgStopsWhereTheFloat64ResidualMeetsTheTolerance) {
  // --- a Laplacian-like box: the float32 matrix alone stalls near eps_float32 x cond
  const LduMatrix m = test::box_matrix(40, 40, 40, 21);
  for (const std::string preconditioner : {"none", "diagonal", "DIC"}) {
    for (const double tolerance : {1e-6, 1e-10}) {
      SolverSettings s;
      s.backend = Backend::cuda;
      s.format = "staircase";
      s.ordering = "staircase";
      s.preconditioner = parse_preconditioner(preconditioner);
      s.tolerance = tolerance;
      s.max_iter = 2000;
      const std::string what = preconditioner + " to " + std::to_string(tolerance);
      const label n = m.n_rows();
      const auto b = test::random_vector(n, 7);
      std::vector<double> x_double(n, 0.0), x_mixed(n, 0.0);
      cuda::DeviceSolver full(m, s);
      const SolverPerformance pd = full.solve(x_double, b, "p");
      s.precision = Precision::mixed;
      cuda::DeviceSolver mixed(m, s);
      EXPECT_NE(mixed.describe().find("precision mixed (16-bit columns on "), std::string::npos) << mixed.describe();
      const SolverPerformance pm = mixed.solve(x_mixed, b, "p");
      EXPECT_TRUE(pd.converged) << what;
      EXPECT_TRUE(pm.converged) << what;
      EXPECT_LT(pm.final_residual, tolerance) << what;
      // --- what the solve reports is the float64 matrix's residual, recomputed here on the host
      const double true_residual = float64_residual(m, x_mixed, b);
      EXPECT_LT(true_residual, tolerance) << what;
      EXPECT_NEAR(true_residual, pm.final_residual, 1e-3 * tolerance) << what;
      // --- few iterations more than in double (reliable updates keep the direction)
      EXPECT_LE(pm.iterations, pd.iterations + pd.iterations / 10 + 3) << what << ": " << pm.iterations << " against "
                                                                        << pd.iterations;
    }
  }
}

TEST_F(CudaMixed, AStaircaseOfLittlePaddingKeepsTheOrderingAndEverySliceNarrow) {
  // --- a 100 x 100 plane in CM order, no alpha given: one group (0.8 % padding), every slice's
  //     columns 16-bit; solved to the tolerance of the float64 matrix
  const LduMatrix m = test::box_matrix(100, 100, 1, 22);
  SolverSettings s;
  s.backend = Backend::cuda;
  s.format = "staircase";
  s.ordering = "cm";
  s.preconditioner = "diagonal";
  s.tolerance = 1e-10;
  s.max_iter = 2000;
  s.precision = Precision::mixed;
  cuda::DeviceSolver mixed(m, s);
  EXPECT_NE(mixed.describe().find("precision mixed (16-bit columns on 100 % of entries)"), std::string::npos)
      << mixed.describe();
  const auto b = test::random_vector(m.n_rows(), 23);
  std::vector<double> x(m.n_rows(), 0.0);
  const SolverPerformance perf = mixed.solve(x, b, "p");
  EXPECT_TRUE(perf.converged);
  EXPECT_LT(float64_residual(m, x, b), 1e-10);
}

}  // namespace
}  // namespace fvmmini
