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
                                       const CellFaceLists& cells, bool fit_every_cell)
    : mesh_(mesh),
      geometry_(g),
      far_end_(g.face_centres.begin() + mesh.n_internal_faces(), g.face_centres.end()),
      fitted_(mesh.n_faces() - mesh.n_internal_faces(), 0) {
  std::copy(across.begin(), across.end(), far_end_.begin());
  const label n_internal = mesh.n_internal_faces();
  for (const Patch& patch : mesh.patches)
    if (patch.type != "empty") std::fill_n(fitted_.begin() + (patch.start - n_internal), patch.size, 1);
  if (!fit_every_cell) return;
  // --- cell by cell in parallel, each cell's faces in face order as one pass over the faces adds
  //     them: the same sums to the bit
  inverse_.resize(mesh.n_cells);
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c)
    inverse_[c] = fit(c, [&](auto&& visit) { for_each_face_in_face_order(cells, c, visit); });
}

/// G_P = sum w d d^T over internal faces (both sides, d from owner to neighbour) and fitted
/// boundary faces, inverted.
template <class EachFace>
LinearLeastSquares::Sym3 LinearLeastSquares::fit(label c, EachFace&& each_face) const {
  const label n_internal = mesh_.n_internal_faces();
  const auto& g = geometry_;
  Sym3 sum{};
  each_face([&](label f) {
    if (f >= n_internal && !fitted_[f - n_internal]) return;
    const Vec3 d = f < n_internal ? g.cell_centres[mesh_.neighbour[f]] - g.cell_centres[mesh_.owner[f]]
                                  : far_end_[f - n_internal] - g.cell_centres[c];
    add_outer(sum, d, 1.0 / dot(d, d));
  });
  return invert(sum);
}

Vec3 LinearLeastSquares::weight(const Sym3& inverse, label cell, label face) const {
  const auto& g = geometry_;
  const label n_internal = mesh_.n_internal_faces();
  const bool internal = face < n_internal;
  const label other = internal ? (mesh_.owner[face] == cell ? mesh_.neighbour[face] : mesh_.owner[face]) : -1;
  const Vec3 d = (internal ? g.cell_centres[other] : far_end_[face - n_internal]) - g.cell_centres[cell];
  return multiply(inverse, d / dot(d, d));
}

Vec3 LinearLeastSquares::weight(label cell, label face) const { return weight(inverse_.at(cell), cell, face); }

std::vector<Vec3> LinearLeastSquares::weights_of(label cell, std::span<const label> faces) const {
  std::vector<label> ascending(faces.begin(), faces.end());
  std::sort(ascending.begin(), ascending.end());
  const Sym3 inverse = fit(cell, [&](auto&& visit) {
    for (label f : ascending) visit(f);
  });
  std::vector<Vec3> weights;
  for (label f : faces) weights.push_back(weight(inverse, cell, f));
  return weights;
}

}  // namespace fvmmini
