#include "discretisation/face_interpolation.hpp"

namespace fvmmini {

UnfilledVector<double> linear_weights(const Mesh& mesh, const MeshGeometry& g) {
  UnfilledVector<double> w(mesh.n_internal_faces());
#pragma omp parallel for schedule(static)
  for (label f = 0; f < mesh.n_internal_faces(); ++f)
    w[f] = linear_weight(g.face_areas[f], g.face_centres[f], g.cell_centres[mesh.owner[f]],
                         g.cell_centres[mesh.neighbour[f]]);
  return w;
}

}  // namespace fvmmini
