#include "discretisation/gamg_groups.hpp"

#include <memory>
#include <numeric>

#include "linalg/ldu_matrix.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/preconditioners/gamg/agglomeration.hpp"

namespace fvmmini {

std::vector<label> gamg_groups(const Mesh& mesh, const MeshGeometry& geometry, int parts) {
  const label n = mesh.n_cells;
  auto faces = std::make_shared<LduAddressing>();
  faces->n_rows = n;
  faces->lower.assign(mesh.owner.begin(), mesh.owner.begin() + mesh.n_internal_faces());
  faces->upper.assign(mesh.neighbour.begin(), mesh.neighbour.begin() + mesh.n_internal_faces());
  LduMatrix laplacian = make_ldu_matrix(faces);  // its |upper| are the pairing's face weights
  for (label f = 0; f < mesh.n_internal_faces(); ++f)
    laplacian.upper[f] = -mag(geometry.face_areas[f]) /
                         mag(geometry.cell_centres[mesh.neighbour[f]] - geometry.cell_centres[mesh.owner[f]]);
  const GamgSettings defaults;
  const AgglomerationHierarchy h = agglomerate(laplacian, defaults.n_cells_in_coarsest_level, defaults.merge_levels);
  std::vector<label> group;
  for (std::size_t l = 0; l < h.agglomerations.size(); ++l) {
    if (h.coarse[l].n_rows() < static_cast<std::int64_t>(gamg_groups_a_part) * parts) break;
    if (group.empty()) {
      group.resize(static_cast<std::size_t>(n));
      std::iota(group.begin(), group.end(), 0);
    }
    for (label& g : group) g = h.agglomerations[l]->coarse_of[g];
  }
  return group;
}

}  // namespace fvmmini
