#pragma once
// icoFoam's PISO step on the host, as OpenFOAM v1912 writes it (its formulas: piso_formulas.hpp):
//
//   UEqn = ddt(U) + div(phi, U) - laplacian(nu, U)     (implicit convection: an asymmetric matrix)
//   momentumPredictor: solve UEqn == -grad p, component by component
//   nCorrectors times:
//     rAU = 1 / A, HbyA = rAU H(U), phiHbyA = S . HbyA_f + rAU_f ddtCorr(U, phi)
//     1 + nNonOrthogonalCorrectors times: laplacian(rAU, p) = div(phiHbyA), the reference cell
//       pinned as setReference does (its diagonal doubled), solved with solvers.p, the last
//       solve of the step with solvers.pFinal; after the last, phi = phiHbyA - pEqn.flux()
//     continuity errors; U = HbyA - rAU grad p
//
// The velocity and pressure matrices are assembled here each step on the mesh's LDU addressing
// and solved by LinearSolvers (the velocity's must take an asymmetric matrix: PBiCGStab or
// smoothSolver, on either backend; device_piso_step.cu is this step with every field on the
// GPU). One rank. On a non-orthogonal mesh the Laplacians take
// OpenFOAM's snGrad: corrected (|S| / max(n.d, 0.05|d|) implicit, |S| k . (grad x)_f explicit from
// the Gauss gradient: for U from U^n, for p from the p before each solve, and in pEqn.flux()) or
// orthogonal (|S| / |d|, nothing explicit).

#include <array>
#include <memory>
#include <vector>

#include "discretisation/incompressible/flow_step.hpp"
#include "linalg/timing.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini {

class PisoStep final : public FlowStep {
 public:
  /// The solvers of U, p and pFinal, built once (pFinal's copies p's format where it can).
  /// @throws std::invalid_argument on several ranks; SolverSetupError
  ///         (naming the field) for settings that do not fit a matrix (CG on U's)
  PisoStep(const FlowOperators& operators, const SolverSettings& velocity_solver, const SolverSettings& pressure_solver,
           const SolverSettings& final_pressure_solver, const LinearSolverFactory& factory = make_linear_solver);

  CourantNumber courant_number(double dt) const override;
  StepReport advance(double dt) override;
  const FlowState& state() override { return state_; }
  std::string describe() const override;
  PreconditionerInfo velocity_preconditioner() const override {
    return velocity_solver_ ? velocity_solver_->preconditioner_info() : PreconditionerInfo{};
  }
  PreconditionerInfo pressure_preconditioner() const override { return pressure_solver_->preconditioner_info(); }
  FormatInfo velocity_format() const override {
    return velocity_solver_ ? velocity_solver_->format_info() : FormatInfo{};
  }
  FormatInfo pressure_format() const override { return pressure_solver_->format_info(); }

 private:
  // --- the parts of advance(), in order
  /// UEqn's matrix and source (without grad p) from U^n and phi^n.
  void assemble_momentum(double dt);
  /// solve UEqn == -grad p for each solved component.
  void predict_velocity(StepReport& report);
  /// rAU, the ddtCorr of each face, and the pressure matrix (both pressure solvers refreshed).
  void prepare_corrections(double dt);
  /// PISO correction `corrector` (1 .. nCorrectors): HbyA, phiHbyA, the pressure solves, phi, U.
  void correct(int corrector, double dt, StepReport& report);
  /// The explicit non-orthogonal pressure flux of the current p (flux_correction_), added to the
  /// pressure right-hand side.
  void add_pressure_flux_correction();

  PartTimer setup_timer_;  ///< the constructor's parts (declared before what it times)
  /// The operators' face data, their Laplacian coefficient |S| / |d| under snGrad orthogonal on a
  /// non-orthogonal mesh (orthogonal_coeff_)
  flow::Faces faces_;
  std::vector<double> orthogonal_coeff_;
  bool corrected_ = false;  ///< snGrad corrected on a non-orthogonal mesh: the explicit parts are added
  LduMatrix momentum_;     ///< UEqn: diagonal with the boundary's part, asymmetric
  LduMatrix pressure_;     ///< the negated pEqn (symmetric positive definite)
  /// U's solver is null without momentumPredictor
  std::unique_ptr<LinearSolver> velocity_solver_, pressure_solver_, final_pressure_solver_;
  FlowState state_;
  double cumulative_continuity_ = 0.0;

  // --- work arrays (sized once)
  std::array<std::vector<double>, 3> source_;  ///< UEqn's source per component (V/dt U^n + boundary - linearUpwind)
  std::array<std::vector<double>, 3> rhs_;     ///< source - V grad p, the predictor's right-hand side
  std::array<std::vector<double>, 3> velocity_old_, hbya_;
  std::vector<double> flux_old_, ddt_corr_, predicted_flux_, face_work_;
  std::vector<double> rau_, pressure_rhs_, div_;
  std::vector<double> pressure_source_;  ///< the pressure right-hand side but the explicit non-orthogonal part
  std::vector<double> flux_correction_;  ///< rAU_f |S| k . (grad p)_f per internal face (corrected)
  std::array<std::vector<Vec3>, 3> grad_u_;  ///< linearUpwind's Gauss gradients of U^n
};

}  // namespace fvmmini
