#include "discretisation/incompressible/centreline_sampler.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <stdexcept>

namespace fvmmini {

std::vector<SampleLine> cavity_centrelines(const Mesh& mesh, int points) {
  Vec3 lo{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
  Vec3 hi = -lo;
  for (const Vec3& p : mesh.points)
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], p[i]);
      hi[i] = std::max(hi[i], p[i]);
    }
  const Vec3 mid = 0.5 * (lo + hi);
  return {{"vertical", {mid.x, lo.y, mid.z}, {mid.x, hi.y, mid.z}, points, 1},
          {"horizontal", {lo.x, mid.y, mid.z}, {hi.x, mid.y, mid.z}, points, 0}};
}

CentrelineSampler::CentrelineSampler(const MeshGeometry& g, std::vector<SampleLine> lines)
    : geometry_(g), lines_(std::move(lines)) {
  for (size_t l = 0; l < lines_.size(); ++l) {
    const SampleLine& line = lines_[l];
    if (line.points < 2) throw std::invalid_argument("sample line '" + line.name + "' needs at least 2 points");
    for (int k = 0; k < line.points; ++k) {
      const double s = static_cast<double>(k) / (line.points - 1);
      points_.push_back(line.start + s * (line.end - line.start));
      point_line_.push_back(static_cast<int>(l));
    }
  }
  // --- nearest cell centre of each point (brute force, once)
  const auto n_points = static_cast<std::ptrdiff_t>(points_.size());
  const auto n_cells = static_cast<label>(g.cell_centres.size());
  cells_.assign(n_points, 0);
#pragma omp parallel for schedule(dynamic, 4)
  for (std::ptrdiff_t k = 0; k < n_points; ++k) {
    double best = std::numeric_limits<double>::max();
    for (label c = 0; c < n_cells; ++c) {
      const Vec3 d = g.cell_centres[c] - points_[k];
      const double d2 = dot(d, d);
      if (d2 < best) {
        best = d2;
        cells_[k] = c;
      }
    }
  }
}

std::vector<LineSample> CentrelineSampler::sample(const std::array<std::span<const double>, 3>& velocity,
                                                  const std::array<std::vector<Vec3>, 3>& velocity_gradients,
                                                  std::span<const double> pressure,
                                                  std::span<const Vec3> pressure_gradient) const {
  std::vector<LineSample> samples(points_.size());
  for (size_t k = 0; k < points_.size(); ++k) {
    const label c = cells_[k];
    // --- phi(x) = phi_c + grad phi_c . (x - x_c)
    const Vec3 dx = points_[k] - geometry_.cell_centres[c];
    LineSample& s = samples[k];
    s.line = point_line_[k];
    s.position = points_[k];
    for (int i = 0; i < 3; ++i) s.velocity[i] = velocity[i][c] + dot(velocity_gradients[i][c], dx);
    s.pressure = pressure[c] + dot(pressure_gradient[c], dx);
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
