// The host side of the formats, whatever the backend: the reference operator's diagonal, the
// Staircase kernel split over threads, the two-level value map, a format built from the rows
// against the CSR route, size figures, and errors for bad names and parameters. The kernels of
// every format on every backend: tests/formats/.

#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "linalg/parallel.hpp"
#include "registry/format_registry.hpp"
#include "linalg/ordering/matrix_statistics.hpp"
#include "linalg/ordering/orderings.hpp"
#include "matrix_generators.hpp"

namespace fvmmini {
namespace {

struct NamedMatrix {
  std::string name;
  LduMatrix matrix;
};

// Rows enough that 2 and 3 threads split a pass over them.
const label above_parallel_threshold = 2 * static_cast<label>(min_parallel_rows) + 11;

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

TEST(FormatSpmv, StaircaseSlicesSplitAcrossThreadsWhateverTheirGroups) {
  // --- above the parallel threshold, so 2 and 3 threads split the slices of all groups between
  //     them: the same products as the face loop, and the same bits as one thread (no sums cross rows)
  const std::vector<NamedMatrix> cases{{"box 30x30x20", test::box_matrix(30, 30, 20, 21)},
                                       {"random wide", test::random_matrix(above_parallel_threshold, 12, 22)}};
  const int saved = omp_get_max_threads();
  for (const auto& c : cases)
    for (int sh : {32, 64}) {
      FormatParameters params;
      params.set("sliceHeight", sh);
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

TEST(FormatSpmv, RefreshOfAHandAssembledPreparedFormatUsesTheTwoLevelMap) {
  const LduMatrix first = test::random_matrix(300, 5, 41);
  const LduMatrix second = test::random_values(first.addressing, 42);
  for (const auto& entry : format_table()) {
    SCOPED_TRACE(entry.name);
    FormatParameters given;
    if (entry.name == "staircase") given.set("alpha", 0.2);  // a test of one format's parameter
    const FormatParameters params = resolve_format_parameters(entry.name, given, first.n_rows());
    // --- as a caller that times each step itself would assemble it: no compose_value_map
    PreparedFormat hand;
    hand.format_name = entry.name;
    hand.permutation = make_ordering("rcm", *first.addressing);
    const RowGrouping grouping = entry.row_grouping
                                     ? entry.row_grouping(params, row_length_stats(*first.addressing).histogram)
                                     : RowGrouping::none;
    if (grouping != RowGrouping::none)
      hand.permutation = group_by_row_length(row_lengths(*first.addressing), hand.permutation,
                                             grouping == RowGrouping::by_length_descending);
    std::vector<label> positions(first.n_rows());
    try {
      hand.format = entry.build({permuted_csr(first, hand.permutation, &hand.csr_map), params, positions});
    } catch (const std::invalid_argument&) {
      continue;  // declined (dia: no diagonal structure after rcm), tested with the format
    }
    ASSERT_FALSE(hand.value_map);
    PreparedFormat composed = hand;
    compose_value_map(composed);
    EXPECT_TRUE(composed.csr_map.diag_slot.empty());
    refresh_format_values(second, hand);
    refresh_format_values(second, composed);
    const auto a = hand.format.values(), b = composed.format.values();
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], b[k]) << "slot " << k;
    const StoredFormat rebuilt = entry.build({permuted_csr(second, hand.permutation), params, positions});
    const auto fresh = rebuilt.values();
    for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], fresh[k]) << "slot " << k;
  }
}

// The format and value map the CSR route gives for prepared's permutation and keys: the CSR with
// its slot map, the unit's build, the maps composed.
PreparedFormat built_through_the_csr(const LduMatrix& m, const PreparedFormat& prepared) {
  PreparedFormat hand;
  hand.format_name = prepared.format_name;
  hand.permutation = prepared.permutation;
  hand.format = find_format(prepared.format_name)
                    .build({permuted_csr(m, prepared.permutation, &hand.csr_map), prepared.parameters,
                            prepared.position_before_grouping});
  compose_value_map(hand);
  return hand;
}

TEST(FormatSpmv, AFormatBuiltFromTheRowsIsTheOneBuiltFromTheCsr) {
  // --- grouped and ungrouped rows, a hub longer than any slice, asymmetric values, orderings that
  //     scatter the rows, above the parallel threshold on 1 to 3 threads: the same struct and map
  const std::vector<NamedMatrix> cases{{"box 30x30x20", test::box_matrix(30, 30, 20, 51)},
                                       {"asymmetric box 9x7x5", test::asymmetric(test::box_matrix(9, 7, 5, 52), 53)},
                                       {"random wide", test::random_matrix(above_parallel_threshold, 12, 54)},
                                       {"star", test::star_matrix(300, 55)},
                                       {"ring", test::ring_matrix(200, 56)}};
  const int saved = omp_get_max_threads();
  int from_rows = 0;
  for (const auto& unit : format_table()) {
    if (!unit.build_rows) continue;
    for (const auto& c : cases)
      for (const std::string ordering : {"none", "rcm", "random"})
        for (double alpha : {0.01, 1.0})
          for (int threads : {1, 2, 3}) {
            SCOPED_TRACE(fmt::format("{}, {}, ordering {}, alpha {}, {} threads", unit.name, c.name, ordering, alpha,
                                     threads));
            omp_set_num_threads(threads);
            FormatParameters given;
            if (unit.name == "staircase") given.set("alpha", alpha);
            const PreparedFormat p = prepare_format(c.matrix, unit.name, ordering, given, 9);
            ASSERT_TRUE(p.from_rows);
            ASSERT_TRUE(p.csr_map.diag_slot.empty());
            const PreparedFormat csr = built_through_the_csr(c.matrix, p);
            EXPECT_EQ(p.value_map->diag_slot, csr.value_map->diag_slot);
            EXPECT_EQ(p.value_map->upper_slot, csr.value_map->upper_slot);
            EXPECT_EQ(p.value_map->lower_slot, csr.value_map->lower_slot);
            const auto a = p.format.values(), b = csr.format.values();
            ASSERT_EQ(a.size(), b.size());
            for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], b[k]) << "slot " << k;
            EXPECT_EQ(p.format.figures().footprint_bytes, csr.format.figures().footprint_bytes);
            EXPECT_EQ(p.format.figures().nnz, csr.format.figures().nnz);
            if (const auto* s = p.format.get_if<StaircaseMatrix>()) {
              const auto& t = csr.format.as<StaircaseMatrix>();
              EXPECT_EQ(s->col, t.col);
              EXPECT_EQ(s->index.step_ptr, t.index.step_ptr);
              EXPECT_EQ(s->index.row_ptr, t.index.row_ptr);
              EXPECT_EQ(s->slice_position, t.slice_position);
              EXPECT_TRUE(s->value_slot.empty());
            }
            expect_matches_ldu(c.matrix, *make_reference_operator(c.matrix, p), 57);
            ++from_rows;
          }
  }
  omp_set_num_threads(saved);
  EXPECT_GT(from_rows, 0) << "no unit builds from the rows";
}

TEST(FormatSpmv, AShapeForTheDeviceIsTheHostStructWithoutItsArrays) {
  // --- the staircase's shape (its arrays left to the device): the host build's index, figures,
  //     ordering and slice positions, no values and no value map; nothing on the host reads it
  const std::vector<NamedMatrix> cases{{"box 30x30x20", test::box_matrix(30, 30, 20, 81)},
                                       {"asymmetric box 9x7x5", test::asymmetric(test::box_matrix(9, 7, 5, 82), 83)},
                                       {"star", test::star_matrix(300, 84)}};
  for (const auto& c : cases)
    for (const std::string ordering : {"none", "rcm", "staircase"})
      for (double alpha : {0.01, 1.0}) {
        SCOPED_TRACE(fmt::format("{}, ordering {}, alpha {}", c.name, ordering, alpha));
        FormatParameters given;
        given.set("alpha", alpha);
        ASSERT_TRUE(shapes_for_device("staircase", given, {}));
        const PreparedFormat host = prepare_format(c.matrix, "staircase", ordering, given, 9);
        const PreparedFormat shape =
            prepare_format(c.matrix, "staircase", ordering, given, 9, {}, nullptr, FormatArrays::device);
        ASSERT_TRUE(shape.arrays_on_device);
        EXPECT_FALSE(host.arrays_on_device);
        EXPECT_EQ(shape.value_map, nullptr);
        EXPECT_EQ(shape.permutation.new_to_old, host.permutation.new_to_old);
        EXPECT_EQ(shape.position_before_grouping, host.position_before_grouping);
        const auto& a = shape.format.as<StaircaseMatrix>();
        const auto& b = host.format.as<StaircaseMatrix>();
        EXPECT_TRUE(a.col.empty() && a.values.empty());
        EXPECT_EQ(a.index.step_lengths, b.index.step_lengths);
        EXPECT_EQ(a.index.step_blocks, b.index.step_blocks);
        EXPECT_EQ(a.index.step_ptr, b.index.step_ptr);
        EXPECT_EQ(a.index.row_ptr, b.index.row_ptr);
        EXPECT_EQ(a.slice_position, b.slice_position);
        EXPECT_EQ(shape.format.figures().stored_entries, host.format.figures().stored_entries);
        EXPECT_EQ(shape.format.figures().footprint_bytes, host.format.figures().footprint_bytes);
        EXPECT_EQ(shape.format.figures().nnz, host.format.figures().nnz);
        EXPECT_NE(describe(shape).find("arrays on the device"), std::string::npos) << describe(shape);
        PreparedFormat refreshed = shape;
        EXPECT_THROW(refresh_format_values(c.matrix, refreshed), std::logic_error);
        EXPECT_THROW(format_values(c.matrix, shape), std::logic_error);
        EXPECT_THROW(make_reference_operator(c.matrix, shape), std::logic_error);
        // --- a model is a model only where it asks for its arrays where they are
        EXPECT_TRUE(fits_model(c.matrix, "staircase", ordering, given, 9, {}, shape, FormatArrays::device));
        EXPECT_FALSE(fits_model(c.matrix, "staircase", ordering, given, 9, {}, shape, FormatArrays::host));
        EXPECT_FALSE(fits_model(c.matrix, "staircase", ordering, given, 9, {}, host, FormatArrays::device));
      }
  // --- no shape where the unit has none or a key is tuned
  EXPECT_FALSE(shapes_for_device("csr", {}, {}));
  FormatParameters tuned;
  tuned.set("sliceHeight", std::string("auto"));
  const SpmvTimer timer{"a constant", [](const std::string&, const StoredFormat&, const FormatParameters&, label) {
                          return 1.0;
                        }};
  EXPECT_FALSE(shapes_for_device("staircase", tuned, timer));
  EXPECT_THROW(prepare_format(test::box_matrix(8, 8, 8, 85), "csr", "none", {}, 1, {}, nullptr, FormatArrays::device),
               std::logic_error);
}

TEST(FormatSpmv, RowsOfSeveralGroupsNotGroupedAreRefusedAsTheCsrRouteRefusesThem) {
  // --- the star's hub in the middle of the identity: a long row before short ones
  const LduMatrix m = test::star_matrix(300, 58);
  const Permutation identity = Permutation::identity(m.n_rows());
  std::string from_csr, from_rows;
  try {
    build_staircase(permuted_csr(m, identity), 32, 0.2);
  } catch (const std::invalid_argument& e) {
    from_csr = e.what();
  }
  try {
    LduToCsrMap map;
    build_staircase(PermutedRows(m, identity), 32, 0.2, map);
  } catch (const std::invalid_argument& e) {
    from_rows = e.what();
  }
  EXPECT_NE(from_csr.find("non-decreasing length"), std::string::npos) << from_csr;
  EXPECT_EQ(from_rows, from_csr);
}

TEST(FormatSpmv, FiguresCountPaddingAndBytes) {
  const LduMatrix m = test::star_matrix(200, 3);
  const std::int64_t nnz = m.addressing->nnz();
  FormatParameters params;
  params.set("sortWindow", 1);
  params.set("alpha", 0.5);
  for (const auto& entry : format_table()) {
    SCOPED_TRACE(entry.name);
    FormatFigures figures;
    try {
      figures = prepare_format(m, entry.name, "none", params).format.figures();
    } catch (const std::invalid_argument& e) {
      continue;  // declined (dia: the star has no diagonal structure), tested with the format
    }
    EXPECT_EQ(figures.nnz, nnz);
    // --- symmetric stores each off-diagonal pair once, the others every nonzero at least once
    EXPECT_GE(figures.stored_entries, entry.name == "symmetric" ? (nnz + m.n_rows()) / 2 : nnz);
    EXPECT_DOUBLE_EQ(figures.padding_ratio, static_cast<double>(figures.stored_entries) / nnz);
    EXPECT_GE(figures.footprint_bytes, figures.stored_entries * 12);
  }
  // --- ELL pads every row to the hub's 200 entries
  EXPECT_EQ(prepare_format(m, "ell", "none", params).format.figures().stored_entries, 200 * 200);
}

TEST(FormatSpmv, StaircaseAlphaBelowSliceHeightOverRowsIsRaisedToIt) {
  // Wikberg (2025): no group shorter than a slice, so alpha is at least sliceHeight/rows
  const LduMatrix m = test::box_matrix(10, 10, 1, 1);  // 100 rows
  FormatParameters p;
  p.set("alpha", 0.01);
  EXPECT_DOUBLE_EQ(prepare_format(m, "staircase", "cm", p).parameters.real("alpha"), 0.32);
  p.set("alpha", 0.5);
  EXPECT_DOUBLE_EQ(prepare_format(m, "staircase", "cm", p).parameters.real("alpha"), 0.5);
  p.set("sliceHeight", 1024.0);  // taller than the matrix: one padded group
  EXPECT_DOUBLE_EQ(prepare_format(m, "staircase", "cm", p).parameters.real("alpha"), 1.0);
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
  auto with = [](const std::string& key, ParameterValue value) {
    FormatParameters p;
    p.set(key, std::move(value));
    return p;
  };
  EXPECT_EQ(message("blocked", "none", {}),
            fmt::format("unknown format 'blocked' (known: {})", fmt::join(format_names(), ", ")));
  EXPECT_EQ(message("csr", "amd", {}), "unknown ordering 'amd' (known: none, cm, rcm, staircase, metis, colour, random)");
  EXPECT_EQ(message("sell", "none", with("chunkSize", 0.0)),
            "chunkSize: '0' is not an integer in [1, 2147483647], or auto");
  EXPECT_EQ(message("sell", "none", with("sortWindow", 0.0)),
            "sortWindow: '0' is not an integer in [1, 2147483647], or auto");
  for (double sh : {0.0, -32.0, 48.0, 2048.0})
    EXPECT_EQ(message("staircase", "cm", with("sliceHeight", sh)),
              fmt::format("sliceHeight: '{:g}' is not an integer in [32, 1024], a multiple of 32, or auto", sh));
  EXPECT_EQ(message("staircase", "cm", with("sliceHeight", std::string("fast"))),
            "sliceHeight: 'fast' is not an integer in [32, 1024], a multiple of 32, or auto");
  EXPECT_EQ(message("staircase", "cm", with("launch", std::string("group"))),
            "launch: 'group' is not one of interleaved, groups");
  EXPECT_EQ(message("ellwarp", "none", with("kernel", std::string("auto"))), "kernel: 'auto' is not one of k1, k2");
  EXPECT_EQ(message("staircase", "cm", with("alpha", 1.5)), "alpha: '1.5' is not a number in (0, 1], or auto");
  EXPECT_NE(message("staircase", "cm", with("alpha", std::nan(""))).find("is not a number in (0, 1]"),
            std::string::npos);
  // --- a cuSPARSE baseline has no reference kernel
  try {
    make_reference_operator(m, prepare_format(m, "csr-cusparse", "none", FormatParameters{}));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not available on the reference backend"), std::string::npos);
  }
}

TEST(FormatSpmv, AModelOnTheSamePatternIsCopiedWithTheOtherMatrixValues) {
  // --- two matrices on one addressing (a mesh's velocity and pressure matrices), other values
  const LduMatrix a = test::box_matrix(12, 10, 7, 31);
  LduMatrix b = a;
  for (std::size_t i = 0; i < b.diag.size(); ++i) b.diag[i] = 3.0 * b.diag[i] + 0.25 * static_cast<double>(i % 5);
  for (std::size_t f = 0; f < b.upper.size(); ++f) b.upper[f] = -0.5 - 0.125 * static_cast<double>(f % 7);
  for (const std::string& format : format_names()) {
    if (!find_format(format).multiply) continue;  // no reference kernel to compare with
    for (const std::string ordering : {"none", "rcm"}) {
      SCOPED_TRACE(format + ", ordering " + ordering);
      PreparedFormat model;
      try {
        model = prepare_format(a, format, ordering, FormatParameters{});
      } catch (const std::invalid_argument&) {
        continue;  // the format declines the matrix in this ordering (dia off the natural one)
      }
      EXPECT_FALSE(model.copied);
      PreparedFormat copied = prepare_format(b, format, ordering, FormatParameters{}, 1, {}, &model);
      ASSERT_TRUE(copied.copied);
      EXPECT_EQ(copied.ordering_seconds + copied.csr_seconds, 0.0);
      EXPECT_NE(describe(copied).find("(the previous solver's, copied)"), std::string::npos) << describe(copied);
      const PreparedFormat fresh = prepare_format(b, format, ordering, FormatParameters{});
      EXPECT_EQ(copied.permutation.new_to_old, fresh.permutation.new_to_old);
      EXPECT_EQ(copied.value_map, model.value_map);  // the slot map shared, not copied
      // --- the same products to the bit as a format built from b, and b's
      const auto op_copied = make_reference_operator(b, std::move(copied));
      const auto op_fresh = make_reference_operator(b, fresh);
      const auto x = test::random_vector(b.n_rows(), 5);
      EXPECT_EQ(operator_product(*op_copied, x), operator_product(*op_fresh, x));
      expect_matches_ldu(b, *op_copied, 6);
    }
  }
  // --- not copied: another ordering, other keys, another addressing (even an equal one)
  const PreparedFormat model = prepare_format(a, "staircase", "none", FormatParameters{});
  FormatParameters taller;
  taller.set("sliceHeight", 64.0);
  EXPECT_FALSE(prepare_format(b, "staircase", "rcm", FormatParameters{}, 1, {}, &model).copied);
  EXPECT_FALSE(prepare_format(b, "staircase", "none", taller, 1, {}, &model).copied);
  EXPECT_FALSE(prepare_format(b, "sell", "none", FormatParameters{}, 1, {}, &model).copied);
  EXPECT_FALSE(prepare_format(test::box_matrix(12, 10, 7, 31), "staircase", "none", FormatParameters{}, 1, {}, &model).copied);
}

}  // namespace
}  // namespace fvmmini
