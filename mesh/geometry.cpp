#include "mesh/geometry.hpp"

#include <algorithm>

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

MeshGeometry compute_geometry(const Mesh& mesh) {
  MeshGeometry g;
  const label n_faces = mesh.n_faces();
  const label n_internal = mesh.n_internal_faces();
  g.face_centres.resize(n_faces);
  g.face_areas.resize(n_faces);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_faces; ++f) face_centre_and_area(mesh, f, g.face_centres[f], g.face_areas[f]);

  // --- cell centre estimate: the average of the cell's face centres
  std::vector<Vec3> estimate(mesh.n_cells);
  std::vector<int> n_cell_faces(mesh.n_cells, 0);
  for (label f = 0; f < n_faces; ++f) {
    estimate[mesh.owner[f]] += g.face_centres[f];
    ++n_cell_faces[mesh.owner[f]];
  }
  for (label f = 0; f < n_internal; ++f) {
    estimate[mesh.neighbour[f]] += g.face_centres[f];
    ++n_cell_faces[mesh.neighbour[f]];
  }
  for (label c = 0; c < mesh.n_cells; ++c) estimate[c] /= std::max(1, n_cell_faces[c]);

  // --- pyramids (face, estimate): V = Sf.(Cf - Ce)/3, centroid = 3/4 Cf + 1/4 Ce
  g.cell_centres.assign(mesh.n_cells, Vec3{});
  g.cell_volumes.assign(mesh.n_cells, 0.0);
  auto add_pyramid = [&](label cell, label f, double sign) {
    const double pyr3 = sign * dot(g.face_areas[f], g.face_centres[f] - estimate[cell]);
    g.cell_centres[cell] += pyr3 * (0.75 * g.face_centres[f] + 0.25 * estimate[cell]);
    g.cell_volumes[cell] += pyr3;
  };
  for (label f = 0; f < n_faces; ++f) add_pyramid(mesh.owner[f], f, 1.0);
  for (label f = 0; f < n_internal; ++f) add_pyramid(mesh.neighbour[f], f, -1.0);
  for (label c = 0; c < mesh.n_cells; ++c) {
    const double v3 = g.cell_volumes[c];
    g.cell_centres[c] = std::abs(v3) > 0.0 ? g.cell_centres[c] / v3 : estimate[c];
    g.cell_volumes[c] = v3 / 3.0;
  }
  return g;
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
