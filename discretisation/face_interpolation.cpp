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

void boundary_face_values(const Mesh& mesh, const ScalarBoundary& boundary, std::span<const double> phi,
                          std::span<double> face_values) {
  const label n_internal = mesh.n_internal_faces();
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    const PatchCondition& bc = boundary.patches[p];
    for (label i = 0; i < patch.size; ++i) {
      const label f = patch.start + i;
      face_values[f - n_internal] = bc.type == BoundaryType::fixed_value ? bc.values[i] : phi[mesh.owner[f]];
    }
  }
}

void gauss_gradient(const Mesh& mesh, const MeshGeometry& g, std::span<const double> weights,
                    const ScalarBoundary& boundary, std::span<const double> phi, std::span<Vec3> gradient) {
  std::fill(gradient.begin(), gradient.end(), Vec3{});
  // --- internal faces: phi_f S_f added to the owner, subtracted from the neighbour
  for (label f = 0; f < mesh.n_internal_faces(); ++f) {
    const label o = mesh.owner[f], n = mesh.neighbour[f];
    const Vec3 flux = (weights[f] * phi[o] + (1.0 - weights[f]) * phi[n]) * g.face_areas[f];
    gradient[o] += flux;
    gradient[n] -= flux;
  }
  // --- boundary faces: the condition's face value
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    const PatchCondition& bc = boundary.patches[p];
    if (bc.type == BoundaryType::empty) continue;
    for (label i = 0; i < patch.size; ++i) {
      const label f = patch.start + i;
      const double value = bc.type == BoundaryType::fixed_value ? bc.values[i] : phi[mesh.owner[f]];
      gradient[mesh.owner[f]] += value * g.face_areas[f];
    }
  }
  // --- divide by the cell volume
  for (label c = 0; c < mesh.n_cells; ++c) gradient[c] /= g.cell_volumes[c];
}

}  // namespace fvmmini
