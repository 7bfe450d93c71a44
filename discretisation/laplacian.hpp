#pragma once
// The finite-volume Laplacian -div(gamma grad phi), assembled as a symmetric
// positive (semi-)definite LDU matrix. Non-orthogonal faces use OpenFOAM's
// over-relaxed split S_f = Delta_f + k_f: Delta_f implicit, k_f explicit as a
// deferred correction added to the right-hand side, with a skewness correction
// that moves the implicit part from the middle of PN to the face centre.

#include <memory>
#include <span>
#include <vector>

#include "base/unfilled_vector.hpp"
#include "discretisation/boundary_conditions.hpp"
#include "discretisation/least_squares_gradient.hpp"
#include "discretisation/processor_faces.hpp"
#include "linalg/ldu_matrix.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

/// LDU addressing of the mesh's cell-to-cell coupling (owner/neighbour of internal faces).
std::shared_ptr<const LduAddressing> make_addressing(const Mesh& mesh);

class Laplacian {
 public:
  /// Precompute the face coefficients |S_f| / (n_f . d_f), and the correction vectors |S_f| k_f
  /// where this mesh (this rank's part) is non-orthogonal. On a rank's piece of a decomposed mesh,
  /// `processor` gives the cell centres across its processor faces (one exchange: collective),
  /// where d_f runs to the centre across as on an internal face.
  Laplacian(const Mesh& mesh, const MeshGeometry& geometry, ProcessorFaces* processor = nullptr);

  const std::shared_ptr<const LduAddressing>& addressing() const { return addressing_; }
  /// False when some face has a non-zero correction vector (the mesh is non-orthogonal).
  bool is_orthogonal() const { return orthogonal_; }
  /// The correction vectors (24 bytes a face) once the caller knows whether the whole mesh, every
  /// rank's part, is orthogonal: made where this part is orthogonal but another is not, freed
  /// where every part is (non_orthogonal_corrections() is empty then and
  /// add_non_orthogonal_correction refuses).
  void keep_corrections(bool wanted);

  /// a = the matrix of -div(gamma grad phi) (gamma uniform) with the boundary conditions. Overwrites a.
  /// A processor face adds its coefficient to the diagonal as an internal face does; its coupling
  /// to the cell across is processor_couplings'.
  void assemble(double gamma, const ScalarBoundary& boundary, LduMatrix& a) const;
  /// The same over the mesh's cell_face_lists already made: the diagonal gathered cell by cell.
  void assemble(double gamma, const ScalarBoundary& boundary, LduMatrix& a, const CellFaceLists& cells) const;
  /// The coupling -gamma |S_f| / (n_f . d_f) of each processor face to the cell across, in
  /// ProcessorFaces::faces() order (empty without processor faces).
  std::vector<double> processor_couplings(double gamma) const;

  /// b += the boundary conditions' source: gamma a_b phi_b on the owners of fixedValue faces.
  void add_boundary_source(double gamma, const ScalarBoundary& boundary, std::span<double> b) const;

  /// b += the deferred correction gamma (S_f . grad phi(x_f) - |S_f|/(n_f . d_f) (phi_N - phi_P)) for the
  /// owner (minus for the neighbour), from cell gradients and Hessians (LeastSquaresGradient's). The
  /// implicit part is Delta_f . grad phi at the middle m of PN for quadratic phi; the correction is
  /// k_f . grad phi(x_f) plus the skewness term Delta_f . (grad phi(x_f) - grad phi(m)), so the flux
  /// is exact for quadratic fields on any internal face with exact gradients and Hessians. On
  /// fixedValue faces k_b . the owner's gradient (OpenFOAM leaves it out, which is inconsistent on
  /// skewed boundary cells; moving it to the face centre measured no better on tetrahedra and a lower
  /// order on the polyhedra).
  /// Every face adds its terms (an orthogonal face its skewness term alone): the caller asks only
  /// for a mesh that is non-orthogonal somewhere, on any rank. On a rank's part, a processor face
  /// is an internal face whose neighbour's gradient and Hessian are across_gradient[k] and
  /// across_hessian[k] (ProcessorFaces::faces() order).
  void add_non_orthogonal_correction(double gamma, const ScalarBoundary& boundary, std::span<const Vec3> gradient,
                                     std::span<const Hessian> hessian, std::span<double> b,
                                     std::span<const Vec3> across_gradient = {},
                                     std::span<const Hessian> across_hessian = {}) const;

  /// The implicit coefficient gamma |S_f|^2 / (S_f . d_f) of internal face f, per unit gamma.
  std::span<const double> face_coefficients() const { return face_coeffs_; }
  /// The coefficient |S_f| / (n_f . d_f) of each boundary face (index f - n_internal), per unit gamma.
  std::span<const double> boundary_coefficients() const { return boundary_coeffs_; }
  /// |S_f| k_f of every face: the explicit, non-orthogonal part of its area vector (zero when
  /// orthogonal); empty where none are kept (keep_corrections).
  std::span<const Vec3> non_orthogonal_corrections() const { return corrections_; }
  /// Linear interpolation weights of internal faces (owner side).
  std::span<const double> weights() const { return weights_; }

 private:
  /// visit(face, boundary coefficient per unit gamma, face value) for every fixedValue face.
  template <class F>
  void for_each_fixed_value_face(const ScalarBoundary& boundary, F&& visit) const;
  /// The end of face f's d: the neighbour's centre, a boundary face's centre or the centre across
  /// a processor face.
  Vec3 far_end(label f) const;

  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  std::shared_ptr<const LduAddressing> addressing_;
  // unfilled: the constructor's loops write every entry
  UnfilledVector<double> face_coeffs_;
  UnfilledVector<double> boundary_coeffs_;
  UnfilledVector<Vec3> corrections_;  ///< |S_f| k_f with k_f = n_f - d_f / (n_f . d_f), every face, or none
  std::vector<Vec3> boundary_far_end_;  ///< far_end of each boundary face (index f - n_internal)
  std::vector<label> processor_faces_;  ///< ProcessorFaces::faces(), or empty
  std::vector<Vec3> processor_far_end_;  ///< the centre of the cell across each processor face
  UnfilledVector<double> weights_;
  bool orthogonal_ = true;
};

}  // namespace fvmmini
