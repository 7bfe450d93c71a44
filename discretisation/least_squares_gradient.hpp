#pragma once
// Cell gradients by weighted least squares over face neighbours (OpenFOAM's
// leastSquares): exact for linear fields on any mesh, so it keeps the
// non-orthogonal correction consistent on skewed cells where the Gauss gradient is not.

#include <array>
#include <span>
#include <vector>

#include "discretisation/boundary_conditions.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

class LeastSquaresGradient {
 public:
  /// Precompute per cell the inverse of G = sum_f w d d^T, w = 1/|d|^2, d to the neighbour's
  /// centre or, on non-empty boundary faces, to the face centre.
  LeastSquaresGradient(const Mesh& mesh, const MeshGeometry& geometry);

  /// grad(phi)_P = G^-1 sum_f w d (phi_f - phi_P), boundary values from the conditions.
  /// @param[out] gradient one vector per cell
  void compute(const ScalarBoundary& boundary, std::span<const double> phi, std::span<Vec3> gradient) const;

  /// The weight of face f in cell c's gradient, G_c^-1 w d (d from c to the other side):
  /// grad(phi)_c = sum_f weight(c, f) (phi_other - phi_c), for a caller that gathers per cell.
  Vec3 weight(label cell, label face) const;

 private:
  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  std::vector<std::array<double, 6>> inverse_;  ///< symmetric G^-1: xx, xy, xz, yy, yz, zz
};

}  // namespace fvmmini
