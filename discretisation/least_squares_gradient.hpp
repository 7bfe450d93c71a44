#pragma once
// Cell gradients and Hessians by a weighted least-squares quadratic fit over rings of face
// neighbours and their boundary faces. Exact for quadratic fields on any mesh: the gradient
// is second-order accurate on skewed cells, where the linear least-squares and Gauss
// gradients are first order, and the Hessian moves it to a face centre to second order.
// The Laplacian's non-orthogonal and skewness corrections need both for second-order fluxes.

#include <array>
#include <span>
#include <vector>

#include "discretisation/boundary_conditions.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

/// A symmetric 3 x 3 matrix of second derivatives, by rows.
struct Hessian {
  std::array<Vec3, 3> rows{};
};
inline Vec3 operator*(const Hessian& h, const Vec3& v) {
  return {dot(h.rows[0], v), dot(h.rows[1], v), dot(h.rows[2], v)};
}

class LeastSquaresGradient {
 public:
  /// Per cell: the stencil (rings of face neighbours until there are at least twice as many points
  /// as the fit's 9 unknowns, and the boundary faces of those cells but on empty patches) and the
  /// inverse of the fit's normal matrix.
  LeastSquaresGradient(const Mesh& mesh, const MeshGeometry& geometry);

  /// phi_P + d . g + d^T H d / 2 fitted to the stencil's values at d = x - x_P, weight 1/|d|^2;
  /// boundary values from the conditions (zeroGradient: the owner's value).
  /// @param[out] gradient g, one per cell
  /// @param[out] hessian H, one per cell
  void compute(const ScalarBoundary& boundary, std::span<const double> phi, std::span<Vec3> gradient,
               std::span<Hessian> hessian) const;

 private:
  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  // --- per cell P, CSR: the stencil's cells and boundary faces
  std::vector<label> cell_offsets_{0}, stencil_cells_;
  std::vector<label> face_offsets_{0}, stencil_faces_;
  std::vector<double> scales_;                   ///< the farthest stencil point: d is fitted as d / scale
  std::vector<std::array<double, 45>> inverses_;  ///< the normal matrix's inverse, upper triangle by rows
};

}  // namespace fvmmini
