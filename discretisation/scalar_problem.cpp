#include "discretisation/scalar_problem.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fvmmini {

ScalarProblem::ScalarProblem(const Mesh& mesh, const MeshGeometry& g, ScalarBoundary boundary,
                             std::vector<bool> exact_patches, const ScalarProblemSettings& s, const Communicator& comm,
                             std::span<const label> global_cell)
    : mesh_(mesh),
      geometry_(g),
      comm_(comm),
      processor_(mesh, comm),
      boundary_(std::move(boundary)),
      exact_patches_(std::move(exact_patches)),
      settings_(s),
      laplacian_(mesh, g, &processor_),
      orthogonal_(comm.all(laplacian_.is_orthogonal())) {
  laplacian_.keep_corrections(!orthogonal_);

  if (exact_patches_.size() != mesh.patches.size()) exact_patches_.resize(mesh.patches.size(), false);
  const bool any_exact = std::find(exact_patches_.begin(), exact_patches_.end(), true) != exact_patches_.end();
  if (any_exact && !s.manufactured) throw std::invalid_argument("boundary value 'exact' needs physics.manufactured");
  if (s.transient && !(s.delta_t > 0.0)) throw std::invalid_argument("transient problem needs deltaT > 0");
  if (s.manufactured) exact_ = ManufacturedSolution::for_mesh(mesh, g, s.diffusivity, s.transient);
  refresh_exact_boundary(s.start_time);
  validate_boundary(mesh, boundary_);

  // --- S V per cell (midpoint rule: second order)
  cell_source_.resize(mesh.n_cells);
  for (label c = 0; c < mesh.n_cells; ++c)
    cell_source_[c] = (exact_ ? exact_->source(g.cell_centres[c]) : s.source) * g.cell_volumes[c];

  // --- the matrix: Laplacian (+ V/dt), with a reference level when nothing fixes the value
  rhs_.assign(mesh.n_cells, 0.0);
  LduMatrix& matrix = system_.local;
  laplacian_.assemble(s.diffusivity, boundary_, matrix);
  system_.interfaces = processor_.interfaces(laplacian_.processor_couplings(s.diffusivity));
  system_.global_rows.assign(global_cell.begin(), global_cell.end());
  if (s.transient)
    for (label c = 0; c < mesh.n_cells; ++c) matrix.diag[c] += g.cell_volumes[c] / s.delta_t;
  if (pinned()) {
    // on several ranks the cell is on one of them (-1 on the others), and on exactly one
    const bool here = s.reference_cell >= 0 && s.reference_cell < mesh.n_cells;
    if (comm.sum(static_cast<long long>(here)) != 1)
      throw std::invalid_argument("referenceCell " + std::to_string(s.reference_cell) + " is not a cell (0.." +
                                  std::to_string(mesh.n_cells - 1) + ")");
    if (here) matrix.diag[s.reference_cell] *= 2.0;  // OpenFOAM's setReference; the source gets diag * value in advance()
  }

  // --- initial field
  field_.resize(mesh.n_cells);
  for (label c = 0; c < mesh.n_cells; ++c)
    field_[c] = (exact_ && s.transient) ? exact_->value(g.cell_centres[c], s.start_time) : s.initial;
  rhs_corrected_.resize(mesh.n_cells);
  if (!orthogonal_) {
    gradient_.emplace(mesh, g, &processor_);
    cell_gradient_.resize(mesh.n_cells);
    cell_hessian_.resize(mesh.n_cells);
  }
}

void ScalarProblem::refresh_exact_boundary(double time) {
  for (size_t p = 0; p < mesh_.patches.size(); ++p) {
    if (!exact_patches_[p]) continue;
    const Patch& patch = mesh_.patches[p];
    auto& values = boundary_.patches[p].values;
    values.resize(patch.size);
    for (label i = 0; i < patch.size; ++i) values[i] = exact_->value(geometry_.face_centres[patch.start + i], time);
  }
}

ScalarStep ScalarProblem::advance(LinearSolver& solver, double new_time) {
  const auto& s = settings_;
  const label n = mesh_.n_cells;
  if (s.transient) refresh_exact_boundary(new_time);

  // --- b = S V + boundary source (+ V/dt T_old) (+ reference level)
  std::copy(cell_source_.begin(), cell_source_.end(), rhs_.begin());
  laplacian_.add_boundary_source(s.diffusivity, boundary_, rhs_);
  if (s.transient)
    for (label c = 0; c < n; ++c) rhs_[c] += geometry_.cell_volumes[c] / s.delta_t * field_[c];
  if (pinned() && s.reference_cell >= 0)
    rhs_[s.reference_cell] += 0.5 * system_.local.diag[s.reference_cell] * s.reference_value;

  // --- solve, then re-solve with the deferred non-orthogonal correction from the latest field
  //     until the field satisfies the corrected system (a re-solve's initial residual)
  ScalarStep step;
  const int correctors = orthogonal_ ? 0 : s.non_orthogonal_correctors;
  for (int corrector = 0; corrector <= correctors; ++corrector) {
    std::copy(rhs_.begin(), rhs_.end(), rhs_corrected_.begin());
    if (gradient_) {
      gradient_->compute(boundary_, field_, cell_gradient_, cell_hessian_);
      // --- the gradients and Hessians of the cells across the processor faces
      const std::vector<Vec3> across_gradient = processor_.across(cell_gradient_);
      std::vector<Hessian> across_hessian(across_gradient.size());
      std::vector<Vec3> row(mesh_.n_cells);
      for (int i = 0; i < 3; ++i) {
        for (label c = 0; c < mesh_.n_cells; ++c) row[c] = cell_hessian_[c].rows[i];
        const std::vector<Vec3> across_row = processor_.across(row);
        for (std::size_t k = 0; k < across_row.size(); ++k) across_hessian[k].rows[i] = across_row[k];
      }
      laplacian_.add_non_orthogonal_correction(s.diffusivity, boundary_, cell_gradient_, cell_hessian_, rhs_corrected_,
                                               across_gradient, across_hessian);
    }
    step.solves.push_back(solver.solve(field_, rhs_corrected_, "T"));
    if (corrector == 0) continue;
    step.correction.correctors = corrector;
    step.correction.residual = step.solves.back().initial_residual;
    if (step.correction.residual < s.non_orthogonal_tolerance) break;
  }
  step.correction.converged = orthogonal_ ||
                              (correctors > 0 && step.correction.residual < s.non_orthogonal_tolerance);
  bool finite = true;
  for (double v : field_) finite = finite && std::isfinite(v);
  if (!comm_.all(finite)) throw SolverError("the solution contains NaN or Inf");
  return step;
}

std::optional<std::vector<double>> ScalarProblem::exact_field(double time) const {
  if (!exact_) return std::nullopt;
  std::vector<double> exact(mesh_.n_cells);
  for (label c = 0; c < mesh_.n_cells; ++c) exact[c] = exact_->value(geometry_.cell_centres[c], time);
  return exact;
}

std::optional<ErrorNorms> ScalarProblem::error(double time) const {
  if (!exact_) return std::nullopt;
  ErrorNorms e;
  double volume = 0.0, sum = 0.0;
  for (label c = 0; c < mesh_.n_cells; ++c) {
    const double diff = field_[c] - exact_->value(geometry_.cell_centres[c], time);
    sum += geometry_.cell_volumes[c] * diff * diff;
    volume += geometry_.cell_volumes[c];
    e.max = std::max(e.max, std::abs(diff));
  }
  double sums[2] = {sum, volume};
  comm_.sum(sums);
  e.max = comm_.max(e.max);
  e.l2 = std::sqrt(sums[0] / sums[1]);
  return e;
}

}  // namespace fvmmini
