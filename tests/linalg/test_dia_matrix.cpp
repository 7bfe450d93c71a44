// DIA: the layout against a hand-worked 2x3 grid, the reference SpMV against the LDU face loop
// on natural-order matrices, the refusal of unstructured or renumbered matrices, the edge
// cases (no rows, one row, rows without entries), and the refresh through value_slot.

#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/reference/dia_spmv.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/parallel.hpp"
#include "linalg/csr_matrix.hpp"
#include "linalg/formats/dia_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "layout_helpers.hpp"
#include "matrix_generators.hpp"

namespace fvmmini {
namespace {

using test::csr_from_rows;
using test::I64;

using Values = std::vector<double>;

std::string build_error(const CsrMatrix& csr, int max_diagonals) {
  try {
    build_dia(csr, max_diagonals);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// The 5-point Laplacian pattern of a 2 x 3 grid (cell i + 2 j), entry (i, j) = 10 (i + 1) + j.
CsrMatrix grid_2x3() {
  auto row = [](label i, std::initializer_list<label> cols) {
    std::vector<std::pair<label, double>> r;
    for (label c : cols) r.push_back({c, 10.0 * (i + 1) + c});
    return r;
  };
  return csr_from_rows({row(0, {0, 1, 2}), row(1, {0, 1, 3}), row(2, {0, 2, 3, 4}), row(3, {1, 2, 3, 5}),
                        row(4, {2, 4, 5}), row(5, {3, 4, 5})});
}

TEST(DiaLayout, TwoByThreeGridDiagonalMajorWithZeroPadding) {
  const CsrMatrix a = grid_2x3();
  // --- the hand-made matrix has the box mesh's pattern
  const CsrMatrix box = ldu_to_csr(test::box_matrix(2, 3, 1, 1));
  ASSERT_EQ(a.row_ptr, box.row_ptr);
  ASSERT_EQ(a.col, box.col);

  const DiaMatrix m = build_dia(a, 5);
  EXPECT_EQ(m.n_rows, 6);
  EXPECT_EQ(m.offsets, (std::vector<int>{-2, -1, 0, 1, 2}));
  // values[k * 6 + i] = A(i, i + d_k); 0 where the grid has no such neighbour (x-boundary) or the
  // column falls outside the matrix
  EXPECT_EQ(m.values, (Values{0, 0, 30, 41, 52, 63,      // d = -2
                              0, 20, 0, 42, 0, 64,       // d = -1
                              10, 21, 32, 43, 54, 65,    // d =  0
                              11, 0, 33, 0, 55, 0,       // d = +1
                              12, 23, 34, 45, 0, 0}));   // d = +2
  EXPECT_EQ(m.value_slot, (I64{12, 18, 24, /**/ 7, 13, 25, /**/ 2, 14, 20, 26, /**/ 3, 9, 15, 27,
                               /**/ 4, 16, 22, /**/ 5, 11, 17}));
  EXPECT_EQ(m.n_diagonals(), 5);
  EXPECT_EQ(m.nnz(), 20);
  EXPECT_EQ(m.stored_entries(), 30);
  EXPECT_DOUBLE_EQ(m.padding_ratio(), 1.5);
  EXPECT_EQ(m.footprint_bytes(), 30 * 8 + 5 * 4);
  EXPECT_EQ(count_diagonals(a), 5);

  const Values x{1, 2, 3, 4, 5, 6};
  Values y(6, std::nan(""));
  reference::dia_spmv(m, x, y);
  EXPECT_EQ(y, (Values{10 + 22 + 36, 20 + 42 + 92, 30 + 96 + 132 + 170, 82 + 126 + 172 + 270, 156 + 270 + 330,
                       252 + 320 + 390}));
}

struct Case {
  std::string name;
  LduMatrix matrix;
  int diagonals;  ///< distinct offsets in natural order
};

std::vector<Case> natural_order_matrices() {
  std::vector<Case> cases;
  cases.push_back({"one row", test::random_matrix(1, 0, 11), 1});
  cases.push_back({"two rows", test::random_values(test::addressing_from_pairs(2, {{0, 1}}), 12), 3});
  cases.push_back({"two uncoupled rows", test::random_values(test::addressing_from_pairs(2, {}), 13), 1});
  cases.push_back({"box 9x7x5", test::box_matrix(9, 7, 5, 17), 7});
  cases.push_back({"box 2-D 30x20", test::box_matrix(30, 20, 1, 18), 5});
  cases.push_back({"box 1-D 50", test::box_matrix(50, 1, 1, 19), 3});
  cases.push_back({"ring 100 (offsets -99 and 99)", test::ring_matrix(100, 20), 5});
  cases.push_back({"box 30x30x20 (above the parallel threshold)", test::box_matrix(30, 30, 20, 21), 7});
  return cases;
}

void expect_matches_ldu(const LduMatrix& m, const DiaMatrix& dia, std::uint64_t seed) {
  const label n = m.n_rows();
  const auto x = test::random_vector(n, seed);
  Values expected(n), y(n, std::nan(""));
  reference::ldu_spmv(m, x, expected);
  reference::dia_spmv(dia, x, y);
  const auto scale = test::abs_row_scale(m, x);
  for (label i = 0; i < n; ++i)
    ASSERT_LE(std::abs(y[i] - expected[i]), 1e-12 * scale[i]) << "row " << i << ": " << y[i] << " vs " << expected[i];
}

TEST(DiaSpmv, NaturalOrderMatricesMatchTheLduFaceLoop) {
  ASSERT_GT(30 * 30 * 20, min_parallel_rows);
  for (const auto& c : natural_order_matrices()) {
    SCOPED_TRACE(c.name);
    const CsrMatrix csr = ldu_to_csr(c.matrix);
    EXPECT_EQ(count_diagonals(csr), c.diagonals);
    const DiaMatrix m = build_dia(csr, c.diagonals);
    EXPECT_EQ(m.n_diagonals(), c.diagonals);
    EXPECT_EQ(m.stored_entries(), static_cast<std::int64_t>(c.diagonals) * c.matrix.n_rows());
    EXPECT_EQ(m.nnz(), c.matrix.addressing->nnz());
    expect_matches_ldu(c.matrix, m, 99);
  }
}

TEST(DiaSpmv, IdenticalForAnyThreadCount) {
  const LduMatrix ldu = test::box_matrix(30, 30, 20, 22);
  const CsrMatrix csr = ldu_to_csr(ldu);
  const auto x = test::random_vector(ldu.n_rows(), 23);
  const int saved = omp_get_max_threads();
  DiaMatrix first;
  Values y_first;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    omp_set_num_threads(threads);
    const DiaMatrix m = build_dia(csr, 27);
    Values y(ldu.n_rows(), std::nan(""));
    reference::dia_spmv(m, x, y);
    if (threads == 1) {
      first = m;
      y_first = y;
    }
    EXPECT_EQ(m.offsets, first.offsets);
    EXPECT_EQ(m.values, first.values);
    EXPECT_EQ(m.value_slot, first.value_slot);
    EXPECT_EQ(y, y_first);
  }
  omp_set_num_threads(saved);
}

TEST(DiaSpmv, AnyMatrixWithEnoughDiagonalsAllowed) {
  // --- DIA is exact on any pattern; only the cap makes it refuse unstructured ones
  const LduMatrix ldu = test::random_matrix(700, 6, 15);
  const CsrMatrix csr = ldu_to_csr(ldu);
  const auto count = count_diagonals(csr);
  ASSERT_GT(count, 27);
  const DiaMatrix m = build_dia(csr, static_cast<int>(count));
  EXPECT_EQ(m.n_diagonals(), count);
  EXPECT_TRUE(std::is_sorted(m.offsets.begin(), m.offsets.end()));
  expect_matches_ldu(ldu, m, 7);
}

// The distinct col - row of a CSR, counted the slow, obvious way.
std::int64_t distinct_offsets(const CsrMatrix& a) {
  std::set<std::int64_t> offsets;
  for (label i = 0; i < a.n_rows; ++i)
    for (auto s = a.row_ptr[i]; s < a.row_ptr[i + 1]; ++s) offsets.insert(a.col[s] - i);
  return static_cast<std::int64_t>(offsets.size());
}

TEST(DiaBuild, UnstructuredMatrixIsRefusedWithItsDiagonalCount) {
  const CsrMatrix csr = ldu_to_csr(test::random_matrix(3000, 6, 16));
  const auto count = distinct_offsets(csr);
  EXPECT_EQ(count_diagonals(csr), count);
  EXPECT_EQ(build_error(csr, 27), "dia needs a structured mesh in natural ordering (ordering: none): this matrix has " +
                                      std::to_string(count) + " distinct diagonals, more than maxDiagonals = 27");
}

TEST(DiaBuild, RenumberedBoxIsRefused) {
  const LduMatrix ldu = test::box_matrix(9, 7, 5, 17);
  std::vector<label> new_to_old(ldu.n_rows());
  std::iota(new_to_old.begin(), new_to_old.end(), 0);
  std::shuffle(new_to_old.begin(), new_to_old.end(), std::mt19937_64(5));
  const CsrMatrix shuffled = permuted_csr(ldu, Permutation::from_new_to_old(new_to_old));
  const auto count = distinct_offsets(shuffled);
  ASSERT_GT(count, 27);
  const std::string message = build_error(shuffled, 27);
  EXPECT_NE(message.find("natural ordering"), std::string::npos) << message;
  EXPECT_NE(message.find("has " + std::to_string(count) + " distinct diagonals"), std::string::npos) << message;
}

TEST(DiaBuild, CapIsInclusiveAndMustBePositive) {
  const CsrMatrix csr = ldu_to_csr(test::box_matrix(9, 7, 5, 17));
  EXPECT_EQ(build_dia(csr, 7).n_diagonals(), 7);
  EXPECT_NE(build_error(csr, 6).find("this matrix has 7 distinct diagonals, more than maxDiagonals = 6"),
            std::string::npos);
  EXPECT_EQ(build_error(csr, 0), "dia: maxDiagonals must be >= 1 (got 0)");
  EXPECT_EQ(build_error(CsrMatrix{}, -3), "dia: maxDiagonals must be >= 1 (got -3)");
}

TEST(DiaBuild, ColumnsOutOfOrderRepeatedOrOutOfRangeAreRefused) {
  for (const auto& rows : std::vector<std::vector<std::vector<std::pair<label, double>>>>{
           {{{1, 1.0}, {0, 1.0}}, {{1, 1.0}}},   // descending
           {{{0, 1.0}}, {{1, 1.0}, {1, 2.0}}},   // repeated
           {{{0, 1.0}, {2, 1.0}}, {{1, 1.0}}},   // column 2 of a 2-row matrix
           {{{-1, 1.0}}, {{1, 1.0}}}}) {         // negative
    const CsrMatrix a = csr_from_rows(rows);
    const std::string message = build_error(a, 27);
    EXPECT_NE(message.find("are not strictly ascending within 0 .. 1"), std::string::npos) << message;
    EXPECT_THROW(count_diagonals(a), std::invalid_argument);
  }
}

TEST(DiaEdgeCases, NoRows) {
  const CsrMatrix empty;
  EXPECT_EQ(count_diagonals(empty), 0);
  const DiaMatrix m = build_dia(empty, 1);
  EXPECT_EQ(m.n_rows, 0);
  EXPECT_TRUE(m.offsets.empty());
  EXPECT_TRUE(m.values.empty());
  EXPECT_TRUE(m.value_slot.empty());
  EXPECT_EQ(m.nnz(), 0);
  EXPECT_EQ(m.footprint_bytes(), 0);
  EXPECT_DOUBLE_EQ(m.padding_ratio(), 1.0);
  Values x, y;
  reference::dia_spmv(m, x, y);
}

TEST(DiaEdgeCases, OneRow) {
  const CsrMatrix a = csr_from_rows({{{0, 2.5}}});
  const DiaMatrix m = build_dia(a, 1);
  EXPECT_EQ(m.offsets, (std::vector<int>{0}));
  EXPECT_EQ(m.values, (Values{2.5}));
  EXPECT_EQ(m.value_slot, (I64{0}));
  Values y{std::nan("")};
  reference::dia_spmv(m, Values{4.0}, y);
  EXPECT_EQ(y, (Values{10.0}));
}

TEST(DiaEdgeCases, RowsWithoutEntriesGetZero) {
  // rows 1 and 3 are empty; row 4's entry in column 0 puts diagonal -4 in, padded in rows 0..3
  const CsrMatrix a = csr_from_rows({{{0, 2.0}, {2, 1.0}}, {}, {{2, 3.0}}, {}, {{0, 1.0}, {4, 5.0}}});
  const DiaMatrix m = build_dia(a, 3);
  EXPECT_EQ(m.offsets, (std::vector<int>{-4, 0, 2}));
  EXPECT_EQ(m.values, (Values{0, 0, 0, 0, 1, /**/ 2, 0, 3, 0, 5, /**/ 1, 0, 0, 0, 0}));
  Values y(5, -1.0);
  reference::dia_spmv(m, Values{1, 2, 3, 4, 5}, y);
  EXPECT_EQ(y, (Values{5, 0, 9, 0, 26}));
  // --- no entries at all: no diagonals, and still every row written
  const DiaMatrix none = build_dia(csr_from_rows({{}, {}, {}}), 1);
  EXPECT_EQ(none.n_diagonals(), 0);
  EXPECT_EQ(none.stored_entries(), 0);
  Values z(3, std::nan(""));
  reference::dia_spmv(none, Values{1, 2, 3}, z);
  EXPECT_EQ(z, (Values{0, 0, 0}));
}

TEST(DiaRefresh, ScatterThroughValueSlotEqualsAFreshBuild) {
  const std::vector<std::pair<std::string, LduMatrix>> cases{{"box 9x7x5", test::box_matrix(9, 7, 5, 31)},
                                                             {"ring 100", test::ring_matrix(100, 33)}};
  for (const auto& [name, first] : cases) {
    SCOPED_TRACE(name);
    const LduMatrix second = test::random_values(first.addressing, 32);  // same structure, new values
    LduToCsrMap map;
    CsrMatrix csr = ldu_to_csr(first, &map);
    DiaMatrix m = build_dia(csr, 27);
    refresh_csr_values(second, map, csr.values);
    for (std::size_t s = 0; s < csr.values.size(); ++s) m.values[m.value_slot[s]] = csr.values[s];
    const DiaMatrix fresh = build_dia(ldu_to_csr(second), 27);
    ASSERT_EQ(m.offsets, fresh.offsets);
    EXPECT_EQ(m.values, fresh.values);
    expect_matches_ldu(second, m, 5);
  }
}

}  // namespace
}  // namespace fvmmini
