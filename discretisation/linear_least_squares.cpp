#include "discretisation/linear_least_squares.hpp"

#include <algorithm>

#include "mesh/cell_face_lists.hpp"

namespace fvmmini {

namespace {

using Sym3 = std::array<double, 6>;  // xx, xy, xz, yy, yz, zz

void add_outer(Sym3& g, const Vec3& d, double w) {
  g[0] += w * d.x * d.x; g[1] += w * d.x * d.y; g[2] += w * d.x * d.z;
  g[3] += w * d.y * d.y; g[4] += w * d.y * d.z; g[5] += w * d.z * d.z;
}

// A direction no face reaches (the empty direction of a 2-D mesh) leaves G singular: a tiny
// diagonal term makes the inverse finite and the gradient's component there zero.
Sym3 invert(Sym3 g) {
  const double trace = g[0] + g[3] + g[5];
  for (int i : {0, 3, 5}) g[i] += 1e-10 * trace;
  const double c00 = g[3] * g[5] - g[4] * g[4];
  const double c01 = g[2] * g[4] - g[1] * g[5];
  const double c02 = g[1] * g[4] - g[2] * g[3];
  const double det = g[0] * c00 + g[1] * c01 + g[2] * c02;
  return {c00 / det, c01 / det, c02 / det, (g[0] * g[5] - g[2] * g[2]) / det, (g[1] * g[2] - g[0] * g[4]) / det,
          (g[0] * g[3] - g[1] * g[1]) / det};
}

Vec3 multiply(const Sym3& m, const Vec3& v) {
  return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[1] * v.x + m[3] * v.y + m[4] * v.z,
          m[2] * v.x + m[4] * v.y + m[5] * v.z};
}

}  // namespace

LinearLeastSquares::LinearLeastSquares(const Mesh& mesh, const MeshGeometry& g, std::span<const Vec3> across)
    : LinearLeastSquares(mesh, g, across, cell_face_lists(mesh)) {}

LinearLeastSquares::LinearLeastSquares(const Mesh& mesh, const MeshGeometry& g, std::span<const Vec3> across,
                                       const CellFaceLists& cells)
    : mesh_(mesh),
      geometry_(g),
      inverse_(mesh.n_cells),
      far_end_(g.face_centres.begin() + mesh.n_internal_faces(), g.face_centres.end()) {
  std::copy(across.begin(), across.end(), far_end_.begin());
  const label n_internal = mesh.n_internal_faces();
  std::vector<char> fitted(mesh.n_faces() - n_internal, 0);  // per boundary face: not of an empty patch
  for (const Patch& patch : mesh.patches)
    if (patch.type != "empty") std::fill_n(fitted.begin() + (patch.start - n_internal), patch.size, 1);
  // --- G_P = sum w d d^T over internal faces (both sides, d from owner to neighbour) and fitted
  //     boundary faces, cell by cell in parallel, each cell's faces in face order as one pass over
  //     the faces adds them: the same sums to the bit
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c) {
    Sym3 sum{};
    for_each_face_in_face_order(cells, c, [&](label f) {
      if (f >= n_internal && !fitted[f - n_internal]) return;
      const Vec3 d = f < n_internal ? g.cell_centres[mesh.neighbour[f]] - g.cell_centres[mesh.owner[f]]
                                    : far_end_[f - n_internal] - g.cell_centres[c];
      add_outer(sum, d, 1.0 / dot(d, d));
    });
    inverse_[c] = invert(sum);
  }
}

Vec3 LinearLeastSquares::weight(label cell, label face) const {
  const auto& g = geometry_;
  const label n_internal = mesh_.n_internal_faces();
  const bool internal = face < n_internal;
  const label other = internal ? (mesh_.owner[face] == cell ? mesh_.neighbour[face] : mesh_.owner[face]) : -1;
  const Vec3 d = (internal ? g.cell_centres[other] : far_end_[face - n_internal]) - g.cell_centres[cell];
  return multiply(inverse_[cell], d / dot(d, d));
}

}  // namespace fvmmini
