#pragma once
// Greedy multicolouring of a matrix graph: no two neighbours share a colour, so the rows of one
// colour can be relaxed or solved for in parallel (the multicolour ordering and the multicolour
// preconditioners use it).

#include <span>
#include <vector>

#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

struct Colouring {
  std::vector<label> colour;  ///< per row, 0 .. n_colours-1
  label n_colours = 0;
  std::vector<label> sizes;   ///< rows per colour
};

/// First-fit colouring visiting the rows in `visit` order (empty: index order): each row takes the
/// smallest colour none of its already coloured neighbours has. A 7-point box visited in index
/// order gets the two colours of a checkerboard.
/// @param[in] offset, adjacency the graph (a row listing itself is harmless): row i's neighbours are
///            adjacency[offset[i] .. offset[i+1])
Colouring greedy_colouring(std::span<const label> offset, std::span<const label> adjacency,
                           std::span<const label> visit = {});

}  // namespace fvmmini
