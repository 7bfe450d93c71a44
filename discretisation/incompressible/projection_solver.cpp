#include "discretisation/incompressible/projection_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "discretisation/face_interpolation.hpp"
#include "linalg/timing.hpp"

namespace fvmmini {

namespace {

using clock_type = std::chrono::steady_clock;

/// A direction is not solved when every empty face is normal to it (OpenFOAM's solutionD).
std::array<bool, 3> solved_directions(const Mesh& mesh, const MeshGeometry& g) {
  std::array<bool, 3> aligned{true, true, true};
  bool any_empty = false;
  for (const Patch& patch : mesh.patches) {
    if (patch.type != "empty") continue;
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      any_empty = true;
      const Vec3 n = g.face_areas[f] / mag(g.face_areas[f]);
      for (int i = 0; i < 3; ++i)
        if (std::abs(n[i]) < 1.0 - 1e-6) aligned[i] = false;
    }
  }
  if (!any_empty) return {true, true, true};
  return {!aligned[0], !aligned[1], !aligned[2]};
}

double absolute_sum(std::span<const double> values) {
  const auto n = static_cast<std::ptrdiff_t>(values.size());
  double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::ptrdiff_t i = 0; i < n; ++i) sum += std::abs(values[i]);
  return sum;
}

const char* component_name(int i) { return i == 0 ? "Ux" : (i == 1 ? "Uy" : "Uz"); }

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

  // --- non-orthogonal parts |S| k = S - |S|/(n.d) d, with n.d bounded as in the Laplacian;
  //     d to the neighbour's centre inside, to the face centre on the boundary
  corrections_.resize(mesh.n_faces());
  for (label f = 0; f < mesh.n_faces(); ++f) {
    const Vec3& sf = g.face_areas[f];
    const double area = mag(sf);
    const Vec3 far = f < n_internal ? g.cell_centres[mesh.neighbour[f]] : g.face_centres[f];
    const Vec3 d = far - g.cell_centres[mesh.owner[f]];
    const double nd = std::max(dot(sf / area, d), 0.05 * mag(d));
    corrections_[f] = sf - (area / nd) * d;
  }

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
  for (int i = 0; i < 3; ++i) velocity_face_values(i, face_work_[i]);
  for (label f = 0; f < mesh.n_faces(); ++f) {
    if (f >= n_internal && boundary_kind_[f - n_internal] == static_cast<int>(FlowPatchType::empty)) continue;
    if (f >= n_internal && boundary_kind_[f - n_internal] == static_cast<int>(FlowPatchType::wall)) continue;
    flux_[f] = face_work_[0][f] * g.face_areas[f].x + face_work_[1][f] * g.face_areas[f].y +
               face_work_[2][f] * g.face_areas[f].z;
  }
}

void ProjectionSolver::velocity_face_values(int i, std::span<double> face_values) const {
  const label n_internal = mesh_.n_internal_faces();
  const label n_faces = mesh_.n_faces();
  const auto weights = laplacian_.weights();
  const auto& u = velocity_[i];
  const auto& owner = mesh_.owner;
  const auto& neighbour = mesh_.neighbour;
  // --- U_f = w U_P + (1 - w) U_N inside; boundary: fixed value, or the owner's (outlets)
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) face_values[f] = weights[f] * u[owner[f]] + (1.0 - weights[f]) * u[neighbour[f]];
  for (label f = n_internal; f < n_faces; ++f) {
    const auto kind = static_cast<FlowPatchType>(boundary_kind_[f - n_internal]);
    face_values[f] = kind == FlowPatchType::pressure_outlet ? u[owner[f]]
                     : kind == FlowPatchType::empty         ? 0.0
                                                            : boundary_velocity_[f - n_internal][i];
  }
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
  const label n_internal = mesh_.n_internal_faces();
  const label n_faces = mesh_.n_faces();
  const auto weights = laplacian_.weights();
  auto& pf = face_work_[0];
  const auto& owner = mesh_.owner;
  const auto& neighbour = mesh_.neighbour;
  // --- p_f linear inside; fixed value on outlets, the owner's value elsewhere
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f)
    pf[f] = weights[f] * pressure_[owner[f]] + (1.0 - weights[f]) * pressure_[neighbour[f]];
  for (label f = n_internal; f < n_faces; ++f)
    pf[f] = boundary_kind_[f - n_internal] == static_cast<int>(FlowPatchType::pressure_outlet)
                ? boundary_pressure_[f - n_internal]
                : pressure_[owner[f]];
  cells_.gauss_gradient(geometry_, pf, grad_p_);
}

void ProjectionSolver::compute_convection() {
  const label n_internal = mesh_.n_internal_faces();
  const label n_faces = mesh_.n_faces();
  const auto& owner = mesh_.owner;
  const auto& neighbour = mesh_.neighbour;
  const auto& cf = geometry_.face_centres;
  const auto& cc = geometry_.cell_centres;
  const bool upwind = settings_.convection == ConvectionScheme::linear_upwind;
  if (upwind) compute_velocity_gradients();
  const auto weights = laplacian_.weights();
  for (int i = 0; i < 3; ++i) {
    if (!solved_[i]) continue;
    const auto& u = velocity_[i];
    const auto& gu = grad_u_[i];
    auto& face_flux = face_work_[i];
    // --- F_f = phi_f U_f: linear U_f = w U_P + (1-w) U_N, or linearUpwind U_f = U_up + (C_f - C_up).grad U_up
#pragma omp parallel for schedule(static)
    for (label f = 0; f < n_internal; ++f) {
      const label o = owner[f], n = neighbour[f];
      double uf;
      if (!upwind)
        uf = weights[f] * u[o] + (1.0 - weights[f]) * u[n];
      else if (flux_[f] >= 0.0)
        uf = u[o] + dot(cf[f] - cc[o], gu[o]);
      else
        uf = u[n] + dot(cf[f] - cc[n], gu[n]);
      face_flux[f] = flux_[f] * uf;
    }
    // --- boundary: phi_b U_b (walls carry no flux; outlets convect the owner's value)
    for (label f = n_internal; f < n_faces; ++f) {
      const auto kind = static_cast<FlowPatchType>(boundary_kind_[f - n_internal]);
      face_flux[f] = kind == FlowPatchType::pressure_outlet ? flux_[f] * u[owner[f]]
                     : kind == FlowPatchType::velocity_inlet ? flux_[f] * boundary_velocity_[f - n_internal][i]
                                                              : 0.0;
    }
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
  const label n_internal = mesh_.n_internal_faces();
  const label n_faces = mesh_.n_faces();
  const auto& volume = geometry_.cell_volumes;
  const auto& sf = geometry_.face_areas;
  const auto& owner = mesh_.owner;
  const auto& neighbour = mesh_.neighbour;
  const auto weights = laplacian_.weights();
  const auto face_coeffs = laplacian_.face_coefficients();
  const auto boundary_coeffs = laplacian_.boundary_coefficients();

  // ================= momentum predictor
  auto start = clock_type::now();
  // --- Helmholtz diagonal nu L + V/dt, refreshed in place when dt changed
  if (dt != matrix_delta_t_) {
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) helmholtz_matrix_.diag[c] = helmholtz_base_diag_[c] + volume[c] / dt;
    velocity_solver_->update_coefficients(helmholtz_matrix_);
    matrix_delta_t_ = dt;
  }
  // --- C^n = sum_f phi_f U_f; C* = (1 + r/2) C^n - (r/2) C^{n-1}, r = dt / dt_old (AB2)
  compute_convection();
  const double ratio = have_old_convection_ ? dt / old_delta_t_ : 0.0;
  const double c_new = 1.0 + 0.5 * ratio, c_old = -0.5 * ratio;
  if (!orthogonal_ && settings_.convection != ConvectionScheme::linear_upwind) compute_velocity_gradients();
  for (int i = 0; i < 3; ++i) {
    if (!solved_[i]) continue;
    auto& u = velocity_[i];
    auto& u_old = velocity_old_[i];
    const auto& conv = conv_[i];
    const auto& conv_old = conv_old_[i];
    const auto& src = momentum_boundary_source_[i];
    // --- b = V/dt U^n - C* - V (grad p^n)_i + nu a_b U_b
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) {
      u_old[c] = u[c];
      rhs_[c] = volume[c] / dt * u[c] - (c_new * conv[c] + c_old * conv_old[c]) - volume[c] * grad_p_[c][i] + src[c];
    }
    // --- non-orthogonal diffusion, deferred: b += nu sum_f |S| k . (grad U_i)_f, the owner's
    //     gradient on fixed-velocity faces (skewed boundary cells)
    if (!orthogonal_) {
      const auto& gu = grad_u_[i];
      auto& face_values = face_work_[i];
#pragma omp parallel for schedule(static)
      for (label f = 0; f < n_internal; ++f)
        face_values[f] = settings_.viscosity *
                         dot(corrections_[f], weights[f] * gu[owner[f]] + (1.0 - weights[f]) * gu[neighbour[f]]);
      for (label f = n_internal; f < n_faces; ++f) {
        const auto kind = static_cast<FlowPatchType>(boundary_kind_[f - n_internal]);
        const bool fixed = kind == FlowPatchType::wall || kind == FlowPatchType::velocity_inlet;
        face_values[f] = fixed ? settings_.viscosity * dot(corrections_[f], gu[owner[f]]) : 0.0;
      }
      cells_.divergence(face_values, div_);
#pragma omp parallel for schedule(static)
      for (label c = 0; c < n_cells; ++c) rhs_[c] += div_[c];
    }
    report.solves.push_back(velocity_solver_->solve(u, rhs_, component_name(i)));
    report.momentum_residual = std::max(report.momentum_residual, report.solves.back().initial_residual);
  }
  std::swap(conv_, conv_old_);
  have_old_convection_ = true;
  report.times.momentum = seconds_since(start);

  // ================= pressure equation
  start = clock_type::now();
  // --- HbyA = U* + dt grad p^n (held in velocity_)
  for (int i = 0; i < 3; ++i) {
    if (!solved_[i]) continue;
    auto& u = velocity_[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) u[c] += dt * grad_p_[c][i];
  }
  // --- phiH_f = (w HbyA_P + (1-w) HbyA_N) . S_f; walls 0, inlets U_b.S, outlets HbyA_P.S
  const auto& ux = velocity_[0];
  const auto& uy = velocity_[1];
  const auto& uz = velocity_[2];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) {
    const label o = owner[f], n = neighbour[f];
    const double w = weights[f];
    const Vec3 hf{w * ux[o] + (1.0 - w) * ux[n], w * uy[o] + (1.0 - w) * uy[n], w * uz[o] + (1.0 - w) * uz[n]};
    flux_[f] = dot(hf, sf[f]);
  }
  for (label f = n_internal; f < n_faces; ++f) {
    const auto kind = static_cast<FlowPatchType>(boundary_kind_[f - n_internal]);
    const label o = owner[f];
    flux_[f] = kind == FlowPatchType::velocity_inlet    ? dot(boundary_velocity_[f - n_internal], sf[f])
               : kind == FlowPatchType::pressure_outlet ? dot(Vec3{ux[o], uy[o], uz[o]}, sf[f])
                                                        : 0.0;
  }
  // --- deferred non-orthogonal flux |S| k . (grad p^n)_f, kept for the flux correction
  auto& non_orthogonal_flux = face_work_[1];
  if (!orthogonal_) {
#pragma omp parallel for schedule(static)
    for (label f = 0; f < n_internal; ++f)
      non_orthogonal_flux[f] =
          dot(corrections_[f], weights[f] * grad_p_[owner[f]] + (1.0 - weights[f]) * grad_p_[neighbour[f]]);
    for (label f = n_internal; f < n_faces; ++f)
      non_orthogonal_flux[f] = boundary_kind_[f - n_internal] == static_cast<int>(FlowPatchType::pressure_outlet)
                                   ? dot(corrections_[f], grad_p_[owner[f]])
                                   : 0.0;
  }
  // --- b = -div(phiH) / dt + a_b p_b + reference term (+ sum_f sign |S| k . grad p^n)
  cells_.divergence(flux_, div_);
  report.divergence_before = absolute_sum(div_);
  if (!orthogonal_) cells_.divergence(non_orthogonal_flux, rhs_);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c)
    rhs_[c] = -div_[c] / dt + pressure_source_[c] + (orthogonal_ ? 0.0 : rhs_[c]);
  report.times.pressure_assembly = seconds_since(start);

  // ================= pressure solve: A p^{n+1} = b, starting from p^n
  start = clock_type::now();
  report.solves.push_back(pressure_solver_->solve(pressure_, rhs_, "p"));
  // --- the level: shift p so that p_ref is the reference value (the fluxes see differences only)
  if (reference_cell_ >= 0) {
    const double shift = settings_.reference_value - pressure_[reference_cell_];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) pressure_[c] += shift;
  }
  report.times.pressure_solve = seconds_since(start);
  old_delta_t_ = dt;

  // ================= correction
  start = clock_type::now();
  // --- phi = phiH - dt (a_f (p_N - p_P) + |S| k . grad p^n); outlets: phiH - dt (a_b (p_b - p_P) + |S| k . grad p^n_P)
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) {
    double grad_flux = face_coeffs[f] * (pressure_[neighbour[f]] - pressure_[owner[f]]);
    if (!orthogonal_) grad_flux += non_orthogonal_flux[f];
    flux_[f] -= dt * grad_flux;
  }
  for (label f = n_internal; f < n_faces; ++f)
    if (boundary_kind_[f - n_internal] == static_cast<int>(FlowPatchType::pressure_outlet))
      flux_[f] -= dt * (boundary_coeffs[f - n_internal] * (boundary_pressure_[f - n_internal] - pressure_[owner[f]]) +
                        (orthogonal_ ? 0.0 : non_orthogonal_flux[f]));
  // --- U^{n+1} = HbyA - dt grad p^{n+1}; velocity change max|U^{n+1} - U^n|
  compute_pressure_gradient();
  double change = 0.0, magnitude = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change, magnitude)
  for (label c = 0; c < n_cells; ++c) {
    Vec3 du, u;
    for (int i = 0; i < 3; ++i) {
      if (!solved_[i]) {
        u[i] = velocity_[i][c];
        continue;
      }
      velocity_[i][c] -= dt * grad_p_[c][i];
      du[i] = velocity_[i][c] - velocity_old_[i][c];
      u[i] = velocity_[i][c];
    }
    change = std::max(change, mag(du));
    magnitude = std::max(magnitude, mag(u));
  }
  report.velocity_change = change / (dt * std::max(magnitude, 1e-300));
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
