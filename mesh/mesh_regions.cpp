#include "mesh/mesh_regions.hpp"

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <numeric>
#include <utility>

namespace fvmmini {

namespace {

// A union-find whose every link points from a root to a lower cell, so a set's root is its lowest
// cell whatever order the links come in: the threads link faces at once (ECL-CC's lock-free
// union-find), each link a compare-and-swap on a root, each find halving its path on the way.

label load(UnfilledVector<label>& parent, label c) {
  return std::atomic_ref<label>(parent[c]).load(std::memory_order_relaxed);
}

/// The root of cell c's set; a cell moved up to its grandparent (lower still) on the way.
label find_root(UnfilledVector<label>& parent, label c) {
  label next = load(parent, c);
  while (next != c) {
    const label grandparent = load(parent, next);
    if (grandparent != next) std::atomic_ref<label>(parent[c]).store(grandparent, std::memory_order_relaxed);
    c = next;
    next = grandparent;
  }
  return c;
}

/// Join the sets of cells a and b: the higher root linked under the lower one.
void unite(UnfilledVector<label>& parent, label a, label b) {
  while (true) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    label expected = b;  // b may have been linked meanwhile: then try again from its new root
    if (std::atomic_ref<label>(parent[b]).compare_exchange_strong(expected, a, std::memory_order_relaxed)) return;
  }
}

}  // namespace

MeshRegions mesh_regions(const Mesh& mesh) {
  const label n_cells = mesh.n_cells;
  UnfilledVector<label> parent(static_cast<std::size_t>(n_cells));
  const label n_internal = mesh.n_internal_faces();
  MeshRegions r;
  r.of_cell.resize(static_cast<std::size_t>(n_cells));
  std::vector<label> roots_before;  // per thread: the roots in the threads' cells before its own
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (label c = 0; c < n_cells; ++c) parent[c] = c;
#pragma omp for schedule(static)
    for (label f = 0; f < n_internal; ++f) unite(parent, mesh.owner[f], mesh.neighbour[f]);
    // --- every cell linked straight to its root; the roots in cell order are the regions, each
    //     thread numbering its own range's after the roots of the ranges before it
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const auto first = static_cast<label>(std::int64_t{n_cells} * t / nt);
    const auto last = static_cast<label>(std::int64_t{n_cells} * (t + 1) / nt);
#pragma omp single
    roots_before.assign(static_cast<std::size_t>(nt) + 1, 0);
    label roots = 0;
    for (label c = first; c < last; ++c) {
      const label root = find_root(parent, c);
      std::atomic_ref<label>(parent[c]).store(root, std::memory_order_relaxed);
      roots += root == c;
    }
    roots_before[t + 1] = roots;
#pragma omp barrier
#pragma omp single
    {
      std::partial_sum(roots_before.begin(), roots_before.end(), roots_before.begin());
      r.count = roots_before[nt];
      r.first_cell.resize(static_cast<std::size_t>(r.count));
      r.cells.assign(static_cast<std::size_t>(r.count), 0);
    }
    label next = roots_before[t];
    for (label c = first; c < last; ++c)
      if (parent[c] == c) {
        r.first_cell[next] = c;
        r.of_cell[c] = next++;
      }
#pragma omp barrier
    // --- each run of one region's cells counted at once: one addition a thread on a connected mesh
    label run_region = -1, run = 0;
    for (label c = first; c < last; ++c) {
      const label region = parent[c] == c ? r.of_cell[c] : r.of_cell[parent[c]];
      if (parent[c] != c) r.of_cell[c] = region;
      if (region != run_region && run > 0) {
        std::atomic_ref<label>(r.cells[run_region]).fetch_add(run, std::memory_order_relaxed);
        run = 0;
      }
      run_region = region;
      ++run;
    }
    if (run > 0) std::atomic_ref<label>(r.cells[run_region]).fetch_add(run, std::memory_order_relaxed);
  }
  return r;
}

std::vector<bool> MeshRegions::touched_by(const Mesh& mesh, const std::vector<std::size_t>& patches) const {
  std::vector<bool> touched(static_cast<std::size_t>(count), false);
  for (const std::size_t p : patches) {
    const Patch& patch = mesh.patches[p];
    for (label f = patch.start; f < patch.start + patch.size; ++f) touched[of_cell[mesh.owner[f]]] = true;
  }
  return touched;
}

}  // namespace fvmmini
