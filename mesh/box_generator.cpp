#include "mesh/box_generator.hpp"

#include <stdexcept>

namespace fvmmini {

const char* to_string(BoxSide side) {
  static constexpr const char* names[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  return names[static_cast<int>(side)];
}

Mesh generate_box(const BoxSpec& spec) {
  const auto [nx, ny, nz] = spec.cells;
  if (nx < 1 || ny < 1 || nz < 1) throw std::invalid_argument("box: cell counts must be >= 1");
  for (int d = 0; d < 3; ++d)
    if (!(spec.max[d] > spec.min[d])) throw std::invalid_argument("box: max must exceed min in every direction");
  if (static_cast<double>(nx) * ny * nz > 1.0e9) throw std::invalid_argument("box: more than 1e9 cells");

  // --- which patch owns each side
  std::vector<BoxPatch> patches = spec.patches;
  std::array<int, 6> side_patch{-1, -1, -1, -1, -1, -1};
  for (size_t p = 0; p < patches.size(); ++p)
    for (BoxSide s : patches[p].sides) {
      if (side_patch[static_cast<int>(s)] >= 0)
        throw std::invalid_argument(std::string("box: side ") + to_string(s) + " belongs to two patches");
      side_patch[static_cast<int>(s)] = static_cast<int>(p);
    }
  for (int s = 0; s < 6; ++s)
    if (side_patch[s] < 0) {
      side_patch[s] = static_cast<int>(patches.size());
      patches.push_back({to_string(static_cast<BoxSide>(s)), "patch", {static_cast<BoxSide>(s)}});
    }

  Mesh mesh;
  mesh.n_cells = nx * ny * nz;
  mesh.description = "box " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
  auto pt = [&](label i, label j, label k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  auto cell = [&](label i, label j, label k) { return i + nx * (j + ny * k); };

  mesh.points.reserve(static_cast<size_t>(nx + 1) * (ny + 1) * (nz + 1));
  for (label k = 0; k <= nz; ++k)
    for (label j = 0; j <= ny; ++j)
      for (label i = 0; i <= nx; ++i)
        mesh.points.push_back({spec.min.x + (spec.max.x - spec.min.x) * i / nx,
                               spec.min.y + (spec.max.y - spec.min.y) * j / ny,
                               spec.min.z + (spec.max.z - spec.min.z) * k / nz});

  // Vertex loops whose right-hand normal points in +x, +y, +z from the lower corner (i, j, k).
  auto x_face = [&](label i, label j, label k) {
    return std::array<label, 4>{pt(i, j, k), pt(i, j + 1, k), pt(i, j + 1, k + 1), pt(i, j, k + 1)};
  };
  auto y_face = [&](label i, label j, label k) {
    return std::array<label, 4>{pt(i, j, k), pt(i, j, k + 1), pt(i + 1, j, k + 1), pt(i + 1, j, k)};
  };
  auto z_face = [&](label i, label j, label k) {
    return std::array<label, 4>{pt(i, j, k), pt(i + 1, j, k), pt(i + 1, j + 1, k), pt(i, j + 1, k)};
  };
  auto reversed = [](std::array<label, 4> f) { return std::array<label, 4>{f[0], f[3], f[2], f[1]}; };

  const size_t n_internal = static_cast<size_t>(nx - 1) * ny * nz + static_cast<size_t>(nx) * (ny - 1) * nz +
                            static_cast<size_t>(nx) * ny * (nz - 1);
  const size_t n_boundary = 2 * (static_cast<size_t>(ny) * nz + static_cast<size_t>(nx) * nz + static_cast<size_t>(nx) * ny);
  mesh.owner.reserve(n_internal + n_boundary);
  mesh.neighbour.reserve(n_internal);
  mesh.face_offsets.reserve(n_internal + n_boundary + 1);
  mesh.face_vertices.reserve(4 * (n_internal + n_boundary));

  // --- internal faces, upper-triangular: per owner, neighbours +x < +y < +z
  for (label k = 0; k < nz; ++k)
    for (label j = 0; j < ny; ++j)
      for (label i = 0; i < nx; ++i) {
        const label c = cell(i, j, k);
        if (i + 1 < nx) { mesh.add_face(x_face(i + 1, j, k), c); mesh.neighbour.push_back(cell(i + 1, j, k)); }
        if (j + 1 < ny) { mesh.add_face(y_face(i, j + 1, k), c); mesh.neighbour.push_back(cell(i, j + 1, k)); }
        if (k + 1 < nz) { mesh.add_face(z_face(i, j, k + 1), c); mesh.neighbour.push_back(cell(i, j, k + 1)); }
      }

  // --- boundary faces, patch by patch, outward normals
  auto add_side = [&](BoxSide side) {
    switch (side) {
      case BoxSide::xmin: for (label k = 0; k < nz; ++k) for (label j = 0; j < ny; ++j) mesh.add_face(reversed(x_face(0, j, k)), cell(0, j, k)); break;
      case BoxSide::xmax: for (label k = 0; k < nz; ++k) for (label j = 0; j < ny; ++j) mesh.add_face(x_face(nx, j, k), cell(nx - 1, j, k)); break;
      case BoxSide::ymin: for (label k = 0; k < nz; ++k) for (label i = 0; i < nx; ++i) mesh.add_face(reversed(y_face(i, 0, k)), cell(i, 0, k)); break;
      case BoxSide::ymax: for (label k = 0; k < nz; ++k) for (label i = 0; i < nx; ++i) mesh.add_face(y_face(i, ny, k), cell(i, ny - 1, k)); break;
      case BoxSide::zmin: for (label j = 0; j < ny; ++j) for (label i = 0; i < nx; ++i) mesh.add_face(reversed(z_face(i, j, 0)), cell(i, j, 0)); break;
      case BoxSide::zmax: for (label j = 0; j < ny; ++j) for (label i = 0; i < nx; ++i) mesh.add_face(z_face(i, j, nz), cell(i, j, nz - 1)); break;
    }
  };
  for (size_t p = 0; p < patches.size(); ++p) {
    Patch patch{patches[p].name, patches[p].type, mesh.n_faces(), 0};
    for (int s = 0; s < 6; ++s)
      if (side_patch[s] == static_cast<int>(p)) add_side(static_cast<BoxSide>(s));
    patch.size = mesh.n_faces() - patch.start;
    mesh.patches.push_back(patch);
  }
  return mesh;
}

}  // namespace fvmmini
