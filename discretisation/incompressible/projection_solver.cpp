#include "discretisation/incompressible/projection_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "discretisation/face_interpolation.hpp"
#include "linalg/timing.hpp"

namespace fvmmini {

namespace {

using clock_type = std::chrono::steady_clock;

double absolute_sum(std::span<const double> values) {
  const auto n = static_cast<std::ptrdiff_t>(values.size());
  double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::ptrdiff_t i = 0; i < n; ++i) sum += std::abs(values[i]);
  return sum;
}

const char* component_name(int i) { return i == 0 ? "Ux" : (i == 1 ? "Uy" : "Uz"); }

/// D_f = V_f / K_f, K the momentum diagonal without V/dt (nu L), V and K interpolated linearly to
/// internal faces and taken from the owner on boundary faces: the time scale that the momentum
/// equation's own 1/A would give in a steady state (OpenFOAM's rAU without the ddt part).
std::vector<double> rhie_chow_times(const Mesh& mesh, std::span<const double> weights, std::span<const double> volume,
                                    std::span<const double> base_diagonal) {
  std::vector<double> d(mesh.n_faces());
  for (label f = 0; f < mesh.n_faces(); ++f) {
    const label o = mesh.owner[f];
    if (f < mesh.n_internal_faces()) {
      const label n = mesh.neighbour[f];
      const double w = weights[f];
      d[f] = (w * volume[o] + (1.0 - w) * volume[n]) / (w * base_diagonal[o] + (1.0 - w) * base_diagonal[n]);
    } else {
      d[f] = volume[o] / base_diagonal[o];
    }
  }
  return d;
}

}  // namespace

ConvectionScheme parse_convection_scheme(const std::string& name) {
  if (name == "linear") return ConvectionScheme::linear;
  if (name == "linearUpwind") return ConvectionScheme::linear_upwind;
  throw std::invalid_argument("unknown convection scheme '" + name + "' (known: linear, linearUpwind)");
}

const char* to_string(ConvectionScheme scheme) {
  return scheme == ConvectionScheme::linear ? "linear" : "linearUpwind";
}

ProjectionSolver::ProjectionSolver(const Mesh& mesh, const MeshGeometry& g, FlowBoundary boundary,
                                   IncompressibleSettings settings, const SolverSettings& velocity_settings,
                                   const SolverSettings& pressure_settings, const LinearSolverFactory& factory)
    : mesh_(mesh),
      geometry_(g),
      boundary_(std::move(boundary)),
      settings_(settings),
      cells_(mesh),
      laplacian_(mesh, g),
      solved_(solved_directions(mesh, g)),
      orthogonal_(laplacian_.is_orthogonal()) {
  validate_flow_boundary(mesh, boundary_);
  if (!(settings_.viscosity > 0.0)) throw std::invalid_argument("viscosity must be positive");
  const label n_cells = mesh.n_cells;
  const label n_internal = mesh.n_internal_faces();
  const label n_boundary = mesh.n_faces() - n_internal;

  // --- boundary data per boundary face
  boundary_velocity_ = boundary_face_velocities(mesh, g, boundary_);
  boundary_kind_.assign(n_boundary, static_cast<int>(FlowPatchType::wall));
  boundary_pressure_.assign(n_boundary, 0.0);
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      boundary_kind_[f - n_internal] = static_cast<int>(boundary_.patches[p].type);
      boundary_pressure_[f - n_internal] = boundary_.patches[p].pressure;
    }
  }

  // --- Helmholtz matrix nu L (+ V/dt at the first step); boundary sources nu a_b U_b,i
  const ScalarBoundary velocity_bc = velocity_component_boundary(mesh, g, boundary_, 0);
  laplacian_.assemble(settings_.viscosity, velocity_bc, helmholtz_matrix_);
  helmholtz_base_diag_ = helmholtz_matrix_.diag;
  for (int i = 0; i < 3; ++i) {
    momentum_boundary_source_[i].assign(n_cells, 0.0);
    laplacian_.add_boundary_source(settings_.viscosity, velocity_component_boundary(mesh, g, boundary_, i),
                                   momentum_boundary_source_[i]);
  }
  for (label c = 0; c < n_cells; ++c) helmholtz_matrix_.diag[c] += g.cell_volumes[c];
  rhie_chow_time_ = fvmmini::rhie_chow_times(mesh, laplacian_.weights(), g.cell_volumes, helmholtz_base_diag_);

  // --- pressure matrix A = -div grad, assembled once; a reference level when nothing fixes p
  const ScalarBoundary pressure_bc = pressure_boundary(mesh, boundary_);
  laplacian_.assemble(1.0, pressure_bc, pressure_matrix_);
  pressure_source_.assign(n_cells, 0.0);
  laplacian_.add_boundary_source(1.0, pressure_bc, pressure_source_);
  if (!boundary_.fixes_pressure()) {
    if (settings_.reference_cell < 0 || settings_.reference_cell >= n_cells)
      throw std::invalid_argument("referenceCell " + std::to_string(settings_.reference_cell) +
                                  " is not a cell (0.." + std::to_string(n_cells - 1) + ")");
    // --- a weak pin, d_r -> (1 + eps) d_r with eps d_r p_ref in the source: the matrix is non-singular,
    //     and CG spends no iterations on the constant mode (a pin of d_r, OpenFOAM's, costs ~40% more)
    reference_cell_ = settings_.reference_cell;
    pressure_source_[reference_cell_] +=
        pressure_reference_pin * pressure_matrix_.diag[reference_cell_] * settings_.reference_value;
    pressure_matrix_.diag[reference_cell_] *= 1.0 + pressure_reference_pin;
  }

  // --- both solvers built once: ordering, format and backend are fixed for the run
  auto field_solver = [&](const LduMatrix& matrix, const SolverSettings& s, const char* field) {
    try {
      return factory(matrix, s);
    } catch (const SolverSetupError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw SolverSetupError(field, e.what());
    }
  };
  velocity_solver_ = field_solver(helmholtz_matrix_, velocity_settings, "U");
  pressure_solver_ = field_solver(pressure_matrix_, pressure_settings, "p");

  // --- initial state: uniform U and p, fluxes of the interpolated velocity
  for (int i = 0; i < 3; ++i) {
    velocity_[i].assign(n_cells, settings_.initial_velocity[i]);
    velocity_old_[i].assign(n_cells, 0.0);
    conv_[i].assign(n_cells, 0.0);
    conv_old_[i].assign(n_cells, 0.0);
    grad_u_[i].assign(n_cells, Vec3{});
    face_work_[i].assign(mesh.n_faces(), 0.0);
  }
  pressure_.assign(n_cells, settings_.initial_pressure);
  grad_p_.assign(n_cells, Vec3{});
  flux_.assign(mesh.n_faces(), 0.0);
  rhs_.assign(n_cells, 0.0);
  div_.assign(n_cells, 0.0);
  const flow::Faces faces = face_view();
  const auto u = velocity_view();
  for (label f = 0; f < mesh.n_faces(); ++f) {
    if (f >= n_internal) {
      const FlowPatchType kind = flow::boundary_kind(faces, f);
      if (kind == FlowPatchType::wall || kind == FlowPatchType::empty) continue;  // no flux
    }
    Vec3 uf;
    for (int i = 0; i < 3; ++i) uf[i] = flow::face_velocity(faces, u.c[i], i, f);
    flux_[f] = dot(uf, g.face_areas[f]);
  }
}

flow::Faces ProjectionSolver::face_view() const {
  const label n_internal = mesh_.n_internal_faces();
  flow::Faces f;
  f.n_internal = n_internal;
  f.n_faces = mesh_.n_faces();
  f.owner = mesh_.owner.data();
  f.neighbour = mesh_.neighbour.data();
  f.weight = laplacian_.weights().data();
  f.coeff = laplacian_.face_coefficients().data();
  f.bcoeff = laplacian_.boundary_coefficients().data();
  f.area = geometry_.face_areas.data();
  f.centre = geometry_.face_centres.data();
  f.correction = orthogonal_ ? nullptr : laplacian_.non_orthogonal_corrections().data();
  f.rhie_chow_time = rhie_chow_time_.data();
  f.kind = boundary_kind_.data();
  f.bvelocity = boundary_velocity_.data();
  f.bpressure = boundary_pressure_.data();
  return f;
}

flow::Components<const double> ProjectionSolver::velocity_view() const {
  return {{velocity_[0].data(), velocity_[1].data(), velocity_[2].data()}};
}

flow::Components<const double> ProjectionSolver::old_velocity_view() const {
  return {{velocity_old_[0].data(), velocity_old_[1].data(), velocity_old_[2].data()}};
}

void ProjectionSolver::velocity_face_values(int i, std::span<double> face_values) const {
  const flow::Faces faces = face_view();
  const double* u = velocity_[i].data();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < faces.n_faces; ++f) face_values[f] = flow::face_velocity(faces, u, i, f);
}

void ProjectionSolver::compute_velocity_gradients() {
  for (int i = 0; i < 3; ++i) {
    if (!solved_[i]) continue;
    velocity_face_values(i, face_work_[i]);
    cells_.gauss_gradient(geometry_, face_work_[i], grad_u_[i]);
  }
}

void ProjectionSolver::velocity_gradients(std::array<std::vector<Vec3>, 3>& gradients) const {
  std::vector<double> face_values(mesh_.n_faces());
  for (int i = 0; i < 3; ++i) {
    gradients[i].assign(mesh_.n_cells, Vec3{});
    if (!solved_[i]) continue;
    velocity_face_values(i, face_values);
    cells_.gauss_gradient(geometry_, face_values, gradients[i]);
  }
}

void ProjectionSolver::compute_pressure_gradient() {
  const flow::Faces faces = face_view();
  auto& pf = face_work_[0];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < faces.n_faces; ++f) pf[f] = flow::face_pressure(faces, pressure_.data(), 0.0, f);
  cells_.gauss_gradient(geometry_, pf, grad_p_);
}

void ProjectionSolver::compute_convection() {
  const bool upwind = settings_.convection == ConvectionScheme::linear_upwind;
  if (upwind) compute_velocity_gradients();
  const flow::Faces faces = face_view();
  for (int i = 0; i < 3; ++i) {
    if (!solved_[i]) continue;
    const double* u = velocity_[i].data();
    const Vec3* gu = grad_u_[i].data();
    auto& face_flux = face_work_[i];
#pragma omp parallel for schedule(static)
    for (label f = 0; f < faces.n_faces; ++f)
      face_flux[f] = flow::convective_flux(faces, geometry_.cell_centres.data(), u, gu, flux_.data(), upwind, i, f);
    cells_.divergence(face_flux, conv_[i]);
  }
}

CourantNumber ProjectionSolver::courant_number(double dt) const {
  return fvmmini::courant_number(cells_, geometry_, flux_, dt);
}

void ProjectionSolver::net_outflow(std::span<double> div) const { cells_.divergence(flux_, div); }

void ProjectionSolver::set_state(const std::array<std::span<const double>, 3>& velocity,
                                 std::span<const double> pressure, std::span<const double> flux, double delta_t,
                                 double cumulative_continuity) {
  for (int i = 0; i < 3; ++i) velocity_[i].assign(velocity[i].begin(), velocity[i].end());
  pressure_.assign(pressure.begin(), pressure.end());
  flux_.assign(flux.begin(), flux.end());
  old_delta_t_ = delta_t;
  cumulative_continuity_ = cumulative_continuity;
  compute_pressure_gradient();
}

StepReport ProjectionSolver::advance(double dt) {
  if (!(dt > 0.0)) throw std::invalid_argument("time step must be positive");
  if (!velocity_solver_ || !pressure_solver_)
    throw std::logic_error("ProjectionSolver::advance: built without linear solvers (the step runs elsewhere)");
  StepReport report;
  report.delta_t = dt;
  const label n_cells = mesh_.n_cells;
  const label n_faces = mesh_.n_faces();
  const auto& volume = geometry_.cell_volumes;
  const flow::Faces faces = face_view();
  const flow::Solved solved{{solved_[0], solved_[1], solved_[2]}};

  // ================= momentum predictor
  auto start = clock_type::now();
  if (dt != matrix_delta_t_) {
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c)
      helmholtz_matrix_.diag[c] = flow::helmholtz_diagonal(helmholtz_base_diag_[c], volume[c], dt);
    velocity_solver_->update_coefficients(helmholtz_matrix_);
    matrix_delta_t_ = dt;
  }
  compute_convection();
  const flow::ConvectionWeights ab = flow::adams_bashforth(have_old_convection_, dt, old_delta_t_);
  if (!orthogonal_ && settings_.convection != ConvectionScheme::linear_upwind) compute_velocity_gradients();
  for (int i = 0; i < 3; ++i) {
    if (!solved_[i]) continue;
    auto& u = velocity_[i];
    auto& u_old = velocity_old_[i];
    const auto& conv = conv_[i];
    const auto& conv_old = conv_old_[i];
    const auto& src = momentum_boundary_source_[i];
    // --- the deferred non-orthogonal diffusion per face, gathered below
    if (!orthogonal_) {
      const Vec3* gu = grad_u_[i].data();
      auto& face_values = face_work_[i];
#pragma omp parallel for schedule(static)
      for (label f = 0; f < n_faces; ++f) face_values[f] = flow::deferred_diffusion(faces, gu, settings_.viscosity, f);
      cells_.divergence(face_values, div_);
    }
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) {
      u_old[c] = u[c];
      rhs_[c] = flow::momentum_rhs(volume[c], dt, u[c], ab, conv[c], conv_old[c], grad_p_[c][i], src[c],
                                   orthogonal_ ? 0.0 : div_[c]);
    }
    report.solves.push_back(velocity_solver_->solve(u, rhs_, component_name(i)));
    report.momentum_residual = std::max(report.momentum_residual, report.solves.back().initial_residual);
  }
  std::swap(conv_, conv_old_);
  have_old_convection_ = true;
  report.times.momentum = seconds_since(start);

  // ================= pressure equation
  start = clock_type::now();
  // --- phiH from U*, U^n, p^n and phi^n (each face reads its own phi^n before overwriting it)
  {
    const auto u = velocity_view();
    const auto u_old = old_velocity_view();
#pragma omp parallel for schedule(static)
    for (label f = 0; f < n_faces; ++f)
      flux_[f] = flow::predicted_flux(faces, solved, u, u_old, grad_p_.data(), pressure_.data(), flux_[f], dt, f);
  }
  // --- HbyA = U* + dt grad p^n (held in velocity_); b = -div(phiH) / dt + a_b p_b + reference term
  for (int i = 0; i < 3; ++i) {
    auto& u = velocity_[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) u[c] = flow::hbya(u[c], grad_p_[c][i], dt, solved_[i]);
  }
  cells_.divergence(flux_, div_);
  report.divergence_before = absolute_sum(div_);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) rhs_[c] = flow::pressure_rhs(div_[c], dt, pressure_source_[c]);
  report.times.pressure_assembly = seconds_since(start);

  // ================= pressure solve: A p^{n+1} = b, starting from p^n; p shifted to its level
  start = clock_type::now();
  report.solves.push_back(pressure_solver_->solve(pressure_, rhs_, "p"));
  const double shift = flow::level_shift(pressure_.data(), reference_cell_, settings_.reference_value);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) pressure_[c] += shift;
  report.times.pressure_solve = seconds_since(start);
  old_delta_t_ = dt;

  // ================= correction
  start = clock_type::now();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) flux_[f] = flow::corrected_flux(faces, pressure_.data(), 0.0, dt, flux_[f], f);
  // --- U^{n+1} = HbyA - dt grad p^{n+1}; velocity change max|U^{n+1} - U^n|
  compute_pressure_gradient();
  double change = 0.0, magnitude = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change, magnitude)
  for (label c = 0; c < n_cells; ++c) {
    Vec3 du, u;
    for (int i = 0; i < 3; ++i) {
      u[i] = velocity_[i][c] = flow::corrected_velocity(velocity_[i][c], grad_p_[c][i], dt, solved_[i]);
      if (solved_[i]) du[i] = u[i] - velocity_old_[i][c];
    }
    change = std::max(change, mag(du));
    magnitude = std::max(magnitude, mag(u));
  }
  report.velocity_change = flow::relative_velocity_change(change, magnitude, dt);
  // --- continuity errors of the corrected fluxes
  cells_.divergence(flux_, div_);
  report.divergence_after = absolute_sum(div_);
  report.continuity = continuity_errors(div_, volume, dt, cumulative_continuity_);
  cumulative_continuity_ = report.continuity.cumulative;
  report.times.correction = seconds_since(start);

  for (label c = 0; c < n_cells; ++c)
    if (!std::isfinite(pressure_[c])) throw SolverError("the pressure contains NaN or Inf (time step too large?)");
  return report;
}

}  // namespace fvmmini
