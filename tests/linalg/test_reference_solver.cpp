// Tier 1: LDU -> CSR and the reference CG on tiny hand-computed systems, and the
// solver's stopping rules and error cases.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "kernels/reference/csr_spmv.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/csr_matrix.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {
namespace {

/// The 1-D Laplacian tridiag(-1, 2, -1) on n rows (SPD).
LduMatrix tridiagonal(label n, double diag = 2.0) {
  auto addressing = std::make_shared<LduAddressing>();
  addressing->n_rows = n;
  for (label i = 0; i + 1 < n; ++i) {
    addressing->lower.push_back(i);
    addressing->upper.push_back(i + 1);
  }
  LduMatrix a = make_ldu_matrix(addressing);
  std::fill(a.diag.begin(), a.diag.end(), diag);
  std::fill(a.upper.begin(), a.upper.end(), -1.0);
  return a;
}

TEST(LduToCsr, HandComputedThreeByThree) {
  // [ 4 -1 -2 ]
  // [-1  5  0 ]   faces (0,1) = -1, (0,2) = -2
  // [-2  0  6 ]
  auto addressing = std::make_shared<LduAddressing>(LduAddressing{3, {0, 0}, {1, 2}});
  LduMatrix a = make_ldu_matrix(addressing);
  a.diag = {4.0, 5.0, 6.0};
  a.upper = {-1.0, -2.0};
  LduToCsrMap map;
  const CsrMatrix csr = ldu_to_csr(a, &map);
  EXPECT_EQ(csr.row_ptr, (std::vector<std::int64_t>{0, 3, 5, 7}));
  EXPECT_EQ(csr.col, (std::vector<label>{0, 1, 2, 0, 1, 0, 2}));
  EXPECT_EQ(csr.values, (std::vector<double>{4, -1, -2, -1, 5, -2, 6}));
  EXPECT_EQ(map.diag_slot, (UnfilledVector<std::int64_t>{0, 4, 6}));
  EXPECT_EQ(map.upper_slot, (UnfilledVector<std::int64_t>{1, 2}));
  EXPECT_EQ(map.lower_slot, (UnfilledVector<std::int64_t>{3, 5}));

  // --- refresh in place equals a fresh conversion
  a.upper = {-0.5, -0.25};
  std::vector<double> values(csr.values.size(), std::nan(""));
  refresh_csr_values(a, map, values);
  EXPECT_EQ(values, ldu_to_csr(a).values);
}

TEST(LduToCsr, SpmvMatchesFaceLoopOnRandomMatrix) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const label n = 200;
  // random upper-triangular pattern, faces sorted by (lower, upper)
  auto addressing = std::make_shared<LduAddressing>();
  addressing->n_rows = n;
  for (label i = 0; i < n; ++i)
    for (label j = i + 1; j < n; ++j)
      if (rng() % 37 == 0) {
        addressing->lower.push_back(i);
        addressing->upper.push_back(j);
      }
  LduMatrix a = make_ldu_matrix(addressing);
  for (auto& v : a.diag) v = u(rng);
  for (auto& v : a.upper) v = u(rng);
  const CsrMatrix csr = ldu_to_csr(a);
  std::vector<double> x(n), y_ldu(n), y_csr(n, std::nan(""));
  for (auto& v : x) v = u(rng);
  reference::ldu_spmv(a, x, y_ldu);
  reference::csr_spmv(csr, x, y_csr);
  for (label i = 0; i < n; ++i) EXPECT_NEAR(y_csr[i], y_ldu[i], 1e-13);
}

TEST(LduToCsr, AnAsymmetricMatrixKeepsItsLowerCoefficients) {
  LduMatrix a = tridiagonal(3);
  a.lower = {-0.5, -0.25};  // (1, 0) and (2, 1)
  const CsrMatrix csr = ldu_to_csr(a);
  EXPECT_EQ(csr.values, (std::vector<double>{2.0, -1.0, -0.5, 2.0, -1.0, -0.25, 2.0}));
  const std::vector<double> x{1.0, 2.0, 3.0};
  std::vector<double> y(3), y_csr(3);
  reference::ldu_spmv(a, x, y);
  reference::csr_spmv(csr, x, y_csr);
  EXPECT_EQ(y, (std::vector<double>{0.0, 0.5, 5.5}));
  EXPECT_EQ(y_csr, y);
}

TEST(ReferenceCg, AnAsymmetricMatrixIsRefusedNamingTheSolverKey) {
  LduMatrix a = tridiagonal(20, 3.0);
  a.lower.assign(a.upper.size(), -0.5);
  SolverSettings s;
  try {
    make_linear_solver(a, s);
    ADD_FAILURE() << "CG took an asymmetric matrix";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "solver CG takes symmetric matrices only, and this matrix is asymmetric");
  }
  // --- nor does a CG set up on a symmetric matrix take asymmetric coefficients later
  auto solver = make_linear_solver(tridiagonal(20, 3.0), s);
  EXPECT_THROW(solver->update_coefficients(a), std::invalid_argument);
}

TEST(ReferenceCg, SolvesTridiagonalToTolerance) {
  const label n = 50;
  LduMatrix a = tridiagonal(n);
  a.diag[0] = a.diag[n - 1] = 3.0;  // Dirichlet ends: non-singular
  std::vector<double> x_true(n), b(n), x(n, 0.0);
  for (label i = 0; i < n; ++i) x_true[i] = std::sin(0.1 * i);
  reference::ldu_spmv(a, x_true, b);
  for (const std::string preconditioner : {"none", "diagonal"}) {
    SolverSettings s;
    s.preconditioner = preconditioner;
    s.tolerance = 1e-12;
    std::fill(x.begin(), x.end(), 0.0);
    auto solver = make_linear_solver(a, s);
    const auto perf = solver->solve(x, b, "p");
    EXPECT_TRUE(perf.converged) << preconditioner;
    EXPECT_LE(perf.iterations, n) << preconditioner;  // CG is exact in n steps (in exact arithmetic)
    EXPECT_LT(perf.final_residual, 1e-12);
    for (label i = 0; i < n; ++i) EXPECT_NEAR(x[i], x_true[i], 1e-9) << preconditioner;
  }
}

TEST(ReferenceCg, RelTolAndMaxIterStopEarly) {
  LduMatrix a = tridiagonal(400, 2.001);
  std::vector<double> b(400, 1.0), x(400, 0.0);
  SolverSettings s;
  s.tolerance = 1e-14;
  s.rel_tol = 0.1;
  auto perf = make_linear_solver(a, s)->solve(x, b, "p");
  EXPECT_TRUE(perf.converged);
  EXPECT_LT(perf.final_residual, 0.1 * perf.initial_residual);
  EXPECT_GT(perf.iterations, 0);

  s.rel_tol = 0.0;
  s.max_iter = 3;
  std::fill(x.begin(), x.end(), 0.0);
  perf = make_linear_solver(a, s)->solve(x, b, "p");
  EXPECT_EQ(perf.iterations, 3);
  EXPECT_FALSE(perf.converged);
}

TEST(ReferenceCg, ConvergedInitialGuessTakesNoIterations) {
  LduMatrix a = tridiagonal(10, 3.0);
  std::vector<double> x(10, 1.0), b(10);
  reference::ldu_spmv(a, x, b);
  const auto perf = make_linear_solver(a, SolverSettings{})->solve(x, b, "p");
  EXPECT_EQ(perf.iterations, 0);
  EXPECT_TRUE(perf.converged);
}

TEST(ReferenceCg, ResidualHistoryIsBitIdenticalRunToRun) {
  LduMatrix a = tridiagonal(10000, 2.0001);
  std::vector<double> b(10000);
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.37 * static_cast<double>(i));
  SolverSettings s;
  s.max_iter = 25;
  s.tolerance = 0.0;
  std::vector<double> x1(b.size(), 0.0), x2(b.size(), 0.0);
  const auto p1 = make_linear_solver(a, s)->solve(x1, b, "p");
  const auto p2 = make_linear_solver(a, s)->solve(x2, b, "p");
  EXPECT_EQ(p1.final_residual, p2.final_residual);
  EXPECT_EQ(x1, x2);
}

/// The SolverError's message of a solve from x = 0 ("no error" when it solves).
std::string solve_error(const LduMatrix& a, std::span<const double> b, const SolverSettings& s) {
  std::vector<double> x(a.n_rows(), 0.0);
  try {
    make_linear_solver(a, s)->solve(x, b, "p");
  } catch (const SolverError& e) {
    return e.what();
  }
  return "no error";
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

TEST(ReferenceCg, IndefiniteMatrixIsABreakdown) {
  LduMatrix a = tridiagonal(20, 2.0);
  a.diag[5] = -50.0;
  std::vector<double> b(20, 1.0);
  SolverSettings s;
  s.tolerance = 1e-12;
  const std::string what = solve_error(a, b, s);
  EXPECT_TRUE(starts_with(what, "CG breakdown at iteration ")) << what;
  EXPECT_NE(what.find(": p'Ap = -"), std::string::npos) << what;
  // --- Jacobi refuses the negative diagonal entry before iterating
  s.preconditioner = "diagonal";
  EXPECT_EQ(solve_error(a, b, s), "Jacobi: diagonal entry 5 is -50 (not positive)");
}

TEST(ReferenceCg, NanInRightHandSideIsAnError) {
  LduMatrix a = tridiagonal(20, 3.0);
  std::vector<double> b(20, 1.0);
  b[3] = std::nan("");
  EXPECT_EQ(solve_error(a, b, SolverSettings{}), "CG: initial residual is not finite (NaN or Inf in A, x or b)");
}

TEST(ReferenceCg, SingularSystemIsAnError) {
  LduMatrix a = tridiagonal(20, 2.0);
  a.diag[0] = a.diag[19] = 1.0;  // Neumann ends: every row sums to zero
  std::vector<double> b(20, 0.0);
  b[0] = 1.0;
  b[19] = -1.0;
  EXPECT_TRUE(starts_with(solve_error(a, b, SolverSettings{}), "singular system: every row sums to zero"));
  a.diag[0] = 2.0;  // one fixed value
  EXPECT_EQ(solve_error(a, b, SolverSettings{}), "no error");
}

TEST(ReferenceCg, SolveLineIsOpenFoamStyle) {
  SolverPerformance p{"CG[staircase]", "p", 1.0, 9.2e-07, 41, true};
  EXPECT_EQ(format_solve_line(p),
            "CG[staircase]: Solving for p, Initial residual = 1, Final residual = 9.2e-07, No Iterations 41");
}

TEST(SolverFactory, AutoFormatIsCsrOnTheReferenceBackend) {
  LduMatrix a = tridiagonal(4, 3.0);
  SolverSettings s;
  s.format = "auto";
  const auto solver = make_linear_solver(a, s);
  EXPECT_NE(solver->describe().find("backend reference, csr"), std::string::npos) << solver->describe();
}

TEST(SolverFactory, UnknownNamesAreClearErrors) {
  LduMatrix a = tridiagonal(4, 3.0);
  SolverSettings s;
  s.format = "banana";
  EXPECT_THROW(make_linear_solver(a, s), std::invalid_argument);
  // --- the names are parsed once, at the boundary, from each enum's one table
  EXPECT_EQ(parse_backend("auto"), Backend::automatic);
  EXPECT_EQ(name(Backend::automatic), "auto");
  EXPECT_EQ(parse_preconditioner("jacobi"), "diagonal");
  EXPECT_EQ(find_krylov("CG").name, "CG");
  auto message = [](auto parse, const std::string& text) {
    try {
      parse(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(parse_preconditioner, "ilu"), "unknown preconditioner 'ilu' (known: none, diagonal, DIC, DILU, mcsgs, GAMG)");
  EXPECT_EQ(message(parse_backend, "opencl"), "unknown backend 'opencl' (known: reference, cuda, auto)");
  EXPECT_EQ(message(find_krylov, "GMRES"), "unknown solver 'GMRES' (known: CG, PBiCGStab, smoothSolver)");
}

}  // namespace
}  // namespace fvmmini
