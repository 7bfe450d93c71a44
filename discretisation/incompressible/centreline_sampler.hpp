#pragma once
// Values along straight lines through the mesh (the cavity's centrelines for the
// comparison with Ghia et al.): each point takes the value of the cell whose centre
// is nearest, reconstructed linearly with the cell's gradient, phi(x) = phi_c + grad phi_c . (x - x_c),
// which is second-order on any mesh.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

struct SampleLine {
  std::string name;  ///< written in the CSV's "line" column
  Vec3 start, end;
  int points = 129;  ///< evenly spaced, both ends included
  int axis = 0;      ///< the coordinate written in the "coordinate" column (0 x, 1 y, 2 z)
};

/// The cavity's centrelines through the middle of the mesh's bounding box: "vertical"
/// (x and z at the middle, y varying: u is compared there) and "horizontal" (y and z at the
/// middle, x varying: v). points = 129 puts the points on Ghia's grid for a unit box. On a rank's
/// part the box is the whole mesh's (over the ranks of comm: collective).
std::vector<SampleLine> cavity_centrelines(const Mesh& mesh, int points = 129,
                                           const Communicator& comm = Communicator::serial());

/// The bytes a sampler of `points` points in all (every line's) holds at its largest, on `ranks`
/// ranks (the root gathers each rank's nearest centres): what sampling.points costs in memory.
/// Each point: its position, line, cell and owner; its distance and tie while located; its
/// sample and values at a write; the points' list while it grows.
std::uint64_t sampler_bytes(std::int64_t points, int ranks = 1);

/// The bytes of one centrelines.csv of `points` points in all, about (a row of nine numbers each).
std::uint64_t sampler_csv_bytes(std::int64_t points);

struct LineSample {
  int line = 0;  ///< index into the sampler's lines
  Vec3 position;
  Vec3 velocity;
  double pressure = 0.0;
};

class CentrelineSampler {
 public:
  /// Locate the nearest cell centre of every point (once; the mesh does not move). On a rank's part
  /// of a decomposed mesh, comm is the run's ranks and global_cell the part's cells' numbers in the
  /// whole mesh: a point belongs to the rank with the nearest centre, the lowest whole-mesh number
  /// among equally near ones, as on one rank. Collective.
  CentrelineSampler(const MeshGeometry& geometry, std::vector<SampleLine> lines,
                    const Communicator& comm = Communicator::serial(), std::span<const label> global_cell = {});

  const std::vector<SampleLine>& lines() const { return lines_; }

  /// The gradient of velocity component i at cell c: asked for the sampled cells alone.
  using CellGradient = std::function<Vec3(int i, label c)>;

  /// Reconstruct U and p at the points (across ranks: every rank gets every point; collective).
  /// @param[in] velocity the three components per cell; @param[in] velocity_gradient their gradients
  std::vector<LineSample> sample(const std::array<std::span<const double>, 3>& velocity,
                                 const CellGradient& velocity_gradient, std::span<const double> pressure,
                                 std::span<const Vec3> pressure_gradient) const;

  /// Write "line,coordinate,x,y,z,Ux,Uy,Uz,p", one row per point (the caller checks the stream).
  void write_csv(std::ostream& out, const std::vector<LineSample>& samples) const;

 private:
  const MeshGeometry& geometry_;
  const Communicator& comm_;
  std::vector<SampleLine> lines_;
  std::vector<bool> mine_;  ///< per point: this rank has its nearest cell
  std::vector<int> point_line_;
  std::vector<Vec3> points_;
  std::vector<label> cells_;
};

}  // namespace fvmmini
