#include "discretisation/incompressible/flow_diagnostics.hpp"

#include <algorithm>
#include <cmath>

namespace fvmmini {

CourantNumber courant_from_sums(double absolute_flux_sum, double max_flux_per_volume, double total_volume, double dt) {
  return {0.5 * dt * absolute_flux_sum / total_volume, 0.5 * dt * max_flux_per_volume};
}

ContinuityErrors continuity_from_sums(double absolute_sum, double sum, double total_volume, double dt,
                                      double cumulative) {
  ContinuityErrors e;
  e.sum_local = dt * absolute_sum / total_volume;
  e.global = dt * sum / total_volume;
  e.cumulative = cumulative + e.global;
  return e;
}

CourantSums courant_sums(const CellFaces& cells, const MeshGeometry& g, std::span<const double> phi) {
  const flow::Cells view = cells.view(g);
  double flux_sum = 0.0, volume = 0.0, max_ratio = 0.0;
  // --- Co_c = 0.5 dt sum|phi| / V; mean = 0.5 dt sum(sum|phi|) / sum(V)
#pragma omp parallel for schedule(static) reduction(+ : flux_sum, volume) reduction(max : max_ratio)
  for (label c = 0; c < view.n; ++c) {
    const double s = flow::cell_absolute_flux(view, phi.data(), c);
    flux_sum += s;
    volume += g.cell_volumes[c];
    max_ratio = std::max(max_ratio, s / g.cell_volumes[c]);
  }
  return {flux_sum, max_ratio, volume};
}

CourantNumber courant_number(const CellFaces& cells, const MeshGeometry& g, std::span<const double> phi, double dt) {
  const CourantSums s = courant_sums(cells, g, phi);
  return courant_from_sums(s.absolute_flux, s.max_flux_per_volume, s.volume, dt);
}

void cell_courant_numbers(const CellFaces& cells, const MeshGeometry& g, std::span<const double> phi, double dt,
                          std::span<double> courant) {
  const flow::Cells view = cells.view(g);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < view.n; ++c) courant[c] = 0.5 * dt * flow::cell_absolute_flux(view, phi.data(), c) / view.volume[c];
}

ContinuitySums continuity_sums(std::span<const double> div, std::span<const double> volumes) {
  const auto n = static_cast<std::ptrdiff_t>(div.size());
  double local = 0.0, global = 0.0, volume = 0.0;
  // --- volume averages of |div phi / V| and div phi / V: sum|div| / sum V and sum div / sum V
#pragma omp parallel for schedule(static) reduction(+ : local, global, volume)
  for (std::ptrdiff_t c = 0; c < n; ++c) {
    local += std::abs(div[c]);
    global += div[c];
    volume += volumes[c];
  }
  return {local, global, volume};
}

ContinuityErrors continuity_errors(std::span<const double> div, std::span<const double> volumes, double dt,
                                   double cumulative) {
  const ContinuitySums s = continuity_sums(div, volumes);
  return continuity_from_sums(s.absolute, s.net, s.volume, dt, cumulative);
}

bool SteadyStateDetector::update(double momentum_residual, double velocity_change) {
  ++steps_;
  const bool within = momentum_residual < settings_.residual_tolerance && velocity_change < settings_.velocity_tolerance;
  steps_within_tolerance_ = within ? steps_within_tolerance_ + 1 : 0;
  steady_ = steps_ >= settings_.min_steps && steps_within_tolerance_ >= settings_.consecutive_steps;
  return steady_;
}

double absolute_sum(std::span<const double> values) {
  const auto n = static_cast<std::ptrdiff_t>(values.size());
  double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::ptrdiff_t i = 0; i < n; ++i) sum += std::abs(values[i]);
  return sum;
}

}  // namespace fvmmini
