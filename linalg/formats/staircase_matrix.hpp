#pragma once
// Staircase SELL (Wikberg 2025, section 4.3). The rows, already in the Staircase ordering
// (grouped by nonzero count, shortest first: see group_by_row_length), form groups;
// each group g is cut into step_blocks[g] slices of slice_height (sh) rows, and each slice
// is an ELLPACK block of step_lengths[g] entries per row, stored column-major
// (Algorithm 4). Rows and columns share the CSR's numbering: no permutation inside. Rows that
// form a single group (every shorter length merged into the longest) may come in any order: the
// registry then keeps the ordering as it is instead of grouping.
//
// Algorithm 3 (index structure), with h[i] = rows having i nonzeros, i = 0..mnz:
//   for i < mnz: if h[i] < alpha*n the group merges into i+1 (h[i+1] += h[i]);
//                otherwise it keeps sh*floor(h[i]/sh) rows as one group of length i and
//                passes the leftover rows on to group i+1 (stored there, padded to length i+1).
//   the last group (length mnz) takes the rest and is padded to ceil(h[mnz]/sh) slices.
// A group that would get no full slice (possible only when n < sh, where Wikberg's
// range [sh/n, 1] for alpha is empty) merges upward too. Only an empty matrix has an
// empty group (one group with step_blocks = 0): kernels must handle step_blocks[g] == 0.
//
// Kernel view (Wikberg 2025, 4.3.4, one launch of step_blocks[g] blocks of sh threads per group):
//   thread t of block b in group g handles row  row_ptr[g] + b*sh + t  (write only if < n_rows)
//   and reads step_lengths[g] entries at slots  step_ptr[g] + b*step_lengths[g]*sh + k*sh + t.

#include <cstdint>
#include <span>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// The host-side index arrays of Algorithm 3 (names as in Wikberg 2025). n_groups entries each,
/// plus one closing entry in step_ptr and row_ptr.
struct StaircaseIndex {
  std::vector<label> step_lengths;     ///< n_groups: stored entries per row in group g (strictly increasing)
  std::vector<label> step_blocks;      ///< n_groups: slices (thread blocks of sh rows) in group g
  std::vector<std::int64_t> step_ptr;  ///< n_groups + 1: first slot of group g; step_ptr[n_groups] = val_size
  /// n_groups + 1: first row of group g; row_ptr[n_groups] = n_rows (the real rows; the last
  /// group's padding rows n_rows .. row_ptr[last] + step_blocks[last]*sh - 1 are not real).
  std::vector<label> row_ptr;

  /// Groups (kernel launches).
  label n_groups() const { return static_cast<label>(step_lengths.size()); }
  /// Entries stored over all groups (val_size in Wikberg 2025).
  std::int64_t val_size() const { return step_ptr.empty() ? 0 : step_ptr.back(); }
};

struct StaircaseMatrix {
  label n_rows = 0;
  int slice_height = 32;  ///< sh: rows per slice = threads per block (multiple of 32, <= 1024)
  double alpha = 0.01;    ///< merge threshold: groups with fewer than alpha * n_rows rows merge upward
  StaircaseIndex index;   ///< stays on the host
  /// index.val_size() entries. Entry k of local row j (0 <= j < step_blocks[g]*sh) of group g is at
  /// step_ptr[g] + (j / sh) * step_lengths[g] * sh + k * sh + j % sh. A row's real entries come first,
  /// columns ascending; then padding (-1) up to step_lengths[g]; padding rows are all -1.
  std::vector<label> col;
  std::vector<double> values;             ///< same layout as col; padding holds 0
  /// nnz entries: CSR slot -> slot in values/col; empty when built from the rows (the caller holds
  /// the map straight to values/col)
  std::vector<std::int64_t> value_slot;
  std::int64_t n_nonzeros = 0;
  /// Per slice (groups in order, then slices in order): where its middle real row stood in the
  /// ordering before the grouping by row length (Cuthill-McKee for the staircase ordering). The
  /// interleaved launch visits slices in this order, so that the slices one block takes cover one
  /// stretch of the mesh in every group. Empty when unknown (see staircase_slice_positions).
  std::vector<label> slice_position;

  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return n_nonzeros; }
  /// Entries stored, padding included (the index's count: a shape, whose arrays a device builds,
  /// holds none on the host).
  std::int64_t stored_entries() const { return index.val_size(); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return nnz() > 0 ? static_cast<double>(stored_entries()) / nnz() : 1.0; }
  /// Bytes on the device: col and values (the index arrays stay on the host).
  std::int64_t footprint_bytes() const {
    return stored_entries() * static_cast<std::int64_t>(sizeof(label) + sizeof(double));
  }
};

/// Check the Staircase parameters for an n_rows matrix.
/// @throws std::invalid_argument unless sh is a positive multiple of 32 and <= 1024, and
///         sh/n_rows <= alpha <= 1 (any 0 < alpha <= 1 when n_rows < sh); the message states the range
void validate_staircase_parameters(label n_rows, int slice_height, double alpha);

/// Algorithm 3 on a row-length histogram (histogram[i] = rows with i nonzeros, i = 0..mnz;
/// histogram.back() must be non-zero unless the matrix is empty).
StaircaseIndex staircase_index(const std::vector<label>& histogram, label n_rows, int slice_height, double alpha);

/// Algorithms 3 and 4 on a CSR matrix whose rows are sorted by non-decreasing length
/// (the Staircase ordering; see group_by_row_length), or in any order where they form one group.
/// @throws std::invalid_argument on bad parameters, or rows of several groups not in
/// non-decreasing length order
StaircaseMatrix build_staircase(const CsrMatrix& csr, int slice_height, double alpha);

/// build_staircase straight from the rows of P A P^T, no CSR made: `map` receives every LDU
/// coefficient's slot in the format's values (value_slot stays empty: the map is already the
/// format's own). The same struct as build_staircase(permuted_csr(...)), the same errors.
StaircaseMatrix build_staircase(const PermutedRows& rows, int slice_height, double alpha, LduToCsrMap& map);

/// The struct's shape for rows of these lengths (the final numbering): its index, nnz and keys,
/// col and values left empty for a backend that builds them on its own device from the rows
/// (FormatUnit::build_shape). The same checks and errors as build_staircase.
StaircaseMatrix staircase_shape(std::span<const label> row_lengths, std::int64_t nnz, int slice_height, double alpha);

/// slice_position for m, given each row's position before the grouping (n_rows entries, in m's
/// numbering).
std::vector<label> staircase_slice_positions(const StaircaseMatrix& m, std::span<const label> row_position);

}  // namespace fvmmini
