// smoothSolver on the reference backend: its sweeps are the textbook Gauss-Seidel's (forward, and
// forward then backward) in the solve's ordering, its iterations count sweeps, it converges on
// asymmetric systems in every format, and the settings it cannot take are refused by name.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/make_linear_solver.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using System = test::AsymmetricSystem;
using test::asymmetric_system;

SolverSettings smooth_solver(Smoother smoother, int n_sweeps, double tolerance) {
  SolverSettings s;
  s.solver = "smoothSolver";
  s.smoother = smoother;
  s.n_sweeps = n_sweeps;
  s.tolerance = tolerance;
  s.max_iter = 1000;
  return s;
}

/// Gauss-Seidel on the dense matrix, row by row in the mesh's order: forward, then (symmetric)
/// backward, each row from the newest values of the others.
void dense_sweeps(const LduMatrix& m, std::vector<double>& x, const std::vector<double>& b, bool symmetric,
                  int sweeps) {
  const auto n = static_cast<std::size_t>(m.n_rows());
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  for (label f = 0; f < m.addressing->n_faces(); ++f) {
    a[m.lower_addr()[f]][m.upper_addr()[f]] = m.upper[f];
    a[m.upper_addr()[f]][m.lower_addr()[f]] = m.lower_coeffs()[f];
  }
  const auto row = [&](std::size_t i) {
    double s = b[i];
    for (std::size_t j = 0; j < n; ++j) s -= a[i][j] * x[j];
    x[i] = s / m.diag[i];
  };
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (std::size_t i = 0; i < n; ++i) row(i);
    if (symmetric)
      for (std::size_t i = n; i-- > 0;) row(i);
  }
}

TEST(SmoothSolver, SweepsAsTextbookGaussSeidel) {
  const System sys = asymmetric_system(7, 6, 5, 81);
  for (const Smoother smoother : {Smoother::gauss_seidel, Smoother::symmetric_gauss_seidel}) {
    // (sell numbers its rows by length: the sweeps stay in the mesh's order)
    for (const std::string format : {"csr", "sell"}) {
      SCOPED_TRACE(name(smoother) + " " + format);
      SolverSettings s = smooth_solver(smoother, 3, 0.0);
      s.max_iter = 3;  // one round of three sweeps
      s.format = format;
      std::vector<double> x = test::random_vector(sys.a.n_rows(), 82), x_dense = x;
      const SolverPerformance perf = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
      dense_sweeps(sys.a, x_dense, sys.b, smoother == Smoother::symmetric_gauss_seidel, 3);
      EXPECT_EQ(perf.iterations, 3);
      EXPECT_FALSE(perf.converged);
      EXPECT_EQ(perf.solver_name, "smoothSolver[" + format + "]");
      EXPECT_LT(perf.final_residual, perf.initial_residual);
      for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], x_dense[i], 1e-13 * (1 + std::abs(x[i]))) << i;
    }
  }
}

TEST(SmoothSolver, ConvergesInEveryOrderingAndCountsSweeps) {
  const System sys = asymmetric_system(10, 9, 8, 91);
  for (const std::string ordering : {"none", "rcm", "colour"})
    for (const int n_sweeps : {1, 2, 3}) {
      SCOPED_TRACE(ordering + " nSweeps " + std::to_string(n_sweeps));
      SolverSettings s = smooth_solver(Smoother::symmetric_gauss_seidel, n_sweeps, 1e-11);
      s.ordering = ordering;
      std::vector<double> x(sys.b.size(), 0.0);
      const SolverPerformance perf = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
      EXPECT_TRUE(perf.converged);
      EXPECT_LT(perf.final_residual, 1e-11);
      EXPECT_EQ(perf.iterations % n_sweeps, 0);
      for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], sys.x_true[i], 1e-8) << i;
    }
  // --- relTol stops it as OpenFOAM's does; the solution as the guess takes no sweep
  SolverSettings s = smooth_solver(Smoother::gauss_seidel, 1, 0.0);
  s.rel_tol = 0.01;
  std::vector<double> x(sys.b.size(), 0.0);
  const SolverPerformance rel = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
  EXPECT_TRUE(rel.converged);
  EXPECT_LT(rel.final_residual, 0.01 * rel.initial_residual);
  std::vector<double> exact = sys.x_true;
  const SolverPerformance none =
      make_linear_solver(sys.a, smooth_solver(Smoother::gauss_seidel, 1, 1e-6))->solve(exact, sys.b, "Ux");
  EXPECT_EQ(none.iterations, 0);
  EXPECT_TRUE(none.converged);
}

TEST(SmoothSolver, NewCoefficientsAreTheNewMatrixs) {
  const System first = asymmetric_system(6, 6, 6, 101), second = asymmetric_system(6, 6, 6, 111);
  SolverSettings capped = smooth_solver(Smoother::symmetric_gauss_seidel, 2, 0.0);
  capped.max_iter = 4;
  auto refreshed = make_linear_solver(first.a, capped);
  refreshed->update_coefficients(second.a);
  std::vector<double> x(second.b.size(), 0.0), x_fresh = x;
  refreshed->solve(x, second.b, "Ux");
  make_linear_solver(second.a, capped)->solve(x_fresh, second.b, "Ux");
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], x_fresh[i]) << i;
}

TEST(SmoothSolver, RefusesWhatItCannotTake) {
  const System sys = asymmetric_system(4, 4, 4, 121);
  const auto message = [&](const SolverSettings& s) {
    try {
      make_linear_solver(sys.a, s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(smooth_solver(Smoother::jacobi, 1, 1e-6)),
            "solver smoothSolver: smoother jacobi is GAMG's (smoothSolver's: GaussSeidel, symGaussSeidel)");
  SolverSettings preconditioned = smooth_solver(Smoother::gauss_seidel, 1, 1e-6);
  preconditioned.preconditioner = "DILU";
  EXPECT_EQ(message(preconditioned), "solver smoothSolver takes no preconditioner (preconditioner DILU: write none)");
  // --- both backends have it (the cuda one's: tests/cuda/test_cuda_smooth_solver.cpp), in every build's table
  EXPECT_EQ(krylov_backends("smoothSolver"), (std::vector<std::string>{"reference", "cuda"}));
  // --- GAMG's smoothers are its own two
  SolverSettings gamg;
  gamg.preconditioner = "GAMG";
  gamg.gamg.smoother = Smoother::symmetric_gauss_seidel;
  try {
    make_linear_solver(test::box_matrix(6, 6, 6, 122), gamg);
    ADD_FAILURE() << "GAMG took symGaussSeidel";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "GAMG: smoother symGaussSeidel is smoothSolver's (GAMG's: jacobi, mcsgs)");
  }
}

}  // namespace
}  // namespace fvmmini
