#pragma once
// Each cell's faces, from the owner and neighbour lists: first the faces the cell owns, in
// ascending order, then the faces it neighbours, in ascending order. That is the order in which
// a pass over the owners and then one over the neighbours visit them, so a sum over a cell's
// faces in this order is, to the bit, the sum those two face passes make; cell by cell, it can
// run in parallel without atomics. (The flow step's CellFaces, discretisation/incompressible, is
// another list: faces interleaved in face order with their signs, empty patches left out.)

#include <cstdint>
#include <vector>

#include "base/unfilled_vector.hpp"
#include "mesh/mesh.hpp"

#if defined(__CUDACC__)
#define FVMMINI_LISTS_HD __host__ __device__
#else
#define FVMMINI_LISTS_HD
#endif

namespace fvmmini {

struct CellFaceLists {
  /// n_cells + 1: cell c has faces[start[c] .. start[c + 1]); 64-bit, as the n_faces +
  /// n_internal_faces entries can pass the label range
  std::vector<std::int64_t> start;
  UnfilledVector<label> faces;  ///< unfilled: every entry placed
  std::vector<label> owned;  ///< per cell, how many of its faces it owns (they come first)
};

/// The cells' faces of `mesh` (owner and neighbour indices in range), built in parallel.
CellFaceLists cell_face_lists(const Mesh& mesh);

/// visit(f) for each face of cell c in ascending face order (its owned and neighboured runs
/// merged): the order in which one pass over all the faces reaches them. Lists: CellFaceLists, or
/// a view of the same arrays (mesh_formulas::CellListView, on the host or the device).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Lists, class Visit>
FVMMINI_LISTS_HD void for_each_face_in_face_order(const Lists& cells, label c, Visit&& visit) {
  const std::int64_t owned_end = cells.start[c] + cells.owned[c], last = cells.start[c + 1];
  std::int64_t o = cells.start[c], k = owned_end;
  while (o < owned_end || k < last)
    visit(k == last || (o < owned_end && cells.faces[o] < cells.faces[k]) ? cells.faces[o++] : cells.faces[k++]);
}

}  // namespace fvmmini
