#pragma once
// The mesh's cell lists, its geometry and the mesh check's passes on the GPU: the mesh uploaded,
// its cell_face_lists made there (the host's: a sort of every entry by cell, side and face), the
// geometry by mesh_formulas.hpp's functions (the host's to the bit: neither side contracts a
// multiply and an add), then the check's kernels, one over the faces and one over the cells, the
// sums taken in the host's chunks and merged in its order. The figures are the host's
// (mesh_figures) to the bit but for the largest aspect ratio, whose pow may differ from the C
// library's in the last bit. In a build without CUDA the constructor throws (no case resolves to
// the cuda backend there).

#include <memory>

#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_formulas.hpp"

namespace fvmmini {

/// The mesh, its cell lists and its geometry on the current device (freed with the object).
class DeviceMeshGeometry {
 public:
  /// Uploads the mesh and makes its lists and geometry, complete on return.
  /// @throws CudaError where the device fails; SolverError in a build without CUDA
  explicit DeviceMeshGeometry(const Mesh& mesh);
  ~DeviceMeshGeometry();
  DeviceMeshGeometry(const DeviceMeshGeometry&) = delete;
  DeviceMeshGeometry& operator=(const DeviceMeshGeometry&) = delete;

  /// Whether the buffers for `mesh` (about 480 bytes a cell of a hexahedral mesh, the sort's keys
  /// the largest) fit in the current device's free memory with a tenth to spare: rank 0 checks the
  /// whole mesh of a run split over many GPUs. Without CUDA: false.
  /// @throws CudaError where the device fails
  static bool fits(const Mesh& mesh);

  /// The lists copied to the host: cell_face_lists'.
  CellFaceLists download_lists() const;
  /// The geometry copied to the host: compute_geometry's, to the bit.
  MeshGeometry download_geometry() const;
  /// mesh_figures' passes over the mesh and this geometry.
  MeshFigures figures(const FigureRules& rules) const;

  /// The mesh, its lists and its geometry as the formulas' views of device memory (valid while
  /// this object lives): what later set-up kernels read (incompressible/device_flow_operators).
  mesh_formulas::MeshView mesh_view() const;
  mesh_formulas::CellListView list_view() const;
  mesh_formulas::GeometryView geometry_view() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini
