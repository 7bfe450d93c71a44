#include "linalg/ordering/colouring.hpp"

#include <algorithm>

namespace fvmmini {

Colouring greedy_colouring(std::span<const label> offset, std::span<const label> adjacency,
                           std::span<const label> visit) {
  const label n = offset.empty() ? 0 : static_cast<label>(offset.size()) - 1;
  Colouring c;
  c.colour.assign(n, -1);
  // taken[k] == i: colour k is used by a neighbour of row i (a stamp, so nothing is cleared)
  std::vector<label> taken;
  for (label v = 0; v < n; ++v) {
    const label i = visit.empty() ? v : visit[v];
    for (label k = offset[i]; k < offset[i + 1]; ++k) {
      const label colour = c.colour[adjacency[k]];
      if (colour >= 0) taken[colour] = i;
    }
    label colour = 0;
    while (colour < static_cast<label>(taken.size()) && taken[colour] == i) ++colour;
    if (colour == static_cast<label>(taken.size())) taken.push_back(-1);
    c.colour[i] = colour;
  }
  c.n_colours = static_cast<label>(taken.size());
  c.sizes.assign(c.n_colours, 0);
  for (label colour : c.colour) ++c.sizes[colour];
  return c;
}

}  // namespace fvmmini
