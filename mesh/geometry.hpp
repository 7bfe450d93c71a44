#pragma once
// Face and cell geometry, computed as OpenFOAM does (primitiveMeshFaceCentresAndAreas,
// primitiveMeshCellCentresAndVols).

#include <array>
#include <vector>

#include "base/unfilled_vector.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

/// Unfilled arrays: compute_geometry writes every entry on every thread.
struct MeshGeometry {
  UnfilledVector<Vec3> face_centres;
  UnfilledVector<Vec3> face_areas;    ///< area vectors: magnitude = area, direction = owner -> out
  UnfilledVector<Vec3> cell_centres;
  UnfilledVector<double> cell_volumes;  ///< signed; the mesh check rejects non-positive volumes
};

/// Face centres and area vectors by triangle decomposition about the point average,
/// cell centres and volumes by pyramid decomposition about the face-centre average.
MeshGeometry compute_geometry(const Mesh& mesh);
/// The same, over the mesh's cell_face_lists already made (a caller that also checks the mesh).
MeshGeometry compute_geometry(const Mesh& mesh, const CellFaceLists& cells);

/// The directions a field varies in (OpenFOAM's solutionD): direction i is not solved when every
/// face of the empty patches is normal to it (the 2-D front and back); all three without empty faces.
std::array<bool, 3> solved_directions(const Mesh& mesh, const MeshGeometry& geometry);

}  // namespace fvmmini
