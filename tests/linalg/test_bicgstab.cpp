// PBiCGStab on the reference backend: asymmetric systems solved with each preconditioner that
// takes them, the same iterates as a dense textbook BiCGStab written here, OpenFOAM's solve-line
// names and stopping rules, and the errors.

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

SolverSettings bicgstab(const std::string& preconditioner, double tolerance = 1e-12) {
  SolverSettings s;
  s.solver = "PBiCGStab";
  s.preconditioner = preconditioner;
  s.tolerance = tolerance;
  s.rel_tol = 0.0;
  s.max_iter = 1000;
  return s;
}

/// Textbook BiCGStab (van der Vorst 1992) on the dense matrix, right-preconditioned by Jacobi
/// or by nothing, with OpenFOAM's normalised residual and its test on s before the second half:
/// the independent reference of the iterates.
SolverPerformance dense_bicgstab(const LduMatrix& m, std::vector<double>& x, const std::vector<double>& b,
                                 bool jacobi, double tolerance) {
  const auto n = static_cast<std::size_t>(m.n_rows());
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) a[i][i] = m.diag[i];
  for (label f = 0; f < m.addressing->n_faces(); ++f) {
    a[m.lower_addr()[f]][m.upper_addr()[f]] = m.upper[f];
    a[m.upper_addr()[f]][m.lower_addr()[f]] = m.lower_coeffs()[f];
  }
  const auto mul = [&](const std::vector<double>& v) {
    std::vector<double> out(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) out[i] += a[i][j] * v[j];
    return out;
  };
  const auto dot = [](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) s += u[i] * v[i];
    return s;
  };
  const auto l1 = [](const std::vector<double>& u) {
    double s = 0.0;
    for (double v : u) s += std::abs(v);
    return s;
  };
  const auto precondition = [&](const std::vector<double>& v) {
    std::vector<double> out(v);
    if (jacobi)
      for (std::size_t i = 0; i < n; ++i) out[i] /= a[i][i];
    return out;
  };
  // --- OpenFOAM's normalisation: sum(|A x - A x̄| + |b - A x̄|) + 1e-20
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  const std::vector<double> ax = mul(x), ones_sum = mul(std::vector<double>(n, 1.0));
  double norm = 1e-20;
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = b[i] - ax[i];
    norm += std::abs(ax[i] - ones_sum[i] * mean) + std::abs(b[i] - ones_sum[i] * mean);
  }
  SolverPerformance perf;
  perf.initial_residual = perf.final_residual = l1(r) / norm;
  const std::vector<double> r0 = r;
  std::vector<double> p(n), v(n, 0.0);
  double rho = 0.0, alpha = 0.0, omega = 0.0;
  while (perf.final_residual >= tolerance && perf.iterations < 1000) {
    const double rho_old = rho;
    rho = dot(r0, r);
    if (perf.iterations == 0) {
      p = r;
    } else {
      for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + (rho / rho_old) * (alpha / omega) * (p[i] - omega * v[i]);
    }
    const std::vector<double> y = precondition(p);
    v = mul(y);
    alpha = rho / dot(r0, v);
    for (std::size_t i = 0; i < n; ++i) r[i] -= alpha * v[i];  // s
    ++perf.iterations;
    if (l1(r) / norm < tolerance) {
      for (std::size_t i = 0; i < n; ++i) x[i] += alpha * y[i];
      perf.final_residual = l1(r) / norm;
      break;
    }
    const std::vector<double> z = precondition(r), t = mul(z);
    omega = dot(t, r) / dot(t, t);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * y[i] + omega * z[i];
      r[i] -= omega * t[i];
    }
    perf.final_residual = l1(r) / norm;
  }
  perf.converged = perf.final_residual < tolerance;
  return perf;
}

TEST(PBiCGStab, SolvesAnAsymmetricSystemAsTheTextbookMethodDoes) {
  const System sys = asymmetric_system(8, 7, 6, 31);
  for (const std::string preconditioner : {"none", "diagonal"}) {
    SCOPED_TRACE(preconditioner);
    std::vector<double> x(sys.b.size(), 0.0), x_dense(sys.b.size(), 0.0);
    const SolverPerformance perf = make_linear_solver(sys.a, bicgstab(preconditioner))->solve(x, sys.b, "Ux");
    const SolverPerformance dense = dense_bicgstab(sys.a, x_dense, sys.b, preconditioner == "diagonal", 1e-12);
    EXPECT_TRUE(perf.converged);
    EXPECT_EQ(perf.iterations, dense.iterations);
    EXPECT_NEAR(perf.initial_residual, dense.initial_residual, 1e-14);
    EXPECT_LT(perf.final_residual, 1e-12);
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_NEAR(x[i], sys.x_true[i], 1e-9) << i;
      ASSERT_NEAR(x[i], x_dense[i], 1e-10) << i;
    }
  }
}

TEST(PBiCGStab, TakesEveryFormatThatHoldsAnAsymmetricMatrix) {
  const System sys = asymmetric_system(9, 8, 5, 41);
  for (const std::string format : {"csr", "coo", "ell", "sell", "staircase", "ellwarp", "dia"}) {
    SolverSettings s = bicgstab("diagonal", 1e-10);
    s.format = format;
    std::vector<double> x(sys.b.size(), 0.0);
    const SolverPerformance perf = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
    EXPECT_TRUE(perf.converged) << format;
    EXPECT_EQ(perf.solver_name, "diagonalPBiCGStab[" + format + "]");
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], sys.x_true[i], 1e-7) << format << " row " << i;
  }
}

TEST(PBiCGStab, DiluPreconditionsAnAsymmetricSystem) {
  const System sys = asymmetric_system(12, 10, 8, 45);
  std::vector<double> x(sys.b.size(), 0.0), x_jacobi(sys.b.size(), 0.0);
  const SolverPerformance jacobi = make_linear_solver(sys.a, bicgstab("diagonal", 1e-10))->solve(x_jacobi, sys.b, "Ux");
  for (const std::string ordering : {"none", "rcm"}) {
    SolverSettings s = bicgstab("DILU", 1e-10);
    s.ordering = ordering;
    std::fill(x.begin(), x.end(), 0.0);
    const SolverPerformance perf = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
    EXPECT_TRUE(perf.converged) << ordering;
    EXPECT_EQ(perf.solver_name, "DILUPBiCGStab[csr]");
    EXPECT_LT(perf.iterations, jacobi.iterations) << ordering;
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], sys.x_true[i], 1e-7) << ordering << " row " << i;
  }
  // --- both backends have DILU (the cuda one's: tests/cuda/test_cuda_preconditioners.cpp), in every build's table
  EXPECT_EQ(preconditioner_backends("DILU"), (std::vector<std::string>{"reference", "cuda"}));
}

TEST(PBiCGStab, SymmetricMatricesWithTheSymmetricPreconditioners) {
  // --- OpenFOAM runs PBiCGStab with DIC or GAMG on symmetric matrices too: the same solution as CG
  const LduMatrix a = test::box_matrix(10, 9, 8, 51);
  const auto x_true = test::random_vector(a.n_rows(), 52);
  std::vector<double> b(x_true.size());
  reference::ldu_spmv(a, x_true, b);
  for (const std::string preconditioner : {"DIC", "mcsgs", "GAMG"}) {
    std::vector<double> x(b.size(), 0.0);
    const SolverPerformance perf = make_linear_solver(a, bicgstab(preconditioner, 1e-11))->solve(x, b, "p");
    EXPECT_TRUE(perf.converged) << preconditioner;
    EXPECT_EQ(perf.solver_name, preconditioner + "PBiCGStab[csr]");
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], x_true[i], 1e-8) << preconditioner << " row " << i;
  }
  // --- an asymmetric matrix is refused there, naming the preconditioner
  const System sys = asymmetric_system(4, 4, 4, 53);
  try {
    make_linear_solver(sys.a, bicgstab("DIC"));
    ADD_FAILURE() << "DIC took an asymmetric matrix";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "preconditioner DIC takes symmetric matrices only, and this matrix is asymmetric");
  }
}

TEST(PBiCGStab, StoppingRulesAndSolveLine) {
  const System sys = asymmetric_system(8, 8, 8, 61);
  std::vector<double> x(sys.b.size(), 0.0);
  SolverSettings s = bicgstab("none", 0.0);
  s.rel_tol = 1e-3;
  const SolverPerformance rel = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
  EXPECT_TRUE(rel.converged);
  EXPECT_LT(rel.final_residual, 1e-3 * rel.initial_residual);
  EXPECT_EQ(rel.solver_name, "PBiCGStab[csr]");
  s.rel_tol = 0.0;
  s.max_iter = 3;
  std::fill(x.begin(), x.end(), 0.0);
  const SolverPerformance capped = make_linear_solver(sys.a, s)->solve(x, sys.b, "Ux");
  EXPECT_FALSE(capped.converged);
  EXPECT_EQ(capped.iterations, 3);
  // --- the solution as the initial guess: converged with no iteration
  std::vector<double> exact = sys.x_true;
  const SolverPerformance none = make_linear_solver(sys.a, bicgstab("none", 1e-6))->solve(exact, sys.b, "Ux");
  EXPECT_TRUE(none.converged);
  EXPECT_EQ(none.iterations, 0);
}

TEST(PBiCGStab, ErrorsAreClear) {
  System sys = asymmetric_system(4, 4, 4, 71);
  std::vector<double> x(sys.b.size(), 0.0);
  sys.b[5] = std::nan("");
  EXPECT_THROW(make_linear_solver(sys.a, bicgstab("none"))->solve(x, sys.b, "Ux"), SolverError);
  // --- both backends have it (the cuda one's: tests/cuda/test_cuda_bicgstab.cpp), in every build's table
  EXPECT_EQ(krylov_backends("PBiCGStab"), (std::vector<std::string>{"reference", "cuda"}));
}

}  // namespace
}  // namespace fvmmini
