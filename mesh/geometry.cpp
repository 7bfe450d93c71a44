#include "mesh/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "mesh/mesh_formulas.hpp"

namespace fvmmini {

MeshGeometry compute_geometry(const Mesh& mesh) { return compute_geometry(mesh, cell_face_lists(mesh)); }

MeshGeometry compute_geometry(const Mesh& mesh, const CellFaceLists& cells) {
  const mesh_formulas::MeshView view = mesh_formulas::mesh_view(mesh);
  const mesh_formulas::CellListView lists = mesh_formulas::cell_list_view(cells);
  MeshGeometry g;
  const label n_faces = mesh.n_faces();
  g.face_centres.resize(n_faces);
  g.face_areas.resize(n_faces);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f)
    mesh_formulas::face_centre_and_area(view, f, g.face_centres[f], g.face_areas[f]);
  g.cell_centres.resize(mesh.n_cells);
  g.cell_volumes.resize(mesh.n_cells);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c)
    mesh_formulas::cell_centre_and_volume(lists, g.face_centres.data(), g.face_areas.data(), c, g.cell_centres[c],
                                          g.cell_volumes[c]);
  return g;
}

Bounds bounds_of(std::span<const Vec3> points) {
  constexpr double big = std::numeric_limits<double>::max();
  double lo_x = big, lo_y = big, lo_z = big, hi_x = -big, hi_y = -big, hi_z = -big;
  const auto n = static_cast<std::ptrdiff_t>(points.size());
#pragma omp parallel for schedule(static) if (n > 65536) reduction(min : lo_x, lo_y, lo_z) \
    reduction(max : hi_x, hi_y, hi_z)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const Vec3& p = points[k];
    lo_x = std::min(lo_x, p.x), lo_y = std::min(lo_y, p.y), lo_z = std::min(lo_z, p.z);
    hi_x = std::max(hi_x, p.x), hi_y = std::max(hi_y, p.y), hi_z = std::max(hi_z, p.z);
  }
  return {{lo_x, lo_y, lo_z}, {hi_x, hi_y, hi_z}};
}

std::array<bool, 3> solved_directions(const Mesh& mesh, const MeshGeometry& g) {
  std::array<bool, 3> normal{true, true, true};
  bool any_empty = false;
  for (const Patch& patch : mesh.patches) {
    if (patch.type != "empty") continue;
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      any_empty = true;
      const Vec3 n = g.face_areas[f] / mag(g.face_areas[f]);
      for (int i = 0; i < 3; ++i)
        if (std::abs(n[i]) < 1.0 - 1e-6) normal[i] = false;
    }
  }
  if (!any_empty) return {true, true, true};
  return {!normal[0], !normal[1], !normal[2]};
}

}  // namespace fvmmini
