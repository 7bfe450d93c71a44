#pragma once
// Face and cell geometry, computed as OpenFOAM does (primitiveMeshFaceCentresAndAreas,
// primitiveMeshCellCentresAndVols).

#include <vector>

#include "mesh/mesh.hpp"

namespace fvmmini {

struct MeshGeometry {
  std::vector<Vec3> face_centres;
  std::vector<Vec3> face_areas;    ///< area vectors: magnitude = area, direction = owner -> out
  std::vector<Vec3> cell_centres;
  std::vector<double> cell_volumes;  ///< signed; the mesh check rejects non-positive volumes
};

/// Face centres and area vectors by triangle decomposition about the point average,
/// cell centres and volumes by pyramid decomposition about the face-centre average.
MeshGeometry compute_geometry(const Mesh& mesh);

}  // namespace fvmmini
