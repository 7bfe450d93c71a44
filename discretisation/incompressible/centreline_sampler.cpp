#include "discretisation/incompressible/centreline_sampler.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <stdexcept>

namespace fvmmini {

std::vector<SampleLine> cavity_centrelines(const Mesh& mesh, int points, const Communicator& comm) {
  Vec3 lo{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
  Vec3 hi = -lo;
  for (const Vec3& p : mesh.points)
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], p[i]);
      hi[i] = std::max(hi[i], p[i]);
    }
  for (int i = 0; i < 3; ++i) {
    lo[i] = -comm.max(-lo[i]);
    hi[i] = comm.max(hi[i]);
  }
  const Vec3 mid = 0.5 * (lo + hi);
  return {{"vertical", {mid.x, lo.y, mid.z}, {mid.x, hi.y, mid.z}, points, 1},
          {"horizontal", {lo.x, mid.y, mid.z}, {hi.x, mid.y, mid.z}, points, 0}};
}

CentrelineSampler::CentrelineSampler(const MeshGeometry& g, std::vector<SampleLine> lines, const Communicator& comm,
                                     std::span<const label> global_cell)
    : geometry_(g), comm_(comm), lines_(std::move(lines)) {
  for (size_t l = 0; l < lines_.size(); ++l) {
    const SampleLine& line = lines_[l];
    if (line.points < 2) throw std::invalid_argument("sample line '" + line.name + "' needs at least 2 points");
    for (int k = 0; k < line.points; ++k) {
      const double s = static_cast<double>(k) / (line.points - 1);
      points_.push_back(line.start + s * (line.end - line.start));
      point_line_.push_back(static_cast<int>(l));
    }
  }
  // --- nearest cell centre of each point (brute force, once). Centres equally near up to rounding
  //     (a point on a face between two cells) go to the lower cell number, so that the choice does
  //     not depend on how the centres were rounded (a rank's part computes its own)
  const auto n_points = static_cast<std::ptrdiff_t>(points_.size());
  const auto n_cells = static_cast<label>(g.cell_centres.size());
  std::vector<double> tie(n_points);
  for (std::ptrdiff_t k = 0; k < n_points; ++k) {
    const Vec3 span = lines_[point_line_[k]].end - lines_[point_line_[k]].start;
    tie[k] = 1e-12 * dot(span, span);
  }
  cells_.assign(n_points, 0);
  std::vector<double> nearest(n_points, std::numeric_limits<double>::max());
#pragma omp parallel for schedule(dynamic, 4)
  for (std::ptrdiff_t k = 0; k < n_points; ++k) {
    for (label c = 0; c < n_cells; ++c) {
      const Vec3 d = g.cell_centres[c] - points_[k];
      const double d2 = dot(d, d);
      if (d2 < nearest[k] - tie[k]) {
        nearest[k] = d2;
        cells_[k] = c;
      }
    }
  }
  // --- across ranks the same rule: of the ranks' nearest, the lowest whole-mesh cell among equals (a
  //     part keeps its cells' order, so its own choice is the lowest of its equals)
  mine_.assign(n_points, true);
  if (!comm.distributed()) return;
  std::vector<double> cell_numbers(n_points);
  for (std::ptrdiff_t k = 0; k < n_points; ++k) cell_numbers[k] = static_cast<double>(global_cell[cells_[k]]);
  const std::vector<double> all_nearest = comm.gather(nearest), all_cells = comm.gather(cell_numbers);
  const auto at = [&](int rank, std::ptrdiff_t k) { return static_cast<std::size_t>(rank) * n_points + k; };
  for (std::ptrdiff_t k = 0; k < n_points; ++k) {
    double least = all_nearest[at(0, k)];
    for (int r = 1; r < comm.size(); ++r) least = std::min(least, all_nearest[at(r, k)]);
    int best = -1;
    for (int r = 0; r < comm.size(); ++r)
      if (all_nearest[at(r, k)] <= least + tie[k] && (best < 0 || all_cells[at(r, k)] < all_cells[at(best, k)]))
        best = r;
    mine_[k] = best == comm.rank();
  }
}

std::vector<LineSample> CentrelineSampler::sample(const std::array<std::span<const double>, 3>& velocity,
                                                  const std::array<std::vector<Vec3>, 3>& velocity_gradients,
                                                  std::span<const double> pressure,
                                                  std::span<const Vec3> pressure_gradient) const {
  std::vector<LineSample> samples(points_.size());
  std::vector<double> values(4 * points_.size(), 0.0);  // U and p of this rank's points, 0 elsewhere
  for (size_t k = 0; k < points_.size(); ++k) {
    samples[k].line = point_line_[k];
    samples[k].position = points_[k];
    if (!mine_[k]) continue;
    const label c = cells_[k];
    // --- phi(x) = phi_c + grad phi_c . (x - x_c)
    const Vec3 dx = points_[k] - geometry_.cell_centres[c];
    for (int i = 0; i < 3; ++i) values[4 * k + i] = velocity[i][c] + dot(velocity_gradients[i][c], dx);
    values[4 * k + 3] = pressure[c] + dot(pressure_gradient[c], dx);
  }
  comm_.sum(values);  // each point from the one rank that has it
  for (size_t k = 0; k < points_.size(); ++k) {
    samples[k].velocity = {values[4 * k], values[4 * k + 1], values[4 * k + 2]};
    samples[k].pressure = values[4 * k + 3];
  }
  return samples;
}

void CentrelineSampler::write_csv(const std::filesystem::path& file, const std::vector<LineSample>& samples) const {
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  out << "line,coordinate,x,y,z,Ux,Uy,Uz,p\n";
  for (const LineSample& s : samples) {
    const SampleLine& line = lines_[s.line];
    out << fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", line.name,
                       s.position[line.axis], s.position.x, s.position.y, s.position.z, s.velocity.x, s.velocity.y,
                       s.velocity.z, s.pressure);
  }
  if (!out) throw std::runtime_error("error writing " + file.string());
}

}  // namespace fvmmini
