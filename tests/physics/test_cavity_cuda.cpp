// The cavity with both linear solvers on the CUDA backend agrees with the reference backend to
// the solvers' tolerance. Skips without a CUDA device.

#include <gtest/gtest.h>

#include "flow_cases.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

using namespace fvmmini::testing;

class CavityOnCuda : public test::CudaTest {};

TEST_F(CavityOnCuda, AgreesWithTheReferenceBackend) {
  const Mesh mesh = cavity_mesh(32);
  const MeshGeometry g = compute_geometry(mesh);
  IncompressibleSettings settings;
  settings.viscosity = 0.01;
  SolverSettings u_solver, p_solver;
  u_solver.preconditioner = "diagonal";
  u_solver.tolerance = 1e-12;
  p_solver.tolerance = 1e-12;
  p_solver.max_iter = 5000;
  const FlowOperators operators(mesh, g, cavity_boundary(), settings);
  HostFlowStep reference(operators, u_solver, p_solver);
  u_solver.backend = p_solver.backend = Backend::cuda;
  HostFlowStep device(operators, u_solver, p_solver, [](const LduMatrix& m, const SolverSettings& s, const LinearSolver*) {
    return cuda::make_cuda_linear_solver(m, s);
  });

  // --- 200 steps at dt = 0.01 (Co ~0.3 at the lid): the flow is well under way
  for (int step = 0; step < 200; ++step) {
    const StepReport a = reference.advance(0.01);
    const StepReport b = device.advance(0.01);
    ASSERT_EQ(a.solves.size(), b.solves.size());
    for (size_t k = 0; k < a.solves.size(); ++k) ASSERT_TRUE(b.solves[k].converged) << b.solves[k].field;
    EXPECT_LT(b.continuity.sum_local, 1e-10);
  }
  double du = 0.0, dp = 0.0, p_scale = 0.0;
  for (label c = 0; c < mesh.n_cells; ++c) {
    for (int i = 0; i < 2; ++i) du = std::max(du, std::abs(device.state().velocity[i][c] - reference.state().velocity[i][c]));
    dp = std::max(dp, std::abs(device.state().pressure[c] - reference.state().pressure[c]));
    p_scale = std::max(p_scale, std::abs(reference.state().pressure[c]));
  }
  EXPECT_LT(du, 1e-8);  // lid velocity 1
  EXPECT_LT(dp, 1e-8 * std::max(1.0, p_scale));
}

}  // namespace
}  // namespace fvmmini
