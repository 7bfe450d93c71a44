#pragma once
// The mesh's geometry and the mesh check's passes on the GPU: the mesh and its cell_face_lists
// uploaded, the geometry made there by mesh_formulas.hpp's functions (the host's to the bit:
// neither side contracts a multiply and an add), then one kernel over the faces and one over the
// cells; the sums taken in the host's chunks and merged in its order. The figures are the host's
// (mesh_figures) to the bit but for the largest aspect ratio, whose pow may differ from the C
// library's in the last bit. In a build without CUDA the constructor throws (no case resolves to
// the cuda backend there).

#include <memory>

#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_check.hpp"

namespace fvmmini {

/// The mesh, its cell lists and their geometry on the current device (freed with the object).
class DeviceMeshGeometry {
 public:
  /// Uploads the mesh and the lists and makes the geometry, complete on return.
  /// @throws CudaError where the device fails; SolverError in a build without CUDA
  DeviceMeshGeometry(const Mesh& mesh, const CellFaceLists& cells);
  ~DeviceMeshGeometry();
  DeviceMeshGeometry(const DeviceMeshGeometry&) = delete;
  DeviceMeshGeometry& operator=(const DeviceMeshGeometry&) = delete;

  /// The geometry copied to the host: compute_geometry's, to the bit.
  MeshGeometry download() const;
  /// mesh_figures' passes over the mesh and this geometry.
  MeshFigures figures(const FigureRules& rules) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini
