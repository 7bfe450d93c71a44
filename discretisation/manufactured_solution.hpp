#pragma once
// The built-in manufactured solution "sine" for -div(gamma grad phi) = S and
// d(phi)/dt = div(gamma grad phi):
//
//   phi(x, t) = e^(-m pi^2 gamma t) prod_i sin(pi x_i) + (x + 2y + 3z)
//
// over the m active directions (those not normal to an empty patch; the linear part
// is harmonic and makes boundary values non-trivial). Steady: S = m pi^2 gamma prod_i sin(pi x_i)
// and t = 0; transient: S = 0 (the sine mode decays exactly).

#include <array>

#include "mesh/geometry.hpp"

namespace fvmmini {

class ManufacturedSolution {
 public:
  ManufacturedSolution(std::array<bool, 3> active, double gamma, bool transient);
  /// Active directions from the mesh: its solved_directions.
  static ManufacturedSolution for_mesh(const Mesh& mesh, const MeshGeometry& geometry, double gamma, bool transient);

  double value(const Vec3& x, double time) const;
  double source(const Vec3& x) const;
  int active_directions() const;

 private:
  std::array<bool, 3> active_;
  double gamma_;
  bool transient_;
};

/// Discrete error against an exact field sampled at cell centres.
struct ErrorNorms {
  double l2 = 0.0;   ///< sqrt(sum V e^2 / sum V)
  double max = 0.0;  ///< max |e|
};

}  // namespace fvmmini
