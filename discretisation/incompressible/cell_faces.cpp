#include "discretisation/incompressible/cell_faces.hpp"

#include <algorithm>
#include <atomic>

namespace fvmmini {

CellFaces::CellFaces(const Mesh& mesh) {
  const label n_internal = mesh.n_internal_faces();
  std::vector<char> skip(mesh.n_faces(), 0);
  for (const Patch& patch : mesh.patches)
    if (patch.type == "empty")
      for (label f = patch.start; f < patch.start + patch.size; ++f) skip[f] = 1;

  // --- count faces per cell and place them on every thread, then sort each cell's run: face
  //     order, as one pass over the faces fills it (owner +1, neighbour -1)
  const label n_faces = mesh.n_faces();
  offsets_.assign(mesh.n_cells + 1, 0);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    if (skip[f]) continue;
    std::atomic_ref<label>(offsets_[mesh.owner[f] + 1]).fetch_add(1, std::memory_order_relaxed);
    if (f < n_internal) std::atomic_ref<label>(offsets_[mesh.neighbour[f] + 1]).fetch_add(1, std::memory_order_relaxed);
  }
  for (label c = 0; c < mesh.n_cells; ++c) offsets_[c + 1] += offsets_[c];
  faces_.resize(offsets_.back());
  signs_.resize(offsets_.back());
  std::vector<label> fill(offsets_.begin(), offsets_.end() - 1);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) {
    if (skip[f]) continue;
    faces_[std::atomic_ref<label>(fill[mesh.owner[f]]).fetch_add(1, std::memory_order_relaxed)] = f;
    if (f < n_internal) faces_[std::atomic_ref<label>(fill[mesh.neighbour[f]]).fetch_add(1, std::memory_order_relaxed)] = f;
  }
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c) {
    std::sort(faces_.begin() + offsets_[c], faces_.begin() + offsets_[c + 1]);
    for (label k = offsets_[c]; k < offsets_[c + 1]; ++k) signs_[k] = mesh.owner[faces_[k]] == c ? 1.0 : -1.0;
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
