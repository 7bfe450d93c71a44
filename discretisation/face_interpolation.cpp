#include "discretisation/face_interpolation.hpp"

namespace fvmmini {

std::vector<double> linear_weights(const Mesh& mesh, const MeshGeometry& g) {
  std::vector<double> w(mesh.n_internal_faces());
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const Vec3& sf = g.face_areas[f];
    const double to_neighbour = dot(sf, g.cell_centres[mesh.neighbour[f]] - g.face_centres[f]);
    const double span = dot(sf, g.cell_centres[mesh.neighbour[f]] - g.cell_centres[mesh.owner[f]]);
    w[f] = span != 0.0 ? to_neighbour / span : 0.5;
  }
  return w;
}

}  // namespace fvmmini
