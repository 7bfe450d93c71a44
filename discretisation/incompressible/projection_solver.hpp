#pragma once
// The incompressible Navier-Stokes equations on a collocated mesh by a projection
// (fractional step) with Rhie-Chow momentum interpolation, one step at a time:
//
//   1. momentum predictor, per solved component i,
//        (V/dt + nu L) U*_i = V/dt U^n_i - C_i - V (grad p^n)_i + boundary terms,
//      L the Laplacian (implicit diffusion: a symmetric Helmholtz system solved by CG),
//      C_i = sum_f phi_f U_f,i the explicit convection, second order in space (linear or
//      linearUpwind), Adams-Bashforth 2 in time (Euler on the first step);
//   2. the predicted face flux, Rhie-Chow with a time scale D_f = V_f / (nu L)_f of the face:
//        phiH_f = U*_f . S + tau (grad p^n)_f . Delta + (dt - tau) a_f (p^n_N - p^n_P)
//                 + (1 - tau / D_f) (phi^n_f - U^n_f . S),   tau = min(dt, D_f),
//      Delta = S - |S| k the face's orthogonal part. The cell pressure gradient is taken out of the
//      interpolated velocity and the compact face gradient put back in step 4, so no checkerboard
//      mode survives; the last term is the transient correction (OpenFOAM's ddtCorr) sized so
//      that the steady flux is U_f . S + D_f ((grad p)_f . S - (grad p . S)_f) whatever dt:
//      the steady state does not depend on the time step (docs/incompressible.md);
//   3. pressure Poisson  A p^{n+1} = -div(phiH) / dt (+ boundary and reference terms),
//      A = -div grad assembled once: dt only scales the right-hand side;
//   4. phi = phiH - dt a_f (p^{n+1}_N - p^{n+1}_P): divergence-free to the solver's tolerance;
//      U^{n+1} = U* + dt grad p^n - dt grad p^{n+1} (Gauss gradients).
//
// Every per-face and per-cell formula is in flow_formulas.hpp, shared with the device step.
//
// Pressure is kinematic (p / rho). In a domain with no pressureOutlet the pressure is
// fixed only up to a constant: the reference cell's diagonal is raised by 1e-4 of itself
// (with the matching source, as OpenFOAM's setReference does with a factor 1), which makes
// the matrix non-singular and leaves the solution of the consistent system unchanged, and
// after each solve p is shifted by a constant so that it equals the reference value there.
// The weak pin lets CG ignore the constant mode: ~40% fewer iterations than a full pin.

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "discretisation/incompressible/cell_faces.hpp"
#include "discretisation/incompressible/flow_boundary.hpp"
#include "discretisation/incompressible/flow_diagnostics.hpp"
#include "discretisation/incompressible/flow_formulas.hpp"
#include "discretisation/laplacian.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini {

/// The reference cell's extra pressure diagonal, as a fraction of its diagonal (the weak pin).
inline constexpr double pressure_reference_pin = 1e-4;

enum class ConvectionScheme { linear, linear_upwind };

/// Parse "linear" | "linearUpwind"; throws std::invalid_argument otherwise.
ConvectionScheme parse_convection_scheme(const std::string& name);
const char* to_string(ConvectionScheme scheme);

struct IncompressibleSettings {
  double viscosity = 0.01;  ///< kinematic, nu = U L / Re
  ConvectionScheme convection = ConvectionScheme::linear;
  label reference_cell = 0;      ///< where p is pinned when no patch fixes it
  double reference_value = 0.0;
  Vec3 initial_velocity;
  double initial_pressure = 0.0;
};

/// Seconds spent in each part of the step.
struct StepPhaseTimes {
  double momentum = 0.0;           ///< convection, momentum right-hand sides and solves
  double pressure_assembly = 0.0;  ///< HbyA, face fluxes, the Poisson right-hand side
  double pressure_solve = 0.0;
  double correction = 0.0;         ///< fluxes, pressure gradient, velocity, continuity
};

struct StepReport {
  double delta_t = 0.0;
  std::vector<SolverPerformance> solves;
  double divergence_before = 0.0;  ///< sum_c |div phiH|: the fluxes' divergence before the projection (m^3/s)
  double divergence_after = 0.0;   ///< sum_c |div phi| after it  ///< Ux, Uy (, Uz), p, in order
  ContinuityErrors continuity;
  double momentum_residual = 0.0;  ///< largest initial residual of the momentum solves
  double velocity_change = 0.0;    ///< max|U_new - U_old| / (dt max|U_new|)
  StepPhaseTimes times;
};

/// Builds a LinearSolver for a matrix (make_linear_solver, or a backend's own factory in tests).
using LinearSolverFactory = std::function<std::unique_ptr<LinearSolver>(const LduMatrix&, const SolverSettings&)>;

class ProjectionSolver {
 public:
  /// Set up operators, the initial state and both linear solvers (built once here, by `factory`;
  /// a factory that returns null leaves advance() unusable, for a step run elsewhere).
  /// mesh and geometry must outlive the solver. Throws std::invalid_argument for a boundary
  /// that does not match the mesh or a reference cell out of range.
  ProjectionSolver(const Mesh& mesh, const MeshGeometry& geometry, FlowBoundary boundary,
                   IncompressibleSettings settings, const SolverSettings& velocity_solver,
                   const SolverSettings& pressure_solver, const LinearSolverFactory& factory = make_linear_solver);

  /// The Courant number of the current fluxes over a step dt.
  CourantNumber courant_number(double dt) const;

  /// One projection step of length dt. @throws std::logic_error when built without linear solvers
  StepReport advance(double dt);

  /// Velocity component i in cells (unsolved components of a 2-D case stay at their initial value).
  std::span<const double> velocity(int component) const { return velocity_[component]; }
  std::span<const double> pressure() const { return pressure_; }
  /// The Gauss gradient of the current pressure.
  std::span<const Vec3> pressure_gradient() const { return grad_p_; }
  /// Face fluxes U.S (m^3/s) on every face; zero on empty faces.
  std::span<const double> face_flux() const { return flux_; }
  /// The components the predictor solves (a direction normal to every empty face is not).
  const std::array<bool, 3>& solved_components() const { return solved_; }
  /// Net outflow of the current fluxes per cell (m^3/s): the continuity error of each cell.
  void net_outflow(std::span<double> div) const;
  /// Gauss gradients of the velocity components with their boundary values.
  void velocity_gradients(std::array<std::vector<Vec3>, 3>& gradients) const;
  const CellFaces& cell_faces() const { return cells_; }
  const LduMatrix& pressure_matrix() const { return pressure_matrix_; }
  const LinearSolver& pressure_solver() const { return *pressure_solver_; }
  const LinearSolver& velocity_solver() const { return *velocity_solver_; }
  /// The cell whose pressure is pinned, or -1 when a patch fixes the pressure.
  label reference_cell() const { return reference_cell_; }
  /// The time step of the last advance (0 before the first).
  double last_delta_t() const { return old_delta_t_; }

  // --- the step's constant data, for a backend that runs the step elsewhere (DeviceProjection)
  const Mesh& mesh() const { return mesh_; }
  const MeshGeometry& geometry() const { return geometry_; }
  const IncompressibleSettings& settings() const { return settings_; }
  const Laplacian& laplacian() const { return laplacian_; }
  bool orthogonal() const { return orthogonal_; }
  /// |S| k per face: the non-orthogonal part of the face area vector (the Laplacian's).
  std::span<const Vec3> non_orthogonal_corrections() const { return laplacian_.non_orthogonal_corrections(); }
  /// D_f = V_f / (nu L)_f per face: the Rhie-Chow time scale of the steady state.
  std::span<const double> rhie_chow_times() const { return rhie_chow_time_; }
  /// Per boundary face (index f - n_internal): velocity, FlowPatchType, pressure.
  std::span<const Vec3> boundary_velocities() const { return boundary_velocity_; }
  std::span<const int> boundary_kinds() const { return boundary_kind_; }
  std::span<const double> boundary_pressures() const { return boundary_pressure_; }
  /// The Helmholtz matrix nu L (+ V/dt on the diagonal) and its diagonal without V/dt.
  const LduMatrix& helmholtz_matrix() const { return helmholtz_matrix_; }
  std::span<const double> helmholtz_base_diagonal() const { return helmholtz_base_diag_; }
  /// nu a_b U_b,i per cell: the fixed-velocity boundary source of component i.
  std::span<const double> momentum_boundary_source(int i) const { return momentum_boundary_source_[i]; }
  /// a_b p_b on fixed-pressure faces plus the reference term, per cell.
  std::span<const double> pressure_source() const { return pressure_source_; }

  /// Replace the state by one advanced elsewhere (U, p, phi; the time step taken and the
  /// cumulative continuity error), for output; the pressure gradient is recomputed from p. The
  /// convection history is not carried: a later advance() starts Adams-Bashforth afresh.
  void set_state(const std::array<std::span<const double>, 3>& velocity, std::span<const double> pressure,
                 std::span<const double> flux, double delta_t, double cumulative_continuity);

 private:
  /// Face values of velocity component i: linear inside, the boundary value on walls and inlets,
  /// the owner's value on outlets. @param[out] face_values one per face
  void velocity_face_values(int component, std::span<double> face_values) const;
  /// conv_[i] = sum_f phi_f U_f,i with the chosen scheme.
  void compute_convection();
  /// grad_u_[i] from the current velocity (linearUpwind, non-orthogonal diffusion).
  void compute_velocity_gradients();
  /// grad p from the current pressure into grad_p_.
  void compute_pressure_gradient();
  /// Views of the constant face data and the velocity for the formulas of flow_formulas.hpp.
  flow::Faces face_view() const;
  flow::Components<const double> velocity_view() const;
  flow::Components<const double> old_velocity_view() const;

  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  FlowBoundary boundary_;
  IncompressibleSettings settings_;
  CellFaces cells_;
  Laplacian laplacian_;
  std::array<bool, 3> solved_{true, true, true};
  label reference_cell_ = -1;
  bool orthogonal_ = true;

  // --- constant operator data
  std::vector<double> rhie_chow_time_;  ///< D_f per face
  std::vector<Vec3> boundary_velocity_; ///< per boundary face
  std::vector<int> boundary_kind_;      ///< per boundary face: the FlowPatchType
  std::vector<double> boundary_pressure_;
  std::vector<double> helmholtz_base_diag_;   ///< nu L diagonal, without V/dt
  std::array<std::vector<double>, 3> momentum_boundary_source_;  ///< nu a_b U_b,i
  std::vector<double> pressure_source_;  ///< a_b p_b on fixed faces + reference term

  LduMatrix helmholtz_matrix_;
  LduMatrix pressure_matrix_;
  std::unique_ptr<LinearSolver> velocity_solver_;
  std::unique_ptr<LinearSolver> pressure_solver_;
  double matrix_delta_t_ = 0.0;

  // --- state
  std::array<std::vector<double>, 3> velocity_;
  std::vector<double> pressure_;
  std::vector<double> flux_;
  std::vector<Vec3> grad_p_;
  std::array<std::vector<double>, 3> conv_, conv_old_;
  bool have_old_convection_ = false;
  double old_delta_t_ = 0.0;
  double cumulative_continuity_ = 0.0;

  // --- work arrays (sized once)
  std::array<std::vector<double>, 3> velocity_old_;
  std::array<std::vector<Vec3>, 3> grad_u_;
  std::array<std::vector<double>, 3> face_work_;
  std::vector<double> rhs_;
  std::vector<double> div_;
};

}  // namespace fvmmini
