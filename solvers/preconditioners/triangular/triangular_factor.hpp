#pragma once
// The triangles of a preconditioner M = (D~ + L) D~^-1 (D~ + U) on an LDU matrix, in the
// operator's numbering, stored for solving level by level (Anderson & Saad's level scheduling):
// a row's level is one more than the highest level among the neighbours it depends on, so the
// rows of one level are solved in parallel and the levels one after another. L and U hold the
// matrix's own entries of each triangle (its lower and upper coefficients where it is asymmetric).
//   DIC:  D~ from the recurrence d~_i = a_ii - sum_{j in L(i)} a_ij a_ji / d~_j, off-diagonals
//         kept (OpenFOAM's DIC; exactly IC(0) when the matrix graph has no triangles); on an
//         asymmetric matrix the same recurrence is OpenFOAM's DILU.
//   SGS:  D~ = diag(A): one forward and one backward Gauss-Seidel sweep from zero.
// Each level's rows hold their entries of one triangle as an ELL block (column-major, padded to
// the level's longest row) so that the threads of a level read them coalesced.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"

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

/// The matrix pattern in the operator's numbering as CSR with ascending columns, the diagonal
/// included: the input of the level analyses (host and device) and of cusparseSpSV.
struct FactorPattern {
  std::vector<label> row_ptr;  ///< rows + 1
  std::vector<label> col;
  std::vector<label> face;     ///< the entry's LDU face; -1 on the diagonal
  label n_rows() const { return static_cast<label>(row_ptr.size()) - 1; }
};

FactorPattern factor_pattern(const LduAddressing& addressing, const Permutation& op);

/// The most off-diagonal entries of a row of `pattern`.
label widest_row(const FactorPattern& pattern);

/// Which neighbours a row's forward solve depends on.
enum class TriangleSplit {
  index,   ///< those earlier in the solve's ordering (IC(0) in that ordering)
  colour,  ///< those of a lower greedy colour (multicolour: the levels follow the colours)
};

/// A preconditioner M = (D~ + L) D~^-1 (D~ + U): how its triangles are split and whether its
/// pivots D~ are modified (incomplete Cholesky) or the diagonal's own (Gauss-Seidel). A new method
/// of this kind needs only a new split or new pivots.
struct TriangularMethod {
  std::string name;  ///< its preconditioner's name
  TriangleSplit split = TriangleSplit::index;
  bool modified_diagonal = true;
};
/// DIC: IC(0) on the LDU pattern with only the diagonal modified, the triangles split by the
/// solve's ordering, so its ordering decides the levels.
inline const TriangularMethod incomplete_cholesky{"DIC", TriangleSplit::index, true};
/// DILU: the same recurrence on an asymmetric matrix (OpenFOAM's DILU), each triangle its own
/// coefficients; on a symmetric matrix it is DIC.
inline const TriangularMethod incomplete_lu{"DILU", TriangleSplit::index, true};
/// smoothSolver's GaussSeidel and symGaussSeidel: the diagonal's own pivots, the triangles split by
/// the solve's ordering (the mesh's cell order under ordering none, as OpenFOAM sweeps).
inline const TriangularMethod gauss_seidel{"GaussSeidel", TriangleSplit::index, false};
/// mcsgs: symmetric Gauss-Seidel on a greedy colouring of the solve's ordering, one level per colour.
inline const TriangularMethod multicolour_gauss_seidel{"mcsgs", TriangleSplit::colour, false};

/// The rows in the order the split schedules them: a row depends on its neighbours earlier in it.
/// `sequence` is the solve's ordering: per operator row, its position there (a format that
/// groups rows by length numbers the operator differently: PreparedFormat::position_before_grouping);
/// empty: the operator's own numbering. TriangleSplit::index: the rows in that sequence; colour:
/// by greedy colour, the colouring visiting and ties kept in that sequence, the colour count to
/// `colours`. So a colour ordering keeps its colours as levels in any format.
std::vector<label> schedule_order(const FactorPattern& pattern, TriangleSplit split, label* colours,
                                  std::span<const label> sequence = {});

/// The rows in `sequence` (schedule_order's order for TriangleSplit::index, which reads no pattern).
std::vector<label> sequence_order(label n_rows, std::span<const label> sequence);

struct TriangularFactor {
  std::string method;              ///< its preconditioner's name, for the errors
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
/// @param[in] sequence the solve's ordering as schedule_order takes it (empty: the operator's)
TriangularFactor build_triangular_factor(const LduMatrix& matrix, const Permutation& op, const TriangularMethod& method,
                                         std::span<const label> sequence = {});

/// The error of `method`'s pivot d~ that is not positive or not finite at operator row `row`.
SolverError pivot_error(const TriangularMethod& method, double pivot, label row, label mesh_cell);

/// Bytes one application of a factor moves (triangles with their padding, pivots, vectors, the
/// level indirection unless the rows are contiguous) over the bytes of a CSR SpMV of the same
/// matrix (12 per nonzero, 16 per row): the log's and the summary's per-application cost. Sweeps
/// after the first add an SpMV and a residual pass each.
double spmv_equivalents(label n_rows, std::int64_t triangle_slots, bool rows_contiguous, int sweeps, std::int64_t nnz);

/// The critical path, in hops, of a sync-free pass over the rows in `order` (rows by rank; a row
/// depends on its neighbours of lower rank) that takes them in blocks of `block_rows` consecutive
/// ranks, at most `resident_blocks` at once, each block starting, in rank order, as soon as one
/// of those running is done: a row is done one hop after the last of its earlier neighbours and
/// not before its block starts. With every block resident it is the level count; where the ranks
/// do not run level by level, the window of resident ranks holds few whole levels, walks the
/// dependency chains a window at a time and it is larger. The device's level analysis is such a
/// pass: its time over this is what one hop (a publish and a poll through L2) costs.
long long sync_free_hops(const FactorPattern& pattern, std::span<const label> order, int block_rows,
                         int resident_blocks);

/// New values on the same addressing: the triangles from the faces (each entry the matrix's own at
/// its row and column), then D~ (the recurrence for DIC and DILU). The levels and the colouring stay.
/// @throws SolverError naming the row when a pivot d~ is not positive or not finite (a matrix
///         that is not SPD, or an IC(0) breakdown)
void refresh_triangular_factor(const LduMatrix& matrix, TriangularFactor& factor);

}  // namespace fvmmini
