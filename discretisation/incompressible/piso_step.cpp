#include "discretisation/incompressible/piso_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "discretisation/incompressible/piso_formulas.hpp"

namespace fvmmini {

namespace {

using clock_type = std::chrono::steady_clock;

flow::Components<const double> view(const std::array<std::vector<double>, 3>& u) {
  return {{u[0].data(), u[1].data(), u[2].data()}};
}

}  // namespace

PisoStep::PisoStep(const FlowOperators& operators, const SolverSettings& velocity_solver,
                   const SolverSettings& pressure_solver, const SolverSettings& final_pressure_solver,
                   const LinearSolverFactory& factory)
    : FlowStep(operators), state_(operators.initial_state()) {
  if (operators.comm.distributed())
    throw std::invalid_argument("algorithm PISO runs on one rank (the projection runs on several)");
  // --- the Laplacians' face coefficients: the operators' (corrected), or |S| / |d| (orthogonal)
  faces_ = operators.faces();
  const SnGrad sn_grad = operators.settings.piso.sn_grad;
  corrected_ = sn_grad == SnGrad::corrected && !operators.orthogonal;
  if (sn_grad == SnGrad::orthogonal && !operators.orthogonal) {
    const auto& g = operators.geometry;
    orthogonal_coeff_.resize(operators.mesh.n_internal_faces());
#pragma omp parallel for schedule(static)
    for (label f = 0; f < operators.mesh.n_internal_faces(); ++f) {
      const Vec3 d = g.cell_centres[faces_.neighbour[f]] - g.cell_centres[faces_.owner[f]];
      orthogonal_coeff_[f] = mag(g.face_areas[f]) / mag(d);
    }
    faces_.coeff = orthogonal_coeff_.data();
  }
  setup_timer_.mark("initial fields");
  const auto& addressing = operators.laplacian.addressing();
  // --- unit diagonals until the first step assembles them (the set-up of a factor checks its
  //     pivots); the momentum matrix asymmetric from the start, so that CG is refused here
  momentum_ = make_ldu_matrix(addressing);
  momentum_.lower.assign(momentum_.upper.size(), 0.0);
  pressure_ = make_ldu_matrix(addressing);
  for (LduMatrix* m : {&momentum_, &pressure_}) std::fill(m->diag.begin(), m->diag.end(), 1.0);
  // (without momentumPredictor icoFoam never solves U: no solver, as the device step has none)
  if (operators.settings.piso.momentum_predictor) {
    velocity_solver_ = field_solver("U", [&] { return factory(momentum_, velocity_solver, nullptr); });
    setup_timer_.mark("U solver");
  }
  pressure_solver_ = field_solver("p", [&] { return factory(pressure_, pressure_solver, velocity_solver_.get()); });
  final_pressure_solver_ =
      field_solver("pFinal", [&] { return factory(pressure_, final_pressure_solver, pressure_solver_.get()); });
  setup_timer_.mark("p solvers");

  const label n_cells = operators.mesh.n_cells;
  const label n_faces = operators.mesh.n_faces();
  for (int i = 0; i < 3; ++i) {
    source_[i].assign(n_cells, 0.0);
    rhs_[i].assign(n_cells, 0.0);
    velocity_old_[i].assign(n_cells, 0.0);
    hbya_[i].assign(n_cells, 0.0);
    if ((operators.settings.convection == ConvectionScheme::linear_upwind || corrected_) && operators.solved[i])
      grad_u_[i].assign(n_cells, Vec3{});
  }
  for (auto* faces : {&flux_old_, &ddt_corr_, &predicted_flux_, &face_work_}) faces->assign(n_faces, 0.0);
  for (auto* cells : {&rau_, &pressure_rhs_, &pressure_source_, &div_}) cells->assign(n_cells, 0.0);
  if (corrected_) flux_correction_.assign(operators.mesh.n_internal_faces(), 0.0);
  setup_timer_.mark("work arrays");
  setup_parts_ = setup_timer_.parts();
}

std::string PisoStep::describe() const {
  const PisoSettings& piso = operators().settings.piso;
  return fmt::format(
      "U solver: {}\np solver: {}\npFinal solver: {}\nStep: PISO on the host, nCorrectors {}, "
      "nNonOrthogonalCorrectors {}, momentumPredictor {}, snGrad {}{}\n",
      velocity_solver_ ? velocity_solver_->describe() : no_velocity_solver,
      pressure_solver_->describe(), final_pressure_solver_->describe(), piso.n_correctors,
      piso.n_non_orthogonal_correctors, piso.momentum_predictor ? "on" : "off", name(piso.sn_grad),
      operators().orthogonal ? " (an orthogonal mesh: nothing to correct)" : "");
}

CourantNumber PisoStep::courant_number(double dt) const { return operators().courant_number(state_.flux, dt); }

StepReport PisoStep::advance(double dt) {
  if (!(dt > 0.0)) throw std::invalid_argument("time step must be positive");
  const PisoSettings& piso = operators().settings.piso;
  StepReport report;
  report.delta_t = dt;
  auto start = clock_type::now();
  assemble_momentum(dt);
  if (piso.momentum_predictor) predict_velocity(report);
  report.times.momentum = seconds_since(start);
  start = clock_type::now();
  prepare_corrections(dt);
  report.times.pressure_assembly = seconds_since(start);
  for (int k = 1; k <= piso.n_correctors; ++k) correct(k, dt, report);

  // --- the velocity change over the step
  const FlowOperators& ops = operators();
  double change = 0.0, magnitude = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change, magnitude)
  for (label c = 0; c < ops.mesh.n_cells; ++c) {
    Vec3 du, u;
    for (int i = 0; i < 3; ++i) {
      u[i] = state_.velocity[i][c];
      if (ops.solved[i]) du[i] = u[i] - velocity_old_[i][c];
    }
    change = std::max(change, mag(du));
    magnitude = std::max(magnitude, mag(u));
  }
  report.velocity_change = flow::relative_velocity_change(change, magnitude, dt);
  bool finite = true;
  for (double p : state_.pressure) finite = finite && std::isfinite(p);
  if (!finite) throw non_finite_pressure_error();
  return report;
}

/// The matrix of ddt(U) + div(phi^n, U) - laplacian(nu, U) and its source without grad p.
void PisoStep::assemble_momentum(double dt) {
  const FlowOperators& ops = operators();
  const label n_cells = ops.mesh.n_cells;
  const label n_internal = ops.mesh.n_internal_faces();
  const flow::Faces& F = faces_;
  const flow::Cells C = ops.cell_view();
  const double nu = ops.settings.viscosity;
  const double* phi = state_.flux.data();
  const auto& volume = ops.geometry.cell_volumes;
  const bool upwind_weights = ops.settings.convection != ConvectionScheme::linear;
  const bool linear_upwind = ops.settings.convection == ConvectionScheme::linear_upwind;

  // --- U^n and phi^n, the old values of ddt and ddtCorr
  for (int i = 0; i < 3; ++i) std::copy_n(state_.velocity[i].begin(), n_cells, velocity_old_[i].begin());
  std::copy(state_.flux.begin(), state_.flux.end(), flux_old_.begin());

  // --- the faces' coefficients, then each cell's diagonal and source gathered from its faces
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) {
    const double lambda = piso::convection_weight(upwind_weights, F.weight[f], phi[f]);
    const piso::FaceCoefficients a = piso::momentum_face(lambda, phi[f], nu * F.coeff[f]);
    momentum_.lower[f] = a.lower;
    momentum_.upper[f] = a.upper;
  }
  if (linear_upwind || corrected_) {  // the Gauss gradients of U^n
    for (int i = 0; i < 3; ++i) {
      if (!ops.solved[i]) continue;
#pragma omp parallel for schedule(static)
      for (label f = 0; f < F.n_faces; ++f) face_work_[f] = flow::face_velocity(F, velocity_old_[i].data(), i, f);
      ops.cells.gauss_gradient(ops.geometry, face_work_, grad_u_[i]);
    }
  }
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) {
    double diag = volume[c] / dt;
    Vec3 source = (volume[c] / dt) * Vec3{velocity_old_[0][c], velocity_old_[1][c], velocity_old_[2][c]};
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const label f = C.faces[k];
      if (f < n_internal) {
        diag -= C.signs[k] > 0 ? momentum_.lower[f] : momentum_.upper[f];
        for (int i = 0; i < 3; ++i) {
          if (!ops.solved[i]) continue;
          if (linear_upwind)
            source[i] -= C.signs[k] * piso::linear_upwind_correction(F, ops.cell_centres.data(), grad_u_[i].data(),
                                                                     phi, f);
          if (corrected_) source[i] += C.signs[k] * nu * piso::non_orthogonal_flux(F, grad_u_[i].data(), f);
        }
        continue;
      }
      diag += piso::momentum_boundary_diagonal(F, nu, phi, f);
      for (int i = 0; i < 3; ++i) source[i] += piso::momentum_boundary_source(F, nu, phi, i, f);
    }
    momentum_.diag[c] = diag;
    for (int i = 0; i < 3; ++i) source_[i][c] = source[i];
  }
  if (velocity_solver_) velocity_solver_->update_coefficients(momentum_);
}

/// UEqn == -grad p: each solved component with the velocity solver, from U^n.
void PisoStep::predict_velocity(StepReport& report) {
  const FlowOperators& ops = operators();
  const label n_cells = ops.mesh.n_cells;
  const auto& volume = ops.geometry.cell_volumes;
  const auto& grad_p = state_.pressure_gradient;
  for (int i = 0; i < 3; ++i) {
    if (!ops.solved[i]) continue;
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) rhs_[i][c] = source_[i][c] - volume[c] * grad_p[c][i];
    const SolverPerformance perf = velocity_solver_->solve(std::span<double>(state_.velocity[i]).first(n_cells),
                                                           rhs_[i], velocity_component_name(i));
    report.solves.push_back(perf);
    report.momentum_residual = std::max(report.momentum_residual, perf.initial_residual);
  }
}

/// rAU = V / A (the diagonal with the boundary's part), ddtCorr from U^n and phi^n, and the
/// negated pEqn's matrix: rAU_f a_f off the diagonal (negative), their sum on it, the reference
/// cell's doubled (setReference).
void PisoStep::prepare_corrections(double dt) {
  const FlowOperators& ops = operators();
  const label n_cells = ops.mesh.n_cells;
  const label n_internal = ops.mesh.n_internal_faces();
  const flow::Faces& F = faces_;
  const flow::Cells C = ops.cell_view();
  const auto& volume = ops.geometry.cell_volumes;
  const auto u_old = view(velocity_old_);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) rau_[c] = volume[c] / momentum_.diag[c];
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_faces; ++f) ddt_corr_[f] = piso::ddt_correction(F, u_old, flux_old_[f], dt, f);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) pressure_.upper[f] = -piso::pressure_coupling(F, rau_.data(), f);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) {
    double diag = 0.0;
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) diag += piso::pressure_coupling(F, rau_.data(), C.faces[k]);
    pressure_.diag[c] = diag;
  }
  if (ops.reference_cell >= 0) pressure_.diag[ops.reference_cell] *= 2.0;
  pressure_solver_->update_coefficients(pressure_);
  final_pressure_solver_->update_coefficients(pressure_);
}

/// rAU_f |S| k . (grad p)_f of the current p on every internal face, its net outflow added to the
/// pressure right-hand side (the negated pEqn's: laplacian(rAU, p) moves it to the source).
void PisoStep::add_pressure_flux_correction() {
  const FlowOperators& ops = operators();
  const flow::Faces& F = faces_;
  ops.pressure_gradient(state_.pressure, face_work_, state_.pressure_gradient);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_internal; ++f)
    flux_correction_[f] =
        flow::interpolate(F, rau_.data(), f) * piso::non_orthogonal_flux(F, state_.pressure_gradient.data(), f);
  const flow::Cells C = ops.cell_view();
#pragma omp parallel for schedule(static)
  for (label c = 0; c < ops.mesh.n_cells; ++c)
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k)
      if (C.faces[k] < F.n_internal) pressure_rhs_[c] += C.signs[k] * flux_correction_[C.faces[k]];
}

void PisoStep::correct(int corrector, double dt, StepReport& report) {
  const FlowOperators& ops = operators();
  const PisoSettings& piso = ops.settings.piso;
  const bool last = corrector == piso.n_correctors;
  const label n_cells = ops.mesh.n_cells;
  const flow::Faces& F = faces_;
  const flow::Cells C = ops.cell_view();
  const auto& volume = ops.geometry.cell_volumes;
  const auto start = clock_type::now();

  // --- HbyA = rAU H(U), H = (source - sum_nb a_nb U_nb) / V of the solved components (0 others)
  for (int i = 0; i < 3; ++i) {
    if (!ops.solved[i]) continue;
    const double* u = state_.velocity[i].data();
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) {
      double h = source_[i][c];
      for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
        const label f = C.faces[k];
        if (f >= F.n_internal) continue;
        h -= C.signs[k] > 0 ? momentum_.upper[f] * u[F.neighbour[f]] : momentum_.lower[f] * u[F.owner[f]];
      }
      hbya_[i][c] = rau_[c] * (h / volume[c]);
    }
  }
  // --- phiHbyA, and b = -div(phiHbyA) + the outlets' rAU a_b p_b + the reference's diag p_ref
  const auto hbya = view(hbya_);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_faces; ++f)
    predicted_flux_[f] = piso::predicted_flux(F, hbya, rau_.data(), ddt_corr_[f], f);
  ops.cells.divergence(predicted_flux_, div_);
  if (corrector == 1) report.divergence_before = absolute_sum(div_);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) {
    double b = -div_[c];
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const label f = C.faces[k];
      if (f >= F.n_internal && flow::boundary_kind(F, f) == FlowPatchType::pressure_outlet)
        b += piso::pressure_coupling(F, rau_.data(), f) * F.bpressure[f - F.n_internal];
    }
    pressure_source_[c] = b;
  }
  if (ops.reference_cell >= 0)  // setReference: the diagonal before its doubling times the value
    pressure_source_[ops.reference_cell] += 0.5 * pressure_.diag[ops.reference_cell] * ops.settings.reference_value;
  report.times.pressure_assembly += seconds_since(start);

  // --- the pressure solves (OpenFOAM's non-orthogonal loop), pFinal last; each takes the explicit
  //     non-orthogonal flux of the p before it (corrected on a non-orthogonal mesh)
  auto& p = state_.pressure;
  for (int n = 0; n <= piso.n_non_orthogonal_correctors; ++n) {
    const auto solve_start = clock_type::now();
    std::copy(pressure_source_.begin(), pressure_source_.end(), pressure_rhs_.begin());
    if (corrected_) add_pressure_flux_correction();
    LinearSolver& solver = last && n == piso.n_non_orthogonal_correctors ? *final_pressure_solver_ : *pressure_solver_;
    report.solves.push_back(solver.solve(std::span<double>(p).first(n_cells), pressure_rhs_, "p"));
    report.times.pressure_solve += seconds_since(solve_start);
  }

  // --- phi = phiHbyA - pEqn.flux() (with the last solve's explicit part); continuity; U = HbyA - rAU grad p
  const auto correct_start = clock_type::now();
  auto& phi = state_.flux;
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_faces; ++f) {
    phi[f] = piso::corrected_flux(F, rau_.data(), p.data(), predicted_flux_[f], f);
    if (corrected_ && f < F.n_internal) phi[f] -= flux_correction_[f];
  }
  ops.cells.divergence(phi, div_);
  report.divergence_after = absolute_sum(div_);
  report.continuity = ops.continuity_errors(div_, dt, cumulative_continuity_);
  cumulative_continuity_ = report.continuity.cumulative;
  report.corrections.push_back({report.solves.size() - 1, report.continuity});
  ops.pressure_gradient(p, face_work_, state_.pressure_gradient);
  const auto& grad_p = state_.pressure_gradient;
  for (int i = 0; i < 3; ++i) {
    if (!ops.solved[i]) continue;
    auto& u = state_.velocity[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_cells; ++c) u[c] = hbya_[i][c] - rau_[c] * grad_p[c][i];
  }
  report.times.correction += seconds_since(correct_start);
}

}  // namespace fvmmini
