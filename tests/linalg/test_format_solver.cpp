// The reference backend solves with every format x ordering: same solution as CSR in mesh
// order, vectors returned in mesh order, new coefficients taken in place.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/ordering/orderings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/make_linear_solver.hpp"
#include "matrix_generators.hpp"

namespace fvmmini {
namespace {

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

TEST(FormatSolver, EveryFormatAndOrderingSolvesToTheSameSolution) {
  const LduMatrix a = test::box_matrix(12, 9, 7, 5);
  const label n = a.n_rows();
  const auto x_exact = test::random_vector(n, 6);
  std::vector<double> b(n);
  reference::ldu_spmv(a, x_exact, b);

  for (const auto& entry : format_table()) {
    if (!entry.multiply) continue;
    for (const auto& ordering : ordering_names()) {
      SCOPED_TRACE(entry.name + " / " + ordering);
      SolverSettings s;
      s.preconditioner = "diagonal";
      s.tolerance = 1e-12;
      s.max_iter = 500;
      s.format = entry.name;
      s.ordering = ordering;
      s.format_parameters.set("alpha", 0.2);
      std::unique_ptr<LinearSolver> solver;
      try {
        solver = make_linear_solver(a, s);
      } catch (const std::invalid_argument& e) {
        // dia declines a renumbered box: it says so, and takes the natural order
        EXPECT_EQ(entry.name, "dia") << e.what();
        EXPECT_NE(ordering, "none") << e.what();
        continue;
      }
      std::vector<double> x(n, 0.0);
      const auto perf = solver->solve(x, b, "p");
      EXPECT_TRUE(perf.converged);
      EXPECT_EQ(perf.solver_name, "diagonalPCG[" + entry.name + "]");
      EXPECT_LT(max_abs_diff(x, x_exact), 1e-9);
      EXPECT_NE(solver->describe().find("ordering " + ordering), std::string::npos) << solver->describe();

      // --- new coefficients on the same structure: refreshed in place, solved again
      const LduMatrix a2 = test::random_values(a.addressing, 8);
      std::vector<double> b2(n);
      reference::ldu_spmv(a2, x_exact, b2);
      solver->update_coefficients(a2);
      std::fill(x.begin(), x.end(), 0.0);
      EXPECT_TRUE(solver->solve(x, b2, "p").converged);
      EXPECT_LT(max_abs_diff(x, x_exact), 1e-9);
    }
  }
}

TEST(FormatSolver, CudaOnlyFormatsAndBadParametersAreRefusedOnTheReferenceBackend) {
  const LduMatrix a = test::box_matrix(5, 5, 5, 1);
  SolverSettings s;
  s.format = "sell-cusparse";
  EXPECT_THROW(make_linear_solver(a, s), std::invalid_argument);
  s.format = "staircase";
  s.format_parameters.set("sliceHeight", 100);
  EXPECT_THROW(make_linear_solver(a, s), std::invalid_argument);
  s.format_parameters.set("sliceHeight", 32);
  s.ordering = "sloan";
  EXPECT_THROW(make_linear_solver(a, s), std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
