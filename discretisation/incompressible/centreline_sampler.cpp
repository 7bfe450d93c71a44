#include "discretisation/incompressible/centreline_sampler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cmath>
#include <ostream>
#include <limits>
#include <stdexcept>

namespace fvmmini {

namespace {

/// The cell centres sorted into a uniform grid of buckets over their bounding box, about two
/// centres a bucket, for nearest-centre queries that look at the buckets around a point only.
class CentreGrid {
 public:
  explicit CentreGrid(std::span<const Vec3> centres) : centres_(centres) {
    const auto n = static_cast<double>(centres.size());
    const Bounds box = bounds_of(centres);
    lo_ = box.lo;
    const Vec3& hi = box.hi;
    // --- a bucket side h from the extents that are not flat (a 2-D mesh's centres share one z,
    //     up to rounding), at most about 4 n + 64 buckets
    const double largest = std::max({hi[0] - lo_[0], hi[1] - lo_[1], hi[2] - lo_[2], 0.0});
    std::array<bool, 3> flat{};
    double measure = 1.0;
    int dims = 0;
    for (int i = 0; i < 3; ++i) {
      flat[i] = !(hi[i] - lo_[i] > 1e-9 * largest);
      if (flat[i]) continue;
      measure *= hi[i] - lo_[i];
      ++dims;
    }
    const double h = dims > 0 ? std::pow(measure / std::max(1.0, n / 2.0), 1.0 / dims) : 1.0;
    for (int i = 0; i < 3; ++i)
      buckets_[i] = flat[i] ? 1 : static_cast<int>(std::clamp(std::floor((hi[i] - lo_[i]) / h), 1.0, 1024.0));
    while (static_cast<double>(buckets_[0]) * buckets_[1] * buckets_[2] > 4.0 * n + 64.0) {
      int& most = *std::max_element(buckets_.begin(), buckets_.end());
      most = std::max(1, most / 2);
    }
    for (int i = 0; i < 3; ++i) side_[i] = buckets_[i] > 1 ? (hi[i] - lo_[i]) / buckets_[i] : 0.0;
    // --- counting sort of the centres by bucket on every thread, each bucket's cells then sorted
    //     (ascending, as one thread would place them)
    const auto n_centres = static_cast<label>(centres.size());
    const auto n_buckets = static_cast<std::int64_t>(buckets_[0]) * buckets_[1] * buckets_[2];
    start_.assign(static_cast<std::size_t>(n_buckets) + 1, 0);
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_centres; ++c)
      std::atomic_ref<label>(start_[bucket_of(centres[c]) + 1]).fetch_add(1, std::memory_order_relaxed);
    for (std::size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
    cells_.resize(centres.size());
    std::vector<label> next(start_.begin(), start_.end() - 1);
#pragma omp parallel for schedule(static)
    for (label c = 0; c < n_centres; ++c)
      cells_[std::atomic_ref<label>(next[bucket_of(centres[c])]).fetch_add(1, std::memory_order_relaxed)] = c;
#pragma omp parallel for schedule(static)
    for (std::int64_t b = 0; b < n_buckets; ++b) std::sort(cells_.begin() + start_[b], cells_.begin() + start_[b + 1]);
  }

  /// The cell whose centre is nearest to p, the lowest number among those within tie of the
  /// least squared distance; its squared distance in d2. None (-1) without cells.
  label nearest(const Vec3& p, double tie, double& d2) const {
    std::array<int, 3> home{};
    for (int i = 0; i < 3; ++i) home[i] = coordinate(p, i);
    // --- buckets ring by ring (Chebyshev distance r from p's): a centre in ring r + 1 or beyond
    //     is at least r times the smallest bucket side away
    double least = std::numeric_limits<double>::max();
    std::vector<std::pair<double, label>> near;  // every centre seen within tie of the least so far
    double side = std::numeric_limits<double>::max();
    for (int i = 0; i < 3; ++i)
      if (buckets_[i] > 1) side = std::min(side, side_[i]);
    const int rings = std::max({buckets_[0], buckets_[1], buckets_[2]});
    for (int r = 0; r < rings; ++r) {
      if (r > 0 && least < std::numeric_limits<double>::max()) {
        const double reach = (r - 1) * side;
        if (reach * reach > least + tie) break;
      }
      visit_ring(home, r, [&](label c) {
        const Vec3 d = centres_[c] - p;
        const double dc = dot(d, d);
        if (dc > least + tie) return;
        least = std::min(least, dc);
        near.emplace_back(dc, c);
      });
    }
    label best = -1;
    for (const auto& [dc, c] : near)
      if (dc <= least + tie && (best < 0 || c < best)) best = c;
    d2 = least;
    return best;
  }

 private:
  int coordinate(const Vec3& x, int i) const {
    if (buckets_[i] == 1) return 0;
    return static_cast<int>(std::clamp(std::floor((x[i] - lo_[i]) / side_[i]), 0.0, buckets_[i] - 1.0));
  }
  std::size_t bucket_of(const Vec3& x) const {
    return (static_cast<std::size_t>(coordinate(x, 2)) * buckets_[1] + coordinate(x, 1)) * buckets_[0] +
           coordinate(x, 0);
  }
  /// visit(c) for every cell of the buckets at Chebyshev distance exactly r from home.
  template <class Visit>
  void visit_ring(const std::array<int, 3>& home, int r, Visit&& visit) const {
    std::array<int, 3> from{}, to{};
    for (int i = 0; i < 3; ++i) {
      from[i] = std::max(0, home[i] - r);
      to[i] = std::min(buckets_[i] - 1, home[i] + r);
    }
    for (int z = from[2]; z <= to[2]; ++z)
      for (int y = from[1]; y <= to[1]; ++y)
        for (int x = from[0]; x <= to[0]; ++x) {
          if (std::max({std::abs(x - home[0]), std::abs(y - home[1]), std::abs(z - home[2])}) != r) continue;
          const std::size_t b = (static_cast<std::size_t>(z) * buckets_[1] + y) * buckets_[0] + x;
          for (label k = start_[b]; k < start_[b + 1]; ++k) visit(cells_[k]);
        }
  }

  std::span<const Vec3> centres_;
  Vec3 lo_;
  std::array<int, 3> buckets_{};
  std::array<double, 3> side_{};
  std::vector<label> start_;  ///< per bucket, its first entry of cells_ (n_cells fits a label)
  std::vector<label> cells_;
};

}  // namespace

std::vector<SampleLine> cavity_centrelines(const Mesh& mesh, int points, const Communicator& comm) {
  auto [lo, hi] = bounds_of(mesh.points);
  for (int i = 0; i < 3; ++i) {
    lo[i] = -comm.max(-lo[i]);
    hi[i] = comm.max(hi[i]);
  }
  const Vec3 mid = 0.5 * (lo + hi);
  return {{"vertical", {mid.x, lo.y, mid.z}, {mid.x, hi.y, mid.z}, points, 1},
          {"horizontal", {lo.x, mid.y, mid.z}, {hi.x, mid.y, mid.z}, points, 0}};
}

std::uint64_t sampler_bytes(std::int64_t points, int ranks) {
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(points, 0));
  // positions (24, twice while the list grows), line and cell (8), tie and distance (16), a sample
  // (64) and its values (32); on ranks the cell numbers (8) and the root's gathers (16 a rank)
  const std::uint64_t per_point = 48 + 8 + 16 + 64 + 32 + (ranks > 1 ? 8 + 16 * static_cast<std::uint64_t>(ranks) : 0);
  return n * per_point;
}

std::uint64_t sampler_csv_bytes(std::int64_t points) {
  return 140 * static_cast<std::uint64_t>(std::max<std::int64_t>(points, 0)) + 64;
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
  // --- nearest cell centre of each point (once, through a grid of buckets). Centres equally near
  //     up to rounding (a point on a face between two cells) go to the lower cell number, so that
  //     the choice does not depend on how the centres were rounded (a rank's part computes its own)
  const auto n_points = static_cast<std::ptrdiff_t>(points_.size());
  std::vector<double> tie(n_points);
  for (std::ptrdiff_t k = 0; k < n_points; ++k) {
    const Vec3 span = lines_[point_line_[k]].end - lines_[point_line_[k]].start;
    tie[k] = 1e-12 * dot(span, span);
  }
  cells_.assign(n_points, 0);
  std::vector<double> nearest(n_points, std::numeric_limits<double>::max());
  if (!g.cell_centres.empty()) {
    const CentreGrid grid(g.cell_centres);
#pragma omp parallel for schedule(dynamic, 4)
    for (std::ptrdiff_t k = 0; k < n_points; ++k) cells_[k] = grid.nearest(points_[k], tie[k], nearest[k]);
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
                                                  const CellGradient& velocity_gradient,
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
    for (int i = 0; i < 3; ++i) values[4 * k + i] = velocity[i][c] + dot(velocity_gradient(i, c), dx);
    values[4 * k + 3] = pressure[c] + dot(pressure_gradient[c], dx);
  }
  comm_.sum(values);  // each point from the one rank that has it
  for (size_t k = 0; k < points_.size(); ++k) {
    samples[k].velocity = {values[4 * k], values[4 * k + 1], values[4 * k + 2]};
    samples[k].pressure = values[4 * k + 3];
  }
  return samples;
}

void CentrelineSampler::write_csv(std::ostream& out, const std::vector<LineSample>& samples) const {
  out << "line,coordinate,x,y,z,Ux,Uy,Uz,p\n";
  for (const LineSample& s : samples) {
    const SampleLine& line = lines_[s.line];
    out << fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", line.name,
                       s.position[line.axis], s.position.x, s.position.y, s.position.z, s.velocity.x, s.velocity.y,
                       s.velocity.z, s.pressure);
  }
}

}  // namespace fvmmini
