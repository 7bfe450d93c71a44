#pragma once
// ELL-WARP, after
//   J. Wong, E. Kuhl, E. Darve, "A New Sparse Matrix Vector Multiplication GPU Algorithm Designed
//   for Finite Element Problems", Mechanical Engineering Department and Institute for
//   Computational and Mathematical Engineering, Stanford University (the manuscript is dated
//   February 25, 2022 and names no journal or conference).
//
// Rows are sorted by length over the whole matrix (longest first, stable: the paper's
// pJDS-like sort), then cut into slices of one warp (32 lanes), each an ELLPACK block as wide
// as its longest row, stored column-major so a warp's loads are coalesced (paper section 5.1).
// The sort is a row-only permutation kept in `row_order`, as in SellMatrix: x and y stay in the
// CSR's numbering and y is scattered through row_order (the paper's Pinv).
//
// Kernels (one struct serves both, chosen by EllWarpParameters::kernel):
//   K1 (5.1): one lane per row, 32 rows per slice (the paper notes that K1 is equivalent to
//       SELL-C-sigma: here C = 32 and sigma = all rows).
//   K2 (5.4): slice s gives each of its rows threads_per_row[s] = t lanes (1, 2, 4, .., 32) and
//       covers 32 / t rows: t is the fewest halvings of the slice's longest row that leave at
//       most `threshold` entries per lane (a row longer than 32 * threshold gets the whole warp).
//       The t lanes of a row hold its entries interleaved (entry e in lane e % t, so a step
//       reads t consecutive entries of the row) and are summed by an in-warp reduction. Rows are sorted, so t only falls from slice to slice; a K2 slice with t = 1
//       is laid out exactly as a K1 slice.
//
// Variants (section 5.2-5.3, Table 5):
//   "r"  (x renumbered with the rows): applied outside the builder, as a symmetric permutation
//        that sorts the rows by length first; the builder then finds the sort is the identity
//        and sets rows_in_place (kernels write y[p] and never read row_order).
//   "s"  (column indices sorted within each row, values rearranged with them):
//        EllWarpParameters::sort_columns. The CSRs this project builds already hold sorted rows
//        (csr_matrix.hpp), so there it changes nothing.

#include <cstdint>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/formats/format_common.hpp"

namespace fvmmini {

/// The paper's two kernels.
enum class EllWarpKernel {
  k1,  ///< one lane per row
  k2,  ///< rows split over t lanes per slice by the threshold, in-warp reduction
};

struct EllWarpParameters {
  EllWarpKernel kernel = EllWarpKernel::k1;
  /// K2: the most entries one lane of a slice sums (the paper's "threshold"); rows longer than
  /// this are halved recursively over 2, 4, .., 32 lanes. 8: a lane's loads stay in the unrolled
  /// lengths of the CUDA slice loop (ell_slice.cuh). Unused by K1. Must be >= 1.
  int threshold = 8;
  /// "s": store each row's entries in ascending column order (values follow, value_slot records
  /// where). false keeps the CSR's order within rows.
  bool sort_columns = false;
  /// Record slice_position from the input numbering when the builder sorts the rows (see
  /// EllWarpMatrix::slice_position). false: the CUDA kernels visit slices in storage order, as
  /// the paper's kernels do.
  bool visit_by_position = true;
};

struct EllWarpMatrix {
  static constexpr int warp_size = 32;  ///< lanes per slice

  label n_rows = 0;
  EllWarpParameters parameters;  ///< as built
  /// True when the sort by length is the identity (the input rows were already longest first):
  /// row_order[p] == p, and kernels write y[p] without reading row_order (the "r" variant).
  bool rows_in_place = false;
  label n_slices = 0;
  /// n_rows entries: sorted position p holds CSR row row_order[p] (stable, longest first). Filled
  /// also when rows_in_place (then the identity).
  std::vector<label> row_order;
  /// n_slices + 1 entries: slice s holds the sorted positions [slice_row[s], slice_row[s+1]);
  /// slice_row[n_slices] = n_rows. K1: slice_row[s] = 32 s.
  std::vector<label> slice_row;
  /// n_slices entries: t, the lanes each row of slice s spans (a power of two, 1..32); a slice
  /// covers 32 / t positions, the last slice possibly fewer (its other lanes are padding). K1: 1.
  std::vector<label> threads_per_row;
  /// n_slices + 1 entries: slice s occupies slots [slice_ptr[s], slice_ptr[s+1]) of col/values;
  /// its width (entries per lane) is (slice_ptr[s+1] - slice_ptr[s]) / 32.
  std::vector<std::int64_t> slice_ptr;
  /// slice_ptr[n_slices] entries. Entry e of the row at position p = slice_row[s] + r of slice s
  /// (t = threads_per_row[s]) is at slot slice_ptr[s] + (e / t) * 32 + r * t + e % t: lane r t + j
  /// holds entries j, j + t, j + 2t, .. of the row (K1: slot slice_ptr[s] + e * 32 + r). Entries
  /// in the CSR's order (ascending columns when sort_columns), CSR numbering; the rest of a lane
  /// is padding (-1), as are lanes past the last real row.
  std::vector<label> col;
  std::vector<double> values;             ///< same layout as col; padding holds 0
  std::vector<std::int64_t> value_slot;  ///< nnz entries: CSR slot -> slot in values/col
  /// n_slices entries, or empty: where slice s stands in the mesh, the input position of its
  /// middle real row (the builder: row_order[slice_row[s] + (rows - 1) / 2]). The CUDA kernels
  /// visit slices in this order, so that the slices one block takes cover one stretch of the
  /// mesh (the rows of one length are spread over all of it); empty: storage order. Left empty
  /// by the builder when rows_in_place: where the rows stood before a caller's own sort by length
  /// (the "r" variant) is the caller's to give (ellwarp_slice_positions).
  std::vector<label> slice_position;
  std::int64_t n_nonzeros = 0;

  /// Entries per lane in slice s.
  label slice_width(label s) const {
    return static_cast<label>((slice_ptr[s + 1] - slice_ptr[s]) / warp_size);
  }
  /// Real rows in slice s.
  label slice_rows(label s) const { return slice_row[s + 1] - slice_row[s]; }
  /// Structural nonzeros (the CSR's).
  std::int64_t nnz() const { return n_nonzeros; }
  /// Entries stored, padding included.
  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values.size()); }
  /// stored_entries / nnz (1 without padding).
  double padding_ratio() const { return nnz() > 0 ? static_cast<double>(stored_entries()) / nnz() : 1.0; }
  /// Bytes of the arrays a kernel reads: col, values, slice_ptr; K2 also slice_row and
  /// threads_per_row; row_order unless rows_in_place.
  std::int64_t footprint_bytes() const {
    std::size_t bytes = col.size() * sizeof(label) + values.size() * sizeof(double) +
                        slice_ptr.size() * sizeof(std::int64_t);
    if (parameters.kernel == EllWarpKernel::k2)
      bytes += slice_row.size() * sizeof(label) + threads_per_row.size() * sizeof(label);
    if (!rows_in_place) bytes += row_order.size() * sizeof(label);
    return static_cast<std::int64_t>(bytes);
  }
};

/// "k1" / "k2".
const char* ellwarp_kernel_name(EllWarpKernel kernel);

/// K2's lanes for a slice whose longest row has `length` entries: the smallest t in 1, 2, 4, ..
/// 32 with ceil(length / t) <= threshold, or 32 when none is.
int ellwarp_threads_per_row(label length, int threshold);

/// The rows of csr by length, longest first, stable (new position -> CSR row). O(n_rows + the
/// longest row), OpenMP. Also what a caller needs for the "r" variant's symmetric permutation.
std::vector<label> ellwarp_row_order(const CsrMatrix& csr);

/// ELL-WARP from CSR (any row order; O(nnz), OpenMP).
/// @throws std::invalid_argument unless parameters.threshold >= 1
EllWarpMatrix build_ellwarp(const CsrMatrix& csr, const EllWarpParameters& parameters = {});

/// slice_position for m, given each CSR row's place in the mesh (n_rows entries, in m's CSR
/// numbering): the place of each slice's middle real row.
/// @throws std::invalid_argument on a size mismatch
std::vector<label> ellwarp_slice_positions(const EllWarpMatrix& m, std::span<const label> row_position);

}  // namespace fvmmini
