#include "discretisation/incompressible/flow_diagnostics.hpp"

#include <algorithm>
#include <cmath>

namespace fvmmini {

namespace {

/// sum_f |phi_f| for cell c.
double absolute_flux_sum(const CellFaces& cells, std::span<const double> phi, label c) {
  const auto offsets = cells.offsets();
  const auto faces = cells.faces();
  double sum = 0.0;
  for (label k = offsets[c]; k < offsets[c + 1]; ++k) sum += std::abs(phi[faces[k]]);
  return sum;
}

}  // namespace

CourantNumber courant_number(const CellFaces& cells, const MeshGeometry& g, std::span<const double> phi, double dt) {
  const label n = cells.n_cells();
  double flux_sum = 0.0, volume = 0.0, max_ratio = 0.0;
  // --- Co_c = 0.5 dt sum|phi| / V; mean = 0.5 dt sum(sum|phi|) / sum(V)
#pragma omp parallel for schedule(static) reduction(+ : flux_sum, volume) reduction(max : max_ratio)
  for (label c = 0; c < n; ++c) {
    const double s = absolute_flux_sum(cells, phi, c);
    flux_sum += s;
    volume += g.cell_volumes[c];
    max_ratio = std::max(max_ratio, s / g.cell_volumes[c]);
  }
  return {0.5 * dt * flux_sum / volume, 0.5 * dt * max_ratio};
}

void cell_courant_numbers(const CellFaces& cells, const MeshGeometry& g, std::span<const double> phi, double dt,
                          std::span<double> courant) {
  const label n = cells.n_cells();
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n; ++c) courant[c] = 0.5 * dt * absolute_flux_sum(cells, phi, c) / g.cell_volumes[c];
}

ContinuityErrors continuity_errors(std::span<const double> div, std::span<const double> volumes, double dt,
                                   double cumulative) {
  const auto n = static_cast<std::ptrdiff_t>(div.size());
  double local = 0.0, global = 0.0, volume = 0.0;
  // --- volume averages of |div phi / V| and div phi / V: sum|div| / sum V and sum div / sum V
#pragma omp parallel for schedule(static) reduction(+ : local, global, volume)
  for (std::ptrdiff_t c = 0; c < n; ++c) {
    local += std::abs(div[c]);
    global += div[c];
    volume += volumes[c];
  }
  ContinuityErrors e;
  e.sum_local = dt * local / volume;
  e.global = dt * global / volume;
  e.cumulative = cumulative + e.global;
  return e;
}

bool SteadyStateDetector::update(double momentum_residual, double velocity_change) {
  ++steps_;
  steady_ = steps_ >= settings_.min_steps && momentum_residual < settings_.residual_tolerance &&
            velocity_change < settings_.velocity_tolerance;
  return steady_;
}

}  // namespace fvmmini
