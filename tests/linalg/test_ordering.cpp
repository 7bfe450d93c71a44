// Orderings and permutations: round trips, bijections, LDU and CSR permutation with their slot
// maps, the counting sort, bandwidth reduction, Cuthill-McKee on every thread as on one, the
// Staircase ordering, a second matrix on one addressing taking the last ordering, statistics, each
// row's faces (listed on every thread) in face order.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/reference/csr_spmv.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/counting_sort.hpp"
#include "linalg/csr_matrix.hpp"
#include "registry/format_registry.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "linalg/ordering/matrix_statistics.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/ordering/permutation.hpp"
#include "matrix_generators.hpp"
#include "omp_threads.hpp"

namespace fvmmini {
namespace {

/// P^T (M x_new) equals y = A x row by row, x_new = P x, M in the new numbering.
template <class Multiply>
void expect_the_product(const Permutation& p, std::span<const double> x_new, std::span<const double> y,
                        Multiply&& multiply) {
  const auto n = static_cast<label>(y.size());
  std::vector<double> y_new(n), y_back(n);
  multiply(x_new, std::span<double>(y_new));
  permute_to_old(p, y_new, y_back);
  for (label i = 0; i < n; ++i) ASSERT_NEAR(y_back[i], y[i], 1e-12 * (1 + std::abs(y[i])));
}

/// New coefficients refresh the permuted CSR and LDU in place exactly as a fresh permutation would.
void expect_refresh_as_fresh(const LduMatrix& m2, const Permutation& p, const LduToCsrMap& map, CsrMatrix& csr,
                             PermutedLdu& pl) {
  refresh_csr_values(m2, map, csr.values);
  EXPECT_EQ(csr.values, permuted_csr(m2, p).values);
  refresh_permuted_ldu(m2, p, pl);
  const PermutedLdu fresh = permute_ldu(m2, p);
  EXPECT_EQ(pl.matrix.diag, fresh.matrix.diag);
  EXPECT_EQ(pl.matrix.upper, fresh.matrix.upper);
  EXPECT_EQ(pl.matrix.lower, fresh.matrix.lower);
}

void expect_bijection(const Permutation& p, label n) {
  ASSERT_EQ(p.size(), n);
  ASSERT_EQ(static_cast<label>(p.old_to_new.size()), n);
  for (label i = 0; i < n; ++i) ASSERT_EQ(p.old_to_new[p.new_to_old[i]], i);
}

TEST(Permutation, RoundTripAndComposition) {
  const Permutation p = random_ordering(1000, 5);
  expect_bijection(p, 1000);
  EXPECT_FALSE(p.is_identity());
  const auto x = test::random_vector(1000, 1);
  std::vector<double> x_new(1000), back(1000);
  permute_to_new(p, x, x_new);
  for (label i = 0; i < 1000; ++i) ASSERT_EQ(x_new[i], x[p.new_to_old[i]]);
  permute_to_old(p, x_new, back);
  EXPECT_EQ(back, x);

  // --- compose(p, q) renumbers by p and then by q
  const Permutation q = random_ordering(1000, 6);
  std::vector<double> via_two(1000), via_one(1000);
  permute_to_new(q, x_new, via_two);
  permute_to_new(compose(p, q), x, via_one);
  EXPECT_EQ(via_one, via_two);
  EXPECT_TRUE(Permutation::identity(7).is_identity());
}

TEST(Permutation, RejectsNonBijections) {
  EXPECT_THROW(Permutation::from_new_to_old({0, 0, 1}), std::invalid_argument);
  EXPECT_THROW(Permutation::from_new_to_old({0, 3, 1}), std::invalid_argument);
  EXPECT_THROW(Permutation::from_new_to_old({-1, 0}), std::invalid_argument);
  // --- past the parallel threshold, on three threads: the message names the first bad entry
  std::vector<label> large(20000);
  std::iota(large.begin(), large.end(), 0);
  large[15000] = 12000;
  const test::Threads scope(3);
  try {
    Permutation::from_new_to_old(large);
    ADD_FAILURE() << "a repeated entry was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "permutation: entry 15000 = 12000 is out of range 0..19999 or repeated");
  }
  large[15000] = 15000;
  EXPECT_EQ(Permutation::from_new_to_old(large).old_to_new, large);
  EXPECT_THROW(compose(Permutation::identity(2), Permutation::identity(3)), std::invalid_argument);
}

TEST(Permutation, PermutedLduAndCsrReproduceTheProductAndRefreshInPlace) {
  const LduMatrix m = test::random_matrix(400, 5, 3);
  const auto x = test::random_vector(400, 4);
  std::vector<double> y(400);
  reference::ldu_spmv(m, x, y);
  for (const std::string name : {"none", "rcm", "metis", "random"}) {
    SCOPED_TRACE(name);
    const Permutation p = make_ordering(name, *m.addressing, 9);
    std::vector<double> x_new(400);
    permute_to_new(p, x, x_new);

    // --- permuted LDU: still upper-triangular, same product
    PermutedLdu pl = permute_ldu(m, p);
    const auto& a = *pl.matrix.addressing;
    for (label f = 0; f < a.n_faces(); ++f) {
      ASSERT_LT(a.lower[f], a.upper[f]);
      if (f > 0) {
        ASSERT_TRUE(a.lower[f - 1] < a.lower[f] || (a.lower[f - 1] == a.lower[f] && a.upper[f - 1] < a.upper[f]));
      }
    }
    expect_the_product(p, x_new, y, [&](auto in, auto out) { reference::ldu_spmv(pl.matrix, in, out); });

    // --- permuted CSR: same product; for the identity it is exactly ldu_to_csr
    LduToCsrMap map;
    CsrMatrix csr = permuted_csr(m, p, &map);
    expect_the_product(p, x_new, y, [&](auto in, auto out) { reference::csr_spmv(csr, in, out); });
    // --- each row's columns ascending, and every slot of the map at its coefficient's row and column
    for (label i = 0; i < 400; ++i)
      for (auto k = csr.row_ptr[i] + 1; k < csr.row_ptr[i + 1]; ++k) ASSERT_LT(csr.col[k - 1], csr.col[k]) << i;
    const auto row_of_slot = [&](std::int64_t k) {
      return static_cast<label>(std::upper_bound(csr.row_ptr.begin(), csr.row_ptr.end(), k) - csr.row_ptr.begin() - 1);
    };
    for (label c = 0; c < 400; ++c) {
      ASSERT_EQ(row_of_slot(map.diag_slot[c]), p.old_to_new[c]);
      ASSERT_EQ(csr.col[map.diag_slot[c]], p.old_to_new[c]);
    }
    for (label f = 0; f < m.addressing->n_faces(); ++f) {
      const label lo = p.old_to_new[m.lower_addr()[f]], up = p.old_to_new[m.upper_addr()[f]];
      ASSERT_EQ(row_of_slot(map.upper_slot[f]), lo);
      ASSERT_EQ(csr.col[map.upper_slot[f]], up);
      ASSERT_EQ(row_of_slot(map.lower_slot[f]), up);
      ASSERT_EQ(csr.col[map.lower_slot[f]], lo);
    }
    if (name == "none") {
      LduToCsrMap plain_map;
      const CsrMatrix plain = ldu_to_csr(m, &plain_map);
      EXPECT_EQ(csr.row_ptr, plain.row_ptr);
      EXPECT_EQ(csr.col, plain.col);
      EXPECT_EQ(csr.values, plain.values);
      EXPECT_EQ(map.diag_slot, plain_map.diag_slot);
      EXPECT_EQ(map.upper_slot, plain_map.upper_slot);
      EXPECT_EQ(map.lower_slot, plain_map.lower_slot);
    }

    expect_refresh_as_fresh(test::random_values(m.addressing, 77), p, map, csr, pl);
  }
}

TEST(Permutation, AsymmetricMatricesKeepEachCoefficientAtItsRowAndColumn) {
  // --- a renumbering turns faces (the old upper row becomes the lower one): their upper and lower
  //     coefficients swap, so the permuted LDU and CSR still hold P A P^T
  const LduMatrix m = test::asymmetric(test::random_matrix(400, 5, 3), 8);
  const auto x = test::random_vector(400, 4);
  std::vector<double> y(400);
  reference::ldu_spmv(m, x, y);
  for (const std::string name : {"none", "rcm", "random"}) {
    SCOPED_TRACE(name);
    const Permutation p = make_ordering(name, *m.addressing, 9);
    std::vector<double> x_new(400);
    permute_to_new(p, x, x_new);
    PermutedLdu pl = permute_ldu(m, p);
    EXPECT_FALSE(pl.matrix.symmetric());
    expect_the_product(p, x_new, y, [&](auto in, auto out) { reference::ldu_spmv(pl.matrix, in, out); });
    LduToCsrMap map;
    CsrMatrix csr = permuted_csr(m, p, &map);
    expect_the_product(p, x_new, y, [&](auto in, auto out) { reference::csr_spmv(csr, in, out); });
    for (label f = 0; f < m.addressing->n_faces(); ++f) {
      ASSERT_EQ(csr.values[map.upper_slot[f]], m.upper[f]);
      ASSERT_EQ(csr.values[map.lower_slot[f]], m.lower[f]);
    }
    // --- refreshed in place as freshly built; a symmetric refresh drops the lower coefficients
    expect_refresh_as_fresh(test::asymmetric(test::random_values(m.addressing, 77), 78), p, map, csr, pl);
    refresh_permuted_ldu(test::random_values(m.addressing, 79), p, pl);
    EXPECT_TRUE(pl.matrix.symmetric());
  }
}

TEST(Orderings, EveryOrderingIsABijection) {
  const LduMatrix m = test::random_matrix(500, 4, 8);  // several components, isolated rows
  for (const auto& name : ordering_names()) {
    SCOPED_TRACE(name);
    expect_bijection(make_ordering(name, *m.addressing, 3), 500);
  }
  const LduMatrix one = test::random_matrix(1, 0, 1);
  for (const auto& name : ordering_names()) expect_bijection(make_ordering(name, *one.addressing), 1);
}

TEST(Orderings, CuthillMcKeeReducesTheBandwidthOfARandomlyNumberedBox) {
  const LduMatrix box = test::box_matrix(12, 10, 8, 1);
  const Permutation scramble = random_ordering(box.n_rows(), 42);
  const PermutedLdu scrambled = permute_ldu(box, scramble);
  const auto& a = *scrambled.matrix.addressing;
  const auto none = matrix_statistics(a, Permutation::identity(a.n_rows));
  const auto cm = matrix_statistics(a, cuthill_mckee(a));
  const auto rcm = matrix_statistics(a, reverse_cuthill_mckee(a));
  EXPECT_GT(none.bandwidth, 500);
  // a level structure of a 12x10x8 box is at most ~2 planes of 120 cells wide
  EXPECT_LT(cm.bandwidth, 250);
  EXPECT_LT(rcm.bandwidth, 250);
  EXPECT_LT(cm.profile, none.profile / 4);
  EXPECT_LE(rcm.profile, cm.profile);
}

TEST(Orderings, CuthillMcKeeOnAPathStartsAtAnEnd) {
  // path 0-1-...-9 numbered 5, 3, 8, 0, 9, 1, 6, 2, 7, 4 along the path
  const std::vector<label> along{5, 3, 8, 0, 9, 1, 6, 2, 7, 4};
  std::vector<std::pair<label, label>> pairs;
  for (size_t k = 0; k + 1 < along.size(); ++k) pairs.push_back({along[k], along[k + 1]});
  const auto a = test::addressing_from_pairs(10, pairs);
  const Permutation cm = cuthill_mckee(*a);
  // both ends (5 and 4) are pseudo-peripheral with degree 1; the smaller index wins the tie
  std::vector<label> expected(along.rbegin(), along.rend());
  EXPECT_EQ(cm.new_to_old, expected);
  EXPECT_EQ(matrix_statistics(*a, cm).bandwidth, 1);
  EXPECT_EQ(reverse_cuthill_mckee(*a).new_to_old, along);
}

TEST(CountingSort, EqualsAStableSortByKeyOnOneThreadAndOnSeveral) {
  // --- a scrambled sequence of 50000 items (past the parallel threshold), 37 keys, many ties
  std::mt19937_64 rng(11);
  std::vector<label> items(50000), key(items.size());
  std::iota(items.begin(), items.end(), 0);
  std::shuffle(items.begin(), items.end(), rng);
  for (label& k : key) k = static_cast<label>(rng() % 37);
  std::vector<label> expected = items;
  std::stable_sort(expected.begin(), expected.end(), [&](label a, label b) { return key[a] < key[b]; });
  for (const int threads : {1, 3}) {
    const test::Threads scope(threads);
    EXPECT_EQ(counting_sort(
                  static_cast<label>(items.size()), 37, [&](label k) { return items[k]; },
                  [&](label i) { return key[i]; }),
              expected)
        << threads << " threads";
  }
  // --- more keys than a thread's share of the items (a hub's degree): on one thread, the same order
  std::vector<label> wide(items.size());
  for (label& k : wide) k = static_cast<label>(rng() % 40000);
  expected = items;
  std::stable_sort(expected.begin(), expected.end(), [&](label a, label b) { return wide[a] < wide[b]; });
  {
    const test::Threads scope(3);
    EXPECT_EQ(counting_sort(
                  static_cast<label>(items.size()), 40000, [&](label k) { return items[k]; },
                  [&](label i) { return wide[i]; }),
              expected);
  }
  EXPECT_TRUE(counting_sort(0, 0, [](label k) { return k; }, [](label i) { return i; }).empty());
}

TEST(Orderings, CuthillMcKeeOnEveryThreadEqualsTheOneNodeAtATimePass) {
  // --- breadth-first levels wider than the width expanded on every thread (4096): a scrambled
  //     box (levels up to 40 x 120 cells from a corner, ties broken by the scrambled numbers) and
  //     a random graph of several components (levels growing by the neighbours' count)
  const LduMatrix box = test::box_matrix(40, 120, 120, 1);
  const LduAddressing scrambled = *permute_ldu(box, random_ordering(box.n_rows(), 5)).matrix.addressing;
  const LduAddressing random = *test::random_matrix(150000, 3, 9).addressing;
  for (const LduAddressing* addressing : std::array<const LduAddressing*, 2>{&scrambled, &random}) {
    for (const CmStart start : {CmStart::pseudo_peripheral, CmStart::min_degree}) {
      std::vector<label> one;
      {
        const test::Threads scope(1);
        one = cuthill_mckee(*addressing, start).new_to_old;
      }
      const test::Threads scope(3);
      EXPECT_EQ(cuthill_mckee(*addressing, start).new_to_old, one)
          << addressing->n_rows << " rows, start "
          << (start == CmStart::min_degree ? "min degree" : "pseudo-peripheral");
    }
  }
}

TEST(Orderings, StaircaseGroupsByLengthAscendingWithCuthillMcKeeTieBreak) {
  const LduMatrix m = test::box_matrix(6, 5, 4, 2);
  const auto& a = *m.addressing;
  const Permutation cm = cuthill_mckee(a, CmStart::min_degree);
  const Permutation st = staircase_ordering(a);
  expect_bijection(st, a.n_rows);
  std::vector<label> length(a.n_rows, 1);
  for (label f = 0; f < a.n_faces(); ++f) {
    ++length[a.lower[f]];
    ++length[a.upper[f]];
  }
  for (label i = 1; i < a.n_rows; ++i) {
    const label prev = st.new_to_old[i - 1], cur = st.new_to_old[i];
    ASSERT_LE(length[prev], length[cur]) << i;
    if (length[prev] == length[cur]) {
      ASSERT_LT(cm.old_to_new[prev], cm.old_to_new[cur]) << i;
    }
  }
  // a box's corners (4 nonzeros) come first, interior cells (7) last
  EXPECT_EQ(length[st.new_to_old.front()], 4);
  EXPECT_EQ(length[st.new_to_old.back()], 7);
  EXPECT_EQ(st.new_to_old, make_ordering("staircase", a).new_to_old);
}

TEST(Orderings, StaircaseSlicesKnowTheirPlaceInTheCuthillMcKeeOrder) {
  const LduMatrix m = test::box_matrix(12, 10, 9, 2);
  const auto& a = *m.addressing;
  for (const std::string ordering : {"cm", "staircase"}) {
    // --- ordering staircase: its CM part (from a minimally connected node), then the grouping
    const Permutation cm = ordering == "cm" ? cuthill_mckee(a) : cuthill_mckee(a, CmStart::min_degree);
    const PreparedFormat p = prepare_format(m, "staircase", ordering, {});
    const auto& s = p.format.as<StaircaseMatrix>();
    if (ordering == "staircase") {
      EXPECT_EQ(p.permutation.new_to_old, staircase_ordering(a).new_to_old);
    }
    std::size_t v = 0;
    for (label g = 0; g < s.index.n_groups(); ++g)
      for (label k = 0; k < s.index.step_blocks[g]; ++k, ++v) {
        const label first = s.index.row_ptr[g] + k * s.slice_height;
        const label middle = first + (std::min(first + s.slice_height, s.n_rows) - 1 - first) / 2;
        ASSERT_LT(v, s.slice_position.size());
        EXPECT_EQ(s.slice_position[v], cm.old_to_new[p.permutation.new_to_old[middle]]) << ordering << " slice " << v;
      }
    EXPECT_EQ(v, s.slice_position.size());
    EXPECT_GT(s.index.n_groups(), 2) << ordering;
  }
  // --- only a format that groups rows itself gets the CM part of the staircase ordering
  EXPECT_EQ(format_ordering("staircase", {}, "staircase", a).new_to_old, cuthill_mckee(a, CmStart::min_degree).new_to_old);
  EXPECT_EQ(format_ordering("csr", {}, "staircase", a).new_to_old, staircase_ordering(a).new_to_old);
  EXPECT_EQ(format_ordering("staircase", {}, "rcm", a).new_to_old, reverse_cuthill_mckee(a).new_to_old);
}

TEST(Orderings, StaircaseOfOneGroupKeepsTheOrdering) {
  // --- a 24^3 box: 14 % boundary rows (lengths 4 to 6); alpha 0.5 merges them into the interior's
  //     group, so the rows stay in CM order; the default alpha groups them (shortest first)
  const LduMatrix m = test::box_matrix(24, 24, 24, 3);
  const Permutation cm = cuthill_mckee(*m.addressing);
  FormatParameters merged;
  merged.set("alpha", 0.5);
  const PreparedFormat one = prepare_format(m, "staircase", "cm", merged);
  EXPECT_EQ(one.format.as<StaircaseMatrix>().index.n_groups(), 1);
  EXPECT_EQ(one.permutation.new_to_old, cm.new_to_old);
  EXPECT_TRUE(one.position_before_grouping.empty());
  const PreparedFormat grouped = prepare_format(m, "staircase", "cm", {});
  EXPECT_GT(grouped.format.as<StaircaseMatrix>().index.n_groups(), 1);
  EXPECT_NE(grouped.permutation.new_to_old, cm.new_to_old);
  // --- both multiply as the face loop
  const auto x = test::random_vector(m.n_rows(), 8);
  std::vector<double> y_ref(m.n_rows());
  reference::ldu_spmv(m, x, y_ref);
  for (const PreparedFormat* p : {&one, &grouped}) {
    auto op = make_reference_operator(m, *p);
    std::vector<double> x_new(m.n_rows()), y_new(m.n_rows()), y(m.n_rows());
    permute_to_new(p->permutation, x, x_new);
    op->multiply(x_new, y_new);
    permute_to_old(p->permutation, y_new, y);
    for (label i = 0; i < m.n_rows(); ++i) EXPECT_NEAR(y[i], y_ref[i], 1e-12 * std::abs(y_ref[i]) + 1e-14) << i;
  }
}

TEST(Orderings, MixedPrecisionKeepsAStaircaseOfLittlePaddingInOneGroup) {
  // --- a 100 x 100 plane: 4 % boundary rows, one entry short, pad 0.8 % more entries: one group,
  //     the rows in CM order (so that its slices can take 16-bit offsets)
  const LduMatrix plane = test::box_matrix(100, 100, 1, 4);
  const FormatParameters keys = mixed_precision_parameters("staircase", {}, *plane.addressing);
  ASSERT_TRUE(keys.has("alpha"));
  const PreparedFormat p = prepare_format(plane, "staircase", "cm", keys);
  EXPECT_EQ(p.format.as<StaircaseMatrix>().index.n_groups(), 1);
  EXPECT_EQ(p.permutation.new_to_old, cuthill_mckee(*plane.addressing).new_to_old);
  // --- a 24^3 box pads 3.7 % more: grouped as given; an alpha the case gave is kept; sell as given
  const LduMatrix box = test::box_matrix(24, 24, 24, 3);
  EXPECT_FALSE(mixed_precision_parameters("staircase", {}, *box.addressing).has("alpha"));
  FormatParameters given;
  given.set("alpha", 0.002);
  EXPECT_EQ(mixed_precision_parameters("staircase", given, *plane.addressing).real("alpha"), 0.002);
  EXPECT_TRUE(mixed_precision_parameters("sell", {}, *plane.addressing).values().empty());
}

TEST(Orderings, ASecondMatrixOnTheSameAddressingTakesTheLastOrdering) {
  const LduMatrix first = test::box_matrix(12, 10, 8, 3);
  LduMatrix second = first;  // the same addressing, other values (the flow step's U and p)
  for (double& d : second.diag) d *= 3.0;
  const PreparedFormat a = prepare_format(first, "csr", "rcm", {});
  const PreparedFormat b = prepare_format(second, "csr", "rcm", {});
  EXPECT_FALSE(a.ordering_reused);
  EXPECT_TRUE(b.ordering_reused);
  EXPECT_EQ(b.permutation.new_to_old, a.permutation.new_to_old);
  EXPECT_NE(describe(b).find("the previous solver's"), std::string::npos) << describe(b);
  // its own values: the diagonal slot of row 0 holds the second matrix's
  ASSERT_TRUE(b.value_map);
  EXPECT_EQ(b.format.values()[b.value_map->diag_slot[0]],
            second.diag[0]);
  // another ordering, another format's keys or an equal mesh's other addressing: made afresh
  const PreparedFormat cm = prepare_format(second, "csr", "cm", {});
  EXPECT_FALSE(cm.ordering_reused);
  EXPECT_EQ(cm.permutation.new_to_old, make_ordering("cm", *second.addressing, 1).new_to_old);
  const PreparedFormat sell = prepare_format(second, "sell", "cm", {});
  EXPECT_FALSE(sell.ordering_reused);
  const LduMatrix equal = test::box_matrix(12, 10, 8, 3);
  EXPECT_FALSE(prepare_format(equal, "sell", "cm", {}).ordering_reused);
  EXPECT_FALSE(prepare_format(first, "csr", "none", {}).ordering_reused);
  EXPECT_FALSE(prepare_format(second, "csr", "none", {}).ordering_reused);  // nothing to save
  // an addressing freed since is never taken, whatever lands at its address
  for (int k = 0; k < 3; ++k) {
    const LduMatrix fresh = test::box_matrix(9, 7, 5, 4);
    EXPECT_FALSE(prepare_format(fresh, "csr", "rcm", {}).ordering_reused) << k;
  }
}

TEST(Orderings, RandomIsSeeded) {
  EXPECT_EQ(random_ordering(100, 3).new_to_old, random_ordering(100, 3).new_to_old);
  EXPECT_NE(random_ordering(100, 3).new_to_old, random_ordering(100, 4).new_to_old);
}

TEST(RowFaces, EachRowListsItsFacesInFaceOrderOnOneThreadAsOnSeveral) {
  // --- upper-triangular addressings, and one whose faces are shuffled out of that order
  LduAddressing shuffled = *test::box_matrix(20, 10, 10, 1).addressing;  // several blocks of rows
  std::mt19937_64 rng(7);
  for (label f = shuffled.n_faces() - 1; f > 0; --f) {
    const auto g = static_cast<label>(rng() % static_cast<std::uint64_t>(f + 1));
    std::swap(shuffled.lower[f], shuffled.lower[g]);
    std::swap(shuffled.upper[f], shuffled.upper[g]);
  }
  const LduAddressing box = *test::box_matrix(24, 17, 11, 1).addressing;
  const LduAddressing random = *test::random_matrix(2000, 6, 4).addressing;
  for (const LduAddressing* addressing : std::array<const LduAddressing*, 3>{&box, &random, &shuffled}) {
    const LduAddressing& a = *addressing;
    // --- the list a single pass over the faces makes
    std::vector<std::vector<label>> expected(a.n_rows);
    for (label f = 0; f < a.n_faces(); ++f) {
      expected[a.lower[f]].push_back(f);
      expected[a.upper[f]].push_back(f);
    }
    for (const int threads : {1, 3}) {
      const test::Threads scope(threads);
      const RowFaces r = row_faces(a);
      ASSERT_EQ(static_cast<label>(r.ptr.size()), a.n_rows + 1);
      for (label i = 0; i < a.n_rows; ++i)
        EXPECT_EQ(std::vector<label>(r.faces.begin() + r.ptr[i], r.faces.begin() + r.ptr[i + 1]), expected[i])
            << "row " << i << ", " << threads << " threads";
      const std::vector<label> lengths = row_lengths(a);
      for (label i = 0; i < a.n_rows; ++i) EXPECT_EQ(lengths[i], 1 + static_cast<label>(expected[i].size()));
    }
  }
}

TEST(RowLengths, TheSameOnAnyNumberOfThreadsWhateverTheNumbering) {
  // --- banded numberings (each thread's window of rows narrow), a random one (windows as wide as
  //     the matrix: on many threads the bucket sort counts), fewer faces than threads, none at all
  const LduAddressing box = *test::box_matrix(24, 17, 11, 1).addressing;
  const LduAddressing random = *test::random_matrix(3000, 5, 9).addressing;
  const LduAddressing one_face = *test::addressing_from_pairs(5, {{1, 4}});
  LduAddressing no_faces;
  no_faces.n_rows = 4;
  LduAddressing renumbered = box;  // a box numbered backwards: ends below their faces' lower rows
  for (label f = 0; f < renumbered.n_faces(); ++f) {
    renumbered.lower[f] = box.n_rows - 1 - box.upper[f];
    renumbered.upper[f] = box.n_rows - 1 - box.lower[f];
  }
  for (const LduAddressing* addressing :
       std::array<const LduAddressing*, 5>{&box, &random, &one_face, &no_faces, &renumbered}) {
    const LduAddressing& a = *addressing;
    std::vector<label> expected(a.n_rows, 1);
    for (label f = 0; f < a.n_faces(); ++f) {
      ++expected[a.lower[f]];
      ++expected[a.upper[f]];
    }
    for (const int threads : {1, 2, 3, 7, 16}) {
      const test::Threads scope(threads);
      EXPECT_EQ(row_lengths(a), expected) << a.n_rows << " rows, " << threads << " threads";
    }
  }
}

TEST(MatrixStatistics, BandwidthProfileAndRowLengths) {
  // 0-1, 0-3, 2-3: rows have 3, 2, 2, 3 nonzeros; furthest lower neighbour: -, 1, -, 3 -> profile 4
  const auto a = test::addressing_from_pairs(4, {{0, 1}, {0, 3}, {2, 3}});
  const auto s = matrix_statistics(*a, Permutation::identity(4));
  EXPECT_EQ(s.bandwidth, 3);
  EXPECT_EQ(s.profile, 1 + 3);
  EXPECT_EQ(s.nnz, 10);
  EXPECT_EQ(s.row_lengths.min, 2);
  EXPECT_EQ(s.row_lengths.max, 3);
  EXPECT_DOUBLE_EQ(s.row_lengths.mean, 2.5);
  EXPECT_EQ(s.row_lengths.histogram, (std::vector<label>{0, 0, 2, 2}));
  // renumbered 0,1,2,3 -> 1,0,3,2... as new_to_old {1, 0, 3, 2}: faces (1,0), (1,2), (3,2)
  const auto t = matrix_statistics(*a, Permutation::from_new_to_old({1, 0, 3, 2}));
  EXPECT_EQ(t.bandwidth, 1);
  EXPECT_EQ(t.profile, 1 + 1 + 1);
  EXPECT_EQ(describe(s), "rows 4, nnz 10, bandwidth 3, profile 4, row length 2..3 (mean 2.50)");
}

}  // namespace
}  // namespace fvmmini
