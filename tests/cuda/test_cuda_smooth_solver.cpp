// smoothSolver on the device against the reference backend's: GaussSeidel and symGaussSeidel, one
// and two sweeps between residual checks, in the mesh's order and another, on an asymmetric
// (convection-diffusion-like) system and a symmetric one: the same iterations, and the residuals
// and the solution to rounding (the device sweeps x += M^-1 (b - A x), the host in place). The device
// loop and the host's batches give the same bits; a refresh, from the host or from values on the
// device, equals a fresh set-up; what it cannot take is refused by name.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "comm/communicator.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"
#include "solvers/krylov/cuda/device_smooth_solver.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaSmoothSolver = test::CudaTest;

SolverSettings smooth_solver(Smoother smoother, int n_sweeps, const std::string& format, const std::string& ordering) {
  SolverSettings s;
  s.solver = "smoothSolver";
  s.smoother = smoother;
  s.n_sweeps = n_sweeps;
  s.format = format;
  s.ordering = ordering;
  // a residual well above rounding's share of it (1e-16 of |A||x|), so that the backends' residuals
  // agree to 1e-10 relative
  s.tolerance = 1e-5;
  s.max_iter = 1000;
  return s;
}

/// An asymmetric system (a box's convection-diffusion-like matrix) and a symmetric one.
struct NamedSystem {
  std::string name;
  LduMatrix a;
  std::vector<double> b;
};
std::vector<NamedSystem> systems() {
  test::AsymmetricSystem asymmetric = test::asymmetric_system(12, 10, 8, 71);
  const LduMatrix symmetric = test::box_matrix(12, 10, 8, 72);
  return {{"asymmetric box 12x10x8", std::move(asymmetric.a), std::move(asymmetric.b)},
          {"symmetric box 12x10x8", symmetric, test::random_vector(symmetric.n_rows(), 73)}};
}

void expect_relative(double got, double expected, double tolerance, const std::string& where) {
  EXPECT_NEAR(got, expected, tolerance * std::abs(expected)) << where;
}

void expect_same_solution(std::span<const double> got, std::span<const double> expected, const std::string& where) {
  double scale = 0.0, diff = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    scale = std::max(scale, std::abs(expected[i]));
    diff = std::max(diff, std::abs(got[i] - expected[i]));
  }
  EXPECT_LE(diff, 1e-10 * scale) << where;
}

std::string label_of(const SolverSettings& s) {
  return name(s.smoother) + ", nSweeps " + std::to_string(s.n_sweeps) + ", " + s.format + ", " + s.ordering;
}

TEST_F(CudaSmoothSolver, AgreesWithTheReferenceBackend) {
  for (const NamedSystem& system : systems())
    for (const Smoother smoother : {Smoother::gauss_seidel, Smoother::symmetric_gauss_seidel})
      for (const int n_sweeps : {1, 2})
        // (sell numbers its rows by length: the sweeps stay in the ordering, as on the host)
        for (const std::string format : {"csr", "sell"})
          for (const std::string ordering : {"none", "rcm"}) {
            SolverSettings s = smooth_solver(smoother, n_sweeps, format, ordering);
            const std::string where = system.name + ", " + label_of(s);
            const std::vector<double> x0 = test::random_vector(system.a.n_rows(), 74);
            std::vector<double> x_ref = x0, x_dev = x0;
            s.backend = Backend::reference;
            const SolverPerformance r = make_linear_solver(system.a, s)->solve(x_ref, system.b, "T");
            s.backend = Backend::cuda;
            auto device = make_linear_solver(system.a, s);
            const SolverPerformance d = device->solve(x_dev, system.b, "T");
            ASSERT_TRUE(r.converged) << where;
            EXPECT_TRUE(d.converged) << where;
            EXPECT_EQ(d.solver_name, "smoothSolver[" + format + "]") << where;
            EXPECT_EQ(d.solver_name, r.solver_name) << where;
            EXPECT_EQ(d.iterations, r.iterations) << where;
            EXPECT_EQ(d.iterations % n_sweeps, 0) << where;  // iterations count sweeps
            expect_relative(d.initial_residual, r.initial_residual, 1e-12, where + ", initial residual");
            expect_relative(d.final_residual, r.final_residual, 1e-10, where + ", final residual");
            expect_same_solution(x_dev, x_ref, where);
            EXPECT_EQ(device->preconditioner_info().name, "none") << where;  // as on the host: its sweeps are its own
          }
}

// maxIter stops it after the pass that reaches it, as on the host (a pass counts nSweeps sweeps),
// not converged; maxIter 0 solves nothing. At most 6 sweeps, so that the residual (2.7e-6 there)
// stays well above rounding's share of it, as smooth_solver's tolerance does: each symGaussSeidel
// sweep takes a fifth of it, and 9 sweeps (maxIter 7, nSweeps 3) leave 2e-8, where the backends'
// rounding (1e-17 of the normalised residual) is up to 1e-9 of it.
TEST_F(CudaSmoothSolver, MaxIterStopsItAsOnTheReferenceBackend) {
  const test::AsymmetricSystem system = test::asymmetric_system(10, 9, 8, 75);
  for (const int max_iter : {0, 1, 5})
    for (const int n_sweeps : {1, 2, 3}) {
      SolverSettings s = smooth_solver(Smoother::symmetric_gauss_seidel, n_sweeps, "csr", "rcm");
      s.tolerance = 0.0;
      s.max_iter = max_iter;
      const std::string where = label_of(s) + ", maxIter " + std::to_string(max_iter);
      std::vector<double> x_ref(system.b.size(), 0.0), x_dev = x_ref;
      s.backend = Backend::reference;
      const SolverPerformance r = make_linear_solver(system.a, s)->solve(x_ref, system.b, "Ux");
      s.backend = Backend::cuda;
      const SolverPerformance d = make_linear_solver(system.a, s)->solve(x_dev, system.b, "Ux");
      EXPECT_FALSE(d.converged) << where;
      EXPECT_EQ(d.iterations, r.iterations) << where;
      EXPECT_EQ(d.iterations, max_iter == 0 ? 0 : (max_iter + n_sweeps - 1) / n_sweeps * n_sweeps) << where;
      expect_relative(d.final_residual, r.final_residual, 1e-10, where);
      expect_same_solution(x_dev, x_ref, where);
    }
}

// The passes as one loop on the device and as the host's batches (of one pass, and of three, whose
// last runs past the stop and must change nothing) give the same bits, solve after solve.
TEST_F(CudaSmoothSolver, TheDeviceLoopAndTheHostsBatchesGiveTheSameBits) {
  const test::AsymmetricSystem system = test::asymmetric_system(16, 12, 10, 76);
  for (const Smoother smoother : {Smoother::gauss_seidel, Smoother::symmetric_gauss_seidel}) {
    const SolverSettings s = smooth_solver(smoother, 2, "csr", "rcm");
    const PreparedFormat prepared = prepare_format(system.a, "csr", "rcm", {});
    cuda::DeviceMatrix matrix = cuda::make_device_matrix(prepared);
    std::vector<double> diagonal(system.a.n_rows()), b(system.b.size());
    for (label i = 0; i < system.a.n_rows(); ++i) {
      diagonal[i] = system.a.diag[prepared.permutation.new_to_old[i]];
      b[i] = system.b[prepared.permutation.new_to_old[i]];
    }
    cuda::DeviceTriangularPreconditioner sweeps(system.a, prepared.permutation, gauss_seidel, TriangularSolve::levels,
                                                1, &matrix.spmv(), cuda::LevelLaunch::automatic,
                                                prepared.position_before_grouping);
    cuda::DeviceSmoothSolver solver(matrix, diagonal);
    solver.set_preconditioner(&sweeps);
    std::vector<double> first_x;
    SolverPerformance first;
    for (const int interval : {0, 1, 3, 0}) {  // 0: the device loop
      solver.set_device_loop(interval == 0);
      solver.set_check_interval(std::max(interval, 1));
      std::vector<double> x(b.size(), 0.0);
      const SolverPerformance perf = solver.solve(x, b, s);
      const std::string where = name(smoother) + ", interval " + std::to_string(interval);
      EXPECT_TRUE(perf.converged) << where;
      EXPECT_EQ(solver.last_solve_looped(), interval == 0 && cuda::device_loops_enabled()) << where;
      if (first_x.empty()) {
        first_x = x;
        first = perf;
        continue;
      }
      EXPECT_EQ(perf.iterations, first.iterations) << where;
      EXPECT_EQ(perf.final_residual, first.final_residual) << where;
      EXPECT_EQ(x, first_x) << where;
    }
  }
}

// New values, from the host (update_coefficients) or written on the device (set_coefficients: the
// sweeps' triangles gathered there), solve as a solver set up on them does, to the bit.
TEST_F(CudaSmoothSolver, ARefreshEqualsAFreshSetUp) {
  const test::AsymmetricSystem first = test::asymmetric_system(10, 9, 8, 77);
  const test::AsymmetricSystem second = test::asymmetric_system(10, 9, 8, 78);
  for (const Smoother smoother : {Smoother::gauss_seidel, Smoother::symmetric_gauss_seidel}) {
    SolverSettings s = smooth_solver(smoother, 2, "csr", "rcm");
    s.backend = Backend::cuda;
    const std::string where = label_of(s);
    std::vector<double> x_fresh(second.b.size(), 0.0), x_host = x_fresh;
    const SolverPerformance fresh = make_linear_solver(second.a, s)->solve(x_fresh, second.b, "Ux");

    auto refreshed = make_linear_solver(first.a, s);
    std::vector<double> scratch(first.b.size(), 0.0);
    refreshed->solve(scratch, first.b, "Ux");  // graphs captured on the first values
    refreshed->update_coefficients(second.a);
    const SolverPerformance host = refreshed->solve(x_host, second.b, "Ux");
    EXPECT_EQ(host.iterations, fresh.iterations) << where;
    EXPECT_EQ(x_host, x_fresh) << where;

    // --- from device arrays in the mesh's numbering
    cuda::DeviceSolver on_device(first.a, resolve_solver_settings(s));
    const std::size_t n = second.b.size(), faces = second.a.upper.size();
    double *diag = nullptr, *upper = nullptr, *lower = nullptr, *x = nullptr, *b = nullptr;
    ASSERT_EQ(cudaMalloc(&diag, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&upper, faces * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&lower, faces * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&x, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(diag, second.a.diag.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(upper, second.a.upper.data(), faces * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(lower, second.a.lower.data(), faces * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(x, 0, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b, second.b.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    on_device.set_coefficients(diag, upper, lower, nullptr);
    const SolverPerformance device = on_device.solve(x, b, "Ux", nullptr);
    std::vector<double> x_device(n);
    ASSERT_EQ(cudaMemcpy(x_device.data(), x, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(device.iterations, fresh.iterations) << where;
    EXPECT_EQ(x_device, x_fresh) << where;
    for (double* p : {diag, upper, lower, x, b}) cudaFree(p);
  }
}

// What the device's smoothSolver cannot take, refused by name: a smoother that is GAMG's, a
// preconditioner key, ranks, precision mixed, sweeps that are not a Gauss-Seidel splitting; a
// diagonal entry that is not positive is the reference backend's error.
TEST_F(CudaSmoothSolver, RefusesWhatItCannotTake) {
  const test::AsymmetricSystem system = test::asymmetric_system(6, 5, 4, 79);
  const auto message = [&](const SolverSettings& s) -> std::string {
    try {
      make_linear_solver(system.a, s);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "accepted";
  };
  SolverSettings s = smooth_solver(Smoother::jacobi, 1, "csr", "none");
  s.backend = Backend::cuda;
  EXPECT_EQ(message(s), "solver smoothSolver: smoother jacobi is GAMG's (smoothSolver's: GaussSeidel, symGaussSeidel)");
  s.smoother = Smoother::gauss_seidel;
  s.n_sweeps = 0;
  EXPECT_EQ(message(s), "solver smoothSolver: nSweeps 0 (at least 1)");
  s.n_sweeps = 1;
  s.preconditioner = "DILU";
  EXPECT_EQ(message(s), "solver smoothSolver takes no preconditioner (preconditioner DILU: write none)");
  s.preconditioner = "none";

  // --- across ranks: one rank's piece (no interfaces) over MPI, which needs no second GPU
  const LduMatrix symmetric = test::box_matrix(6, 5, 4, 80);
  SolverSettings across = resolve_solver_settings(s);
  across.transport = Transport::mpi;
  try {
    cuda::make_cuda_distributed_linear_solver({symmetric, {}, {}}, across, Communicator::serial());
    ADD_FAILURE() << "smoothSolver across ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "solver smoothSolver runs on one rank (use PBiCGStab across ranks)");
  }

  // --- its sweeps and residuals need the float64 matrix: the backend's choice refuses a float32
  //     twin, and auto takes the reference backend instead
  SolverSettings mixed = s;
  mixed.precision = Precision::mixed;
  mixed.format = "staircase";
  mixed.ordering = "staircase";
  EXPECT_EQ(message(mixed), "backend cuda: solver smoothSolver in precision mixed is on the reference backend only");
  mixed.backend = Backend::automatic;
  EXPECT_EQ(resolve_solver_settings(mixed).backend, Backend::reference);

  // --- its sweeps are a Gauss-Seidel splitting, not a preconditioner
  const PreparedFormat prepared = prepare_format(symmetric, "csr", "none", {});
  cuda::DeviceMatrix matrix = cuda::make_device_matrix(prepared);
  cuda::DeviceSmoothSolver solver(matrix, symmetric.diag);
  cuda::DeviceTriangularPreconditioner dic(symmetric, prepared.permutation, incomplete_cholesky,
                                           TriangularSolve::levels, 1, nullptr);
  EXPECT_THROW(solver.set_preconditioner(&dic), std::invalid_argument);
  EXPECT_THROW(solver.set_preconditioner(nullptr), std::invalid_argument);
  std::vector<double> x(symmetric.n_rows(), 0.0), b = x;
  EXPECT_THROW(solver.solve(x, b, s), cuda::CudaError);  // no sweeps set

  // --- a diagonal entry that is not positive: the same error as the reference backend's
  LduMatrix bad = system.a;
  bad.diag[7] = -1.0;
  SolverSettings reference = s;
  reference.backend = Backend::reference;
  const std::string expected = [&] {
    try {
      make_linear_solver(bad, reference);
    } catch (const SolverError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  }();
  EXPECT_NE(expected, "accepted");
  try {
    make_linear_solver(bad, s);
    ADD_FAILURE() << "a negative diagonal entry";
  } catch (const SolverError& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

}  // namespace
}  // namespace fvmmini
