#pragma once
// Cell-to-face addressing for gathers: each cell lists its faces with the sign of
// the face's area vector seen from the cell (+1 owner, -1 neighbour). Loops over
// cells that gather from faces parallelise without atomics; faces of empty patches
// are left out (they carry neither flux nor gradient contribution in 2-D).

#include <span>
#include <vector>

#include "base/unfilled_vector.hpp"
#include "discretisation/incompressible/flow_formulas.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

class CellFaces {
 public:
  /// Build the lists; faces of patches of type "empty" are skipped.
  explicit CellFaces(const Mesh& mesh);
  /// The same from the mesh's cell_face_lists already made.
  CellFaces(const Mesh& mesh, const CellFaceLists& lists);

  label n_cells() const { return static_cast<label>(offsets_.size()) - 1; }
  /// Faces of cell c are entries offsets()[c] .. offsets()[c+1].
  std::span<const label> offsets() const { return offsets_; }
  std::span<const label> faces() const { return faces_; }
  std::span<const std::int8_t> signs() const { return signs_; }
  /// The lists with the cell volumes as the view the formulas of flow_formulas.hpp take.
  flow::Cells view(const MeshGeometry& geometry) const {
    return {n_cells(), geometry.cell_volumes.data(), offsets_.data(), faces_.data(), signs_.data()};
  }

  /// div[c] = sum_f sign * face_values[f] (the net outflow of a face flux field).
  void divergence(std::span<const double> face_values, std::span<double> div) const;

  /// grad[c] = (1/V_c) sum_f sign * face_values[f] S_f (the Gauss gradient from face values).
  void gauss_gradient(const MeshGeometry& geometry, std::span<const double> face_values, std::span<Vec3> grad) const;

 private:
  UnfilledVector<label> offsets_;  ///< unfilled: every entry written
  UnfilledVector<label> faces_;        ///< unfilled: every entry written
  UnfilledVector<std::int8_t> signs_;  ///< one byte an entry: the products with them are exact
};

}  // namespace fvmmini
