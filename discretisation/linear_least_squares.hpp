#pragma once
// The weights of OpenFOAM's leastSquares gradient: a weighted linear fit over face neighbours
// and boundary faces, exact for linear fields on any mesh. The flow gathers its velocity
// gradients with them per cell; the scalar problem's deferred correction needs the quadratic
// fit of least_squares_gradient.hpp instead.

#include <array>
#include <span>
#include <vector>

#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

class LinearLeastSquares {
 public:
  /// Precompute per cell the inverse of G = sum_f w d d^T, w = 1/|d|^2, d to the neighbour's
  /// centre or, on non-empty boundary faces, to the face centre. On a rank's part of a decomposed
  /// mesh, `across` holds the centres of the cells across its processor faces (ProcessorFaces'
  /// order: face n_internal + k), where d runs as on an internal face.
  LinearLeastSquares(const Mesh& mesh, const MeshGeometry& geometry, std::span<const Vec3> across = {});
  /// The same over the mesh's cell_face_lists already made; with fit_every_cell false no cell's
  /// G^-1 is made ahead (weights_of makes a cell's when asked: a few cells, such as the output's
  /// samples, at no cost a cell).
  LinearLeastSquares(const Mesh& mesh, const MeshGeometry& geometry, std::span<const Vec3> across,
                     const CellFaceLists& cells, bool fit_every_cell = true);

  /// The weight of face f in cell c's gradient, G_c^-1 w d (d from c to the other side):
  /// grad(phi)_c = sum_f weight(c, f) (phi_other - phi_c). @pre every cell fitted
  Vec3 weight(label cell, label face) const;
  /// The weights of the cell's faces (all of them, in any order), each as weight() gives it to the
  /// bit, its G^-1 made now.
  std::vector<Vec3> weights_of(label cell, std::span<const label> faces) const;

 private:
  using Sym3 = std::array<double, 6>;  ///< symmetric: xx, xy, xz, yy, yz, zz
  /// G_c^-1 from the cell's faces in ascending order.
  template <class EachFace>
  Sym3 fit(label cell, EachFace&& each_face) const;
  Vec3 weight(const Sym3& inverse, label cell, label face) const;

  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  std::vector<Sym3> inverse_;         ///< per cell, where every cell is fitted
  std::vector<Vec3> far_end_;         ///< per boundary face: its centre, or the centre across
  std::vector<char> fitted_;          ///< per boundary face: not of an empty patch
};

}  // namespace fvmmini
