// icoFoam's PISO step with every field on the GPU (make_flow_step with algorithm PISO and the three
// systems on the cuda backend) against the host PisoStep (reference backend) from the same state:
// every solve's initial residual, the continuity of every correction, the velocity change and
// Courant number, and the fields after many steps agree to the solvers' tolerance. The set-ups
// cover the step's branches: the committee's settings (no momentum predictor, DIC-PCG, pFinal on
// p's solver), the predictor with PBiCGStab (DILU, diagonal), the channel's inlet and outlet with
// upwind and a GAMG pressure, and non-orthogonal meshes with linearUpwind, snGrad corrected and
// orthogonal, and non-orthogonal correctors. And icoFoam's own fields (the parity test's, kept as
// fixtures: no icoFoam on a GPU host): the device's within 1e-6.
// Skips without a CUDA device (fails under FVMMINI_REQUIRE_GPU=1).

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "discretisation/incompressible/flow_step_factory.hpp"
#include "discretisation/incompressible/piso_step.hpp"
#include "flow_cases.hpp"
#include "initial_state_check.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/text_reader.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tests/app/icofoam_case.hpp"
#include "tests/cuda/cuda_test_support.hpp"

namespace fvmmini {
namespace {

using namespace fvmmini::testing;

class DevicePisoStepTest : public test::CudaTest {};

struct PisoSetup {
  Mesh mesh;
  FlowBoundary boundary;
  IncompressibleSettings settings;
};

SolverSettings tight(const std::string& solver, const std::string& preconditioner) {
  SolverSettings s;
  s.solver = solver;
  s.preconditioner = parse_preconditioner(preconditioner);
  s.tolerance = 1e-12;
  s.max_iter = 5000;
  return s;
}

/// The three systems' settings of one comparison: the device's formats given, pFinal p's with
/// relTol 0 unless set.
struct PisoSolvers {
  SolverSettings u = tight("PBiCGStab", "DILU");
  SolverSettings p = tight("CG", "DIC");
  std::optional<SolverSettings> p_final;
  std::string u_format = "csr", p_format = "staircase";
};

double max_difference(std::span<const double> a, std::span<const double> b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

double max_magnitude(std::span<const double> a) {
  double m = 0.0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

/// March both for `steps` steps of dt and compare.
void expect_agreement(PisoSetup setup, int steps, double dt, const PisoSolvers& solvers, bool orthogonal = true) {
  setup.settings.algorithm = FlowAlgorithm::piso;
  const MeshGeometry g = compute_geometry(setup.mesh);
  const FlowOperators operators(setup.mesh, g, setup.boundary, setup.settings);
  ASSERT_EQ(operators.orthogonal, orthogonal);
  SolverSettings p_final = solvers.p_final.value_or(solvers.p);
  if (!solvers.p_final) p_final.rel_tol = 0.0;
  PisoStep host(operators, solvers.u, solvers.p, p_final);
  SolverSettings u = solvers.u, p = solvers.p, p_final_device = p_final;
  u.backend = p.backend = p_final_device.backend = Backend::cuda;
  u.format = solvers.u_format;
  p.format = p_final_device.format = solvers.p_format;
  const std::unique_ptr<FlowStep> step = make_flow_step(operators, u, p, &p_final_device);
  ASSERT_NE(step->describe().find("PISO on the GPU"), std::string::npos) << step->describe();
  FlowStep& device = *step;
  testing::expect_initial_state(operators, device, dt);

  for (int n = 0; n < steps; ++n) {
    const CourantNumber co_host = host.courant_number(dt), co_device = device.courant_number(dt);
    EXPECT_NEAR(co_device.max, co_host.max, 1e-9 * std::max(1.0, co_host.max)) << "step " << n;
    EXPECT_NEAR(co_device.mean, co_host.mean, 1e-9 * std::max(1.0, co_host.mean)) << "step " << n;
    const StepReport a = host.advance(dt);
    const StepReport b = device.advance(dt);
    ASSERT_EQ(a.solves.size(), b.solves.size()) << "step " << n;
    for (size_t k = 0; k < a.solves.size(); ++k) {
      ASSERT_EQ(a.solves[k].field, b.solves[k].field);
      ASSERT_TRUE(b.solves[k].converged) << b.solves[k].field << " at step " << n;
      EXPECT_NEAR(b.solves[k].initial_residual, a.solves[k].initial_residual,
                  1e-5 * a.solves[k].initial_residual + 1e-10)
          << b.solves[k].field << " solve " << k << " at step " << n;
    }
    ASSERT_EQ(a.corrections.size(), b.corrections.size());
    for (size_t k = 0; k < a.corrections.size(); ++k) {
      EXPECT_EQ(a.corrections[k].after_solve, b.corrections[k].after_solve);
      // (a correction solved to relTol leaves its continuity errors as large as the host's)
      const ContinuityErrors& host_errors = a.corrections[k].continuity;
      EXPECT_NEAR(b.corrections[k].continuity.global, host_errors.global, 1e-12)
          << "correction " << k << " at step " << n;
      EXPECT_NEAR(b.corrections[k].continuity.sum_local, host_errors.sum_local, 1e-6 * host_errors.sum_local + 1e-14)
          << "correction " << k << " at step " << n;
    }
    EXPECT_NEAR(b.divergence_before, a.divergence_before, 1e-8 * a.divergence_before + 1e-14) << "step " << n;
    EXPECT_NEAR(b.velocity_change, a.velocity_change, 1e-6 * a.velocity_change + 1e-9) << "step " << n;
    EXPECT_GT(b.times.pressure_solve, 0.0);
    EXPECT_GT(b.times.correction, 0.0);
  }

  // --- the state, copied back from the device
  const FlowState& expected = host.state();
  const FlowState& actual = device.state();
  double u_scale = 0.0, grad_scale = 0.0, grad_difference = 0.0;
  for (int i = 0; i < 3; ++i) u_scale = std::max(u_scale, max_magnitude(expected.velocity[i]));
  for (size_t c = 0; c < expected.pressure_gradient.size(); ++c) {
    grad_scale = std::max(grad_scale, mag(expected.pressure_gradient[c]));
    grad_difference = std::max(grad_difference, mag(actual.pressure_gradient[c] - expected.pressure_gradient[c]));
  }
  for (int i = 0; i < 3; ++i)
    EXPECT_LT(max_difference(actual.velocity[i], expected.velocity[i]), 1e-9 * u_scale) << "U component " << i;
  EXPECT_LT(max_difference(actual.pressure, expected.pressure), 1e-9 * max_magnitude(expected.pressure));
  EXPECT_LT(max_difference(actual.flux, expected.flux), 1e-9 * max_magnitude(expected.flux));
  EXPECT_LT(grad_difference, 1e-8 * grad_scale);
}

TEST_F(DevicePisoStepTest, TheCommitteesSettingsAgreeWithTheHostStep) {
  // --- momentumPredictor off, DIC-PCG, pFinal p's with relTol 0: one device solver serves both
  PisoSetup s{cavity_mesh(32), cavity_boundary(), {}};
  s.settings.piso.momentum_predictor = false;
  PisoSolvers solvers;
  solvers.p.rel_tol = 0.05;
  expect_agreement(s, 60, 0.005, solvers);
}

TEST_F(DevicePisoStepTest, TheMomentumPredictorAgreesWithTheHostStep) {
  PisoSetup s{cavity_mesh(32), cavity_boundary(), {}};
  expect_agreement(s, 60, 0.005, {});  // PBiCGStab with DILU on U
  PisoSolvers diagonal;
  diagonal.u = tight("PBiCGStab", "diagonal");
  diagonal.u_format = "staircase";
  diagonal.p_format = "csr";
  expect_agreement(s, 30, 0.005, diagonal);
}

TEST_F(DevicePisoStepTest, TheChannelWithUpwindAndGamgAgreesWithTheHostStep) {
  // --- an inlet and an outlet (no reference cell), upwind's asymmetric weights, GAMG on p and
  //     DIC on pFinal (its own solver)
  PisoSetup s{channel_mesh(40, 10, 4.0), channel_boundary(1.0), {}};
  s.settings.viscosity = 0.05;
  s.settings.initial_velocity = {1.0, 0.0, 0.0};
  s.settings.convection = ConvectionScheme::upwind;
  PisoSolvers solvers;
  solvers.p = tight("CG", "GAMG");
  solvers.p_final = tight("CG", "DIC");
  expect_agreement(s, 60, 0.02, solvers);
}

TEST_F(DevicePisoStepTest, NonOrthogonalMeshesAgreeWithTheHostStep) {
  // --- prisms and pyramids: linearUpwind, snGrad corrected with a non-orthogonal corrector, then
  //     snGrad orthogonal
  PisoSetup s{read_gmsh(std::string(FVMMINI_FIXTURES_DIR) + "/gmsh/mix_prism_pyr.msh"), {}, {}};
  for (const Patch& patch : s.mesh.patches)
    s.boundary.patches.push_back({FlowPatchType::wall, patch.name == "top" ? Vec3{1.0, 0.0, 0.0} : Vec3{}, 0.0});
  s.settings.viscosity = 0.02;
  s.settings.convection = ConvectionScheme::linear_upwind;
  s.settings.piso.n_non_orthogonal_correctors = 1;
  expect_agreement(s, 30, 0.01, {}, false);
  s.settings.piso.sn_grad = SnGrad::orthogonal;
  s.settings.piso.n_non_orthogonal_correctors = 0;
  expect_agreement(s, 30, 0.01, {}, false);
}

TEST_F(DevicePisoStepTest, TetrahedraAgreeWithTheHostStep) {
  PisoSetup s{tetrahedral_cavity_mesh(), {}, {}};
  s.boundary = lid_driven_boundary(s.mesh);
  s.settings.viscosity = 0.01;
  expect_agreement(s, 30, 0.01, {}, false);
}

/// The stored icoFoam case c as the step's set-up: blockMesh's block as the box (0.1 m; cells in
/// blockMesh's order), the tutorial's walls and lid, nu 0.01, its schemes.
PisoSetup icofoam_setup(const IcoFoamCase& c) {
  BoxSpec spec;
  spec.cells = {c.nx, c.ny, c.nz};
  spec.max = {0.1, 0.1, c.two_dimensional ? 0.01 : 0.1};
  BoxPatch fixed{"fixedWalls", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin}};
  if (!c.two_dimensional) fixed.sides.insert(fixed.sides.end(), {BoxSide::zmin, BoxSide::zmax});
  spec.patches = {{"movingWall", "wall", {BoxSide::ymax}}, fixed};
  if (c.two_dimensional) spec.patches.push_back({"frontAndBack", "empty", {BoxSide::zmin, BoxSide::zmax}});
  PisoSetup s{generate_box(spec), {}, {}};
  s.boundary.patches = {{FlowPatchType::wall, {1.0, 0.0, 0.0}, 0.0}, {FlowPatchType::wall, {}, 0.0}};
  if (c.two_dimensional) s.boundary.patches.push_back({FlowPatchType::empty, {}, 0.0});
  s.settings.algorithm = FlowAlgorithm::piso;
  s.settings.viscosity = 0.01;
  s.settings.piso.sn_grad = parse_sn_grad(c.sn_grad);
  s.settings.convection = c.divergence == "Gauss upwind"                 ? ConvectionScheme::upwind
                          : c.divergence == "Gauss linearUpwind grad(U)" ? ConvectionScheme::linear_upwind
                                                                         : ConvectionScheme::linear;
  return s;
}

// The parity test's stored cases (tests/fixtures/icofoam: the tutorial, and 3-D with linearUpwind;
// momentum predictor with smoothSolver symGaussSeidel, PCG DIC) marched on the GPU to their end
// time: every cell's U and p within 1e-6 of icoFoam's (U over the lid's speed, p over its range,
// each p's mean removed), the bar the host's parity test meets.
TEST_F(DevicePisoStepTest, TheStoredIcoFoamCasesGiveIcoFoamsFields) {
  for (const StoredIcoFoamCase& stored : stored_icofoam_cases()) {
    SCOPED_TRACE(stored.name);
    const IcoFoamCase& c = stored.c;
    PisoSetup s = icofoam_setup(c);
    const MeshGeometry g = compute_geometry(s.mesh);
    const FlowOperators operators(s.mesh, g, s.boundary, s.settings);
    SolverSettings u;
    u.solver = "smoothSolver";
    u.smoother = Smoother::symmetric_gauss_seidel;
    u.tolerance = c.u_tolerance;
    u.max_iter = 1000;
    SolverSettings p = tight("CG", "DIC");
    p.tolerance = c.p_tolerance;
    p.rel_tol = c.p_rel_tol;
    SolverSettings p_final = p;
    p_final.rel_tol = 0.0;
    u.backend = p.backend = p_final.backend = Backend::cuda;
    const std::unique_ptr<FlowStep> step = make_flow_step(operators, u, p, &p_final);
    ASSERT_NE(step->describe().find("PISO on the GPU"), std::string::npos) << step->describe();
    for (int n = 0; n < c.steps; ++n)
      for (const SolverPerformance& solve : step->advance(c.delta_t).solves)
        ASSERT_TRUE(solve.converged) << solve.field << " at step " << n;

    const std::string kept = std::string(FVMMINI_FIXTURES_DIR) + "/icofoam/" + stored.name + "/" + stored.end_time;
    const std::vector<double> u_foam = internal_field_values(read_text_file(kept + "/U.gz"), 3, kept + "/U.gz");
    const std::vector<double> p_foam = internal_field_values(read_text_file(kept + "/p.gz"), 1, kept + "/p.gz");
    const label n = s.mesh.n_cells;
    ASSERT_EQ(p_foam.size(), static_cast<std::size_t>(n));
    // --- blockMesh numbers the cells x fastest, then y, then z: each cell's number there from its centre
    const double depth = c.two_dimensional ? 0.01 : 0.1;
    const auto foam_cell = [&](label cell) {
      const Vec3 x = g.cell_centres[cell];
      const auto index = [](double at, double length, int cells) { return static_cast<label>(at / length * cells); };
      return index(x.x, 0.1, c.nx) + c.nx * (index(x.y, 0.1, c.ny) + c.ny * index(x.z, depth, c.nz));
    };
    const FlowState& state = step->state();
    double du = 0.0, mean = 0.0, mean_foam = 0.0, p_min = p_foam[0], p_max = p_foam[0];
    for (label cell = 0; cell < n; ++cell) {
      const label f = foam_cell(cell);
      for (int i = 0; i < 3; ++i) du = std::max(du, std::abs(state.velocity[i][cell] - u_foam[3 * f + i]));
      mean += state.pressure[cell] / n;
      mean_foam += p_foam[f] / n;
      p_min = std::min(p_min, p_foam[f]);
      p_max = std::max(p_max, p_foam[f]);
    }
    double dp = 0.0;
    for (label cell = 0; cell < n; ++cell)
      dp = std::max(dp, std::abs((state.pressure[cell] - mean) - (p_foam[foam_cell(cell)] - mean_foam)));
    std::printf("%s on the GPU: max |U - U_icoFoam| = %.3g, max |p - p_icoFoam| / range = %.3g\n",
                stored.name.c_str(), du, dp / (p_max - p_min));
    EXPECT_LT(du, 1e-6);
    EXPECT_LT(dp / (p_max - p_min), 1e-6);
  }
}

TEST_F(DevicePisoStepTest, CgOnTheAsymmetricMomentumMatrixIsRefusedNamingU) {
  PisoSetup s{cavity_mesh(8), cavity_boundary(), {}};
  s.settings.algorithm = FlowAlgorithm::piso;
  const MeshGeometry g = compute_geometry(s.mesh);
  const FlowOperators operators(s.mesh, g, s.boundary, s.settings);
  SolverSettings u = tight("CG", "none"), p = tight("CG", "DIC");
  u.backend = p.backend = Backend::cuda;
  try {
    make_flow_step(operators, u, p);
    FAIL() << "CG on U's matrix was accepted";
  } catch (const SolverSetupError& e) {
    EXPECT_EQ(e.field(), "U");
    EXPECT_NE(std::string(e.what()).find("symmetric"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fvmmini
