#include "discretisation/incompressible/host_flow_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "linalg/timing.hpp"

namespace fvmmini {

namespace {

using clock_type = std::chrono::steady_clock;

int omp_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace

std::unique_ptr<LinearSolver> HostFlowStep::make_solver(const DistributedLdu& system, const SolverSettings& settings,
                                                        const LinearSolverFactory& factory, const char* field,
                                                        const LinearSolver* same_pattern) const {
  const Communicator& comm = operators().comm;
  return field_solver(field, [&] {
    return comm.distributed() ? make_distributed_linear_solver(system, settings, comm, same_pattern)
                              : factory(system.local, settings, same_pattern);
  });
}

HostFlowStep::HostFlowStep(const FlowOperators& operators, const SolverSettings& velocity_settings,
                           const SolverSettings& pressure_settings, const LinearSolverFactory& factory)
    : FlowStep(operators),
      helmholtz_system_(operators.helmholtz_system),
      processor_(operators.mesh, operators.comm),
      state_(operators.initial_state()) {
  setup_timer_.mark("initial fields");
  // --- both solvers built once: ordering, format and backend are fixed for the run; p's copies
  //     U's format and GAMG agglomeration where they match (one mesh's pattern)
  velocity_solver_ = make_solver(helmholtz_system_, velocity_settings, factory, "U");
  setup_timer_.mark("U solver");
  pressure_solver_ = make_solver(operators.pressure_system, pressure_settings, factory, "p", velocity_solver_.get());
  setup_timer_.mark("p solver");

  const label n_cells = operators.mesh.n_cells;
  const label with_ghosts = operators.cells_with_ghosts();
  const label n_faces = operators.mesh.n_faces();
  for (int i = 0; i < 3; ++i) {
    velocity_old_[i].assign(with_ghosts, 0.0);
    conv_[i].assign(n_cells, 0.0);
    conv_old_[i].assign(n_cells, 0.0);
    if (operators.needs_velocity_gradients()) grad_u_[i].assign(with_ghosts, Vec3{});
  }
  face_work_.assign(n_faces, 0.0);
  rhs_.assign(n_cells, 0.0);
  for (auto& rhs : momentum_rhs_) rhs.assign(n_cells, 0.0);
  div_.assign(n_cells, 0.0);
  setup_timer_.mark("work arrays");
  setup_parts_ = setup_timer_.parts();
}

std::string HostFlowStep::describe() const {
  return fmt::format("U solver: {}\np solver: {}\nStep: on the host ({} OpenMP threads)\n",
                     velocity_solver_->describe(), pressure_solver_->describe(), omp_threads());
}

flow::Components<const double> HostFlowStep::velocity_view() const {
  return {{state_.velocity[0].data(), state_.velocity[1].data(), state_.velocity[2].data()}};
}

flow::Components<const double> HostFlowStep::old_velocity_view() const {
  return {{velocity_old_[0].data(), velocity_old_[1].data(), velocity_old_[2].data()}};
}


void HostFlowStep::compute_convection() {
  const FlowOperators& ops = operators();
  const bool upwind = ops.settings.convection == ConvectionScheme::linear_upwind;
  if (upwind) velocity_gradients();
  const flow::Faces faces = ops.faces();
  const Vec3* centres = ops.cell_centres.data();
  for (int i = 0; i < 3; ++i) {
    if (!ops.solved[i]) continue;
    const double* u = state_.velocity[i].data();
    const Vec3* gu = grad_u_[i].data();
    auto& face_flux = face_work_;
#pragma omp parallel for schedule(static)
    for (label f = 0; f < faces.n_faces; ++f)
      face_flux[f] = flow::convective_flux(faces, centres, u, gu, state_.flux.data(), upwind, i, f);
    ops.cells.divergence(face_flux, conv_[i]);
  }
}

void HostFlowStep::velocity_gradients() {
  operators().velocity_gradients(state_, grad_u_);
  for (int i = 0; i < 3; ++i)
    if (operators().solved[i]) processor_.fill_ghosts(std::span<Vec3>(grad_u_[i]));
}

void HostFlowStep::fill_velocity_ghosts() {
  for (int i = 0; i < 3; ++i)
    if (operators().solved[i]) processor_.fill_ghosts(std::span<double>(state_.velocity[i]));
}

CourantNumber HostFlowStep::courant_number(double dt) const { return operators().courant_number(state_.flux, dt); }

StepReport HostFlowStep::advance(double dt) {
  if (!(dt > 0.0)) throw std::invalid_argument("time step must be positive");
  StepReport report;
  report.delta_t = dt;
  auto start = clock_type::now();
  predict_velocity(dt, report);
  report.times.momentum = seconds_since(start);
  start = clock_type::now();
  assemble_pressure(dt, report);
  report.times.pressure_assembly = seconds_since(start);
  start = clock_type::now();
  solve_pressure(report);
  report.times.pressure_solve = seconds_since(start);
  old_delta_t_ = dt;
  start = clock_type::now();
  correct(dt, report);
  report.times.correction = seconds_since(start);
  bool finite = true;
  for (double p : state_.pressure) finite = finite && std::isfinite(p);
  if (operators().comm.any(!finite)) throw non_finite_pressure_error();
  return report;
}

/// (V/dt + nu L) U*_i = V/dt U^n_i - C_i - V (grad p^n)_i + sources, per solved component.
void HostFlowStep::predict_velocity(double dt, StepReport& report) {
  const FlowOperators& ops = operators();
  const label n_cells = ops.mesh.n_cells;
  const label n_faces = ops.mesh.n_faces();
  const auto& volume = ops.geometry.cell_volumes;
  const flow::Faces faces = ops.faces();
  if (dt != matrix_delta_t_) {
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c)
      helmholtz_system_.local.diag[c] = flow::helmholtz_diagonal(ops.helmholtz_base_diagonal[c], volume[c], dt);
    if (ops.comm.distributed())
      velocity_solver_->update_distributed(helmholtz_system_);
    else
      velocity_solver_->update_coefficients(helmholtz_system_.local);
    matrix_delta_t_ = dt;
  }
  compute_convection();
  const flow::ConvectionWeights ab = flow::adams_bashforth(have_old_convection_, dt, old_delta_t_);
  const bool upwind = ops.settings.convection == ConvectionScheme::linear_upwind;
  if (!ops.orthogonal && !upwind) velocity_gradients();  // linearUpwind's are current
  const auto& grad_p = state_.pressure_gradient;
  for (int i = 0; i < 3; ++i) {
    if (!ops.solved[i]) continue;
    auto& u = state_.velocity[i];
    auto& u_old = velocity_old_[i];
    const auto& conv = conv_[i];
    const auto& conv_old = conv_old_[i];
    const auto& src = ops.momentum_boundary_source[i];
    // --- the deferred non-orthogonal diffusion per face, gathered below
    if (!ops.orthogonal) {
      const Vec3* gu = grad_u_[i].data();
      auto& face_values = face_work_;
#pragma omp parallel for schedule(static)
      for (label f = 0; f < n_faces; ++f)
        face_values[f] = flow::deferred_diffusion(faces, gu, ops.settings.viscosity, f);
      ops.cells.divergence(face_values, div_);
    }
    auto& rhs = momentum_rhs_[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) {
      u_old[c] = u[c];
      rhs[c] = flow::momentum_rhs(volume[c], dt, u[c], ab, conv[c], conv_old[c], grad_p[c][i], src[c],
                                  ops.orthogonal ? 0.0 : div_[c]);
    }
    std::copy(u.begin() + n_cells, u.end(), u_old.begin() + n_cells);  // the ghosts of U^n
  }
  // --- the solved components together: one matrix, one SpMV of all of them where the solver can
  std::vector<std::span<double>> x;
  std::vector<std::span<const double>> b;
  std::vector<std::string> fields;
  for (int i = 0; i < 3; ++i)
    if (ops.solved[i]) {
      x.push_back(std::span<double>(state_.velocity[i]).first(n_cells));
      b.push_back(momentum_rhs_[i]);
      fields.push_back(velocity_component_name(i));
    }
  for (const SolverPerformance& perf : velocity_solver_->solve_block(x, b, fields)) {
    report.solves.push_back(perf);
    report.momentum_residual = std::max(report.momentum_residual, perf.initial_residual);
  }
  fill_velocity_ghosts();  // U* across the processor faces, for the predicted fluxes
  std::swap(conv_, conv_old_);
  have_old_convection_ = true;
}

/// phiH from U*, U^n, p^n and phi^n; HbyA; b = -div(phiH) / dt + a_b p_b + reference term.
void HostFlowStep::assemble_pressure(double dt, StepReport& report) {
  const FlowOperators& ops = operators();
  const label n_cells = ops.mesh.n_cells;
  const label n_faces = ops.mesh.n_faces();
  const flow::Faces faces = ops.faces();
  const flow::Solved solved{{ops.solved[0], ops.solved[1], ops.solved[2]}};
  const auto& grad_p = state_.pressure_gradient;
  auto& phi = state_.flux;
  // --- each face reads its own phi^n before overwriting it
  const auto u = velocity_view();
  const auto u_old = old_velocity_view();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f)
    phi[f] = flow::predicted_flux(faces, solved, u, u_old, grad_p.data(), state_.pressure.data(), phi[f], dt, f);
  // --- HbyA = U* + dt grad p^n, held in the velocity
  for (int i = 0; i < 3; ++i) {
    auto& ui = state_.velocity[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) ui[c] = flow::hbya(ui[c], grad_p[c][i], dt, ops.solved[i]);
  }
  ops.cells.divergence(phi, div_);
  report.divergence_before = sum_over_ranks(absolute_sum(div_));
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) rhs_[c] = flow::pressure_rhs(div_[c], dt, ops.pressure_source[c]);
}

/// A p^{n+1} = b from p^n; p shifted to its reference level.
void HostFlowStep::solve_pressure(StepReport& report) {
  const FlowOperators& ops = operators();
  auto& p = state_.pressure;
  const label n = ops.mesh.n_cells;
  report.solves.push_back(pressure_solver_->solve(std::span<double>(p).first(n), rhs_, "p"));
  // --- the shift from the rank with the reference cell (0 from the others)
  const double shift = sum_over_ranks(flow::level_shift(p.data(), ops.reference_cell, ops.settings.reference_value));
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n; ++c) p[c] += shift;
  processor_.fill_ghosts(std::span<double>(p));
}

/// phi = phiH - dt a_f (p_N - p_P); U^{n+1} = HbyA - dt grad p^{n+1}; the velocity change and
/// the continuity errors.
void HostFlowStep::correct(double dt, StepReport& report) {
  const FlowOperators& ops = operators();
  const label n_cells = ops.mesh.n_cells;
  const label n_faces = ops.mesh.n_faces();
  const flow::Faces faces = ops.faces();
  auto& phi = state_.flux;
  const double* p = state_.pressure.data();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) phi[f] = flow::corrected_flux(faces, p, 0.0, dt, phi[f], f);
  ops.pressure_gradient(state_.pressure, face_work_, state_.pressure_gradient);
  processor_.fill_ghosts(std::span<Vec3>(state_.pressure_gradient));
  const auto& grad_p = state_.pressure_gradient;
  double change = 0.0, magnitude = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change, magnitude)
  for (label c = 0; c < n_cells; ++c) {
    Vec3 du, u;
    for (int i = 0; i < 3; ++i) {
      u[i] = state_.velocity[i][c] = flow::corrected_velocity(state_.velocity[i][c], grad_p[c][i], dt, ops.solved[i]);
      if (ops.solved[i]) du[i] = u[i] - velocity_old_[i][c];
    }
    change = std::max(change, mag(du));
    magnitude = std::max(magnitude, mag(u));
  }
  fill_velocity_ghosts();
  report.velocity_change = flow::relative_velocity_change(ops.comm.max(change), ops.comm.max(magnitude), dt);
  ops.cells.divergence(phi, div_);
  report.divergence_after = sum_over_ranks(absolute_sum(div_));
  report.continuity = ops.continuity_errors(div_, dt, cumulative_continuity_);
  cumulative_continuity_ = report.continuity.cumulative;
}

}  // namespace fvmmini
