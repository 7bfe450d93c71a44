// The flow step with every field on the GPU (make_device_flow_step) against the host step
// (HostFlowStep, reference backend) from the same state: velocity, pressure and fluxes after
// many steps, and every number of the step report, agree to the solvers' tolerance. Three set-ups
// cover the step's branches: the cavity (walls, reference level, linear convection), a 3-D cavity
// on prisms and pyramids (non-orthogonal corrections, linearUpwind) and the channel (inlet,
// outlet, no level).
// Skips without a CUDA device.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "discretisation/incompressible/flow_step_factory.hpp"
#include "flow_cases.hpp"
#include "initial_state_check.hpp"
#include "mesh/gmsh_reader.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

using namespace fvmmini::testing;

class DeviceFlowStepTest : public test::CudaTest {};

struct FlowSetup {
  Mesh mesh;
  FlowBoundary boundary;
  IncompressibleSettings settings;
};

SolverSettings tight(const std::string& preconditioner) {
  SolverSettings s;
  s.preconditioner = parse_preconditioner(preconditioner);
  s.tolerance = 1e-12;
  s.max_iter = 5000;
  return s;
}

double max_difference(std::span<const double> a, std::span<const double> b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

/// March both for `steps` steps of dt and compare. `format` is the device's pressure format;
/// `u_solver` and `p_solver` the preconditioners both sides use.
void expect_agreement(const FlowSetup& setup, int steps, double dt, const std::string& format,
                      bool orthogonal = true, const SolverSettings& u_solver = tight("jacobi"),
                      const SolverSettings& p_solver = tight("none")) {
  const MeshGeometry g = compute_geometry(setup.mesh);
  const FlowOperators operators(setup.mesh, g, setup.boundary, setup.settings);
  ASSERT_EQ(operators.orthogonal, orthogonal);
  HostFlowStep host(operators, u_solver, p_solver);
  SolverSettings u = u_solver, p = p_solver;
  u.backend = p.backend = Backend::cuda;
  u.format = "csr";
  p.format = format;
  p.ordering = "rcm";
  const std::unique_ptr<FlowStep> step = make_flow_step(operators, u, p);
  ASSERT_NE(step->describe().find("on the GPU"), std::string::npos) << step->describe();
  FlowStep& device = *step;
  testing::expect_initial_state(operators, device, dt);

  for (int step = 0; step < steps; ++step) {
    const CourantNumber co_host = host.courant_number(dt), co_device = device.courant_number(dt);
    EXPECT_NEAR(co_device.max, co_host.max, 1e-9 * std::max(1.0, co_host.max)) << "step " << step;
    EXPECT_NEAR(co_device.mean, co_host.mean, 1e-9 * std::max(1.0, co_host.mean)) << "step " << step;
    const StepReport a = host.advance(dt);
    const StepReport b = device.advance(dt);
    ASSERT_EQ(a.solves.size(), b.solves.size());
    for (size_t k = 0; k < a.solves.size(); ++k) {
      ASSERT_EQ(a.solves[k].field, b.solves[k].field);
      ASSERT_TRUE(b.solves[k].converged) << b.solves[k].field << " at step " << step;
      EXPECT_NEAR(b.solves[k].initial_residual, a.solves[k].initial_residual,
                  1e-5 * a.solves[k].initial_residual + 1e-10)
          << b.solves[k].field << " at step " << step;
    }
    EXPECT_NEAR(b.divergence_before, a.divergence_before, 1e-8 * a.divergence_before + 1e-14) << "step " << step;
    EXPECT_LT(b.continuity.sum_local, 1e-10) << "step " << step;
    EXPECT_NEAR(b.velocity_change, a.velocity_change, 1e-6 * a.velocity_change + 1e-9) << "step " << step;
    EXPECT_GT(b.times.pressure_solve, 0.0);
  }

  // --- the state, copied back from the device
  const FlowState& expected = host.state();
  const FlowState& actual = device.state();
  double u_scale = 0.0, p_scale = 0.0, phi_scale = 0.0, grad_scale = 0.0, grad_difference = 0.0;
  for (int i = 0; i < 3; ++i)
    for (double v : expected.velocity[i]) u_scale = std::max(u_scale, std::abs(v));
  for (double v : expected.pressure) p_scale = std::max(p_scale, std::abs(v));
  for (double v : expected.flux) phi_scale = std::max(phi_scale, std::abs(v));
  for (size_t c = 0; c < expected.pressure_gradient.size(); ++c) {
    grad_scale = std::max(grad_scale, mag(expected.pressure_gradient[c]));
    grad_difference = std::max(grad_difference, mag(actual.pressure_gradient[c] - expected.pressure_gradient[c]));
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_LT(max_difference(actual.velocity[i], expected.velocity[i]), 1e-9 * u_scale) << "U component " << i;
  EXPECT_LT(max_difference(actual.pressure, expected.pressure), 1e-9 * p_scale);
  EXPECT_LT(max_difference(actual.flux, expected.flux), 1e-9 * phi_scale);
  EXPECT_LT(grad_difference, 1e-8 * grad_scale);
}

TEST_F(DeviceFlowStepTest, CavityAgreesWithTheHostStep) {
  FlowSetup s{cavity_mesh(32), cavity_boundary(), {}};
  s.settings.viscosity = 0.01;
  expect_agreement(s, 150, 0.01, "staircase");
}

// The preconditioners refreshed on the device when the momentum diagonal changes (DIC's pivots
// recomputed level by level, SGS's reciprocal diagonal), and cusparseSpSV on the pressure.
TEST_F(DeviceFlowStepTest, CavityWithDicAndMcsgsAgreesWithTheHostStep) {
  FlowSetup s{cavity_mesh(32), cavity_boundary(), {}};
  s.settings.viscosity = 0.01;
  SolverSettings u = tight("DIC"), p = tight("mcsgs");
  p.sweeps = 2;
  expect_agreement(s, 40, 0.01, "staircase", true, u, p);
  u = tight("mcsgs");
  p = tight("DIC");
  p.triangular_solve = TriangularSolve::cusparse;
  expect_agreement(s, 40, 0.01, "csr", true, u, p);
}

TEST_F(DeviceFlowStepTest, LinearUpwindOnPrismsAndPyramidsAgreesWithTheHostStep) {
  // --- a 3-D cavity on non-orthogonal prisms and pyramids: the lid is "top", moving in +x
  FlowSetup s{read_gmsh(std::string(FVMMINI_FIXTURES_DIR) + "/gmsh/mix_prism_pyr.msh"), {}, {}};
  for (const Patch& patch : s.mesh.patches)
    s.boundary.patches.push_back({FlowPatchType::wall, patch.name == "top" ? Vec3{1.0, 0.0, 0.0} : Vec3{}, 0.0});
  s.settings.viscosity = 0.02;
  s.settings.convection = ConvectionScheme::linear_upwind;
  expect_agreement(s, 40, 0.01, "sell", false);
}

TEST_F(DeviceFlowStepTest, CavityOnTetrahedraAgreesWithTheHostStep) {
  // --- the 3-D cavity on tetrahedra: every face non-orthogonal, least-squares velocity gradients
  FlowSetup s{tetrahedral_cavity_mesh(), {}, {}};
  s.boundary = lid_driven_boundary(s.mesh);
  s.settings.viscosity = 0.01;
  expect_agreement(s, 40, 0.01, "csr", false, tight("jacobi"), tight("DIC"));
}

TEST_F(DeviceFlowStepTest, ChannelAgreesWithTheHostStep) {
  FlowSetup s{channel_mesh(40, 10, 4.0), channel_boundary(1.0), {}};
  s.settings.viscosity = 0.05;
  s.settings.initial_velocity = {1.0, 0.0, 0.0};
  expect_agreement(s, 100, 0.02, "csr");
}

}  // namespace
}  // namespace fvmmini
