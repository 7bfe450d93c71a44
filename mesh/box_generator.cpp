#include "mesh/box_generator.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace fvmmini {

const char* to_string(BoxSide side) {
  static constexpr const char* names[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  return names[static_cast<int>(side)];
}

namespace {

/// The counts of a box of at most 2^31 - 1 cells (so that no product overflows).
MeshCounts box_counts(const std::array<label, 3>& cells) {
  const std::int64_t nx = cells[0], ny = cells[1], nz = cells[2];
  MeshCounts n;
  n.cells = nx * ny * nz;
  n.points = (nx + 1) * (ny + 1) * (nz + 1);
  n.internal_faces = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
  n.faces = n.internal_faces + 2 * (ny * nz + nx * nz + nx * ny);
  n.face_vertices = 4 * n.faces;
  return n;
}

}  // namespace

std::string box_size_problem(const BoxSpec& spec) {
  const auto [nx, ny, nz] = spec.cells;
  const std::string box = "box " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) + ": ";
  const double cells = static_cast<double>(nx) * ny * nz;
  if (cells > std::numeric_limits<label>::max())
    return box + fmt::format("{:.2e} cells are past the 32-bit index range (at most {})", cells, std::numeric_limits<label>::max());
  const std::string problem = mesh_size_problem(box_counts(spec.cells));
  return problem.empty() ? "" : box + problem;
}

BoxLayout box_layout(const BoxSpec& spec) {
  const auto [nx, ny, nz] = spec.cells;
  if (nx < 1 || ny < 1 || nz < 1) throw std::invalid_argument("box: cell counts must be >= 1");
  for (int d = 0; d < 3; ++d)
    if (!(spec.max[d] > spec.min[d])) throw std::invalid_argument("box: max must exceed min in every direction");
  BoxLayout layout;
  layout.description = "box " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
  if (const std::string problem = box_size_problem(spec); !problem.empty())
    throw std::invalid_argument(problem);
  layout.counts = box_counts(spec.cells);

  // --- which patch owns each side; a side no patch names is a patch of its own
  std::vector<BoxPatch> patches = spec.patches;
  layout.side_patch.fill(-1);
  for (size_t p = 0; p < patches.size(); ++p)
    for (BoxSide s : patches[p].sides) {
      if (layout.side_patch[static_cast<int>(s)] >= 0)
        throw std::invalid_argument(std::string("box: side ") + to_string(s) + " belongs to two patches");
      layout.side_patch[static_cast<int>(s)] = static_cast<int>(p);
    }
  for (int s = 0; s < 6; ++s)
    if (layout.side_patch[s] < 0) {
      layout.side_patch[s] = static_cast<int>(patches.size());
      patches.push_back({to_string(static_cast<BoxSide>(s)), "patch", {static_cast<BoxSide>(s)}});
    }

  // --- patches follow the internal faces in order, each side's faces together
  const label side_faces[6] = {ny * nz, ny * nz, nx * nz, nx * nz, nx * ny, nx * ny};
  label start = static_cast<label>(layout.counts.internal_faces);
  for (size_t p = 0; p < patches.size(); ++p) {
    Patch patch{patches[p].name, patches[p].type, start, 0};
    for (int s = 0; s < 6; ++s)
      if (layout.side_patch[s] == static_cast<int>(p)) patch.size += side_faces[s];
    start += patch.size;
    layout.patches.push_back(patch);
  }
  return layout;
}

Mesh generate_box(const BoxSpec& spec) {
  const auto [nx, ny, nz] = spec.cells;
  const BoxLayout layout = box_layout(spec);

  Mesh mesh;
  mesh.n_cells = static_cast<label>(layout.counts.cells);
  mesh.description = layout.description;
  auto pt = [&](label i, label j, label k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  auto cell = [&](label i, label j, label k) { return i + nx * (j + ny * k); };

  mesh.points.reserve(static_cast<size_t>(layout.counts.points));
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

  mesh.owner.reserve(static_cast<size_t>(layout.counts.faces));
  mesh.neighbour.reserve(static_cast<size_t>(layout.counts.internal_faces));
  mesh.face_offsets.reserve(static_cast<size_t>(layout.counts.faces) + 1);
  mesh.face_vertices.reserve(static_cast<size_t>(layout.counts.face_vertices));

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
  for (size_t p = 0; p < layout.patches.size(); ++p) {
    for (int s = 0; s < 6; ++s)
      if (layout.side_patch[s] == static_cast<int>(p)) add_side(static_cast<BoxSide>(s));
    mesh.patches.push_back(layout.patches[p]);
  }
  return mesh;
}

}  // namespace fvmmini
