// DIC and multicolour SGS on the reference backend: the colouring and the levels are valid
// schedules, and a sync-free pass over them walks its window as modelled; each preconditioner is
// symmetric positive definite, PCG converges with each and needs fewer iterations than Jacobi, a
// value refresh equals a fresh set-up, and a matrix that is not SPD is a clear error; the in-place
// SGS sweep of the GAMG smoother is the same operator; levels shared among threads give one
// thread's bits.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "linalg/ordering/colouring.hpp"
#include "linalg/ordering/orderings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/preconditioner.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"
#include "solvers/preconditioners/triangular/triangular_solve.hpp"
#include "tests/linalg/matrix_generators.hpp"
#include "tests/linalg/omp_threads.hpp"

namespace fvmmini {
namespace {

using test::box_addressing;
using test::box_matrix;
using test::random_matrix;
using test::random_vector;

struct Case {
  std::string name;
  LduMatrix matrix;
};

std::vector<Case> matrices() {
  return {{"box 9x7x5", box_matrix(9, 7, 5, 3)},
          {"random 400", random_matrix(400, 6, 5)},
          {"box 16x1x1", box_matrix(16, 1, 1, 7)}};
}

// The 7-point Laplacian of an n^3 box with every boundary fixed (diagonal 6, off-diagonals -1).
LduMatrix poisson_box(label n) {
  LduMatrix m = make_ldu_matrix(box_addressing(n, n, n));
  for (auto& u : m.upper) u = -1.0;
  for (auto& d : m.diag) d = 6.0;
  return m;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Whether rows i and j are neighbours in the numbering `op`, by their lists.
std::vector<std::vector<label>> neighbours(const LduMatrix& m, const Permutation& op) {
  std::vector<std::vector<label>> adj(m.n_rows());
  for (label f = 0; f < m.addressing->n_faces(); ++f) {
    const label l = op.old_to_new[m.lower_addr()[f]], u = op.old_to_new[m.upper_addr()[f]];
    adj[l].push_back(u);
    adj[u].push_back(l);
  }
  return adj;
}

TEST(Colouring, NoTwoNeighboursShareAColourAndTheOrderingMakesColoursContiguous) {
  for (const auto& c : matrices()) {
    const Permutation ordering = colour_ordering(*c.matrix.addressing);
    const auto adj = neighbours(c.matrix, ordering);
    std::vector<label> offset{0}, flat;
    for (const auto& row : adj) {
      flat.insert(flat.end(), row.begin(), row.end());
      offset.push_back(static_cast<label>(flat.size()));
    }
    const Colouring colouring = greedy_colouring(offset, flat);
    for (label i = 0; i < c.matrix.n_rows(); ++i) {
      for (label j : adj[i]) EXPECT_NE(colouring.colour[i], colouring.colour[j]) << c.name << " rows " << i << ", " << j;
      // colour ordering: colours never decrease along the rows
      if (i > 0) {
        EXPECT_LE(colouring.colour[i - 1], colouring.colour[i]) << c.name << " row " << i;
      }
    }
  }
  // a 7-point box is a checkerboard
  EXPECT_EQ(greedy_colouring(std::vector<label>{0, 1, 3, 4}, std::vector<label>{1, 0, 2, 1}).n_colours, 2);
}

TEST(TriangularFactor, DiluIsTheDenseIncompleteLuOfAnAsymmetricMatrix) {
  // --- natural ordering: d_i = a_ii - sum_{j < i} a_ij a_ji / d_j over the neighbours, and M z = r
  //     with M = (D + L) D^-1 (D + U), L and U the matrix's own triangles
  const LduMatrix m = test::asymmetric(random_matrix(300, 5, 21), 22);
  const label n = m.n_rows();
  const TriangularFactor f = build_triangular_factor(m, Permutation::identity(n), incomplete_lu);
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  for (label i = 0; i < n; ++i) a[i][i] = m.diag[i];
  for (label face = 0; face < m.addressing->n_faces(); ++face) {
    a[m.lower_addr()[face]][m.upper_addr()[face]] = m.upper[face];
    a[m.upper_addr()[face]][m.lower_addr()[face]] = m.lower[face];
  }
  std::vector<double> d(n);
  for (label i = 0; i < n; ++i) {
    d[i] = a[i][i];
    for (label j = 0; j < i; ++j)
      if (a[i][j] != 0.0) d[i] -= a[i][j] * a[j][i] / d[j];
    ASSERT_NEAR(1.0 / f.rdiag[i], d[i], 1e-12 * std::abs(d[i])) << i;
  }
  const auto r = random_vector(n, 23);
  std::vector<double> z(n), y(n, 0.0), mz(n, 0.0);
  reference::triangular_apply(f, r, z);
  for (label i = 0; i < n; ++i) {  // y = (D + U) z, then M z = (D + L) D^-1 y
    for (label j = i; j < n; ++j) y[i] += (j == i ? d[i] : a[i][j]) * z[j];
  }
  for (label i = 0; i < n; ++i)
    for (label j = 0; j <= i; ++j) mz[i] += (j == i ? d[i] : a[i][j]) * y[j] / d[j];
  for (label i = 0; i < n; ++i) ASSERT_NEAR(mz[i], r[i], 1e-11) << i;
  // --- on a symmetric matrix DILU is DIC, to the bit
  const LduMatrix s = random_matrix(300, 5, 24);
  const TriangularFactor dilu = build_triangular_factor(s, Permutation::identity(n), incomplete_lu);
  const TriangularFactor dic = build_triangular_factor(s, Permutation::identity(n), incomplete_cholesky);
  EXPECT_EQ(dilu.rdiag, dic.rdiag);
  EXPECT_EQ(dilu.lower.value, dic.lower.value);
  EXPECT_EQ(dilu.upper.value, dic.upper.value);
}

TEST(TriangularFactor, NoRowDependsOnARowOfItsOwnLevel) {
  for (const auto& c : matrices())
    for (const std::string ordering : {"none", "cm", "colour", "random"})
      for (const std::string format : {"csr", "staircase"})  // staircase: scheduled in the ordering, not its grouping
      for (const TriangleSplit split : {TriangleSplit::index, TriangleSplit::colour}) {
        const PreparedFormat prepared = prepare_format(c.matrix, format, ordering, {}, 11);
        const TriangularFactor f =
            build_triangular_factor(c.matrix, prepared.permutation, {"DIC", split, true}, prepared.position_before_grouping);
        std::vector<label> level(f.n_rows, -1);
        for (label l = 0; l < f.levels(); ++l)
          for (label k = f.level_ptr[l]; k < f.level_ptr[l + 1]; ++k) level[f.rows[k]] = l;
        for (label i = 0; i < f.n_rows; ++i) ASSERT_GE(level[i], 0) << "row " << i << " is in no level";
        std::int64_t real = 0;
        for (label l = 0; l < f.levels(); ++l)
          for (label r = 0; r < f.level_size(l); ++r) {
            const label i = f.rows[f.level_ptr[l] + r];
            for (label k = 0; k < f.lower.width[l]; ++k) {
              const std::int64_t s = f.lower.offset[l] + static_cast<std::int64_t>(k) * f.level_size(l) + r;
              EXPECT_LT(level[f.lower.col[s]], l) << c.name << " " << ordering << ": row " << i;
              real += f.lower.face[s] >= 0;
            }
            for (label k = 0; k < f.upper.width[l]; ++k) {
              const std::int64_t s = f.upper.offset[l] + static_cast<std::int64_t>(k) * f.level_size(l) + r;
              if (f.upper.face[s] >= 0) {
                EXPECT_GT(level[f.upper.col[s]], l) << c.name << " " << ordering << ": row " << i;
              }
              real += f.upper.face[s] >= 0;
            }
          }
        EXPECT_EQ(real, 2 * static_cast<std::int64_t>(c.matrix.addressing->n_faces())) << "every face twice";
        if (split == TriangleSplit::colour) {
          EXPECT_LE(f.levels(), f.colours) << c.name;
        }
      }
  // natural order on a 3-D box: a level per i + j + k, the thesis's wavefronts
  const LduMatrix box = poisson_box(6);
  EXPECT_EQ(build_triangular_factor(box, Permutation::identity(box.n_rows()), incomplete_cholesky).levels(), 16);
  EXPECT_EQ(build_triangular_factor(box, Permutation::identity(box.n_rows()), multicolour_gauss_seidel).levels(), 2);
}

TEST(TriangularFactor, ThePatternIsThePermutedMatrixsRowsWithTheirFaces) {
  for (const auto& c : matrices())
    for (const std::string ordering : {"none", "cm", "random"}) {
      SCOPED_TRACE(c.name + " " + ordering);
      const PreparedFormat prepared = prepare_format(c.matrix, "csr", ordering, {}, 11);
      const Permutation& op = prepared.permutation;
      const LduAddressing& a = *c.matrix.addressing;
      const FactorPattern pattern = factor_pattern(a, op);
      // --- each new row: the diagonal and one entry per face, by column (ties in face order)
      std::vector<std::vector<std::pair<label, label>>> rows(a.n_rows);
      for (label i = 0; i < a.n_rows; ++i) rows[op.old_to_new[i]].push_back({op.old_to_new[i], -1});
      for (label f = 0; f < a.n_faces(); ++f) {
        rows[op.old_to_new[a.lower[f]]].push_back({op.old_to_new[a.upper[f]], f});
        rows[op.old_to_new[a.upper[f]]].push_back({op.old_to_new[a.lower[f]], f});
      }
      ASSERT_EQ(pattern.n_rows(), a.n_rows);
      for (label i = 0; i < a.n_rows; ++i) {
        std::stable_sort(rows[i].begin(), rows[i].end(), [](auto x, auto y) { return x.first < y.first; });
        ASSERT_EQ(pattern.row_ptr[i + 1] - pattern.row_ptr[i], static_cast<label>(rows[i].size())) << "row " << i;
        for (std::size_t k = 0; k < rows[i].size(); ++k) {
          EXPECT_EQ(pattern.col[pattern.row_ptr[i] + k], rows[i][k].first) << "row " << i;
          EXPECT_EQ(pattern.face[pattern.row_ptr[i] + k], rows[i][k].second) << "row " << i;
        }
      }
      // --- and the same layout as the CSR of P A P^T
      EXPECT_EQ(pattern.col, permuted_csr(c.matrix, op).col);
    }
}

// The rows in the solve's sequence (each row's position there): the index split's schedule, and
// the visiting order of the colour split's greedy colouring.
TEST(TriangularFactor, TheSequenceOrderListsTheRowsByTheirPositions) {
  const std::vector<label> sequence{2, 0, 3, 1};  // row 0 third, row 1 first, ...
  EXPECT_EQ(sequence_order(4, sequence), (std::vector<label>{1, 3, 0, 2}));
  EXPECT_EQ(sequence_order(3, {}), (std::vector<label>{0, 1, 2}));
  try {
    sequence_order(5, sequence);
    FAIL() << "a sequence of 4 rows for 5 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sequence_order: a sequence of 4 rows for 5"), std::string::npos) << e.what();
  }
}

TEST(TriangularFactor, ASyncFreePassWalksTheChainsAWindowOfResidentRanksAtATime) {
  // a 300 x 2 grid in natural order, level x + y (301 levels), blocks of 256 ranks: [0, 256),
  // [256, 512) and [512, 600)
  const FactorPattern grid = factor_pattern(*box_addressing(300, 2, 1), Permutation::identity(600));
  std::vector<label> natural(600);
  std::iota(natural.begin(), natural.end(), 0);
  // all three resident: the level count
  EXPECT_EQ(sync_free_hops(grid, natural, 256, 3), 301);
  // two: the third block starts when the first is done (hop 255), so row 512 (x 212, y 1), ready
  // at 213, waits until 255 and the second line's last row is done at 255 + 87
  EXPECT_EQ(sync_free_hops(grid, natural, 256, 2), 343);
  // one: the second block starts at 255 (its row 511, x 211 y 1, done at 466), the third at 466
  EXPECT_EQ(sync_free_hops(grid, natural, 256, 1), 555);
  // never fewer than the levels; as many once the whole order is resident
  for (const auto& c : matrices())
    for (const std::string ordering : {"none", "cm", "random"}) {
      const PreparedFormat prepared = prepare_format(c.matrix, "csr", ordering, {}, 11);
      const FactorPattern pattern = factor_pattern(*c.matrix.addressing, prepared.permutation);
      const std::vector<label> order = schedule_order(pattern, TriangleSplit::index, nullptr);
      const label levels = build_triangular_factor(c.matrix, prepared.permutation, incomplete_cholesky).levels();
      for (const int resident : {1, 2, 5}) {
        EXPECT_GE(sync_free_hops(pattern, order, 8, resident), levels) << c.name << " " << ordering;
      }
      EXPECT_EQ(sync_free_hops(pattern, order, 8, c.matrix.n_rows()), levels) << c.name << " " << ordering;
    }
  EXPECT_THROW(sync_free_hops(grid, std::vector<label>(5), 256, 1), std::invalid_argument);
  EXPECT_THROW(sync_free_hops(grid, natural, 0, 1), std::invalid_argument);
}

TEST(TriangularFactor, AFormatsGroupingByRowLengthKeepsTheColourOrderingsLevels) {
  // staircase groups the rows of a box by length, which interleaves the two colours of the colour
  // ordering: scheduled in the operator's numbering DIC gets more levels, mcsgs more colours
  const LduMatrix box = poisson_box(8);
  const PreparedFormat grouped = prepare_format(box, "staircase", "colour", {});
  ASSERT_FALSE(grouped.position_before_grouping.empty());
  const TriangularFactor dic_by_operator = build_triangular_factor(box, grouped.permutation, incomplete_cholesky);
  const TriangularFactor sgs_by_operator = build_triangular_factor(box, grouped.permutation, multicolour_gauss_seidel);
  ASSERT_GT(dic_by_operator.levels(), 2);
  ASSERT_GT(sgs_by_operator.colours, 2);
  const TriangularFactor dic = build_triangular_factor(box, grouped.permutation, incomplete_cholesky,
                                                       grouped.position_before_grouping);
  const TriangularFactor sgs = build_triangular_factor(box, grouped.permutation, multicolour_gauss_seidel,
                                                       grouped.position_before_grouping);
  EXPECT_EQ(dic.levels(), 2);
  EXPECT_EQ(sgs.colours, 2);
  EXPECT_EQ(sgs.levels(), 2);
  // and the solver passes it on
  for (const std::string kind : {"DIC", "mcsgs"}) {
    SolverSettings s;
    s.format = "staircase";
    s.ordering = "colour";
    s.preconditioner = kind;
    EXPECT_EQ(make_linear_solver(box, s)->preconditioner_info().levels, 2) << kind;
  }
}

TEST(Preconditioner, EachIsSymmetricPositiveDefinite) {
  for (const auto& c : matrices())
    for (const std::string ordering : {"none", "colour", "rcm"})
      for (const auto& [kind, sweeps] : std::vector<std::pair<std::string, int>>{
               {"DIC", 1}, {"mcsgs", 1}, {"mcsgs", 3}}) {
        SolverSettings s;
        s.preconditioner = kind;
        s.sweeps = sweeps;
        s.ordering = ordering;
        auto op = make_reference_operator(c.matrix, prepare_format(c.matrix, "csr", ordering, {}));
        HostPreconditioner m(c.matrix, op->prepared().permutation, s);
        const label n = c.matrix.n_rows();
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          const auto x = random_vector(n, seed), y = random_vector(n, seed + 10);
          std::vector<double> mx(n, std::nan("")), my(n, std::nan(""));  // poisoned
          m.apply(*op, x, mx);
          m.apply(*op, y, my);
          const std::string what = c.name + " " + ordering + " " + kind + " sweeps " + std::to_string(sweeps);
          EXPECT_NEAR(dot(y, mx), dot(x, my), 1e-12 * (std::abs(dot(y, mx)) + 1.0)) << what;
          EXPECT_GT(dot(x, mx), 0.0) << what;
        }
      }
}

TEST(Preconditioner, OneSweepOfSgsFromZeroIsTheTriangularPair) {
  // z = (D + U)^-1 D (D + L)^-1 r, checked against a dense sequential Gauss-Seidel by colour
  const LduMatrix m = box_matrix(5, 4, 3, 9);
  const Permutation op = Permutation::identity(m.n_rows());
  const TriangularFactor f = build_triangular_factor(m, op, multicolour_gauss_seidel);
  const auto r = random_vector(m.n_rows(), 4);
  std::vector<double> z(m.n_rows(), std::nan(""));
  reference::triangular_apply(f, r, z);
  // the same sweeps, a row at a time in colour order, on the LDU faces
  const auto adj = neighbours(m, op);
  std::vector<label> order = f.rows;  // levels = colours here, rows by colour
  std::vector<double> x(m.n_rows(), 0.0);
  std::vector<std::vector<std::pair<label, double>>> row(m.n_rows());
  for (label face = 0; face < m.addressing->n_faces(); ++face) {
    row[m.lower_addr()[face]].push_back({m.upper_addr()[face], m.upper[face]});
    row[m.upper_addr()[face]].push_back({m.lower_addr()[face], m.upper[face]});
  }
  auto relax = [&](label i) {
    double s = r[i];
    for (const auto& [j, a] : row[i]) s -= a * x[j];
    x[i] = s / m.diag[i];
  };
  for (label i : order) relax(i);
  for (auto it = order.rbegin(); it != order.rend(); ++it) relax(*it);
  for (label i = 0; i < m.n_rows(); ++i) EXPECT_NEAR(z[i], x[i], 1e-13 * (1.0 + std::abs(x[i]))) << "row " << i;
}

TEST(Preconditioner, AnSgsSweepInPlaceIsTheCorrectionFromTheResidualAndLeavesAx) {
  // x += M^-1 (b - A x) by triangular_apply on the residual, against the sweep in place; then
  // sgs_multiply's A x from the kept forward sums against the operator's SpMV. The colour
  // ordering numbers the rows level by level (the kernels' contiguous path).
  for (const Case& c : matrices())
    for (const std::string ordering : {"none", "colour"}) {
      const std::string what = c.name + " " + ordering;
      const label n = c.matrix.n_rows();
      auto op = make_reference_operator(c.matrix, prepare_format(c.matrix, "csr", ordering, {}));
      const Permutation& numbering = op->prepared().permutation;
      const TriangularFactor f = build_triangular_factor(c.matrix, numbering, multicolour_gauss_seidel);
      EXPECT_EQ(f.rows_contiguous, ordering == "colour") << what;
      const auto b = random_vector(n, 5), x0 = random_vector(n, 6);
      std::vector<double> ax(n), residual(n), correction(n, std::nan(""));
      op->multiply(x0, ax);
      for (label i = 0; i < n; ++i) residual[i] = b[i] - ax[i];
      reference::triangular_apply(f, residual, correction);
      std::vector<double> x = x0, t(n, std::nan(""));
      reference::sgs_sweep(f, b, x, t, false);
      for (label i = 0; i < n; ++i)
        ASSERT_NEAR(x[i], x0[i] + correction[i], 1e-12 * (1.0 + std::abs(x[i]))) << what << " row " << i;
      std::vector<double> expected(n), got(n, std::nan(""));
      op->multiply(x, expected);
      reference::sgs_multiply(f, t, x, got);
      for (label i = 0; i < n; ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-12 * (1.0 + std::abs(expected[i]))) << what << " row " << i;
      // from zero the sweep is the triangular pair, and the forward sums need no initial x
      std::vector<double> z(n, std::nan("")), from_zero(n, std::nan(""));
      reference::triangular_apply(f, b, z);
      reference::sgs_sweep(f, b, from_zero, t, true);
      for (label i = 0; i < n; ++i) ASSERT_NEAR(from_zero[i], z[i], 1e-13 * (1.0 + std::abs(z[i]))) << what;
      reference::sgs_multiply(f, t, from_zero, got);
      op->multiply(from_zero, expected);
      for (label i = 0; i < n; ++i) ASSERT_NEAR(got[i], expected[i], 1e-12 * (1.0 + std::abs(expected[i]))) << what;
    }
  const LduMatrix m = box_matrix(5, 4, 3, 9);
  const TriangularFactor dic =
      build_triangular_factor(m, Permutation::identity(m.n_rows()), incomplete_cholesky);
  std::vector<double> b(m.n_rows(), 1.0), x(m.n_rows()), t(m.n_rows());
  EXPECT_THROW(reference::sgs_sweep(dic, b, x, t, true), std::logic_error);
}

TEST(Preconditioner, ThreadsShareLargeLevelsAndGiveOneThreadsAnswerToTheBit) {
  // Above the thresholds each level is split among the threads, a barrier after it: 1, 2 and 3
  // threads (an uneven split) give the same bits, every output poisoned first and written whole.
  const std::vector<Case> cases{{"box 24^3", box_matrix(24, 24, 24, 31)},
                                {"random 40000", random_matrix(40000, 6, 32)}};
  for (const Case& c : cases) {
    const label n = c.matrix.n_rows();
    auto op = make_reference_operator(c.matrix, prepare_format(c.matrix, "csr", "colour", {}));
    const Permutation& numbering = op->prepared().permutation;
    const auto b = random_vector(n, 33), x0 = random_vector(n, 34);
    for (const bool dic : {true, false}) {
      SCOPED_TRACE(c.name + (dic ? " DIC" : " SGS"));
      const TriangularFactor f =
          build_triangular_factor(c.matrix, numbering, dic ? incomplete_cholesky : multicolour_gauss_seidel);
      ASSERT_TRUE(reference::threads_share_levels(f)) << f.levels() << " levels";
      std::vector<std::vector<double>> one;
      for (const int threads : {1, 2, 3}) {
        test::Threads scope(threads);
        std::vector<double> z(n, std::nan("")), x = x0, t(n, std::nan("")), ax(n, std::nan(""));
        reference::triangular_apply(f, b, z);
        std::vector<std::vector<double>> got{z};
        if (!dic) {
          reference::sgs_sweep(f, b, x, t, false);
          reference::sgs_multiply(f, t, x, ax);
          got.insert(got.end(), {x, t, ax});
        }
        for (const auto& v : got) ASSERT_TRUE(std::all_of(v.begin(), v.end(), [](double e) { return std::isfinite(e); }));
        if (threads == 1) one = std::move(got);
        else EXPECT_TRUE(got == one) << threads << " threads";
      }
    }
  }
}

TEST(Preconditioner, ThreadsShareOnlyLevelsOfManyRows) {
  // a level of a chain is one row: 2048 x its 1.1 M levels would overflow 32 bits
  const LduMatrix chain = box_matrix(1100000, 1, 1, 35), small = box_matrix(24, 24, 14, 36);
  const Permutation natural = Permutation::identity(chain.n_rows());
  EXPECT_FALSE(reference::threads_share_levels(build_triangular_factor(chain, natural, incomplete_cholesky)));
  // 8064 rows in 2 colours: fewer rows than min_parallel_rows
  EXPECT_FALSE(reference::threads_share_levels(
      build_triangular_factor(small, colour_ordering(*small.addressing), incomplete_cholesky)));
}

TEST(Preconditioner, PcgConvergesWithEachAndNeedsFewerIterationsThanJacobi) {
  const LduMatrix m = poisson_box(16);
  const auto b = random_vector(m.n_rows(), 2);
  auto iterations = [&](const std::string& preconditioner, const std::string& ordering) {
    SolverSettings s;
    s.preconditioner = parse_preconditioner(preconditioner);
    s.ordering = ordering;
    s.tolerance = 1e-10;
    auto solver = make_linear_solver(m, s);
    std::vector<double> x(m.n_rows(), 0.0);
    const SolverPerformance perf = solver->solve(x, b, "T");
    EXPECT_TRUE(perf.converged) << preconditioner << " " << ordering;
    // the true residual agrees with the reported convergence
    double worst = 0.0;
    for (label i = 0; i < m.n_rows(); ++i) worst = std::max(worst, std::abs(b[i] - 6.0 * x[i]));
    EXPECT_LT(worst, 10.0) << "sanity: the solution is bounded";
    return perf.iterations;
  };
  const int jacobi = iterations("diagonal", "none");
  const int dic = iterations("DIC", "none");
  EXPECT_LE(dic, 0.5 * jacobi) << "DIC " << dic << " vs Jacobi " << jacobi;
  EXPECT_LT(iterations("DIC", "colour"), jacobi);
  EXPECT_LT(iterations("DIC", "cm"), 0.6 * jacobi);
  EXPECT_LT(iterations("mcsgs", "none"), jacobi);
  EXPECT_LT(iterations("mcsgs", "colour"), jacobi);
}

// Every unit of the table, whatever it is: PCG converges with it on the reference backend, in no
// more iterations than plain CG, its solve line and info carry its name, and it goes on converging
// after a value refresh. A new unit is tested here by being listed.
TEST(PreconditionerTable, EveryUnitPreconditionsCgAndTakesNewValues) {
  const LduMatrix m = box_matrix(12, 10, 8, 31), changed = box_matrix(12, 10, 8, 32);
  const auto b = random_vector(m.n_rows(), 5);
  auto solve = [&](LinearSolver& solver) {
    std::vector<double> x(m.n_rows(), 0.0);
    return solver.solve(x, b, "T");
  };
  SolverSettings plain;
  plain.tolerance = 1e-10;
  const int cg = solve(*make_linear_solver(m, plain)).iterations;
  for (const PreconditionerUnit& unit : preconditioner_table()) {
    SolverSettings s = plain;
    s.preconditioner = unit.name;
    auto solver = make_linear_solver(m, s);
    const SolverPerformance first = solve(*solver);
    EXPECT_TRUE(first.converged) << unit.name;
    EXPECT_LE(first.iterations, cg) << unit.name;
    EXPECT_EQ(first.solver_name, (unit.cg_step == CgStep::none ? "CG" : unit.name + "PCG") + "[csr]");
    EXPECT_EQ(solver->preconditioner_info().name, unit.name);
    solver->update_coefficients(changed);
    EXPECT_TRUE(solve(*solver).converged) << unit.name << " after a refresh";
    for (const std::string& alias : unit.aliases) EXPECT_EQ(&find_preconditioner(alias), &unit) << alias;
  }
  try {
    find_preconditioner("ilu");
    FAIL() << "an unknown preconditioner is an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("unknown preconditioner 'ilu' (known: {})", fmt::join(preconditioner_names(), ", ")));
  }
}

// Every Krylov unit with every preconditioner unit: it converges on the reference backend, and the
// solve line names both as OpenFOAM does. A new unit of either table is tested here by being listed.
TEST(KrylovTable, EveryMethodConvergesWithEveryPreconditioner) {
  const LduMatrix m = box_matrix(10, 9, 8, 33);
  const auto b = random_vector(m.n_rows(), 9);
  for (const KrylovUnit& method : krylov_table())
    for (const PreconditionerUnit& preconditioner : preconditioner_table()) {
      SolverSettings s;
      s.solver = method.name;
      s.preconditioner = preconditioner.name;
      s.tolerance = 1e-10;
      if (!method.preconditioned && preconditioner.name != "none") {  // smoothSolver: its smoother instead
        EXPECT_THROW(make_linear_solver(m, s), std::invalid_argument) << method.name << " with " << preconditioner.name;
        continue;
      }
      std::vector<double> x(m.n_rows(), 0.0);
      const SolverPerformance perf = make_linear_solver(m, s)->solve(x, b, "T");
      const std::string what = method.name + " with " + preconditioner.name;
      EXPECT_TRUE(perf.converged) << what;
      // --- OpenFOAM's words: the preconditioner, then P and the method ("DICPCG"), one P only
      const std::string preconditioned = method.name.front() == 'P' ? method.name : "P" + method.name;
      EXPECT_EQ(perf.solver_name,
                (preconditioner.cg_step == CgStep::none ? method.name : preconditioner.name + preconditioned) + "[csr]")
          << what;
    }
  SolverSettings unknown;
  unknown.solver = "GMRES";
  EXPECT_THROW(make_linear_solver(box_matrix(2, 2, 2, 1), unknown), std::invalid_argument);
}

TEST(Preconditioner, ARefreshGivesTheSameAnswerAsAFreshSetUp) {
  for (const auto kind : {"DIC", "mcsgs"}) {
    LduMatrix m = box_matrix(8, 6, 5, 21);
    SolverSettings s;
    s.preconditioner = kind;
    s.ordering = "rcm";
    s.tolerance = 1e-12;
    auto refreshed = make_linear_solver(m, s);
    // --- new values on the same addressing, as a new time step gives them
    LduMatrix changed = box_matrix(8, 6, 5, 22);
    refreshed->update_coefficients(changed);
    auto fresh = make_linear_solver(changed, s);
    const auto b = random_vector(m.n_rows(), 8);
    std::vector<double> x1(m.n_rows(), 0.0), x2(m.n_rows(), 0.0);
    const SolverPerformance p1 = refreshed->solve(x1, b, "T");
    const SolverPerformance p2 = fresh->solve(x2, b, "T");
    EXPECT_EQ(p1.iterations, p2.iterations) << kind;
    for (label i = 0; i < m.n_rows(); ++i) EXPECT_EQ(x1[i], x2[i]) << kind << " row " << i;
    // the analysis was not redone: the set-up time is the first one's
    EXPECT_EQ(refreshed->preconditioner_info().levels, fresh->preconditioner_info().levels);
  }
}

TEST(Preconditioner, InfoAndTheDescribeLineGiveLevelsColoursAndCost) {
  const LduMatrix m = poisson_box(6);
  SolverSettings s;
  s.preconditioner = "mcsgs";
  auto solver = make_linear_solver(m, s);
  const PreconditionerInfo info = solver->preconditioner_info();
  EXPECT_EQ(info.name, "mcsgs");
  EXPECT_EQ(info.colours, 2);
  EXPECT_EQ(info.levels, 2);
  EXPECT_EQ(info.level_sizes, (std::vector<label>{108, 108}));
  EXPECT_GT(info.spmv_equivalents, 0.8);
  EXPECT_LT(info.spmv_equivalents, 2.0);
  EXPECT_NE(solver->describe().find("mcsgs (colours 2, levels 2,"), std::string::npos) << solver->describe();
  // a set-up timed in parts (the cuda backend's) lists them after its total, in milliseconds
  PreconditionerInfo timed = info;
  timed.setup_seconds = 0.5;
  timed.setup_parts = {{"pattern", 0.375}, {"analysis", 0.125}};
  EXPECT_NE(describe(timed).find("setup 500.0 ms: pattern 375.0, analysis 125.0)"), std::string::npos) << describe(timed);
  EXPECT_EQ(describe(info).find(": pattern"), std::string::npos) << describe(info);
}

TEST(Preconditioner, AMatrixThatIsNotSpdIsAClearError) {
  LduMatrix m = poisson_box(4);
  m.diag[5] = 1.0;  // row 5 (|off-diagonal| sum up to 6) now makes an indefinite matrix
  SolverSettings s;
  s.preconditioner = "DIC";
  try {
    auto solver = make_linear_solver(m, s);
    std::vector<double> x(m.n_rows(), 0.0), b(m.n_rows(), 1.0);
    solver->solve(x, b, "T");
    FAIL() << "expected a SolverError";
  } catch (const SolverError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("DIC: pivot") != std::string::npos || what.find("breakdown") != std::string::npos) << what;
  }
  m.diag[5] = -1.0;
  s.preconditioner = "mcsgs";
  EXPECT_THROW(make_linear_solver(m, s), SolverError);
}

}  // namespace
}  // namespace fvmmini
