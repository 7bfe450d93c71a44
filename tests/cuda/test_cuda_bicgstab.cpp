// Device PBiCGStab against the reference backend's: an asymmetric (convection-diffusion-like)
// matrix in several device formats under none and diagonal, DIC on a symmetric one, the stopping
// rules (the stop on s halfway through an iteration among them), a resident solve and repeated
// solves to the same bits, value refreshes from the host and on the device, and the reference's
// errors. Agreement: iterations to one, the initial residual to rounding, the solution to 1e-8 of
// its largest entry; the final residual to 1e-8 of itself where the iterations are few and their
// count fixed (maxIter), since a converged residual is a small difference of large terms that the
// backends' rounding moves by more than that.

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/device_bicgstab.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaBiCgStab = test::CudaTest;

SolverSettings bicgstab(const std::string& preconditioner, double tolerance = 1e-12, int max_iter = 1000) {
  SolverSettings s;
  s.solver = "PBiCGStab";
  s.preconditioner = parse_preconditioner(preconditioner);
  s.tolerance = tolerance;
  s.rel_tol = 0.0;
  s.max_iter = max_iter;
  return s;
}

double max_abs(std::span<const double> v) {
  double m = 0.0;
  for (double e : v) m = std::max(m, std::abs(e));
  return m;
}

double max_difference(std::span<const double> a, std::span<const double> b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

/// A guess whose mean is not zero, so that the normalisation reads the row sums (A x̄ = s x̄).
std::vector<double> guess(label n, std::uint64_t seed) {
  std::vector<double> x = test::random_vector(n, seed);
  for (double& v : x) v = 1.0 + 0.5 * v;
  return x;
}

struct Solved {
  SolverPerformance perf;
  std::vector<double> x;
};

/// The reference backend's solve (make_linear_solver) from x0.
Solved reference_solve(const LduMatrix& m, SolverSettings s, std::span<const double> x0, std::span<const double> b) {
  s.backend = Backend::reference;
  Solved r{{}, {x0.begin(), x0.end()}};
  r.perf = make_linear_solver(m, s)->solve(r.x, b, "U");
  return r;
}

/// The cuda backend's solver (DeviceSolver: the mesh's numbering, the format's ordering) from x0.
Solved device_solve(const LduMatrix& m, SolverSettings s, std::span<const double> x0, std::span<const double> b) {
  s.backend = Backend::cuda;
  Solved d{{}, {x0.begin(), x0.end()}};
  d.perf = cuda::make_cuda_linear_solver(m, s)->solve(d.x, b, "U");
  return d;
}

/// Both converged to the tolerance from the same start in about as many iterations, to the same
/// solution.
void expect_converged_alike(const Solved& dev, const Solved& ref, const SolverSettings& s, const std::string& where) {
  EXPECT_EQ(dev.perf.solver_name, ref.perf.solver_name) << where;
  EXPECT_TRUE(ref.perf.converged) << where;
  EXPECT_TRUE(dev.perf.converged) << where;
  EXPECT_NEAR(dev.perf.iterations, ref.perf.iterations, 1) << where;
  EXPECT_NEAR(dev.perf.initial_residual, ref.perf.initial_residual, 1e-12 * ref.perf.initial_residual) << where;
  EXPECT_LT(dev.perf.final_residual, s.tolerance) << where;
  EXPECT_LT(max_difference(dev.x, ref.x), 1e-8 * max_abs(ref.x)) << where;
}

/// The SolverError's message a solve throws, or "no error".
std::string error_of(const std::function<void()>& solve) {
  try {
    solve();
  } catch (const SolverError& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(CudaBiCgStab, AgreesWithTheReferenceOnAnAsymmetricMatrixInEachFormat) {
  const test::AsymmetricSystem sys = test::asymmetric_system(16, 14, 12, 101);
  ASSERT_FALSE(sys.a.symmetric());
  const auto x0 = guess(sys.a.n_rows(), 102);
  for (const std::string format : {"csr", "staircase", "sell"})
    for (const std::string pc : {"none", "diagonal"}) {
      SolverSettings s = bicgstab(pc);
      s.format = format;
      s.ordering = "rcm";
      const Solved ref = reference_solve(sys.a, s, x0, sys.b);
      const Solved dev = device_solve(sys.a, s, x0, sys.b);
      const std::string where = format + " / " + pc;
      EXPECT_EQ(dev.perf.solver_name, (pc == "none" ? "" : pc) + "PBiCGStab[" + format + "]") << where;
      expect_converged_alike(dev, ref, s, where);
      EXPECT_LT(max_difference(dev.x, sys.x_true), 1e-8 * max_abs(sys.x_true)) << where;
    }
}

// OpenFOAM runs PBiCGStab under DIC on symmetric matrices too: the device's DIC applied twice an
// iteration, as the reference's.
TEST_F(CudaBiCgStab, DicOnASymmetricMatrixAgreesWithTheReference) {
  const LduMatrix a = test::box_matrix(14, 12, 10, 111);
  const auto x_true = test::random_vector(a.n_rows(), 112);
  std::vector<double> b(x_true.size());
  reference::ldu_spmv(a, x_true, b);
  const auto x0 = guess(a.n_rows(), 113);
  for (const std::string format : {"csr", "staircase"}) {
    SolverSettings s = bicgstab("DIC");
    s.format = format;
    s.ordering = "rcm";
    const Solved ref = reference_solve(a, s, x0, b);
    const Solved dev = device_solve(a, s, x0, b);
    EXPECT_EQ(dev.perf.solver_name, "DICPBiCGStab[" + format + "]");
    expect_converged_alike(dev, ref, s, format + " / DIC");
  }
}

TEST_F(CudaBiCgStab, StoppingRulesFollowTheReference) {
  const test::AsymmetricSystem sys = test::asymmetric_system(10, 10, 10, 121);
  const auto x0 = guess(sys.a.n_rows(), 122);
  SolverSettings s = bicgstab("diagonal");
  // --- maxIter reached: exactly that many iterations, not converged, the same iterates
  s.tolerance = 1e-14;
  s.max_iter = 5;
  const Solved ref_capped = reference_solve(sys.a, s, x0, sys.b);
  const Solved dev_capped = device_solve(sys.a, s, x0, sys.b);
  EXPECT_EQ(ref_capped.perf.iterations, 5);
  EXPECT_EQ(dev_capped.perf.iterations, 5);
  EXPECT_FALSE(dev_capped.perf.converged);
  EXPECT_NEAR(dev_capped.perf.final_residual, ref_capped.perf.final_residual, 1e-8 * ref_capped.perf.final_residual);
  EXPECT_LT(max_difference(dev_capped.x, ref_capped.x), 1e-8 * max_abs(ref_capped.x));
  // --- converged at the start: no iteration, x untouched
  s.tolerance = 10.0;
  const Solved dev_done = device_solve(sys.a, s, x0, sys.b);
  EXPECT_EQ(dev_done.perf.iterations, 0);
  EXPECT_TRUE(dev_done.perf.converged);
  EXPECT_EQ(dev_done.x, x0);
  // --- maxIter 0: no iteration, not converged
  s.tolerance = 1e-14;
  s.max_iter = 0;
  const Solved dev_none = device_solve(sys.a, s, x0, sys.b);
  EXPECT_EQ(dev_none.perf.iterations, 0);
  EXPECT_FALSE(dev_none.perf.converged);
  EXPECT_EQ(dev_none.perf.final_residual, dev_none.perf.initial_residual);
  // --- relative tolerance
  s.tolerance = 0.0;
  s.rel_tol = 1e-3;
  s.max_iter = 1000;
  const Solved ref_rel = reference_solve(sys.a, s, x0, sys.b);
  const Solved dev_rel = device_solve(sys.a, s, x0, sys.b);
  EXPECT_TRUE(dev_rel.perf.converged);
  EXPECT_NEAR(dev_rel.perf.iterations, ref_rel.perf.iterations, 1);
  EXPECT_LT(dev_rel.perf.final_residual, 1e-3 * dev_rel.perf.initial_residual);
}

// A diagonal matrix under Jacobi: s = r - A D^-1 r vanishes to rounding in the first iteration,
// which then stops halfway (x += alpha y alone), while the rest of the first batch queued after
// it must leave x alone.
TEST_F(CudaBiCgStab, StopsOnSHalfwayThroughAnIterationAsTheReference) {
  const LduMatrix a = test::random_values(test::addressing_from_pairs(500, {}), 131);
  const auto b = test::random_vector(a.n_rows(), 132);
  const auto x0 = guess(a.n_rows(), 133);
  const SolverSettings s = bicgstab("diagonal", 1e-12);
  const Solved ref = reference_solve(a, s, x0, b);
  const Solved dev = device_solve(a, s, x0, b);
  EXPECT_EQ(ref.perf.iterations, 1);
  EXPECT_EQ(dev.perf.iterations, 1);
  EXPECT_TRUE(dev.perf.converged);
  EXPECT_LT(dev.perf.final_residual, 1e-12);
  EXPECT_LT(max_difference(dev.x, ref.x), 1e-12 * max_abs(ref.x));
}

// solve() on host vectors, again (its first batch now sized from the last solve), and
// solve_resident() on the device's own vectors: the same iterations and bits, and the reference's
// solution.
TEST_F(CudaBiCgStab, ResidentAndRepeatedSolvesGiveTheSameBits) {
  const test::AsymmetricSystem sys = test::asymmetric_system(20, 16, 12, 141);
  const label n = sys.a.n_rows();
  const PreparedFormat prepared = prepare_format(sys.a, "csr", "none", {});
  ASSERT_TRUE(prepared.permutation.is_identity());
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  cuda::DeviceBiCgStab solver(device, sys.a.diag);
  const SolverSettings s = bicgstab("diagonal", 1e-10);
  const auto x0 = guess(n, 142);

  std::vector<double> first = x0, again = x0, resident(n);
  const SolverPerformance p_first = solver.solve(first, sys.b, s);
  const SolverPerformance p_again = solver.solve(again, sys.b, s);
  ASSERT_EQ(cudaMemcpy(solver.x_device(), x0.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(solver.b_device(), sys.b.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  const SolverPerformance p_resident = solver.solve_resident(s);
  ASSERT_EQ(cudaMemcpy(resident.data(), solver.x_device(), n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);

  EXPECT_EQ(p_again.iterations, p_first.iterations);
  EXPECT_EQ(p_resident.iterations, p_first.iterations);
  EXPECT_EQ(p_resident.final_residual, p_first.final_residual);
  EXPECT_EQ(std::memcmp(again.data(), first.data(), n * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(resident.data(), first.data(), n * sizeof(double)), 0);
  SolverSettings on_csr = s;
  on_csr.format = "csr";
  const Solved ref = reference_solve(sys.a, on_csr, x0, sys.b);
  expect_converged_alike({p_resident, resident}, ref, s, "resident");
}

// New values on the same pattern: uploaded from the host with refresh(diagonal), then written on
// the device with refresh_on_device() (the row sums of the normalisation recomputed there: a
// guess of nonzero mean makes a stale one show in the initial residual).
TEST_F(CudaBiCgStab, TakesNewValuesFromTheHostAndOnTheDevice) {
  const test::AsymmetricSystem first = test::asymmetric_system(12, 12, 10, 151);
  const LduMatrix second = test::asymmetric(test::random_values(first.a.addressing, 152), 153);
  const label n = first.a.n_rows();
  PreparedFormat prepared = prepare_format(first.a, "csr", "none", {});
  ASSERT_TRUE(prepared.permutation.is_identity());
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  cuda::DeviceBiCgStab solver(device, first.a.diag);
  const SolverSettings s = bicgstab("diagonal", 1e-10);
  SolverSettings on_csr = s;
  on_csr.format = "csr";
  const auto x0 = guess(n, 154);
  const auto b = test::random_vector(n, 155);

  // --- from the host
  refresh_format_values(second, prepared);
  device.upload_values(prepared.format.values());
  solver.refresh(second.diag);
  Solved dev{{}, x0};
  dev.perf = solver.solve(dev.x, b, s);
  expect_converged_alike(dev, reference_solve(second, on_csr, x0, b), s, "refresh from the host");

  // --- on the device: the first values and their inverse diagonal written there
  refresh_format_values(first.a, prepared);
  device.upload_values(prepared.format.values());
  std::vector<double> inverse(n);
  for (label i = 0; i < n; ++i) inverse[i] = 1.0 / first.a.diag[i];
  ASSERT_EQ(cudaMemcpy(solver.inverse_diagonal_device(), inverse.data(), n * sizeof(double), cudaMemcpyHostToDevice),
            cudaSuccess);
  solver.refresh_on_device();
  dev.x = x0;
  dev.perf = solver.solve(dev.x, b, s);
  expect_converged_alike(dev, reference_solve(first.a, on_csr, x0, b), s, "refresh on the device");
}

TEST_F(CudaBiCgStab, ErrorsAreTheReferences) {
  const auto both = [](const LduMatrix& a, const SolverSettings& s, const std::vector<double>& b) {
    const std::vector<double> x0(b.size(), 0.0);
    return std::pair{error_of([&] { reference_solve(a, s, x0, b); }), error_of([&] { device_solve(a, s, x0, b); })};
  };
  const test::AsymmetricSystem sys = test::asymmetric_system(8, 8, 8, 161);
  // --- every row sums to zero: singular
  LduMatrix laplacian = sys.a;
  std::fill(laplacian.diag.begin(), laplacian.diag.end(), 0.0);
  for (label f = 0; f < laplacian.addressing->n_faces(); ++f) {
    laplacian.diag[laplacian.lower_addr()[f]] -= laplacian.upper[f];
    laplacian.diag[laplacian.upper_addr()[f]] -= laplacian.lower_coeffs()[f];
  }
  const auto [ref_singular, dev_singular] = both(laplacian, bicgstab("none"), sys.b);
  EXPECT_EQ(ref_singular, cg_error({CgStatus::singular}).what());
  EXPECT_EQ(dev_singular, ref_singular);
  // --- NaN in b
  std::vector<double> bad = sys.b;
  bad[17] = std::numeric_limits<double>::quiet_NaN();
  const auto [ref_nan, dev_nan] = both(sys.a, bicgstab("none"), bad);
  EXPECT_EQ(ref_nan, cg_error({CgStatus::initial_not_finite}).what());
  EXPECT_EQ(dev_nan, ref_nan);
  // --- a diagonal entry Jacobi cannot take
  LduMatrix negative = sys.a;
  negative.diag[7] = -negative.diag[7];
  const auto [ref_jacobi, dev_jacobi] = both(negative, bicgstab("diagonal"), sys.b);
  EXPECT_EQ(ref_jacobi.rfind("Jacobi: diagonal entry 7 is -", 0), 0u) << ref_jacobi;
  EXPECT_EQ(dev_jacobi, ref_jacobi);
  // --- breakdown: a skew-symmetric chain (a_i,i+1 = 1, a_i+1,i = -1, no diagonal) and b = 1 make
  //     r0.v = 1'A1 exactly 0, alpha infinite and s not finite in the first iteration
  LduMatrix skew = make_ldu_matrix(test::addressing_from_pairs(50, [] {
    std::vector<std::pair<label, label>> chain;
    for (label i = 0; i + 1 < 50; ++i) chain.push_back({i, i + 1});
    return chain;
  }()));
  std::fill(skew.diag.begin(), skew.diag.end(), 0.0);
  std::fill(skew.upper.begin(), skew.upper.end(), 1.0);
  skew.lower.assign(skew.upper.size(), -1.0);
  const auto [ref_breakdown, dev_breakdown] = both(skew, bicgstab("none"), std::vector<double>(50, 1.0));
  EXPECT_EQ(ref_breakdown, cg_error({CgStatus::residual_not_finite, 1}).what());
  EXPECT_EQ(dev_breakdown, ref_breakdown);
}

TEST_F(CudaBiCgStab, RefusesMixedPrecisionAndSaysWhy) {
  const LduMatrix a = test::box_matrix(16, 16, 16, 171);
  SolverSettings s = bicgstab("diagonal");
  s.backend = Backend::cuda;
  s.format = "staircase";
  s.ordering = "staircase";
  s.precision = Precision::mixed;
  try {
    cuda::DeviceSolver solver(a, s);
    ADD_FAILURE() << "PBiCGStab took a float32 twin";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("PBiCGStab on the cuda backend iterates in double precision only"),
              std::string::npos)
        << e.what();
  }
  // --- the unit is the cuda backend's, by its name
  EXPECT_EQ(cuda::find_device_krylov("PBiCGStab").name, "PBiCGStab");
}

}  // namespace
}  // namespace fvmmini
