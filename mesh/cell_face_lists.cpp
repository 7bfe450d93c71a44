#include "mesh/cell_face_lists.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>

#include <omp.h>

namespace fvmmini {

namespace {

/// ++counter[i] for i in cells[0 .. n); threads share the counters where there are several.
void count_into(const label* cells, label n, std::vector<label>& counter, bool parallel) {
  if (!parallel) {
    for (label f = 0; f < n; ++f) ++counter[cells[f]];
    return;
  }
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n; ++f) std::atomic_ref<label>(counter[cells[f]]).fetch_add(1, std::memory_order_relaxed);
}

/// faces[next[c]++] = f for each face f of cells[0 .. n), c = cells[f]: on one thread in face
/// order, on several in some order within each cell's run (sorted afterwards).
void place_into(const label* cells, label n, std::vector<std::int64_t>& next, std::span<label> faces, bool parallel) {
  if (!parallel) {
    for (label f = 0; f < n; ++f) faces[next[cells[f]]++] = f;
    return;
  }
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n; ++f)
    faces[std::atomic_ref<std::int64_t>(next[cells[f]]).fetch_add(1, std::memory_order_relaxed)] = f;
}

}  // namespace

CellFaceLists cell_face_lists(const Mesh& mesh) {
  const label n_cells = mesh.n_cells;
  const bool parallel = omp_get_max_threads() > 1;  // one thread: the passes in order, no atomics, no sort
  CellFaceLists cells;
  cells.owned.assign(n_cells, 0);
  std::vector<label> neighboured(n_cells, 0);
  count_into(mesh.owner.data(), mesh.n_faces(), cells.owned, parallel);
  count_into(mesh.neighbour.data(), mesh.n_internal_faces(), neighboured, parallel);
  cells.start.resize(n_cells + 1);
  cells.start[0] = 0;
  for (label c = 0; c < n_cells; ++c) cells.start[c + 1] = cells.start[c] + cells.owned[c] + neighboured[c];
  cells.faces.resize(cells.start[n_cells]);
  // --- the owned faces at each cell's start, the neighboured ones after them
  std::vector<std::int64_t> next(cells.start.begin(), cells.start.end() - 1);
  place_into(mesh.owner.data(), mesh.n_faces(), next, cells.faces, parallel);
#pragma omp parallel for schedule(static) if (parallel)
  for (label c = 0; c < n_cells; ++c) next[c] = cells.start[c] + cells.owned[c];
  place_into(mesh.neighbour.data(), mesh.n_internal_faces(), next, cells.faces, parallel);
  if (!parallel) return cells;
  // --- each run in ascending order, as the passes on one thread place it
#pragma omp parallel for schedule(static)
  for (label c = 0; c < n_cells; ++c) {
    const auto first = cells.faces.begin() + cells.start[c], middle = first + cells.owned[c],
               last = cells.faces.begin() + cells.start[c + 1];
    std::sort(first, middle);
    std::sort(middle, last);
  }
  return cells;
}

}  // namespace fvmmini
