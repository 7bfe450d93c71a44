#include "mesh/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace fvmmini {

namespace {

// --- face centre and area vector: triangles (p_i, p_i+1, c_est) about the point average
void face_centre_and_area(const Mesh& mesh, label f, Vec3& centre, Vec3& area) {
  const auto vertices = mesh.face(f);
  const auto n = vertices.size();
  const auto& p = mesh.points;
  if (n == 3) {
    centre = (p[vertices[0]] + p[vertices[1]] + p[vertices[2]]) / 3.0;
    area = 0.5 * cross(p[vertices[1]] - p[vertices[0]], p[vertices[2]] - p[vertices[0]]);
    return;
  }
  Vec3 estimate;
  for (label v : vertices) estimate += p[v];
  estimate /= static_cast<double>(n);

  Vec3 sum_n, sum_ac;
  double sum_a = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const Vec3& a = p[vertices[i]];
    const Vec3& b = p[vertices[(i + 1) % n]];
    const Vec3 tri_normal = cross(b - a, estimate - a);  // twice the triangle's area vector
    sum_n += tri_normal;
    sum_a += mag(tri_normal);
    sum_ac += mag(tri_normal) * (a + b + estimate);
  }
  centre = sum_a > 0.0 ? sum_ac / (3.0 * sum_a) : estimate;
  area = 0.5 * sum_n;
}

}  // namespace

MeshGeometry compute_geometry(const Mesh& mesh) { return compute_geometry(mesh, cell_face_lists(mesh)); }

MeshGeometry compute_geometry(const Mesh& mesh, const CellFaceLists& cells) {
  MeshGeometry g;
  const label n_faces = mesh.n_faces();
  g.face_centres.resize(n_faces);
  g.face_areas.resize(n_faces);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) face_centre_and_area(mesh, f, g.face_centres[f], g.face_areas[f]);

  // --- per cell, over its faces (owned, then neighboured: the order of a pass over the owners and
  //     one over the neighbours, so the same sums to the bit), in parallel:
  //     the centre estimate, the average of its face centres; then the pyramids (face, estimate):
  //     V = Sf.(Cf - Ce)/3, centroid = 3/4 Cf + 1/4 Ce
  g.cell_centres.resize(mesh.n_cells);
  g.cell_volumes.resize(mesh.n_cells);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c) {
    const label first = cells.start[c], last = cells.start[c + 1], owned_end = first + cells.owned[c];
    Vec3 estimate;
    for (label k = first; k < last; ++k) estimate += g.face_centres[cells.faces[k]];
    estimate /= std::max(1, last - first);
    Vec3 centre;
    double v3 = 0.0;
    for (label k = first; k < last; ++k) {
      const label f = cells.faces[k];
      const double pyr3 = (k < owned_end ? 1.0 : -1.0) * dot(g.face_areas[f], g.face_centres[f] - estimate);
      centre += pyr3 * (0.75 * g.face_centres[f] + 0.25 * estimate);
      v3 += pyr3;
    }
    g.cell_centres[c] = std::abs(v3) > 0.0 ? centre / v3 : estimate;
    g.cell_volumes[c] = v3 / 3.0;
  }
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
