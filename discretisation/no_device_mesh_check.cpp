// The mesh's geometry on the device in a build without CUDA (FVMMINI_WITH_CUDA=OFF): no case
// resolves to the cuda backend there, and asking for it anyway is a clear error.

#include "discretisation/device_mesh_check.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

struct DeviceMeshGeometry::Impl {};

DeviceMeshGeometry::DeviceMeshGeometry(const Mesh&) {
  throw SolverError("the mesh's geometry on the device needs the CUDA backend, which this build does not have");
}

DeviceMeshGeometry::~DeviceMeshGeometry() = default;

bool DeviceMeshGeometry::fits(const Mesh&) { return false; }

CellFaceLists DeviceMeshGeometry::download_lists() const { return {}; }

MeshGeometry DeviceMeshGeometry::download_geometry() const { return {}; }

MeshFigures DeviceMeshGeometry::figures(const FigureRules&) const { return {}; }

mesh_formulas::MeshView DeviceMeshGeometry::mesh_view() const { return {}; }
mesh_formulas::CellListView DeviceMeshGeometry::list_view() const { return {}; }
mesh_formulas::GeometryView DeviceMeshGeometry::geometry_view() const { return {}; }

}  // namespace fvmmini
