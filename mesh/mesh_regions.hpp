#pragma once
// The connected regions of a mesh: cells joined through internal faces. A mesh of several
// regions is valid, but a steady equation needs its level fixed in each region on its own (a
// fixed value on one of the region's boundary faces), else its matrix is singular there.

#include <vector>

#include "mesh/mesh.hpp"

namespace fvmmini {

struct MeshRegions {
  label count = 0;             ///< the number of regions (0 for a mesh without cells)
  std::vector<label> of_cell;  ///< each cell's region; regions numbered in the order of their lowest cell
  std::vector<label> cells;    ///< the cells of each region
  std::vector<label> first_cell;  ///< the lowest cell of each region

  /// The regions with at least one boundary face in `patches` (a mesh patch index each): per
  /// region, true where some face of those patches is a face of one of its cells.
  std::vector<bool> touched_by(const Mesh& mesh, const std::vector<std::size_t>& patches) const;
};

/// The connected regions: a union-find over the internal faces' owner and neighbour,
/// O(cells + faces). The addressing must index valid cells (check_mesh_addressing).
MeshRegions mesh_regions(const Mesh& mesh);

}  // namespace fvmmini
