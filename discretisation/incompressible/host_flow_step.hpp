#pragma once
// The projection step on the host: OpenMP loops over faces and cells calling the formulas of
// flow_formulas.hpp; the momentum and pressure systems solved by LinearSolvers of either backend.
// On a rank's part of a decomposed mesh the ghost cells are refreshed after each change of the
// fields the face loops read across processor faces (U, p and their gradients), and the step's
// sums and maxima are taken over all ranks.

#include <array>
#include <memory>
#include <vector>

#include "discretisation/incompressible/flow_step.hpp"
#include "linalg/timing.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini {

class HostFlowStep final : public FlowStep {
 public:
  /// Both linear solvers are built here, once: by `factory` on one rank, by
  /// make_distributed_linear_solver across ranks (the operators' comm; every rank constructs its
  /// step together). `operators` must outlive the step.
  /// @throws SolverSetupError (naming the field) for settings that do not fit a matrix
  HostFlowStep(const FlowOperators& operators, const SolverSettings& velocity_solver,
               const SolverSettings& pressure_solver, const LinearSolverFactory& factory = make_linear_solver);

  CourantNumber courant_number(double dt) const override;
  StepReport advance(double dt) override;
  const FlowState& state() override { return state_; }
  std::string describe() const override;
  PreconditionerInfo velocity_preconditioner() const override { return velocity_solver_->preconditioner_info(); }
  PreconditionerInfo pressure_preconditioner() const override { return pressure_solver_->preconditioner_info(); }
  FormatInfo velocity_format() const override { return velocity_solver_->format_info(); }
  FormatInfo pressure_format() const override { return pressure_solver_->format_info(); }

 private:
  // --- the four phases of advance(), in order
  void predict_velocity(double dt, StepReport& report);
  void assemble_pressure(double dt, StepReport& report);
  void solve_pressure(StepReport& report);
  void correct(double dt, StepReport& report);

  /// conv_[i] = sum_f phi_f U_f,i with the chosen scheme.
  void compute_convection();
  /// grad_u_ of the current velocity, with its ghosts.
  void velocity_gradients();
  /// The ghosts of the solved velocity components.
  void fill_velocity_ghosts();
  flow::Components<const double> velocity_view() const;
  flow::Components<const double> old_velocity_view() const;

  /// The system a linear solver is built for: on one rank by the factory, else over the ranks.
  /// `same_pattern`: a solver whose format it may copy, or null.
  std::unique_ptr<LinearSolver> make_solver(const DistributedLdu& system, const SolverSettings& settings,
                                            const LinearSolverFactory& factory, const char* field,
                                            const LinearSolver* same_pattern = nullptr) const;
  /// Sum over the ranks of a value of this rank's cells.
  double sum_over_ranks(double value) const { return operators().comm.sum(value); }

  PartTimer setup_timer_;            ///< the constructor's parts (declared before what it times)
  DistributedLdu helmholtz_system_;  ///< the operators' system with this step's V/dt on the diagonal
  ProcessorFaces processor_;         ///< fills the ghost cells of the fields
  std::unique_ptr<LinearSolver> velocity_solver_;
  std::unique_ptr<LinearSolver> pressure_solver_;
  double matrix_delta_t_ = 0.0;

  FlowState state_;
  std::array<std::vector<double>, 3> conv_, conv_old_;
  bool have_old_convection_ = false;
  double old_delta_t_ = 0.0;
  double cumulative_continuity_ = 0.0;

  // --- work arrays (sized once)
  std::array<std::vector<double>, 3> velocity_old_;
  std::array<std::vector<Vec3>, 3> grad_u_;
  std::vector<double> face_work_;  ///< one face value a face, reused by each component in turn
  std::array<std::vector<double>, 3> momentum_rhs_;  ///< per component
  std::vector<double> rhs_;                          ///< the pressure equation's
  std::vector<double> div_;
};

}  // namespace fvmmini
