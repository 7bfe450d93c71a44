#include "mesh/mesh_assembly.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include "mesh/cell_face_lists.hpp"
#include "mesh/mesh_error.hpp"

namespace fvmmini {

void FaceList::add(std::span<const label> loop, label face_owner, label face_neighbour, label face_patch) {
  vertices.insert(vertices.end(), loop.begin(), loop.end());
  offsets.push_back(static_cast<label>(vertices.size()));
  owner.push_back(face_owner);
  neighbour.push_back(face_neighbour);
  patch.push_back(face_patch);
}

Mesh assemble_mesh(UnfilledVector<Vec3> points, const FaceList& faces, std::vector<Patch> patches, label n_cells,
                   std::string description) {
  const label n_faces = faces.size();

  // --- internal faces as (lower cell, upper cell, original index), boundary faces by patch
  std::vector<std::tuple<label, label, label>> internal;
  std::vector<std::pair<label, label>> boundary;  // (patch, original index)
  for (label f = 0; f < n_faces; ++f) {
    if (faces.neighbour[f] >= 0)
      internal.emplace_back(std::min(faces.owner[f], faces.neighbour[f]), std::max(faces.owner[f], faces.neighbour[f]), f);
    else
      boundary.emplace_back(faces.patch[f], f);
  }
  std::sort(internal.begin(), internal.end());
  std::stable_sort(boundary.begin(), boundary.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  Mesh mesh;
  mesh.points = std::move(points);
  mesh.n_cells = n_cells;
  mesh.description = std::move(description);
  mesh.owner.reserve(n_faces);
  mesh.neighbour.reserve(internal.size());
  mesh.face_offsets.reserve(n_faces + 1);
  mesh.face_vertices.reserve(faces.vertices.size());
  std::vector<label> loop;

  // --- internal faces: a face owned by the upper cell is reversed so its normal points owner -> neighbour
  for (const auto& [lower, upper, f] : internal) {
    const auto begin = faces.vertices.begin() + faces.offsets[f];
    const auto end = faces.vertices.begin() + faces.offsets[f + 1];
    loop.assign(begin, end);
    if (faces.owner[f] != lower) std::reverse(loop.begin() + 1, loop.end());
    mesh.add_face(loop, lower);
    mesh.neighbour.push_back(upper);
  }

  // --- boundary faces patch by patch
  for (auto& p : patches) p.size = 0;
  size_t next = 0;
  for (label p = 0; p < static_cast<label>(patches.size()); ++p) {
    patches[p].start = mesh.n_faces();
    while (next < boundary.size() && boundary[next].first == p) {
      const label f = boundary[next++].second;
      mesh.add_face(std::span<const label>(faces.vertices.data() + faces.offsets[f],
                                           static_cast<size_t>(faces.offsets[f + 1] - faces.offsets[f])),
                    faces.owner[f]);
    }
    patches[p].size = mesh.n_faces() - patches[p].start;
  }
  if (next != boundary.size())
    throw MeshError(mesh.description, 0, "boundary face " + std::to_string(boundary[next].second) + " has no valid patch");
  mesh.patches = std::move(patches);
  return mesh;
}

bool is_upper_triangular(const Mesh& mesh) {
  bool ordered = true;
#pragma omp parallel for schedule(static) reduction(&& : ordered)
  for (label f = 0; f < mesh.n_internal_faces(); ++f)
    ordered = ordered && mesh.owner[f] < mesh.neighbour[f] &&
              (f == 0 || std::pair(mesh.owner[f - 1], mesh.neighbour[f - 1]) <=
                             std::pair(mesh.owner[f], mesh.neighbour[f]));
  return ordered;
}

std::vector<label> find_open_cells(const Mesh& mesh, size_t max_count) {
  const label n_cells = mesh.n_cells;
  const CellFaceLists cells = cell_face_lists(mesh);  // owned faces, then those seen from their neighbour

  // --- closed: every edge, directions counted +1 (a < b) and -1 (a > b), sums to zero
  std::vector<char> open(n_cells, 0);
#pragma omp parallel
  {
    std::vector<std::pair<std::pair<label, label>, int>> edges;
#pragma omp for schedule(static)
    for (label c = 0; c < n_cells; ++c) {
      edges.clear();
      for (std::int64_t k = cells.start[c]; k < cells.start[c + 1]; ++k) {
        const bool from_neighbour = k >= cells.start[c] + cells.owned[c];
        const label f = cells.faces[k];
        const auto loop = mesh.face(f);
        for (size_t i = 0; i < loop.size(); ++i) {
          label a = loop[i], b = loop[(i + 1) % loop.size()];
          if (from_neighbour) std::swap(a, b);
          edges.push_back(a < b ? std::pair{std::pair{a, b}, 1} : std::pair{std::pair{b, a}, -1});
        }
      }
      if (edges.size() < 6) {  // a tetrahedron has six edges: anything less cannot enclose volume
        open[c] = 1;
        continue;
      }
      std::sort(edges.begin(), edges.end());
      for (size_t i = 0; i < edges.size();) {
        int sum = 0;
        size_t j = i;
        for (; j < edges.size() && edges[j].first == edges[i].first; ++j) sum += edges[j].second;
        if (sum != 0) {
          open[c] = 1;
          break;
        }
        i = j;
      }
    }
  }
  std::vector<label> result;
  for (label c = 0; c < n_cells && result.size() < max_count; ++c)
    if (open[c]) result.push_back(c);
  return result;
}

void check_mesh_addressing(const Mesh& mesh, const std::string& source) {
  auto fail = [&](const std::string& message) { throw MeshError(source, 0, message); };
  const label n_faces = mesh.n_faces();
  const label n_internal = mesh.n_internal_faces();
  const label n_points = mesh.n_points();

  // --- the cell count before anything is sized by it: a closed cell has at least 4 faces
  // (a tetrahedron), and a face closes at most two cells
  const std::int64_t max_cells = max_closed_cells(n_faces, n_internal);
  if (mesh.n_cells < 0 || mesh.n_cells > max_cells)
    fail(std::to_string(mesh.n_cells) + " cells, but " + std::to_string(n_faces) + " faces (" + std::to_string(n_internal) +
         " internal) can close at most " + std::to_string(max_cells) + " (a cell needs at least 4 faces)");

  // --- faces: offsets, sizes, vertex indices
  if (mesh.face_offsets.size() != static_cast<size_t>(n_faces) + 1 || mesh.face_offsets.front() != 0 ||
      mesh.face_offsets.back() != static_cast<label>(mesh.face_vertices.size()))
    fail("face offsets do not match the " + std::to_string(n_faces) + " faces");
  if (n_internal > n_faces) fail("more neighbours (" + std::to_string(n_internal) + ") than faces (" + std::to_string(n_faces) + ")");
  std::vector<label> loop;
  for (label f = 0; f < n_faces; ++f) {
    if (mesh.face_offsets[f + 1] - mesh.face_offsets[f] < 3) fail("face " + std::to_string(f) + " has fewer than 3 vertices");
    const auto face = mesh.face(f);
    for (label v : face)
      if (v < 0 || v >= n_points)
        fail("face " + std::to_string(f) + " has vertex " + std::to_string(v) + " outside [0, " + std::to_string(n_points) + ")");
    loop.assign(face.begin(), face.end());
    std::sort(loop.begin(), loop.end());
    if (std::adjacent_find(loop.begin(), loop.end()) != loop.end()) fail("face " + std::to_string(f) + " repeats a vertex");
  }

  // --- owner and neighbour
  for (label f = 0; f < n_faces; ++f)
    if (mesh.owner[f] < 0 || mesh.owner[f] >= mesh.n_cells)
      fail("face " + std::to_string(f) + " has owner " + std::to_string(mesh.owner[f]) + " outside [0, " + std::to_string(mesh.n_cells) + ")");
  for (label f = 0; f < n_internal; ++f)
    if (mesh.neighbour[f] < 0 || mesh.neighbour[f] >= mesh.n_cells)
      fail("face " + std::to_string(f) + " has neighbour " + std::to_string(mesh.neighbour[f]) + " outside [0, " + std::to_string(mesh.n_cells) + ")");
  if (!is_upper_triangular(mesh)) fail("internal faces are not in upper-triangular order with owner < neighbour");

  // --- patches: contiguous, in order, covering exactly the boundary faces
  label expected_start = n_internal;
  for (const auto& p : mesh.patches) {
    if (p.start != expected_start || p.size < 0)
      fail("patch '" + p.name + "' starts at face " + std::to_string(p.start) + " (size " + std::to_string(p.size) +
           "), expected start " + std::to_string(expected_start));
    expected_start += p.size;
  }
  if (expected_start != n_faces)
    fail("patches cover faces up to " + std::to_string(expected_start) + " but the mesh has " + std::to_string(n_faces) + " faces");

  // --- every cell closed
  const auto open = find_open_cells(mesh, 1);
  if (!open.empty()) fail("cell " + std::to_string(open.front()) + " is not closed (a face is missing, extra or flipped)");
}

}  // namespace fvmmini
