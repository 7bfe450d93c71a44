// ELL-WARP: hand-worked K1 and K2 layouts (sort, slices, column-major lanes, value_slot), the
// "s" column sort, the identity sort ("r": rows in place), slice positions, and the reference
// kernel against the LDU face loop on the test generators, with 1 to 3 threads; a value refresh
// through value_slot against a fresh build.

#include <gtest/gtest.h>


#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/reference/ellwarp_spmv.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/parallel.hpp"
#include "linalg/csr_matrix.hpp"
#include "linalg/formats/ellwarp_matrix.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/ordering/permutation.hpp"
#include "layout_helpers.hpp"
#include "matrix_generators.hpp"
#include "omp_threads.hpp"

namespace fvmmini {
namespace {

using test::concat;
using test::csr_from_rows;
using test::I64;
using test::iota_labels;
using test::Labels;
using test::padding;
using test::Rows;

I64 iota_slots(std::int64_t from, std::int64_t count) {
  I64 out(count);
  for (std::int64_t i = 0; i < count; ++i) out[i] = from + i;
  return out;
}
I64 concat_slots(std::initializer_list<I64> parts) {
  I64 out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

EllWarpParameters k1() { return {}; }
EllWarpParameters k2(int threshold) {
  EllWarpParameters p;
  p.kernel = EllWarpKernel::k2;
  p.threshold = threshold;
  return p;
}

using test::Threads;

// 34 rows: row i holds its diagonal 100 + i, except row 5 = {0: 1, 5: 105, 33: 2},
// row 20 = {20: 120, 32: 3} and row 33 = {5: 4, 33: 133}. Lengths 1 but for 3 (row 5), 2 (rows 20, 33).
// CSR slots: rows 0..4 -> 0..4, row 5 -> 5..7, rows 6..19 -> 8..21, row 20 -> 22, 23,
// rows 21..32 -> 24..35, row 33 -> 36, 37.
CsrMatrix hand_matrix() {
  Rows rows;
  for (label i = 0; i < 34; ++i) rows.push_back({{i, 100.0 + i}});
  rows[5] = {{0, 1.0}, {5, 105.0}, {33, 2.0}};
  rows[20] = {{20, 120.0}, {32, 3.0}};
  rows[33] = {{5, 4.0}, {33, 133.0}};
  return csr_from_rows(rows);
}

// y = A x for hand_matrix with x_i = 1 + i.
std::vector<double> hand_product() {
  std::vector<double> y(34);
  for (label i = 0; i < 34; ++i) y[i] = (100.0 + i) * (1.0 + i);
  y[5] = 1.0 * 1 + 105.0 * 6 + 2.0 * 34;
  y[20] = 120.0 * 21 + 3.0 * 33;
  y[33] = 4.0 * 6 + 133.0 * 34;
  return y;
}

std::vector<double> hand_x() {
  std::vector<double> x(34);
  for (label i = 0; i < 34; ++i) x[i] = 1.0 + i;
  return x;
}

// The stable sort, longest first: 5 (length 3), 20 and 33 (2), then the 31 rows of length 1.
Labels hand_row_order() { return concat({{5, 20, 33}, iota_labels(0, 5), iota_labels(6, 14), iota_labels(21, 12)}); }

TEST(EllWarpLayout, K1SortsRowsOverTheMatrixAndStoresWarpSlicesColumnMajor) {
  const EllWarpMatrix m = build_ellwarp(hand_matrix(), k1());
  EXPECT_FALSE(m.rows_in_place);
  EXPECT_EQ(m.row_order, hand_row_order());
  // --- slice 0: positions 0..31 (rows 5, 20, 33, then 0..4, 6..19, 21..30), as wide as row 5 (3);
  //     slice 1: rows 31 and 32 and 30 padding lanes, width 1
  EXPECT_EQ(m.n_slices, 2);
  EXPECT_EQ(m.slice_row, (Labels{0, 32, 34}));
  EXPECT_EQ(m.threads_per_row, (Labels{1, 1}));
  EXPECT_EQ(m.slice_ptr, (I64{0, 96, 128}));
  EXPECT_EQ(m.slice_width(0), 3);
  EXPECT_EQ(m.slice_width(1), 1);
  EXPECT_EQ(m.slice_rows(1), 2);
  // --- entry e of lane r of slice s at slice_ptr[s] + 32 e + r
  const Labels expected_col = concat({{0, 20, 5}, iota_labels(0, 5), iota_labels(6, 14), iota_labels(21, 10),  // e 0
                                      {5, 32, 33}, padding(29),                                              // e 1
                                      {33}, padding(31),                                                     // e 2
                                      {31, 32}, padding(30)});                                               // slice 1
  EXPECT_EQ(m.col, expected_col);
  std::vector<double> expected_values(128, 0.0);
  for (std::size_t slot = 0; slot < 128; ++slot)
    if (expected_col[slot] >= 0) expected_values[slot] = 100.0 + expected_col[slot];  // the diagonals
  expected_values[0] = 1.0;    // row 5, e 0 (column 0)
  expected_values[1] = 120.0;  // row 20, e 0
  expected_values[2] = 4.0;    // row 33, e 0 (column 5)
  expected_values[32] = 105.0;
  expected_values[33] = 3.0;
  expected_values[34] = 133.0;
  expected_values[64] = 2.0;
  EXPECT_EQ(m.values, expected_values);
  // --- CSR slot -> slot: rows 0..4 in lanes 3..7, row 5 in lane 0, rows 6..19 in lanes 8..21,
  //     row 20 in lane 1, rows 21..30 in lanes 22..31, rows 31, 32 in slice 1, row 33 in lane 2
  EXPECT_EQ(m.value_slot, concat_slots({iota_slots(3, 5), {0, 32, 64}, iota_slots(8, 14), {1, 33}, iota_slots(22, 10),
                                        {96, 97}, {2, 34}}));
  EXPECT_EQ(m.nnz(), 38);
  EXPECT_EQ(m.stored_entries(), 128);
  EXPECT_DOUBLE_EQ(m.padding_ratio(), 128.0 / 38.0);
  EXPECT_EQ(m.footprint_bytes(), 128 * 12 + 3 * 8 + 34 * 4);  // col, values, slice_ptr, row_order
  // --- slice positions: the CSR rows at sorted positions 15 (row 13) and 32 (row 31)
  EXPECT_EQ(m.slice_position, (Labels{13, 31}));

  const auto x = hand_x();
  std::vector<double> y(34, std::nan(""));
  reference::ellwarp_spmv(m, x, y);
  EXPECT_EQ(y, hand_product());
}

TEST(EllWarpLayout, K2SplitsLongRowsOverLanesAndPacksMoreRowsInASlice) {
  // threshold 2: row 5 (3 entries) needs t = 2 lanes (2 entries each), so slice 0 takes 16 rows
  // (positions 0..15) and is 2 wide; position 16 (row 14, length 1) gives t = 1: slice 1 takes
  // the remaining 18 rows (14..19, 21..32), width 1.
  const EllWarpMatrix m = build_ellwarp(hand_matrix(), k2(2));
  EXPECT_EQ(m.row_order, hand_row_order());
  EXPECT_EQ(m.n_slices, 2);
  EXPECT_EQ(m.slice_row, (Labels{0, 16, 34}));
  EXPECT_EQ(m.threads_per_row, (Labels{2, 1}));
  EXPECT_EQ(m.slice_ptr, (I64{0, 64, 96}));
  // --- slice 0: entry e of local row r at (e / 2) 32 + 2 r + e % 2. Row 5 (r 0): lanes 0, 1 then
  //     lane 0 of step 1; row 20 (r 1): lanes 2, 3; row 33 (r 2): lanes 4, 5; rows 0..4, 6..13
  //     (r 3..15): lane 2r, their second lane padding.
  Labels step0{0, 5, 20, 32, 5, 33};
  for (label row : concat({iota_labels(0, 5), iota_labels(6, 8)})) {
    step0.push_back(row);
    step0.push_back(padding_column);
  }
  EXPECT_EQ(m.col, concat({step0, {33}, padding(31), iota_labels(14, 6), iota_labels(21, 12), padding(14)}));
  EXPECT_EQ(m.values[0], 1.0);
  EXPECT_EQ(m.values[1], 105.0);
  EXPECT_EQ(m.values[32], 2.0);
  EXPECT_EQ(m.values[2], 120.0);
  EXPECT_EQ(m.values[3], 3.0);
  EXPECT_EQ(m.values[4], 4.0);
  EXPECT_EQ(m.values[5], 133.0);
  EXPECT_EQ(m.values[6], 100.0);  // row 0
  EXPECT_EQ(m.values[7], 0.0);    // its padding lane
  EXPECT_EQ(m.values[64], 114.0);  // row 14, slice 1 lane 0
  // --- rows 0..4 in lanes 6..14 (even), row 5: 0, 1, 32; rows 6..13 in lanes 16..30 (even), rows
  //     14..19 and 21..32 in slice 1 (64 + lane), row 20: 2, 3; row 33: 4, 5
  EXPECT_EQ(m.value_slot, concat_slots({{6, 8, 10, 12, 14}, {0, 1, 32}, {16, 18, 20, 22, 24, 26, 28, 30},
                                        iota_slots(64, 6), {2, 3}, iota_slots(70, 12), {4, 5}}));
  EXPECT_EQ(m.stored_entries(), 96);
  // col, values, slice_ptr, slice_row, threads_per_row, row_order
  EXPECT_EQ(m.footprint_bytes(), 96 * 12 + 3 * 8 + 3 * 4 + 2 * 4 + 34 * 4);
  // --- middles: position 7 (row 4) and 16 + 8 = 24 (row 23)
  EXPECT_EQ(m.slice_position, (Labels{4, 23}));

  const auto x = hand_x();
  std::vector<double> y(34, std::nan(""));
  reference::ellwarp_spmv(m, x, y);
  EXPECT_EQ(y, hand_product());
}

TEST(EllWarpLayout, K2ThreadsPerRowHalveUntilTheThreshold) {
  EXPECT_EQ(ellwarp_threads_per_row(0, 8), 1);
  EXPECT_EQ(ellwarp_threads_per_row(8, 8), 1);
  EXPECT_EQ(ellwarp_threads_per_row(9, 8), 2);
  EXPECT_EQ(ellwarp_threads_per_row(16, 8), 2);
  EXPECT_EQ(ellwarp_threads_per_row(17, 8), 4);
  EXPECT_EQ(ellwarp_threads_per_row(19, 8), 4);
  EXPECT_EQ(ellwarp_threads_per_row(256, 8), 32);
  // --- longer than 32 * threshold: the whole warp, more than threshold entries a lane
  EXPECT_EQ(ellwarp_threads_per_row(257, 8), 32);
  EXPECT_EQ(ellwarp_threads_per_row(1000, 1), 32);
  EXPECT_EQ(ellwarp_threads_per_row(3, 1), 4);
}

TEST(EllWarpLayout, K2HubRowTakesAWholeWarpAndLaterSlicesGrow) {
  // row 0 has 40 entries, rows 1..39 have 1 (their diagonal); threshold 1: row 0 needs all 32
  // lanes (2 entries each), so slice 0 holds row 0 alone; then t = 1 slices of 32 rows.
  Rows rows(40);
  for (label j = 0; j < 40; ++j) rows[0].push_back({j, 1.0 + j});
  for (label i = 1; i < 40; ++i) rows[i] = {{i, 2.0}};
  const EllWarpMatrix m = build_ellwarp(csr_from_rows(rows), k2(1));
  EXPECT_TRUE(m.rows_in_place);
  EXPECT_EQ(m.slice_row, (Labels{0, 1, 33, 40}));
  EXPECT_EQ(m.threads_per_row, (Labels{32, 1, 1}));
  EXPECT_EQ(m.slice_ptr, (I64{0, 64, 96, 128}));
  // --- row 0: entry e at (e / 32) 32 + e % 32 = e: its 40 entries, then 24 padding lanes
  EXPECT_EQ(Labels(m.col.begin(), m.col.begin() + 64), concat({iota_labels(0, 40), padding(24)}));
  std::vector<double> x(40, 1.0), y(40, std::nan(""));
  reference::ellwarp_spmv(m, x, y);
  EXPECT_EQ(y[0], 40.0 * 41.0 / 2.0);
  for (label i = 1; i < 40; ++i) EXPECT_EQ(y[i], 2.0);
}

TEST(EllWarpLayout, SortColumnsStoresEachRowByAscendingColumn) {
  // rows given with unsorted columns: "s" sorts them (values follow), without it the CSR order stays
  const CsrMatrix a = csr_from_rows({{{2, 1.0}, {0, 2.0}, {1, 3.0}}, {{1, 4.0}, {0, 5.0}}, {{2, 6.0}}});
  const EllWarpMatrix kept = build_ellwarp(a, k1());
  EXPECT_EQ(Labels(kept.col.begin(), kept.col.begin() + 3), (Labels{2, 1, 2}));
  EXPECT_EQ(Labels(kept.col.begin() + 32, kept.col.begin() + 34), (Labels{0, 0}));
  EllWarpParameters s = k1();
  s.sort_columns = true;
  const EllWarpMatrix sorted = build_ellwarp(a, s);
  // --- slot 32 e + r: row 0 = (0: 2), (1: 3), (2: 1); row 1 = (0: 5), (1: 4); row 2 = (2: 6)
  EXPECT_EQ(Labels(sorted.col.begin(), sorted.col.begin() + 3), (Labels{0, 0, 2}));
  EXPECT_EQ(Labels(sorted.col.begin() + 32, sorted.col.begin() + 34), (Labels{1, 1}));
  EXPECT_EQ(sorted.col[64], 2);
  EXPECT_EQ(sorted.value_slot, (I64{64, 0, 32, 33, 1, 2}));
  for (std::size_t k = 0; k < a.values.size(); ++k) EXPECT_EQ(sorted.values[sorted.value_slot[k]], a.values[k]);
  const std::vector<double> x{1, 2, 3};
  std::vector<double> y1(3), y2(3);
  reference::ellwarp_spmv(kept, x, y1);
  reference::ellwarp_spmv(sorted, x, y2);
  EXPECT_EQ(y1, (std::vector<double>{3 + 2 + 6, 8 + 5, 18}));
  EXPECT_EQ(y2, y1);
}

TEST(EllWarpLayout, RowsAlreadyLongestFirstStayInPlace) {
  // lengths 3, 2, 2, 1: the sort is the identity
  const CsrMatrix a = csr_from_rows({{{0, 1.0}, {1, 2.0}, {3, 3.0}}, {{0, 4.0}, {1, 5.0}}, {{2, 6.0}, {3, 7.0}}, {{3, 8.0}}});
  for (const auto& params : {k1(), k2(1)}) {
    EllWarpMatrix m = build_ellwarp(a, params);
    EXPECT_TRUE(m.rows_in_place);
    EXPECT_EQ(m.row_order, (Labels{0, 1, 2, 3}));
    EXPECT_TRUE(m.slice_position.empty());  // the caller's to give
    EXPECT_EQ(m.footprint_bytes(), m.stored_entries() * 12 +
                                        static_cast<std::int64_t>(m.slice_ptr.size() * 8) +
                                        (params.kernel == EllWarpKernel::k2 ? (m.n_slices * 2 + 1) * 4 : 0));
    // --- the kernel writes y[p] without reading row_order
    m.row_order.clear();
    const std::vector<double> x{1, 2, 3, 4};
    std::vector<double> y(4, std::nan(""));
    reference::ellwarp_spmv(m, x, y);
    EXPECT_EQ(y, (std::vector<double>{1 + 4 + 12, 4 + 10, 18 + 28, 32}));
  }
  // --- one row out of order is enough to sort
  const CsrMatrix b = csr_from_rows({{{0, 1.0}}, {{0, 1.0}, {1, 1.0}}});
  const EllWarpMatrix sorted = build_ellwarp(b, k1());
  EXPECT_FALSE(sorted.rows_in_place);
  EXPECT_EQ(sorted.row_order, (Labels{1, 0}));
}

TEST(EllWarpLayout, SymmetricSortByLengthBeforeTheBuildIsTheRVariant) {
  // the "r" variant: renumber the matrix symmetrically by ellwarp_row_order, then build: rows in
  // place, same product as the LDU face loop in the renumbered vectors
  const LduMatrix m = test::random_matrix(700, 6, 51);
  const Permutation sort = Permutation::from_new_to_old(ellwarp_row_order(ldu_to_csr(m)));
  ASSERT_FALSE(sort.is_identity());
  const CsrMatrix csr = permuted_csr(m, sort);
  for (const auto& params : {k1(), k2(4)}) {
    const EllWarpMatrix a = build_ellwarp(csr, params);
    EXPECT_TRUE(a.rows_in_place);
    const auto x = test::random_vector(m.n_rows(), 52);
    std::vector<double> expected(m.n_rows()), x_new(m.n_rows()), y_new(m.n_rows(), std::nan("")), y(m.n_rows());
    reference::ldu_spmv(m, x, expected);
    permute_to_new(sort, x, x_new);
    reference::ellwarp_spmv(a, x_new, y_new);
    permute_to_old(sort, y_new, y);
    const auto scale = test::abs_row_scale(m, x);
    for (label i = 0; i < m.n_rows(); ++i) ASSERT_LE(std::abs(y[i] - expected[i]), 1e-12 * scale[i]) << "row " << i;
  }
}

TEST(EllWarpLayout, SlicePositionsFromTheCallersRowPlaces) {
  const EllWarpMatrix m = build_ellwarp(hand_matrix(), k1());
  Labels place(34);
  for (label i = 0; i < 34; ++i) place[i] = 1000 - i;
  EXPECT_EQ(ellwarp_slice_positions(m, place), (Labels{1000 - 13, 1000 - 31}));
  EXPECT_THROW(ellwarp_slice_positions(m, Labels(3, 0)), std::invalid_argument);
  EllWarpParameters storage_order = k1();
  storage_order.visit_by_position = false;
  EXPECT_TRUE(build_ellwarp(hand_matrix(), storage_order).slice_position.empty());
}

TEST(EllWarpLayout, EmptyMatrixAndBadThreshold) {
  const EllWarpMatrix m = build_ellwarp(CsrMatrix{}, k2(8));
  EXPECT_EQ(m.n_slices, 0);
  EXPECT_EQ(m.slice_ptr, (I64{0}));
  EXPECT_EQ(m.slice_row, (Labels{0}));
  EXPECT_EQ(m.stored_entries(), 0);
  std::vector<double> x, y;
  reference::ellwarp_spmv(m, x, y);
  try {
    build_ellwarp(hand_matrix(), k2(0));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "ellwarp: threshold must be >= 1 (got 0)");
  }
}

struct Case {
  std::string name;
  LduMatrix matrix;
};

std::vector<Case> test_matrices() {
  std::vector<Case> cases;
  cases.push_back({"no rows", test::random_values(test::addressing_from_pairs(0, {}), 60)});
  cases.push_back({"one row", test::random_matrix(1, 0, 61)});
  cases.push_back({"two uncoupled rows", test::random_values(test::addressing_from_pairs(2, {}), 62)});
  cases.push_back({"33 rows (a slice of one real row)", test::random_matrix(33, 3, 63)});
  cases.push_back({"random 700", test::random_matrix(700, 6, 64)});
  cases.push_back({"random 3000 wide", test::random_matrix(3000, 40, 65)});
  cases.push_back({"box 9x7x5", test::box_matrix(9, 7, 5, 66)});
  cases.push_back({"box 2-D 30x20", test::box_matrix(30, 20, 1, 67)});
  cases.push_back({"star 300 (hub row longer than a warp)", test::star_matrix(300, 68)});
  cases.push_back({"ring 100 (all rows equal length)", test::ring_matrix(100, 69)});
  return cases;
}

std::vector<EllWarpParameters> parameter_sweep() {
  std::vector<EllWarpParameters> out;
  for (bool sort_columns : {false, true}) {
    EllWarpParameters p = k1();
    p.sort_columns = sort_columns;
    out.push_back(p);
    for (int threshold : {1, 2, 4, 8, 1000}) {
      p = k2(threshold);
      p.sort_columns = sort_columns;
      out.push_back(p);
    }
  }
  return out;
}

std::string describe(const EllWarpParameters& p) {
  return fmt::format("{}, threshold {}, sort_columns {}", ellwarp_kernel_name(p.kernel), p.threshold, p.sort_columns);
}

// The CSR of m with each row's entries reversed (unsorted columns; value slots follow the rows).
CsrMatrix reversed_rows(CsrMatrix a) {
  for (label i = 0; i < a.n_rows; ++i) {
    std::reverse(a.col.begin() + a.row_ptr[i], a.col.begin() + a.row_ptr[i + 1]);
    std::reverse(a.values.begin() + a.row_ptr[i], a.values.begin() + a.row_ptr[i + 1]);
  }
  return a;
}

// ellwarp_spmv on a permuted CSR of m against the LDU face loop; y starts as NaN.
void expect_matches_ldu(const LduMatrix& m, const Permutation& p, const EllWarpMatrix& a, std::uint64_t seed) {
  const label n = m.n_rows();
  const auto x = test::random_vector(n, seed);
  std::vector<double> expected(n), x_new(n), y_new(n, std::nan("")), y(n);
  reference::ldu_spmv(m, x, expected);
  const auto scale = test::abs_row_scale(m, x);
  permute_to_new(p, x, x_new);
  reference::ellwarp_spmv(a, x_new, y_new);
  permute_to_old(p, y_new, y);
  for (label i = 0; i < n; ++i)
    ASSERT_LE(std::abs(y[i] - expected[i]), 1e-12 * scale[i]) << "row " << i << ": " << y[i] << " vs " << expected[i];
}

// Invariants of any build: each CSR slot lands once, on its own column and value; every slice's
// first row is its longest; everything else is padding.
void expect_consistent(const CsrMatrix& csr, const EllWarpMatrix& a) {
  ASSERT_EQ(a.value_slot.size(), csr.col.size());
  std::vector<char> used(a.col.size(), 0);
  for (std::size_t k = 0; k < csr.col.size(); ++k) {
    const std::int64_t slot = a.value_slot[k];
    ASSERT_GE(slot, 0);
    ASSERT_LT(slot, a.stored_entries());
    ASSERT_FALSE(used[slot]) << "slot " << slot << " used twice";
    used[slot] = 1;
    ASSERT_EQ(a.col[slot], csr.col[k]);
    ASSERT_EQ(a.values[slot], csr.values[k]);
  }
  for (std::size_t slot = 0; slot < used.size(); ++slot)
    if (!used[slot]) {
      ASSERT_TRUE(a.col[slot] == padding_column && a.values[slot] == 0.0) << "slot " << slot;
    }
  for (label p = 0; p + 1 < a.n_rows; ++p) {
    const auto length = [&](label q) { return csr.row_ptr[a.row_order[q] + 1] - csr.row_ptr[a.row_order[q]]; };
    ASSERT_GE(length(p), length(p + 1)) << "position " << p;
    if (length(p) == length(p + 1)) {
      ASSERT_LT(a.row_order[p], a.row_order[p + 1]) << "not stable at " << p;
    }
  }
}

TEST(EllWarpSpmv, EveryGeneratorOrderingAndParameterMatchesTheLduFaceLoop) {
  int checked = 0;
  for (const auto& c : test_matrices())
    for (const std::string ordering : {"none", "rcm", "random"}) {
      const Permutation p = make_ordering(ordering, *c.matrix.addressing, 5);
      const CsrMatrix csr = permuted_csr(c.matrix, p);
      for (const auto& params : parameter_sweep()) {
        SCOPED_TRACE(fmt::format("{}, ordering {}, {}", c.name, ordering, describe(params)));
        const EllWarpMatrix a = build_ellwarp(csr, params);
        expect_consistent(csr, a);
        EXPECT_EQ(a.nnz(), csr.nnz());
        EXPECT_GE(a.stored_entries(), a.nnz());
        expect_matches_ldu(c.matrix, p, a, 99);
        ++checked;
      }
    }
  EXPECT_EQ(checked, 10 * 3 * 12);
}

TEST(EllWarpSpmv, UnsortedRowsWithTheColumnSortGiveTheSortedLayout) {
  const LduMatrix m = test::random_matrix(700, 8, 71);
  const CsrMatrix sorted = ldu_to_csr(m);
  const CsrMatrix shuffled = reversed_rows(sorted);
  for (auto params : {k1(), k2(2)}) {
    SCOPED_TRACE(describe(params));
    params.sort_columns = true;
    const EllWarpMatrix a = build_ellwarp(shuffled, params), b = build_ellwarp(sorted, params);
    EXPECT_EQ(a.col, b.col);
    EXPECT_EQ(a.values, b.values);
    expect_consistent(shuffled, a);
    expect_matches_ldu(m, Permutation::identity(m.n_rows()), a, 3);
  }
}

TEST(EllWarpSpmv, BuildAndProductAreTheSameWithAnyThreadCount) {
  // --- above the parallel threshold: the counting sort's per-thread shares and the slices split
  //     between 1, 2 and 3 threads give the same arrays and the same bits
  const label big = 2 * static_cast<label>(min_parallel_rows) + 11;
  const std::vector<Case> cases{{"box 30x30x20", test::box_matrix(30, 30, 20, 72)},
                                {"random wide", test::random_matrix(big, 12, 73)}};
  for (const auto& c : cases)
    for (const auto& params : {k1(), k2(4)}) {
      const CsrMatrix csr = ldu_to_csr(c.matrix);
      const auto x = test::random_vector(c.matrix.n_rows(), 74);
      EllWarpMatrix one;
      std::vector<double> y_one;
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(fmt::format("{}, {}, {} threads", c.name, describe(params), threads));
        Threads scope(threads);
        EllWarpMatrix a = build_ellwarp(csr, params);
        std::vector<double> y(c.matrix.n_rows(), std::nan(""));
        reference::ellwarp_spmv(a, x, y);
        expect_matches_ldu(c.matrix, Permutation::identity(c.matrix.n_rows()), a, 74);
        if (threads == 1) {
          one = std::move(a);
          y_one = y;
          continue;
        }
        EXPECT_EQ(a.row_order, one.row_order);
        EXPECT_EQ(a.slice_ptr, one.slice_ptr);
        EXPECT_EQ(a.col, one.col);
        EXPECT_EQ(a.values, one.values);
        EXPECT_EQ(a.value_slot, one.value_slot);
        EXPECT_EQ(y, y_one);
      }
    }
}

TEST(EllWarpSpmv, RefreshThroughValueSlotEqualsAFreshBuild) {
  const LduMatrix first = test::random_matrix(500, 6, 81);
  const LduMatrix second = test::random_values(first.addressing, 82);  // same structure, new values
  const Permutation p = make_ordering("rcm", *first.addressing, 1);
  for (bool shuffled : {false, true})
    for (auto params : parameter_sweep()) {
      SCOPED_TRACE(fmt::format("{}, rows reversed {}", describe(params), shuffled));
      const CsrMatrix csr1 = shuffled ? reversed_rows(permuted_csr(first, p)) : permuted_csr(first, p);
      const CsrMatrix csr2 = shuffled ? reversed_rows(permuted_csr(second, p)) : permuted_csr(second, p);
      EllWarpMatrix a = build_ellwarp(csr1, params);
      for (std::size_t k = 0; k < csr2.values.size(); ++k) a.values[a.value_slot[k]] = csr2.values[k];
      const EllWarpMatrix fresh = build_ellwarp(csr2, params);
      ASSERT_EQ(a.values.size(), fresh.values.size());
      for (std::size_t k = 0; k < a.values.size(); ++k) ASSERT_EQ(a.values[k], fresh.values[k]) << "slot " << k;
      expect_matches_ldu(second, p, a, 5);
    }
}

TEST(EllWarpSpmv, PaddingIsSmallOnTheBoxAndK2PadsLongRowsOnlyToTheirLaneShare) {
  // box 20^3: rows of 4..7 entries, sorted over the matrix: only the slices where lengths change
  // are padded. star: K1 pads the hub's slice to 300 entries a lane, K2 splits it over 32 lanes.
  const CsrMatrix box = ldu_to_csr(test::box_matrix(20, 20, 20, 91));
  EXPECT_LT(build_ellwarp(box, k1()).padding_ratio(), 1.002);
  const CsrMatrix star = ldu_to_csr(test::star_matrix(300, 92));
  const EllWarpMatrix star_k1 = build_ellwarp(star, k1()), star_k2 = build_ellwarp(star, k2(8));
  EXPECT_EQ(star_k1.slice_width(0), 300);
  EXPECT_EQ(star_k2.threads_per_row[0], 32);
  EXPECT_EQ(star_k2.slice_width(0), 10);  // ceil(300 / 32)
  EXPECT_EQ(star_k2.slice_rows(0), 1);
  EXPECT_LT(star_k2.stored_entries(), star_k1.stored_entries() / 5);
}

}  // namespace
}  // namespace fvmmini
