#pragma once
// The triangles of a preconditioner M = (D~ + L) D~^-1 (D~ + U) on a symmetric LDU matrix, in the
// operator's numbering, stored for solving level by level (Anderson & Saad's level scheduling):
// a row's level is one more than the highest level among the neighbours it depends on, so the
// rows of one level are solved in parallel and the levels one after another.
//   DIC:  D~ from the IC(0) recurrence d~_i = a_ii - sum_{j in L(i)} a_ij^2 / d~_j, off-diagonals
//         kept (OpenFOAM's DIC; exactly IC(0) when the matrix graph has no triangles).
//   SGS:  D~ = diag(A): one forward and one backward Gauss-Seidel sweep from zero.
// Each level's rows hold their entries of one triangle as an ELL block (column-major, padded to
// the level's longest row) so that the threads of a level read them coalesced.

#include <cstdint>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// One triangle: entry k of the r-th row of level l sits at offset[l] + k * level size + r.
struct TrianglePart {
  std::vector<std::int64_t> offset;  ///< levels + 1
  std::vector<label> width;          ///< per level: the longest row's entries
  std::vector<label> col;            ///< operator numbering; padding repeats a column already final
  std::vector<double> value;         ///< padding 0
  std::vector<label> face;           ///< slot -> LDU face, -1 for padding
  std::int64_t slots() const { return static_cast<std::int64_t>(col.size()); }
};

/// Which neighbours a row's forward solve depends on.
enum class TriangleSplit {
  index,   ///< those of lower index in the operator's numbering (IC(0) in the solve's ordering)
  colour,  ///< those of a lower greedy colour (multicolour: the levels follow the colours)
};

struct TriangularFactor {
  label n_rows = 0;
  bool modified_diagonal = false;  ///< DIC (true) or SGS (false)
  TriangleSplit split = TriangleSplit::index;
  std::vector<label> level_ptr;    ///< levels + 1, into rows
  std::vector<label> rows;         ///< operator rows, level by level
  bool rows_contiguous = false;    ///< rows[k] == k: the kernels skip the indirection
  label colours = 0;               ///< split colour: the colours used
  TrianglePart lower;              ///< neighbours scheduled before the row (forward solve)
  TrianglePart upper;              ///< neighbours scheduled after it (backward solve)
  std::vector<label> mesh_row;     ///< operator row -> mesh row (its diagonal in the LDU matrix)
  std::vector<double> rdiag;       ///< 1 / d~ per operator row

  label levels() const { return static_cast<label>(level_ptr.size()) - 1; }
  label level_size(label l) const { return level_ptr[l + 1] - level_ptr[l]; }
  std::vector<label> level_sizes() const;
};

/// Levels, triangles and the diagonal for `matrix` in the numbering `op` (new -> old mesh rows).
/// @throws SolverError when a pivot is not positive (refresh_triangular_factor)
TriangularFactor build_triangular_factor(const LduMatrix& matrix, const Permutation& op, TriangleSplit split,
                                         bool modified_diagonal);

/// New values on the same addressing: the triangles from the faces, then D~ (the IC(0) recurrence
/// for DIC). The levels and the colouring stay.
/// @throws SolverError naming the row when a pivot d~ is not positive or not finite (a matrix
///         that is not SPD, or an IC(0) breakdown)
void refresh_triangular_factor(const LduMatrix& matrix, TriangularFactor& factor);

}  // namespace fvmmini
