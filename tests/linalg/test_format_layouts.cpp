// Format layouts against hand-computed arrays: Staircase SELL (Algorithms 3 and 4),
// SELL-C-sigma, ELL, COO; and kernels on hand-made structures with all-padding slices.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/reference/coo_spmv.hpp"
#include "kernels/reference/ell_spmv.hpp"
#include "kernels/reference/sell_spmv.hpp"
#include "kernels/reference/staircase_spmv.hpp"
#include "linalg/formats/coo_matrix.hpp"
#include "linalg/formats/ell_matrix.hpp"
#include "linalg/formats/sell_matrix.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "tests/linalg/layout_helpers.hpp"

namespace fvmmini {
namespace {

using test::concat;
using test::csr_from_rows;
using test::I64;
using test::iota_labels;
using test::Labels;
using test::padding;

void expect_index(const StaircaseIndex& idx, const Labels& lengths, const Labels& blocks, const I64& step_ptr,
                  const Labels& row_ptr) {
  EXPECT_EQ(idx.step_lengths, lengths);
  EXPECT_EQ(idx.step_blocks, blocks);
  EXPECT_EQ(idx.step_ptr, step_ptr);
  EXPECT_EQ(idx.row_ptr, row_ptr);
}

TEST(StaircaseIndex, SmallGroupsMergeUpwardAndLeftoverRowsPassOn) {
  // h: 10 rows of length 3, 70 of length 5, 20 of length 6; n = 100, sh = 32, alpha = sh/n = 0.32.
  // Lengths 0..2 are empty, 3 (0.10 < alpha) merges into 4, 4 (0.10) merges into 5 -> 80 rows:
  // 2 slices (64 rows) of length 5, 16 leftover rows pass to 6 -> 36 rows, padded to 2 slices.
  const auto idx = staircase_index({0, 0, 0, 10, 0, 70, 20}, 100, 32, 0.32);
  expect_index(idx, {5, 6}, {2, 2}, {0, 5 * 64, 5 * 64 + 6 * 64}, {0, 64, 100});
}

TEST(StaircaseIndex, AlphaAtSliceHeightOverRowsKeepsEveryFullSlice) {
  // n = 96, sh = 32, alpha = 32/96: length 1 has 40 rows -> 1 slice, 8 pass on; length 2 then has
  // 24 + 8 = 32 rows: exactly alpha * n, kept (the test is h/n < alpha); length 3: 32 rows, 1 slice.
  const auto idx = staircase_index({0, 40, 24, 32}, 96, 32, 32.0 / 96.0);
  expect_index(idx, {1, 2, 3}, {1, 1, 1}, {0, 32, 96, 192}, {0, 32, 64, 96});
}

TEST(StaircaseIndex, AlphaOneMergesEverythingIntoTheLastGroup) {
  const auto idx = staircase_index({0, 40, 24, 32}, 96, 32, 1.0);
  expect_index(idx, {3}, {3}, {0, 288}, {0, 96});
}

TEST(StaircaseIndex, FewerRowsThanOneSliceMakeOnePaddedGroup) {
  expect_index(staircase_index({0, 1}, 1, 32, 0.5), {1}, {1}, {0, 32}, {0, 1});
  expect_index(staircase_index({0, 0, 2}, 2, 1024, 1.0), {2}, {1}, {0, 2048}, {0, 2});
  // rows of two lengths, each group too small for a slice: all merge into the longest
  expect_index(staircase_index({0, 5, 0, 7}, 12, 32, 0.01), {3}, {1}, {0, 96}, {0, 12});
}

TEST(StaircaseIndex, EmptyMatrixHasOneEmptyGroup) {
  expect_index(staircase_index({}, 0, 32, 0.5), {0}, {0}, {0, 0}, {0, 0});
}

TEST(StaircaseIndex, RejectsBadParameters) {
  EXPECT_THROW(staircase_index({0, 100}, 100, 33, 0.5), std::invalid_argument);
  EXPECT_THROW(staircase_index({0, 100}, 100, 32, 0.3), std::invalid_argument);  // below 0.32
  EXPECT_THROW(staircase_index({0, 100}, 100, 32, 0.0), std::invalid_argument);
  EXPECT_THROW(staircase_index({0, 10}, 10, 32, 0.0), std::invalid_argument);  // n < sh: (0, 1]
  EXPECT_THROW(staircase_index({0, 99}, 100, 32, 0.5), std::invalid_argument);  // histogram misses a row
  EXPECT_THROW(staircase_index({0, 100, 0}, 100, 32, 0.5), std::invalid_argument);  // last bin empty
}

// 40 rows: rows 0..35 hold only their diagonal (value 100 + i), rows 36..39 two entries.
CsrMatrix forty_rows() {
  std::vector<std::vector<std::pair<label, double>>> rows;
  for (label i = 0; i < 36; ++i) rows.push_back({{i, 100.0 + i}});
  rows.push_back({{0, 1.0}, {36, 2.0}});
  rows.push_back({{37, 3.0}, {39, 4.0}});
  rows.push_back({{1, 5.0}, {38, 6.0}});
  rows.push_back({{0, 7.0}, {39, 8.0}});
  return csr_from_rows(rows);
}

TEST(StaircaseLayout, Algorithm4ColumnMajorSlicesWithPadding) {
  // sh = 32, alpha = 32/40: length 1 has 36 rows -> 1 slice (rows 0..31), rows 32..35 pass on to the
  // length-2 group (rows 32..39 + 24 padding rows, 1 slice). val_size = 32*1 + 32*2 = 96.
  const CsrMatrix a = forty_rows();
  const StaircaseMatrix m = build_staircase(a, 32, 0.8);
  expect_index(m.index, {1, 2}, {1, 1}, {0, 32, 96}, {0, 32, 40});
  // group 1, slot 32 + k*32 + j: k = 0 holds rows 32..39 then 24 padding rows; k = 1 holds
  // padding for rows 32..35, the second entries of rows 36..39, then padding.
  const Labels expected_col = concat({iota_labels(0, 32),                                             // group 0
                                      iota_labels(32, 4), {0, 37, 1, 0}, padding(24),                // k = 0
                                      padding(4), {36, 39, 38, 39}, padding(24)});                  // k = 1
  EXPECT_EQ(m.col, expected_col);
  EXPECT_EQ(m.values[32 + 4], 1.0);   // row 36, k = 0
  EXPECT_EQ(m.values[64 + 4], 2.0);   // row 36, k = 1
  EXPECT_EQ(m.values[64 + 7], 8.0);   // row 39, k = 1
  EXPECT_EQ(m.values[64 + 0], 0.0);   // row 32, k = 1 is padding
  EXPECT_EQ(m.values[35], 135.0);     // row 35, k = 0
  EXPECT_EQ(m.value_slot, (I64{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 68, 37, 69,
                                38, 70, 39, 71}));
  EXPECT_EQ(m.nnz(), 44);
  EXPECT_EQ(m.stored_entries(), 96);
  EXPECT_EQ(m.footprint_bytes(), 96 * 12);

  std::vector<double> x(40), y(40);
  for (label i = 0; i < 40; ++i) x[i] = 1.0 + i;
  reference::staircase_spmv(m, x, y);
  EXPECT_EQ(y[0], 100.0 * 1.0);
  EXPECT_EQ(y[35], 135.0 * 36.0);
  EXPECT_EQ(y[36], 1.0 * 1.0 + 2.0 * 37.0);
  EXPECT_EQ(y[37], 3.0 * 38.0 + 4.0 * 40.0);
  EXPECT_EQ(y[38], 5.0 * 2.0 + 6.0 * 39.0);
  EXPECT_EQ(y[39], 7.0 * 1.0 + 8.0 * 40.0);
}

TEST(StaircaseLayout, SlicesMadeOnlyOfPaddingGiveZeroRows) {
  // 64 empty rows (length 0) then 40 rows of length 3; alpha = 1 merges the empty rows into the
  // length-3 group, so its first two slices hold only padding.
  std::vector<std::vector<std::pair<label, double>>> rows(64);
  for (label i = 64; i < 104; ++i) rows.push_back({{0, 1.0}, {i, 2.0}, {103, 3.0}});
  rows.back() = {{0, 1.0}, {102, 2.0}, {103, 3.0}};
  const StaircaseMatrix m = build_staircase(csr_from_rows(rows), 32, 1.0);
  expect_index(m.index, {3}, {4}, {0, 3 * 128}, {0, 104});
  for (std::int64_t s = 0; s < 3 * 64; ++s) ASSERT_EQ(m.col[s], padding_column) << s;
  std::vector<double> x(104, 1.0), y(104, -7.0);
  reference::staircase_spmv(m, x, y);
  for (label i = 0; i < 64; ++i) EXPECT_EQ(y[i], 0.0);
  for (label i = 64; i < 104; ++i) EXPECT_EQ(y[i], 6.0);
}

TEST(StaircaseLayout, SlicePositionIsWhereTheMiddleRealRowStoodBeforeGrouping) {
  // forty_rows: slice 0 = rows 0..31 (middle row 15), slice 1 = rows 32..39 + padding (middle 35)
  const StaircaseMatrix m = build_staircase(forty_rows(), 32, 0.8);
  std::vector<label> before(40);
  for (label i = 0; i < 40; ++i) before[i] = 100 + 3 * i;
  EXPECT_EQ(staircase_slice_positions(m, before), (Labels{100 + 3 * 15, 100 + 3 * 35}));
  // rows 0..63 empty, 64..103 of length 2, one group of 4 slices: middles 15, 47, 79 and 99 (the
  // last slice has the real rows 96..103)
  std::vector<std::vector<std::pair<label, double>>> rows(64);
  for (label i = 64; i < 104; ++i) rows.push_back({{0, 1.0}, {i, 1.0}});
  const StaircaseMatrix merged = build_staircase(csr_from_rows(rows), 32, 1.0);
  std::vector<label> reversed(104);
  for (label i = 0; i < 104; ++i) reversed[i] = 103 - i;
  EXPECT_EQ(staircase_slice_positions(merged, reversed), (Labels{103 - 15, 103 - 47, 103 - 79, 103 - 99}));
  EXPECT_THROW(staircase_slice_positions(merged, before), std::invalid_argument);
}

TEST(FormatLayouts, EmptyRowsGiveZeroInEveryFormat) {
  // rows 1 and 3 hold no entries; every kernel must still write y = 0 there
  const CsrMatrix a = csr_from_rows({{{0, 2.0}, {2, 1.0}}, {}, {{2, 3.0}}, {}, {{0, 1.0}, {4, 5.0}}});
  const std::vector<double> x{1, 2, 3, 4, 5}, expected{5, 0, 9, 0, 26};
  std::vector<double> y(5, -1.0);
  reference::coo_spmv(build_coo(a), x, y);
  EXPECT_EQ(y, expected);
  std::fill(y.begin(), y.end(), -1.0);
  reference::ell_spmv(build_ell(a), x, y);
  EXPECT_EQ(y, expected);
  for (int sigma : {1, 5}) {
    std::fill(y.begin(), y.end(), -1.0);
    reference::sell_spmv(build_sell(a, 2, sigma), x, y);
    EXPECT_EQ(y, expected) << "sigma " << sigma;
  }
}

// 32 rows of length 2, then 32 of length 1: two groups of one slice each at alpha 0.5, one at 0.6.
CsrMatrix longer_rows_first() {
  std::vector<std::vector<std::pair<label, double>>> rows;
  for (label i = 0; i < 64; ++i) {
    rows.push_back({{i, 2.0 + i}});
    if (i < 32) rows.back().push_back({63 - i, 1.0});
  }
  return csr_from_rows(rows);
}

TEST(StaircaseLayout, RejectsRowsOfSeveralGroupsNotGroupedByLength) {
  try {
    build_staircase(longer_rows_first(), 32, 0.5);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("non-decreasing length"), std::string::npos) << e.what();
  }
}

TEST(StaircaseLayout, RowsOfOneGroupKeepTheirOrder) {
  // alpha 0.6 merges the 32 short rows into the long ones' group: one group of 2 slices, rows padded
  // to 2 entries in their own order, so the product is the CSR's
  const CsrMatrix a = longer_rows_first();
  const StaircaseMatrix m = build_staircase(a, 32, 0.6);
  expect_index(m.index, {2}, {2}, {0, 2 * 64}, {0, 64});
  std::vector<double> x(64), y(64, -1.0), expected(64, 0.0);
  for (label i = 0; i < 64; ++i) x[i] = 1.0 + 0.5 * i;
  for (label i = 0; i < 64; ++i)
    for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) expected[i] += a.values[k] * x[a.col[k]];
  reference::staircase_spmv(m, x, y);
  EXPECT_EQ(y, expected);
}

// Rows of lengths 1, 3, 2, 3, 1.
CsrMatrix five_rows() {
  return csr_from_rows({{{0, 1.0}},
                        {{0, 2.0}, {1, 3.0}, {4, 4.0}},
                        {{2, 5.0}, {3, 6.0}},
                        {{1, 7.0}, {3, 8.0}, {4, 9.0}},
                        {{4, 10.0}}});
}

TEST(SellLayout, SortWithinWindowsThenChunksColumnMajor) {
  // C = 2, sigma = 4: window {0,1,2,3} sorted longest first (stable) -> 1, 3, 2, 0; window {4}.
  // chunk 0 = rows 1, 3 (width 3), chunk 1 = rows 2, 0 (width 2), chunk 2 = row 4 + a padding lane.
  const SellMatrix m = build_sell(five_rows(), 2, 4);
  EXPECT_EQ(m.row_order, (Labels{1, 3, 2, 0, 4}));
  EXPECT_EQ(m.chunk_ptr, (I64{0, 6, 10, 12}));
  EXPECT_EQ(m.col, (Labels{0, 1, 1, 3, 4, 4, /**/ 2, 0, 3, -1, /**/ 4, -1}));
  EXPECT_EQ(m.values, (std::vector<double>{2, 7, 3, 8, 4, 9, 5, 1, 6, 0, 10, 0}));
  EXPECT_EQ(m.value_slot, (I64{7, 0, 2, 4, 6, 8, 1, 3, 5, 10}));
  EXPECT_EQ(m.chunk_width(1), 2);
  std::vector<double> x{1, 2, 3, 4, 5}, y(5);
  reference::sell_spmv(m, x, y);
  EXPECT_EQ(y, (std::vector<double>{1, 2 + 6 + 20, 15 + 24, 14 + 32 + 45, 50}));
}

TEST(SellLayout, SigmaOneKeepsTheRowOrder) {
  const SellMatrix m = build_sell(five_rows(), 4, 1);
  EXPECT_EQ(m.row_order, (Labels{0, 1, 2, 3, 4}));
  EXPECT_EQ(m.chunk_ptr, (I64{0, 12, 16}));
  EXPECT_EQ(m.col, (Labels{0, 0, 2, 1, -1, 1, 3, 3, -1, 4, -1, 4, /**/ 4, -1, -1, -1}));
}

TEST(EllLayout, ColumnMajorPaddedToTheLongestRow) {
  const EllMatrix m = build_ell(five_rows());
  EXPECT_EQ(m.width, 3);
  EXPECT_EQ(m.col, (Labels{0, 0, 2, 1, 4, /**/ -1, 1, 3, 3, -1, /**/ -1, 4, -1, 4, -1}));
  EXPECT_EQ(m.value_slot, (I64{0, 1, 6, 11, 2, 7, 3, 8, 13, 4}));
  EXPECT_DOUBLE_EQ(m.padding_ratio(), 15.0 / 10.0);
  std::vector<double> x{1, 2, 3, 4, 5}, y(5);
  reference::ell_spmv(m, x, y);
  EXPECT_EQ(y, (std::vector<double>{1, 2 + 6 + 20, 15 + 24, 14 + 32 + 45, 50}));
}

TEST(CooLayout, TriplesInRowOrder) {
  const CooMatrix m = build_coo(five_rows());
  EXPECT_EQ(m.row, (Labels{0, 1, 1, 1, 2, 2, 3, 3, 3, 4}));
  EXPECT_EQ(m.col, (Labels{0, 0, 1, 4, 2, 3, 1, 3, 4, 4}));
  std::vector<double> x{1, 2, 3, 4, 5}, y(5, -1.0);
  reference::coo_spmv(m, x, y);
  EXPECT_EQ(y, (std::vector<double>{1, 2 + 6 + 20, 15 + 24, 14 + 32 + 45, 50}));
}

}  // namespace
}  // namespace fvmmini
