#include "discretisation/incompressible/cell_faces.hpp"

namespace fvmmini {

CellFaces::CellFaces(const Mesh& mesh) {
  const label n_internal = mesh.n_internal_faces();
  std::vector<char> skip(mesh.n_faces(), 0);
  for (const Patch& patch : mesh.patches)
    if (patch.type == "empty")
      for (label f = patch.start; f < patch.start + patch.size; ++f) skip[f] = 1;

  // --- count faces per cell, then fill in face order (owner +1, neighbour -1)
  offsets_.assign(mesh.n_cells + 1, 0);
  for (label f = 0; f < mesh.n_faces(); ++f) {
    if (skip[f]) continue;
    ++offsets_[mesh.owner[f] + 1];
    if (f < n_internal) ++offsets_[mesh.neighbour[f] + 1];
  }
  for (label c = 0; c < mesh.n_cells; ++c) offsets_[c + 1] += offsets_[c];
  faces_.resize(offsets_.back());
  signs_.resize(offsets_.back());
  std::vector<label> fill(offsets_.begin(), offsets_.end() - 1);
  for (label f = 0; f < mesh.n_faces(); ++f) {
    if (skip[f]) continue;
    const label o = fill[mesh.owner[f]]++;
    faces_[o] = f;
    signs_[o] = 1.0;
    if (f < n_internal) {
      const label n = fill[mesh.neighbour[f]]++;
      faces_[n] = f;
      signs_[n] = -1.0;
    }
  }
}

void CellFaces::divergence(std::span<const double> face_values, std::span<double> div) const {
  const flow::Cells cells{n_cells(), nullptr, offsets_.data(), faces_.data(), signs_.data()};
#pragma omp parallel for schedule(static)
  for (label c = 0; c < cells.n; ++c) div[c] = flow::cell_divergence(cells, face_values.data(), c);
}

void CellFaces::gauss_gradient(const MeshGeometry& g, std::span<const double> face_values,
                               std::span<Vec3> grad) const {
  const flow::Cells cells = view(g);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < cells.n; ++c) grad[c] = flow::cell_gauss_gradient(cells, g.face_areas.data(), face_values.data(), c);
}

}  // namespace fvmmini
