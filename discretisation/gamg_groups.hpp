#pragma once
// The groups of cells that GAMG's first levels make, for a decomposition that keeps them whole
// (decomposition.gamgGroups). METIS on single cells cuts GAMG's pairs along a long ragged rank
// boundary, and each rank then pairs what is left differently from one rank: on the 80^3 box 25
// to 26 iterations on 2 to 4 ranks against 20 on one. On these groups, each rank, pairing its own
// cells in the mesh's order, makes the same groups as one rank does on those levels: 20.

#include <vector>

#include "mesh/geometry.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

/// Of `parts` parts, the fewest groups a part the levels kept whole leave (coarser groups would
/// leave METIS too few to balance the parts within 0.5 %).
inline constexpr label gamg_groups_a_part = 500;

/// Each cell's group (0 .. groups - 1) on the deepest level of GAMG's agglomeration of the whole
/// mesh (agglomerate: its default nCellsInCoarsestLevel and mergeLevels, face weights |S_f| /
/// |d_f|, the Laplacian's orthogonal coefficients) that still has gamg_groups_a_part x parts
/// groups; empty (METIS on the cells) where the first level has fewer.
std::vector<label> gamg_groups(const Mesh& mesh, const MeshGeometry& geometry, int parts);

}  // namespace fvmmini
