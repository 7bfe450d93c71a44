#include "mesh/box_generator.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

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
  // plain names, not a structured binding: clang cannot capture one in the OpenMP loops below
  const label nx = spec.cells[0], ny = spec.cells[1], nz = spec.cells[2];
  const BoxLayout layout = box_layout(spec);

  Mesh mesh;
  mesh.n_cells = static_cast<label>(layout.counts.cells);
  mesh.description = layout.description;
  auto pt = [&](label i, label j, label k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  auto cell = [&](label i, label j, label k) { return i + nx * (j + ny * k); };

  // --- every array at its size first, then filled on every thread, each entry where a pass in
  //     order would have put it
  mesh.points.resize(static_cast<size_t>(layout.counts.points));
#pragma omp parallel for schedule(static)
  for (label k = 0; k <= nz; ++k)
    for (label j = 0; j <= ny; ++j)
      for (label i = 0; i <= nx; ++i)
        mesh.points[pt(i, j, k)] = {spec.min.x + (spec.max.x - spec.min.x) * i / nx,
                                    spec.min.y + (spec.max.y - spec.min.y) * j / ny,
                                    spec.min.z + (spec.max.z - spec.min.z) * k / nz};

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

  // --- every face a quadrilateral: face f's vertices at 4 f
  const std::int64_t n_faces = layout.counts.faces;
  mesh.owner.resize(static_cast<size_t>(n_faces));
  mesh.neighbour.resize(static_cast<size_t>(layout.counts.internal_faces));
  mesh.face_offsets.resize(static_cast<size_t>(n_faces) + 1);
  mesh.face_vertices.resize(static_cast<size_t>(layout.counts.face_vertices));
#pragma omp parallel for schedule(static)
  for (std::int64_t f = 0; f <= n_faces; ++f) mesh.face_offsets[f] = static_cast<label>(4 * f);
  auto set_face = [&](std::int64_t f, const std::array<label, 4>& loop, label face_owner) {
    std::copy(loop.begin(), loop.end(), mesh.face_vertices.begin() + 4 * f);
    mesh.owner[f] = face_owner;
  };

  // --- internal faces, upper-triangular: per owner, neighbours +x < +y < +z; a row of cells
  //     (j, k) starts after the faces of the rows before it
  const label rows = ny * nz;
  std::vector<std::int64_t> row_start(static_cast<size_t>(rows) + 1, 0);
  for (label row = 0; row < rows; ++row) {
    const label j = row % ny, k = row / ny;
    row_start[row + 1] = row_start[row] + (nx - 1) + (j + 1 < ny ? nx : 0) + (k + 1 < nz ? nx : 0);
  }
#pragma omp parallel for schedule(static)
  for (label row = 0; row < rows; ++row) {
    const label j = row % ny, k = row / ny;
    std::int64_t f = row_start[row];
    for (label i = 0; i < nx; ++i) {
      const label c = cell(i, j, k);
      if (i + 1 < nx) { set_face(f, x_face(i + 1, j, k), c); mesh.neighbour[f++] = cell(i + 1, j, k); }
      if (j + 1 < ny) { set_face(f, y_face(i, j + 1, k), c); mesh.neighbour[f++] = cell(i, j + 1, k); }
      if (k + 1 < nz) { set_face(f, z_face(i, j, k + 1), c); mesh.neighbour[f++] = cell(i, j, k + 1); }
    }
  }

  // --- boundary faces, patch by patch, outward normals; a side's face (a, b) at first + a + b * na
  auto add_side = [&](BoxSide side, std::int64_t first) {
    const auto fill = [&](label na, label nb, auto face_at) {
#pragma omp parallel for schedule(static)
      for (label b = 0; b < nb; ++b)
        for (label a = 0; a < na; ++a) {
          const auto [loop, face_owner] = face_at(a, b);
          set_face(first + a + static_cast<std::int64_t>(b) * na, loop, face_owner);
        }
      return static_cast<std::int64_t>(na) * nb;
    };
    using Face = std::pair<std::array<label, 4>, label>;
    switch (side) {
      case BoxSide::xmin: return fill(ny, nz, [&](label j, label k) { return Face{reversed(x_face(0, j, k)), cell(0, j, k)}; });
      case BoxSide::xmax: return fill(ny, nz, [&](label j, label k) { return Face{x_face(nx, j, k), cell(nx - 1, j, k)}; });
      case BoxSide::ymin: return fill(nx, nz, [&](label i, label k) { return Face{reversed(y_face(i, 0, k)), cell(i, 0, k)}; });
      case BoxSide::ymax: return fill(nx, nz, [&](label i, label k) { return Face{y_face(i, ny, k), cell(i, ny - 1, k)}; });
      case BoxSide::zmin: return fill(nx, ny, [&](label i, label j) { return Face{reversed(z_face(i, j, 0)), cell(i, j, 0)}; });
      case BoxSide::zmax: return fill(nx, ny, [&](label i, label j) { return Face{z_face(i, j, nz), cell(i, j, nz - 1)}; });
    }
    return std::int64_t{0};
  };
  std::int64_t next = layout.counts.internal_faces;
  for (size_t p = 0; p < layout.patches.size(); ++p) {
    for (int s = 0; s < 6; ++s)
      if (layout.side_patch[s] == static_cast<int>(p)) next += add_side(static_cast<BoxSide>(s), next);
    mesh.patches.push_back(layout.patches[p]);
  }
  return mesh;
}

}  // namespace fvmmini
