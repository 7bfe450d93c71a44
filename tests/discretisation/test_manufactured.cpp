// Observed order of accuracy of the manufactured solution under refinement.

#include <gtest/gtest.h>

#include <cmath>

#include "manufactured_fixture.hpp"

namespace fvmmini {
namespace {

double order(double coarse_error, double fine_error, double refinement) {
  return std::log(coarse_error / fine_error) / std::log(refinement);
}

TEST(Manufactured, SecondOrderOnHexBoxes) {
  const double e8 = testing::manufactured_poisson_error(testing::unit_box(8), 0).l2;
  const double e16 = testing::manufactured_poisson_error(testing::unit_box(16), 0).l2;
  const double e32 = testing::manufactured_poisson_error(testing::unit_box(32), 0).l2;
  EXPECT_GE(order(e8, e16, 2.0), 1.8);
  EXPECT_GE(order(e16, e32, 2.0), 1.8);
  EXPECT_LT(e32, 1e-3);
}

TEST(Manufactured, SecondOrderOnTwoDimensionalBoxes) {
  const double e16 = testing::manufactured_poisson_error(testing::unit_box(16, 1), 0).l2;
  const double e32 = testing::manufactured_poisson_error(testing::unit_box(32, 1), 0).l2;
  EXPECT_GE(order(e16, e32, 2.0), 1.8);
}

TEST(Manufactured, TransientDiffusionConverges) {
  // Implicit Euler with dt ~ h^2: the error falls at second order in h.
  auto run = [](label n) {
    const Mesh mesh = testing::unit_box(n, 1);
    const MeshGeometry g = compute_geometry(mesh);
    std::vector<bool> exact;
    ScalarBoundary boundary = testing::exact_boundary(mesh, exact);
    ScalarProblemSettings s;
    s.transient = true;
    s.manufactured = true;
    s.diffusivity = 0.1;
    s.delta_t = 0.4 / (n * n);
    ScalarProblem problem(mesh, g, boundary, exact, s);
    SolverSettings ss;
    ss.tolerance = 1e-13;
    ss.max_iter = 1000;
    auto solver = make_linear_solver(problem.matrix(), ss);
    const double end_time = 0.1;
    const int steps = static_cast<int>(std::lround(end_time / s.delta_t));
    for (int i = 1; i <= steps; ++i) problem.advance(*solver, i * s.delta_t);
    return problem.error(steps * s.delta_t)->l2;
  };
  const double e8 = run(8), e16 = run(16);
  EXPECT_GE(order(e8, e16, 2.0), 1.8);
}

}  // namespace
}  // namespace fvmmini
