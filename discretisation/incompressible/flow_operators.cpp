#include "discretisation/incompressible/flow_operators.hpp"

#include <algorithm>
#include <stdexcept>

namespace fvmmini {

namespace {

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

const std::vector<std::string>& convection_scheme_names() {
  static const std::vector<std::string> names{"linear", "linearUpwind"};
  return names;
}

const std::string& name(ConvectionScheme scheme) {
  return convection_scheme_names().at(static_cast<std::size_t>(scheme));
}

ConvectionScheme parse_convection_scheme(const std::string& name) {
  const auto& names = convection_scheme_names();
  const auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end())
    throw std::invalid_argument("unknown convection scheme '" + name + "' (known: linear, linearUpwind)");
  return static_cast<ConvectionScheme>(found - names.begin());
}

FlowOperators::FlowOperators(const Mesh& m, const MeshGeometry& g, FlowBoundary b, IncompressibleSettings s)
    : mesh(m),
      geometry(g),
      boundary(std::move(b)),
      settings(s),
      cells(m),
      laplacian(m, g),
      solved(solved_directions(m, g)),
      orthogonal(laplacian.is_orthogonal()) {
  validate_flow_boundary(mesh, boundary);
  if (!(settings.viscosity > 0.0)) throw std::invalid_argument("viscosity must be positive");
  const label n_cells = mesh.n_cells;
  const label n_internal = mesh.n_internal_faces();
  const label n_boundary = mesh.n_faces() - n_internal;

  // --- boundary data per boundary face
  boundary_velocity = boundary_face_velocities(mesh, g, boundary);
  boundary_kind.assign(n_boundary, static_cast<int>(FlowPatchType::wall));
  boundary_pressure.assign(n_boundary, 0.0);
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      boundary_kind[f - n_internal] = static_cast<int>(boundary.patches[p].type);
      boundary_pressure[f - n_internal] = boundary.patches[p].pressure;
    }
  }

  // --- Helmholtz matrix nu L (+ V: dt = 1 until a step sets its own); boundary sources nu a_b U_b,i
  laplacian.assemble(settings.viscosity, velocity_component_boundary(mesh, g, boundary, 0), helmholtz_matrix);
  helmholtz_base_diagonal = helmholtz_matrix.diag;
  for (int i = 0; i < 3; ++i) {
    momentum_boundary_source[i].assign(n_cells, 0.0);
    laplacian.add_boundary_source(settings.viscosity, velocity_component_boundary(mesh, g, boundary, i),
                                  momentum_boundary_source[i]);
  }
  for (label c = 0; c < n_cells; ++c) helmholtz_matrix.diag[c] += g.cell_volumes[c];
  const LinearLeastSquares least_squares(mesh, g);
  least_squares_weights.resize(cells.faces().size());
  for (label c = 0; c < n_cells; ++c)
    for (label k = cells.offsets()[c]; k < cells.offsets()[c + 1]; ++k)
      least_squares_weights[k] = least_squares.weight(c, cells.faces()[k]);
  rhie_chow_time = rhie_chow_times(mesh, laplacian.weights(), g.cell_volumes, helmholtz_base_diagonal);

  // --- pressure matrix A = -div grad, assembled once; a reference level when nothing fixes p
  const ScalarBoundary pressure_bc = pressure_boundary(mesh, boundary);
  laplacian.assemble(1.0, pressure_bc, pressure_matrix);
  pressure_source.assign(n_cells, 0.0);
  laplacian.add_boundary_source(1.0, pressure_bc, pressure_source);
  if (!boundary.fixes_pressure()) {
    if (settings.reference_cell < 0 || settings.reference_cell >= n_cells)
      throw std::invalid_argument("referenceCell " + std::to_string(settings.reference_cell) +
                                  " is not a cell (0.." + std::to_string(n_cells - 1) + ")");
    // --- a weak pin, d_r -> (1 + eps) d_r with eps d_r p_ref in the source: the matrix is non-singular,
    //     and CG spends no iterations on the constant mode (a pin of d_r, OpenFOAM's, costs ~40% more)
    reference_cell = settings.reference_cell;
    pressure_source[reference_cell] +=
        pressure_reference_pin * pressure_matrix.diag[reference_cell] * settings.reference_value;
    pressure_matrix.diag[reference_cell] *= 1.0 + pressure_reference_pin;
  }
}

flow::Faces FlowOperators::faces() const {
  flow::Faces f;
  f.n_internal = mesh.n_internal_faces();
  f.n_faces = mesh.n_faces();
  f.owner = mesh.owner.data();
  f.neighbour = mesh.neighbour.data();
  f.weight = laplacian.weights().data();
  f.coeff = laplacian.face_coefficients().data();
  f.bcoeff = laplacian.boundary_coefficients().data();
  f.area = geometry.face_areas.data();
  f.centre = geometry.face_centres.data();
  f.correction = orthogonal ? nullptr : laplacian.non_orthogonal_corrections().data();
  f.rhie_chow_time = rhie_chow_time.data();
  f.kind = boundary_kind.data();
  f.bvelocity = boundary_velocity.data();
  f.bpressure = boundary_pressure.data();
  return f;
}

FlowState FlowOperators::initial_state() const {
  const label n_cells = mesh.n_cells;
  FlowState state;
  for (int i = 0; i < 3; ++i) state.velocity[i].assign(n_cells, settings.initial_velocity[i]);
  state.pressure.assign(n_cells, settings.initial_pressure);
  state.pressure_gradient.assign(n_cells, Vec3{});
  state.flux.assign(mesh.n_faces(), 0.0);
  const flow::Faces F = faces();
  const flow::Components<const double> u{{state.velocity[0].data(), state.velocity[1].data(), state.velocity[2].data()}};
  for (label f = 0; f < F.n_faces; ++f) {
    if (f >= F.n_internal) {
      const FlowPatchType kind = flow::boundary_kind(F, f);
      if (kind == FlowPatchType::wall || kind == FlowPatchType::empty) continue;  // no flux
    }
    Vec3 uf;
    for (int i = 0; i < 3; ++i) uf[i] = flow::face_velocity(F, u.c[i], i, f);
    state.flux[f] = dot(uf, geometry.face_areas[f]);
  }
  return state;
}

CourantNumber FlowOperators::courant_number(std::span<const double> phi, double dt) const {
  return fvmmini::courant_number(cells, geometry, phi, dt);
}

flow::Cells FlowOperators::cell_view() const {
  flow::Cells view = cells.view(geometry);
  view.lsq = least_squares_weights.data();
  return view;
}

void FlowOperators::velocity_gradients(const FlowState& state, std::array<std::vector<Vec3>, 3>& gradients) const {
  const flow::Faces F = faces();
  const flow::Cells C = cell_view();
  for (int i = 0; i < 3; ++i) {
    gradients[i].resize(mesh.n_cells);
    const double* u = state.velocity[i].data();
    Vec3* grad = gradients[i].data();
    const bool is_solved = solved[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < C.n; ++c) grad[c] = is_solved ? flow::cell_velocity_gradient(C, F, u, i, c) : Vec3{};
  }
}

void FlowOperators::pressure_gradient(std::span<const double> p, std::span<double> face_work,
                                      std::span<Vec3> gradient) const {
  const flow::Faces F = faces();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_faces; ++f) face_work[f] = flow::face_pressure(F, p.data(), 0.0, f);
  cells.gauss_gradient(geometry, face_work, gradient);
}

}  // namespace fvmmini
