#include "mesh/mesh_regions.hpp"

#include <atomic>
#include <numeric>
#include <utility>

namespace fvmmini {

namespace {

// A union-find whose every link points from a root to a lower cell, so a set's root is its lowest
// cell whatever order the links come in: the threads link faces at once (ECL-CC's lock-free
// union-find), each link a compare-and-swap on a root, each find halving its path on the way.

label load(std::vector<label>& parent, label c) {
  return std::atomic_ref<label>(parent[c]).load(std::memory_order_relaxed);
}

/// The root of cell c's set; a cell moved up to its grandparent (lower still) on the way.
label find_root(std::vector<label>& parent, label c) {
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
void unite(std::vector<label>& parent, label a, label b) {
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
  std::vector<label> parent(static_cast<std::size_t>(n_cells));
  std::iota(parent.begin(), parent.end(), label{0});
  const label n_internal = mesh.n_internal_faces();
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) unite(parent, mesh.owner[f], mesh.neighbour[f]);

  // --- the roots in cell order are the regions; any other cell's parent is a lower cell of its
  //     set, numbered already
  MeshRegions r;
  r.of_cell.resize(static_cast<std::size_t>(n_cells));
  for (label c = 0; c < n_cells; ++c) {
    if (parent[c] == c) {
      r.of_cell[c] = r.count++;
      r.first_cell.push_back(c);
      r.cells.push_back(0);
    } else {
      r.of_cell[c] = r.of_cell[parent[c]];
    }
    ++r.cells[r.of_cell[c]];
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
