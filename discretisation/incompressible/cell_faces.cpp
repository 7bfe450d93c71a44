#include "discretisation/incompressible/cell_faces.hpp"

#include <utility>
#include <vector>

#include "mesh/cell_face_lists.hpp"

namespace fvmmini {

CellFaces::CellFaces(const Mesh& mesh) : CellFaces(mesh, cell_face_lists(mesh)) {}

CellFaces::CellFaces(const Mesh& mesh, const CellFaceLists& lists) {
  // --- the empty patches' faces, where there are any (boundary faces: the patches' ranges)
  std::vector<std::pair<label, label>> empty;
  for (const Patch& patch : mesh.patches)
    if (patch.type == "empty" && patch.size > 0) empty.emplace_back(patch.start, patch.start + patch.size);
  const auto skip = [&](label f) {
    for (const auto& [begin, end] : empty)
      if (f >= begin && f < end) return true;
    return false;
  };

  // --- each cell's faces in face order (owner +1, neighbour -1), counted and filled cell by cell
  offsets_.resize(mesh.n_cells + 1);
  offsets_[0] = 0;
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c) {
    label count = 0;
    for_each_face_in_face_order(lists, c, [&](label f) { count += !skip(f); });
    offsets_[c + 1] = count;
  }
  for (label c = 0; c < mesh.n_cells; ++c) offsets_[c + 1] += offsets_[c];
  faces_.resize(offsets_.back());
  signs_.resize(offsets_.back());
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c) {
    label k = offsets_[c];
    for_each_face_in_face_order(lists, c, [&](label f) {
      if (skip(f)) return;
      faces_[k] = f;
      signs_[k++] = mesh.owner[f] == c ? 1 : -1;
    });
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
