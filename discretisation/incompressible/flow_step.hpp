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
// Every per-face and per-cell formula is in flow_formulas.hpp, shared by both implementations of
// FlowStep: HostFlowStep (OpenMP loops; its linear solves on either backend) and DeviceFlowStep
// (fused CUDA kernels, every field resident on the GPU). The mesh-derived constants and matrices
// are FlowOperators, the fields FlowState.
//
// Pressure is kinematic (p / rho). In a domain with no pressureOutlet the pressure is
// fixed only up to a constant: the reference cell's diagonal is raised by 1e-4 of itself
// (with the matching source, as OpenFOAM's setReference does with a factor 1), which makes
// the matrix non-singular and leaves the solution of the consistent system unchanged, and
// after each solve p is shifted by a constant so that it equals the reference value there.
// The weak pin lets CG ignore the constant mode: ~40% fewer iterations than a full pin.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "discretisation/incompressible/flow_operators.hpp"
#include "solvers/make_linear_solver.hpp"

namespace fvmmini {

/// Seconds spent in each part of the step.
struct StepPhaseTimes {
  double momentum = 0.0;           ///< convection, momentum right-hand sides and solves
  double pressure_assembly = 0.0;  ///< HbyA, face fluxes, the Poisson right-hand side
  double pressure_solve = 0.0;
  double correction = 0.0;         ///< fluxes, pressure gradient, velocity, continuity
};

struct StepReport {
  double delta_t = 0.0;
  std::vector<SolverPerformance> solves;  ///< Ux, Uy (, Uz), p (PISO: each correction's), in order
  double divergence_before = 0.0;  ///< sum_c |div phiH|: the fluxes' divergence before the projection (m^3/s)
  double divergence_after = 0.0;   ///< sum_c |div phi| after it
  ContinuityErrors continuity;  ///< after the step's last pressure correction
  /// PISO: each pressure correction's continuity errors and the solve that ends it (an index into
  /// solves), for the log; empty for the projection (one correction: continuity).
  struct Correction {
    std::size_t after_solve = 0;
    ContinuityErrors continuity;
  };
  std::vector<Correction> corrections;
  double momentum_residual = 0.0;  ///< largest initial residual of the momentum solves
  double velocity_change = 0.0;    ///< max|U_new - U_old| / (dt max|U_new|)
  StepPhaseTimes times;
};

/// Builds a LinearSolver for a matrix (make_linear_solver, or a backend's own factory in tests);
/// the third argument is a solver built before on the same pattern, whose format it may copy.
using LinearSolverFactory =
    std::function<std::unique_ptr<LinearSolver>(const LduMatrix&, const SolverSettings&, const LinearSolver*)>;

/// make()'s solver for `field`, its settings' std::invalid_argument as a SolverSetupError naming
/// the field (the app reports it on solvers.<field>).
template <class Make>
std::unique_ptr<LinearSolver> field_solver(const char* field, Make&& make) {
  try {
    return make();
  } catch (const SolverSetupError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw SolverSetupError(field, e.what());
  }
}

/// The solve line's name of velocity component i: Ux, Uy, Uz.
inline const char* velocity_component_name(int i) { return i == 0 ? "Ux" : (i == 1 ? "Uy" : "Uz"); }

/// Both steps' failure when the new pressure is not finite (almost always a diverging flow).
inline SolverError non_finite_pressure_error() {
  return SolverError("the pressure contains NaN or Inf (time step too large?)");
}

/// A PISO step's "U solver" line without momentumPredictor: icoFoam never constructs U's solver,
/// and neither step does.
inline const std::string no_velocity_solver = "none (momentumPredictor off: U is not solved)";

/// One projection step at a time, from FlowOperators::initial_state().
class FlowStep {
 public:
  explicit FlowStep(const FlowOperators& operators) : operators_(operators) {}
  virtual ~FlowStep() = default;
  FlowStep(const FlowStep&) = delete;
  FlowStep& operator=(const FlowStep&) = delete;

  const FlowOperators& operators() const { return operators_; }

  /// The Courant number of the current fluxes over a step dt.
  virtual CourantNumber courant_number(double dt) const = 0;
  /// One projection step of length dt. @throws std::invalid_argument for dt <= 0; SolverError when a
  /// solve fails or the pressure is no longer finite
  virtual StepReport advance(double dt) = 0;
  /// The current fields (a device step copies them to the host first).
  virtual const FlowState& state() = 0;
  /// The U and p solver lines and where the step runs, for the log (one line each).
  virtual std::string describe() const = 0;
  /// The preconditioners' set-up, refresh and cost (the run summary's).
  virtual PreconditionerInfo velocity_preconditioner() const = 0;
  virtual PreconditionerInfo pressure_preconditioner() const = 0;
  /// The formats of the velocity and pressure solvers (the run summary's).
  virtual FormatInfo velocity_format() const = 0;
  virtual FormatInfo pressure_format() const = 0;
  /// The constructor's parts in the order they ran, seconds each (the run's "solver setup" phase).
  const std::vector<std::pair<std::string, double>>& setup_parts() const { return setup_parts_; }

 protected:
  std::vector<std::pair<std::string, double>> setup_parts_;  ///< a step's constructor sets them last

 private:
  const FlowOperators& operators_;
};

}  // namespace fvmmini
