#include "discretisation/incompressible/flow_operators.hpp"

#include "discretisation/face_interpolation.hpp"

#include <algorithm>
#include <stdexcept>

namespace fvmmini {

namespace {

/// flow::rhie_chow_time of every face; volume and base_diagonal with their ghosts.
UnfilledVector<double> rhie_chow_times(const Mesh& mesh, label n_coupled, std::span<const label> neighbour,
                                       std::span<const double> weights, std::span<const double> volume,
                                       std::span<const double> base_diagonal) {
  UnfilledVector<double> d(mesh.n_faces());
#pragma omp parallel for schedule(static)
  for (label f = 0; f < mesh.n_faces(); ++f)
    d[f] = f < n_coupled
               ? flow::rhie_chow_time(mesh.owner[f], neighbour[f], weights[f], volume.data(), base_diagonal.data())
               : flow::rhie_chow_time(mesh.owner[f], volume.data(), base_diagonal.data());
  return d;
}

/// The cell values with their ghosts: values, then the values across the processor faces.
template <class T>
std::vector<T> with_ghosts(std::span<const T> values, ProcessorFaces& processor) {
  std::vector<T> all(values.begin(), values.end());
  all.resize(values.size() + processor.faces().size());
  processor.fill_ghosts(std::span<T>(all));
  return all;
}

}  // namespace

namespace {

/// The enum value whose name is `text` in `names` (enum order). @throws std::invalid_argument
/// naming `what` and listing the known names
template <class E>
E parse_name(const std::vector<std::string>& names, const std::string& text, const char* what) {
  const auto found = std::find(names.begin(), names.end(), text);
  if (found == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + text + "' (known: " + known + ")");
  }
  return static_cast<E>(found - names.begin());
}

}  // namespace

const std::vector<std::string>& convection_scheme_names() {
  static const std::vector<std::string> names{"linear", "linearUpwind", "upwind"};
  return names;
}
const std::string& name(ConvectionScheme scheme) {
  return convection_scheme_names().at(static_cast<std::size_t>(scheme));
}
ConvectionScheme parse_convection_scheme(const std::string& name) {
  return parse_name<ConvectionScheme>(convection_scheme_names(), name, "convection scheme");
}

const std::vector<std::string>& sn_grad_names() {
  static const std::vector<std::string> names{"corrected", "orthogonal"};
  return names;
}
const std::string& name(SnGrad scheme) { return sn_grad_names().at(static_cast<std::size_t>(scheme)); }
SnGrad parse_sn_grad(const std::string& name) { return parse_name<SnGrad>(sn_grad_names(), name, "snGrad"); }

const std::vector<std::string>& flow_algorithm_names() {
  static const std::vector<std::string> names{"projection", "PISO"};
  return names;
}
const std::string& name(FlowAlgorithm algorithm) {
  return flow_algorithm_names().at(static_cast<std::size_t>(algorithm));
}
FlowAlgorithm parse_flow_algorithm(const std::string& name) {
  return parse_name<FlowAlgorithm>(flow_algorithm_names(), name, "algorithm");
}

FlowOperators::FlowOperators(const Mesh& m, const MeshGeometry& g, FlowBoundary b, IncompressibleSettings s,
                             const Communicator& ranks, std::span<const label> global_cell)
    : FlowOperators(m, g, std::move(b), s, ranks, global_cell, cell_face_lists(m)) {}

FlowOperators::FlowOperators(const Mesh& m, const MeshGeometry& g, FlowBoundary b, IncompressibleSettings s,
                             const Communicator& ranks, std::span<const label> global_cell, const CellFaceLists& lists)
    : mesh(m),
      geometry(g),
      comm(ranks),
      boundary(std::move(b)),
      settings(s),
      cells(m, lists),
      processor(m, ranks),
      laplacian(m, g, &processor),
      solved(solved_directions(m, g)),
      orthogonal(ranks.all(laplacian.is_orthogonal())) {
  setup.mark("gather lists and Laplacian");
  validate_flow_boundary(mesh, boundary);
  if (!(settings.viscosity > 0.0)) throw std::invalid_argument("viscosity must be positive");
  laplacian.keep_corrections(!orthogonal);
  for (bool& direction : solved) direction = comm.any(direction);
  n_ghosts = static_cast<label>(processor.faces().size());
  n_coupled = mesh.n_internal_faces() + n_ghosts;
  const std::vector<Vec3> ghost_centres = processor.across(g.cell_centres);  // the coupled faces' and the fit's
  set_coupled_faces(ghost_centres);
  set_boundary_face_data();
  setup.mark("face data");
  assemble_helmholtz(global_cell, lists);
  setup.mark("momentum matrix");
  if (needs_velocity_gradients())
    set_least_squares_weights(ghost_centres, lists);
  else
    least_squares.emplace(mesh, geometry, ghost_centres, lists, false);
  setup.mark("least squares");
  if (n_ghosts == 0)  // the cell arrays as they are: no copies to append ghosts to
    rhie_chow_time = rhie_chow_times(mesh, n_coupled, coupled_neighbour, coupled_weight, g.cell_volumes,
                                     helmholtz_base_diagonal);
  else
    rhie_chow_time = rhie_chow_times(mesh, n_coupled, coupled_neighbour, coupled_weight,
                                     with_ghosts<double>(g.cell_volumes, processor),
                                     with_ghosts<double>(helmholtz_base_diagonal, processor));
  assemble_pressure(lists);
  if (!boundary.fixes_pressure()) pin_reference_cell();
  setup.mark("pressure matrix");
}

void FlowOperators::set_coupled_faces(std::span<const Vec3> ghost_centres) {
  // views of the Laplacian's and the geometry's own arrays where there are no ghosts
  const label n_internal = mesh.n_internal_faces();
  coupled_neighbour = std::span<const label>(mesh.neighbour);
  coupled_weight = laplacian.weights();
  coupled_coeff = laplacian.face_coefficients();
  cell_centres = std::span<const Vec3>(geometry.cell_centres);
  if (n_ghosts == 0) return;
  ghosted_neighbour_.assign(coupled_neighbour.begin(), coupled_neighbour.end());
  ghosted_weight_.assign(coupled_weight.begin(), coupled_weight.end());
  ghosted_coeff_.assign(coupled_coeff.begin(), coupled_coeff.end());
  ghosted_centres_.assign(cell_centres.begin(), cell_centres.end());
  ghosted_centres_.insert(ghosted_centres_.end(), ghost_centres.begin(), ghost_centres.end());
  for (label k = 0; k < n_ghosts; ++k) {
    const label f = n_internal + k;
    ghosted_neighbour_.push_back(mesh.n_cells + k);
    ghosted_weight_.push_back(linear_weight(geometry.face_areas[f], geometry.face_centres[f],
                                            geometry.cell_centres[mesh.owner[f]], ghost_centres[k]));
    ghosted_coeff_.push_back(laplacian.boundary_coefficients()[k]);
  }
  coupled_neighbour = ghosted_neighbour_;
  coupled_weight = ghosted_weight_;
  coupled_coeff = ghosted_coeff_;
  cell_centres = ghosted_centres_;
}

void FlowOperators::set_boundary_face_data() {
  // the Laplacian's boundary arrays begin with the processor faces: those are coupled here
  const auto physical = [&](auto values) { return decltype(values)(values.begin() + n_ghosts, values.end()); };
  boundary_coeff = physical(std::vector<double>(laplacian.boundary_coefficients().begin(),
                                                laplacian.boundary_coefficients().end()));
  boundary_velocity = physical(boundary_face_velocities(mesh, geometry, boundary));
  BoundaryFaceConditions conditions = boundary_face_conditions(mesh, boundary, n_coupled);
  boundary_kind = std::move(conditions.kind);
  boundary_pressure = std::move(conditions.pressure);
}

BoundaryFaceConditions boundary_face_conditions(const Mesh& mesh, const FlowBoundary& boundary, label n_coupled) {
  const std::size_t n = mesh.n_faces() - n_coupled;
  BoundaryFaceConditions c{std::vector<int>(n, static_cast<int>(FlowPatchType::wall)), std::vector<Vec3>(n),
                           std::vector<double>(n, 0.0)};
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    if (patch.neighbour_rank >= 0) continue;
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      c.kind[f - n_coupled] = static_cast<int>(boundary.patches[p].type);
      c.velocity[f - n_coupled] = boundary.patches[p].velocity;
      c.pressure[f - n_coupled] = boundary.patches[p].pressure;
    }
  }
  return c;
}

void FlowOperators::assemble_helmholtz(std::span<const label> global_cell, const CellFaceLists& lists) {
  const label n_cells = mesh.n_cells;
  LduMatrix& helmholtz = helmholtz_system.local;
  laplacian.assemble(settings.viscosity, velocity_component_boundary(mesh, geometry, boundary, 0), helmholtz, lists);
  helmholtz_system.interfaces = processor.interfaces(laplacian.processor_couplings(settings.viscosity));
  helmholtz_system.global_rows.assign(global_cell.begin(), global_cell.end());
  helmholtz_base_diagonal = copied_on_every_thread<double>(helmholtz.diag);
  for (int i = 0; i < 3; ++i) {
    momentum_boundary_source[i] = filled_on_every_thread<double>(n_cells, 0.0);
    laplacian.add_boundary_source(settings.viscosity, velocity_component_boundary(mesh, geometry, boundary, i),
                                  momentum_boundary_source[i]);
  }
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) helmholtz.diag[c] += geometry.cell_volumes[c];
}

void FlowOperators::set_least_squares_weights(std::span<const Vec3> ghost_centres, const CellFaceLists& lists) {
  const label n_cells = mesh.n_cells;
  const LinearLeastSquares fit(mesh, geometry, ghost_centres, lists);
  least_squares_weights.resize(cells.faces().size());
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c)
    for (label k = cells.offsets()[c]; k < cells.offsets()[c + 1]; ++k)
      least_squares_weights[k] = fit.weight(c, cells.faces()[k]);
}

void FlowOperators::assemble_pressure(const CellFaceLists& lists) {
  const ScalarBoundary pressure_bc = pressure_boundary(mesh, boundary);
  laplacian.assemble(1.0, pressure_bc, pressure_system.local, lists);
  pressure_system.interfaces = processor.interfaces(laplacian.processor_couplings(1.0));
  pressure_system.global_rows = helmholtz_system.global_rows;
  pressure_source = filled_on_every_thread<double>(mesh.n_cells, 0.0);
  laplacian.add_boundary_source(1.0, pressure_bc, pressure_source);
}

void FlowOperators::pin_reference_cell() {
  // on several ranks the cell is on one of them (-1 on the others), and on exactly one
  const label n_cells = mesh.n_cells;
  const bool here = settings.reference_cell >= 0 && settings.reference_cell < n_cells;
  if (comm.sum(static_cast<long long>(here)) != 1)
    throw std::invalid_argument(comm.distributed() ? "referenceCell is a cell of no rank, or of several"
                                                   : "referenceCell " + std::to_string(settings.reference_cell) +
                                                         " is not a cell (0.." + std::to_string(n_cells - 1) + ")");
  // --- a weak pin, d_r -> (1 + eps) d_r with eps d_r p_ref in the source: the matrix is non-singular,
  //     and CG spends no iterations on the constant mode (a pin of d_r, OpenFOAM's, costs ~40% more)
  if (here) {
    LduMatrix& pressure = pressure_system.local;
    reference_cell = settings.reference_cell;
    pressure_source[reference_cell] +=
        pressure_reference_pin * pressure.diag[reference_cell] * settings.reference_value;
    pressure.diag[reference_cell] *= 1.0 + pressure_reference_pin;
  }
}

flow::Faces FlowOperators::faces() const {
  flow::Faces f;
  f.n_internal = n_coupled;
  f.n_faces = mesh.n_faces();
  f.owner = mesh.owner.data();
  f.neighbour = coupled_neighbour.data();
  f.weight = coupled_weight.data();
  f.coeff = coupled_coeff.data();
  f.bcoeff = boundary_coeff.data();
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
  const label n_cells = cells_with_ghosts();
  FlowState state;
  for (int i = 0; i < 3; ++i) state.velocity[i].assign(n_cells, settings.initial_velocity[i]);
  state.pressure.assign(n_cells, settings.initial_pressure);
  state.pressure_gradient.assign(n_cells, Vec3{});
  state.flux.resize(mesh.n_faces());
  const flow::Faces F = faces();
  const flow::Components<const double> u{{state.velocity[0].data(), state.velocity[1].data(), state.velocity[2].data()}};
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_faces; ++f) state.flux[f] = flow::initial_flux(F, u, f);
  return state;
}

CourantNumber FlowOperators::courant_number(std::span<const double> phi, double dt) const {
  const CourantSums local = courant_sums(cells, geometry, phi);
  std::array<double, 2> sums{local.absolute_flux, local.volume};
  comm.sum(sums);
  return courant_from_sums(sums[0], comm.max(local.max_flux_per_volume), sums[1], dt);
}

ContinuityErrors FlowOperators::continuity_errors(std::span<const double> div, double dt, double cumulative) const {
  const ContinuitySums local = continuity_sums(div, geometry.cell_volumes);
  std::array<double, 3> sums{local.absolute, local.net, local.volume};
  comm.sum(sums);
  return continuity_from_sums(sums[0], sums[1], sums[2], dt, cumulative);
}

flow::Cells FlowOperators::cell_view() const {
  flow::Cells view = cells.view(geometry);
  view.lsq = least_squares_weights.data();
  return view;
}

void FlowOperators::velocity_gradients(const FlowState& state, std::array<std::vector<Vec3>, 3>& gradients) const {
  if (!needs_velocity_gradients())
    throw std::logic_error("velocity_gradients: no step of this flow takes them (no weights kept)");
  const flow::Faces F = faces();
  const flow::Cells C = cell_view();
  for (int i = 0; i < 3; ++i) {
    gradients[i].resize(cells_with_ghosts());
    const double* u = state.velocity[i].data();
    Vec3* grad = gradients[i].data();
    const bool is_solved = solved[i];
#pragma omp parallel for schedule(static)
    for (label c = 0; c < C.n; ++c) grad[c] = is_solved ? flow::cell_velocity_gradient(C, F, u, i, c) : Vec3{};
  }
}

Vec3 FlowOperators::velocity_gradient(const FlowState& state, int i, label c) const {
  if (!solved[i]) return {};
  const flow::Cells C = cell_view();
  if (C.lsq) return flow::cell_velocity_gradient(C, faces(), state.velocity[i].data(), i, c);
  const std::span<const label> own(C.faces + C.offsets[c], C.faces + C.offsets[c + 1]);
  const std::vector<Vec3> weights = least_squares->weights_of(c, own);
  return flow::cell_velocity_gradient(C, faces(), state.velocity[i].data(), i, c, weights.data());
}

void FlowOperators::pressure_gradient(std::span<const double> p, std::span<double> face_work,
                                      std::span<Vec3> gradient) const {
  const flow::Faces F = faces();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < F.n_faces; ++f) face_work[f] = flow::face_pressure(F, p.data(), 0.0, f);
  cells.gauss_gradient(geometry, face_work, gradient);
}

}  // namespace fvmmini
