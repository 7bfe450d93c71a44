// Every format x ordering against the LDU face loop, on random, box, star, ring and tiny
// matrices, with parameter sweeps; refresh in place against a fresh build.

#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/reference/ldu_spmv.hpp"
#include "kernels/reference/parallel.hpp"
#include "linalg/format_registry.hpp"
#include "linalg/ordering/orderings.hpp"
#include "matrix_generators.hpp"

namespace fvmmini {
namespace {

struct Case {
  std::string name;
  LduMatrix matrix;
};

std::vector<Case> test_matrices() {
  std::vector<Case> cases;
  cases.push_back({"one row", test::random_matrix(1, 0, 11)});
  cases.push_back({"two rows", test::random_values(test::addressing_from_pairs(2, {{0, 1}}), 12)});
  cases.push_back({"two uncoupled rows", test::random_values(test::addressing_from_pairs(2, {}), 13)});
  cases.push_back({"random 40", test::random_matrix(40, 4, 14)});
  cases.push_back({"random 700", test::random_matrix(700, 6, 15)});
  cases.push_back({"random 3000 wide", test::random_matrix(3000, 12, 16)});
  cases.push_back({"box 9x7x5", test::box_matrix(9, 7, 5, 17)});
  cases.push_back({"box 2-D 30x20", test::box_matrix(30, 20, 1, 18)});
  cases.push_back({"star 300 (hub row longer than a slice)", test::star_matrix(300, 19)});
  cases.push_back({"ring 100 (all rows equal length)", test::ring_matrix(100, 20)});
  return cases;
}

std::vector<FormatParameters> parameter_sweep(const std::string& format, label n) {
  std::vector<FormatParameters> out;
  if (format == "sell") {
    for (int c : {1, 4, 32})
      for (int sigma : {1, 8, 1024}) {
        FormatParameters p;
        p.chunk_size = c;
        p.sort_window = sigma;
        out.push_back(p);
      }
  } else if (format == "staircase") {
    for (int sh : {32, 64, 1024}) {
      const double lowest = n >= sh ? static_cast<double>(sh) / n : 0.01;
      for (double alpha : {lowest, std::min(1.0, std::max(lowest, 0.1)), 1.0}) {
        FormatParameters p;
        p.slice_height = sh;
        p.alpha = alpha;
        out.push_back(p);
      }
    }
  } else {
    out.push_back(FormatParameters{});
  }
  return out;
}

// y = A x through the prepared operator, mapped back to mesh order.
std::vector<double> operator_product(const ReferenceOperator& op, const std::vector<double>& x_mesh) {
  const Permutation& p = op.prepared().permutation;
  const label n = op.n_rows();
  std::vector<double> x(n), y(n, std::nan("")), y_mesh(n);
  permute_to_new(p, x_mesh, x);
  op.multiply(x, y);
  permute_to_old(p, y, y_mesh);
  return y_mesh;
}

void expect_matches_ldu(const LduMatrix& m, const ReferenceOperator& op, std::uint64_t seed) {
  const label n = m.n_rows();
  const auto x = test::random_vector(n, seed);
  std::vector<double> expected(n);
  reference::ldu_spmv(m, x, expected);
  const auto scale = test::abs_row_scale(m, x);
  const auto got = operator_product(op, x);
  for (label i = 0; i < n; ++i)
    ASSERT_LE(std::abs(got[i] - expected[i]), 1e-12 * scale[i]) << "row " << i << ": " << got[i] << " vs " << expected[i];
  // --- the diagonal in the operator's numbering
  const auto diag = op.diagonal();
  for (label i = 0; i < n; ++i) ASSERT_EQ(diag[i], m.diag[op.prepared().permutation.new_to_old[i]]);
}

TEST(FormatSpmv, EveryFormatAndOrderingMatchesTheLduFaceLoop) {
  int checked = 0;
  for (const auto& c : test_matrices())
    for (const auto& entry : format_table()) {
      if (!entry.reference) continue;
      for (const auto& ordering : ordering_names())
        for (const auto& params : parameter_sweep(entry.name, c.matrix.n_rows())) {
          SCOPED_TRACE(fmt::format("{}, format {}, ordering {}, C {} sigma {} sh {} alpha {}", c.name, entry.name,
                                   ordering, params.chunk_size, params.sort_window, params.slice_height, params.alpha));
          auto op = make_reference_operator(c.matrix, prepare_format(c.matrix, entry.name, ordering, params, 7));
          expect_matches_ldu(c.matrix, *op, 99);
          ++checked;
        }
    }
  EXPECT_GT(checked, 500);
}

TEST(FormatSpmv, StaircaseSlicesSplitAcrossThreadsWhateverTheirGroups) {
  // --- above the parallel threshold, so 2 and 3 threads split the slices of all groups between
  //     them: the same products as the face loop, and the same bits as one thread (no sums cross rows)
  const label big = 2 * static_cast<label>(reference::min_parallel_rows) + 11;
  const std::vector<Case> cases{{"box 30x30x20", test::box_matrix(30, 30, 20, 21)},
                                {"random wide", test::random_matrix(big, 12, 22)}};
  const int saved = omp_get_max_threads();
  for (const auto& c : cases)
    for (int sh : {32, 64}) {
      FormatParameters params;
      params.slice_height = sh;
      params.alpha = static_cast<double>(sh) / c.matrix.n_rows();
      auto op = make_reference_operator(c.matrix, prepare_format(c.matrix, "staircase", "rcm", params, 7));
      const auto x = test::random_vector(c.matrix.n_rows(), 23);
      std::vector<double> one_thread;
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(fmt::format("{}, sh {}, {} threads", c.name, sh, threads));
        omp_set_num_threads(threads);
        expect_matches_ldu(c.matrix, *op, 99);
        const auto y = operator_product(*op, x);
        if (threads == 1) one_thread = y;
        EXPECT_EQ(y, one_thread);
      }
    }
  omp_set_num_threads(saved);
}

TEST(FormatSpmv, RefreshInPlaceEqualsAFreshBuild) {
  const LduMatrix first = test::random_matrix(500, 6, 31);
  const LduMatrix second = test::random_values(first.addressing, 32);  // same structure, new values
  for (const auto& entry : format_table()) {
    if (!entry.reference) continue;
    for (const std::string ordering : {"none", "rcm", "staircase", "random"}) {
      SCOPED_TRACE(entry.name + " / " + ordering);
      FormatParameters params;
      params.chunk_size = 8;
      params.sort_window = 64;
      params.slice_height = 32;
      params.alpha = 0.1;
      auto op = make_reference_operator(first, prepare_format(first, entry.name, ordering, params, 3));
      op->refresh_values(second);
      const PreparedFormat fresh = prepare_format(second, entry.name, ordering, params, 3);
      const auto refreshed = format_values(op->prepared().format);
      const auto rebuilt = format_values(fresh.format);
      ASSERT_EQ(refreshed.size(), rebuilt.size());
      for (size_t k = 0; k < rebuilt.size(); ++k) ASSERT_EQ(refreshed[k], rebuilt[k]) << "slot " << k;
      expect_matches_ldu(second, *op, 5);
    }
  }
}

TEST(FormatSpmv, RefreshOfAHandAssembledPreparedFormatUsesTheTwoLevelMap) {
  const LduMatrix first = test::random_matrix(300, 5, 41);
  const LduMatrix second = test::random_values(first.addressing, 42);
  FormatParameters params;
  params.alpha = 0.2;
  for (const auto& entry : format_table()) {
    SCOPED_TRACE(entry.name);
    // --- as a caller that times each step itself would assemble it: no compose_value_map
    PreparedFormat hand;
    hand.format_name = entry.name;
    hand.permutation = make_ordering("rcm", *first.addressing);
    if (entry.groups_rows) hand.permutation = group_by_row_length(*first.addressing, hand.permutation);
    hand.format = entry.build(permuted_csr(first, hand.permutation, &hand.csr_map), params);
    ASSERT_TRUE(hand.value_map.diag_slot.empty());
    PreparedFormat composed = hand;
    compose_value_map(composed);
    EXPECT_TRUE(composed.csr_map.diag_slot.empty());
    refresh_format_values(second, hand);
    refresh_format_values(second, composed);
    const auto a = format_values(hand.format), b = format_values(composed.format);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], b[k]) << "slot " << k;
    const HostFormat rebuilt = entry.build(permuted_csr(second, hand.permutation), params);
    const auto fresh = format_values(rebuilt);
    for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], fresh[k]) << "slot " << k;
  }
}

TEST(FormatSpmv, EmptyMatrix) {
  const LduMatrix m = test::random_values(test::addressing_from_pairs(0, {}), 1);
  for (const auto& entry : format_table()) {
    if (!entry.reference) continue;
    SCOPED_TRACE(entry.name);
    auto op = make_reference_operator(m, prepare_format(m, entry.name, "rcm", FormatParameters{}));
    std::vector<double> x, y;
    op->multiply(x, y);
    EXPECT_EQ(op->n_rows(), 0);
    EXPECT_EQ(format_figures(op->prepared().format).stored_entries, 0);
  }
}

TEST(FormatSpmv, FiguresCountPaddingAndBytes) {
  const LduMatrix m = test::star_matrix(200, 3);
  const std::int64_t nnz = m.addressing->nnz();
  FormatParameters params;
  params.chunk_size = 32;
  params.sort_window = 1;
  params.alpha = 0.5;
  for (const auto& entry : format_table()) {
    if (!entry.reference) continue;
    SCOPED_TRACE(entry.name);
    const auto figures = format_figures(prepare_format(m, entry.name, "none", params).format);
    EXPECT_EQ(figures.nnz, nnz);
    // --- symmetric stores each off-diagonal pair once, the others every nonzero at least once
    EXPECT_GE(figures.stored_entries, entry.name == "symmetric" ? (nnz + m.n_rows()) / 2 : nnz);
    EXPECT_DOUBLE_EQ(figures.padding_ratio, static_cast<double>(figures.stored_entries) / nnz);
    EXPECT_GE(figures.footprint_bytes, figures.stored_entries * 12);
  }
  // --- ELL pads every row to the hub's 200 entries
  EXPECT_EQ(format_figures(prepare_format(m, "ell", "none", params).format).stored_entries, 200 * 200);
}

TEST(FormatSpmv, BadParametersAndNamesGiveClearErrors) {
  const LduMatrix m = test::box_matrix(10, 10, 1, 1);  // 100 rows
  auto message = [&](const std::string& format, const std::string& ordering, FormatParameters p) {
    try {
      prepare_format(m, format, ordering, p);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  FormatParameters p;
  EXPECT_EQ(message("blocked", "none", p),
            "unknown format 'blocked' (known: csr, csr-cusparse, coo, ell, sell, sell-cusparse, staircase, symmetric)");
  EXPECT_EQ(message("csr", "amd", p), "unknown ordering 'amd' (known: none, cm, rcm, staircase, metis, random)");
  p.chunk_size = 0;
  EXPECT_NE(message("sell", "none", p).find("chunk_size must be > 0"), std::string::npos);
  p = FormatParameters{};
  p.sort_window = 0;
  EXPECT_NE(message("sell", "none", p).find("sort_window must be >= 1"), std::string::npos);
  p = FormatParameters{};
  for (int sh : {0, -32, 48, 2048}) {
    p.slice_height = sh;
    EXPECT_NE(message("staircase", "cm", p).find("slice_height must be a positive multiple of 32 and at most 1024"),
              std::string::npos)
        << sh;
  }
  p = FormatParameters{};
  p.alpha = 0.01;  // below sh/n = 0.32
  EXPECT_NE(message("staircase", "cm", p).find("[0.32, 1] for this matrix (100 rows, slice_height 32)"),
            std::string::npos)
      << message("staircase", "cm", p);
  p.alpha = 1.5;
  EXPECT_NE(message("staircase", "cm", p).find("[0.32, 1]"), std::string::npos);
  p.alpha = std::nan("");
  EXPECT_NE(message("staircase", "cm", p).find("[0.32, 1]"), std::string::npos);
  // --- a cuSPARSE baseline has no reference kernel
  try {
    make_reference_operator(m, prepare_format(m, "csr-cusparse", "none", FormatParameters{}));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no reference kernel"), std::string::npos);
  }
}

}  // namespace
}  // namespace fvmmini
