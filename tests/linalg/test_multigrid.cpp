// GAMG on the reference backend: the pairwise agglomeration groups every cell, the coarse
// matrices equal the Galerkin product R A R^T formed densely, the V-cycle is a symmetric positive
// definite operator (so CG stays valid), PCG converges with it in far fewer iterations than
// Jacobi on structured and unstructured matrices, a value refresh equals a fresh set-up, bad
// settings or matrices are clear errors, and the coarse addressing (built on every thread) is the
// same on one thread as on several.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "registry/format_registry.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/gamg/agglomeration.hpp"
#include "solvers/preconditioners/gamg/dense_inverse.hpp"
#include "solvers/preconditioners/gamg/multigrid.hpp"
#include "solvers/preconditioners/preconditioner.hpp"
#include "tests/linalg/matrix_generators.hpp"
#include "tests/linalg/omp_threads.hpp"

namespace fvmmini {
namespace {

using test::box_addressing;
using test::box_matrix;
using test::random_matrix;
using test::random_vector;

// The 7-point Laplacian of an n^3 box with every boundary fixed (diagonal 6, off-diagonals -1).
LduMatrix poisson_box(label n) {
  LduMatrix m = make_ldu_matrix(box_addressing(n, n, n));
  for (auto& u : m.upper) u = -1.0;
  for (auto& d : m.diag) d = 6.0;
  return m;
}

std::vector<double> dense(const LduMatrix& m) {
  const std::size_t n = m.n_rows();
  std::vector<double> a(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] = m.diag[i];
  for (label f = 0; f < m.addressing->n_faces(); ++f) {
    const std::size_t l = m.lower_addr()[f], u = m.upper_addr()[f];
    a[l * n + u] = a[u * n + l] = m.upper[f];
  }
  return a;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(Agglomeration, APairingGroupsEveryCellAndHalvesTheLevel) {
  for (const LduMatrix& m : {poisson_box(9), random_matrix(500, 6, 3)}) {
    std::vector<double> weights(m.upper.size());
    for (std::size_t f = 0; f < weights.size(); ++f) weights[f] = std::abs(m.upper[f]);
    for (const bool forward : {true, false}) {
      label n_coarse = 0;
      const std::vector<label> coarse_of = pair_agglomerate(*m.addressing, weights, forward, n_coarse);
      std::vector<label> size(n_coarse, 0);
      for (label c : coarse_of) {
        ASSERT_GE(c, 0);
        ASSERT_LT(c, n_coarse);
        ++size[c];
      }
      EXPECT_GE(*std::min_element(size.begin(), size.end()), 1);  // no empty group
      EXPECT_GE(n_coarse, m.n_rows() / 4);
      EXPECT_LE(n_coarse, (m.n_rows() + 1) * 2 / 3);
    }
  }
}

// parallelPair (the pairing the device builds): every cell in a group, each group a pair or a
// pair with the free cells beside it that joined it, or a cell alone; groups numbered by their
// least row; about half as many groups as cells; ties to the nearer cells or the farther.
TEST(Agglomeration, AParallelPairingGroupsEveryCellWithANeighbourAndHalvesTheLevel) {
  for (const LduMatrix& m : {poisson_box(12), random_matrix(3000, 6, 5), box_matrix(9, 8, 7, 4)})
    for (const bool nearer_first : {true, false}) {
      const LduAddressing& a = *m.addressing;
      std::vector<double> weights(m.upper.size());
      for (std::size_t f = 0; f < weights.size(); ++f) weights[f] = std::abs(m.upper[f]);
      label n_coarse = 0;
      const std::vector<label> coarse_of = parallel_pair_agglomerate(a, weights, nearer_first, n_coarse);
      ASSERT_EQ(coarse_of.size(), static_cast<std::size_t>(a.n_rows));
      std::vector<label> size(n_coarse, 0), least(n_coarse, a.n_rows), linked(a.n_rows, 0);
      for (label i = 0; i < a.n_rows; ++i) {
        ASSERT_GE(coarse_of[i], 0);
        ASSERT_LT(coarse_of[i], n_coarse);
        ++size[coarse_of[i]];
        least[coarse_of[i]] = std::min(least[coarse_of[i]], i);
      }
      for (label f = 0; f < a.n_faces(); ++f)
        if (coarse_of[a.lower[f]] == coarse_of[a.upper[f]]) linked[a.lower[f]] = linked[a.upper[f]] = 1;
      label paired = 0;
      for (label i = 0; i < a.n_rows; ++i) {
        if (size[coarse_of[i]] > 1) EXPECT_TRUE(linked[i]) << "row " << i << " shares no face with its group";
        paired += size[coarse_of[i]] == 2;
      }
      EXPECT_GE(*std::min_element(size.begin(), size.end()), 1);
      EXPECT_TRUE(std::is_sorted(least.begin(), least.end()));
      EXPECT_GE(n_coarse, m.n_rows() * 2 / 5);
      EXPECT_LE(n_coarse, m.n_rows() * 3 / 5);
      EXPECT_GE(paired, m.n_rows() * 3 / 5) << "cells in groups of two";
    }
}

// On a uniform box every face is a tie: parallelPair pairs every cell with its x neighbour when
// ties go to the nearer cells (a level's first pass) and with its z neighbour when they go to the
// farther (its second), aligned from each row's start even where a row is odd.
TEST(Agglomeration, AParallelPairingOfAUniformBoxPairsAlongXOrZ) {
  const label nx = 7, ny = 6, nz = 8;  // x rows of odd length
  LduMatrix m = make_ldu_matrix(box_addressing(nx, ny, nz));
  for (auto& u : m.upper) u = -1.0;
  for (auto& d : m.diag) d = 6.0;
  const std::vector<double> weights(m.upper.size(), 1.0);
  for (const bool nearer_first : {true, false}) {
    label n_coarse = 0;
    const std::vector<label> coarse_of = parallel_pair_agglomerate(*m.addressing, weights, nearer_first, n_coarse);
    const label stride = nearer_first ? 1 : nx * ny;
    for (label k = 0; k < nz; ++k)
      for (label j = 0; j < ny; ++j)
        for (label i = 0; i < nx; ++i) {
          const label cell = i + nx * (j + ny * k), along = nearer_first ? i : k, length = nearer_first ? nx : nz;
          if (along + 1 == length && length % 2 == 1) continue;  // a row's odd last cell pairs otherwise
          const label partner = along % 2 == 0 ? cell + stride : cell - stride;
          EXPECT_EQ(coarse_of[cell], coarse_of[partner]) << (nearer_first ? "x" : "z") << " cell " << cell;
        }
  }
}

TEST(Agglomeration, EveryLevelNumbersItsGroupsInTheirLeadingRowsOrder) {
  // what lets a level gathered from several ranks be numbered as one rank numbers it
  for (const LduMatrix& m : {poisson_box(12), random_matrix(2000, 6, 3)})
    for (const int merge : {1, 2, 3})
      for (const bool parallel : {false, true}) {
        AgglomerationHierarchy h = agglomerate(m, 4, merge, parallel);
        pad_levels(m, h.levels() + 1, h);
        std::vector<label> group(static_cast<std::size_t>(m.n_rows()));  // finest row -> its group on the level
        for (label i = 0; i < m.n_rows(); ++i) group[i] = i;
        for (std::size_t l = 0; l < h.agglomerations.size(); ++l) {
          SCOPED_TRACE("mergeLevels " + std::to_string(merge) + (parallel ? ", parallelPair" : "") + ", level " +
                       std::to_string(l + 1));
          const Agglomeration& a = *h.agglomerations[l];
          for (label& g : group) g = a.coarse_of[g];
          ASSERT_EQ(static_cast<label>(a.leading_row.size()), a.coarse->n_rows);
          for (label c = 0; c < a.coarse->n_rows; ++c) {
            EXPECT_EQ(group[a.leading_row[c]], c);  // a row of its own group
            if (c > 0) {
              EXPECT_LT(a.leading_row[c - 1], a.leading_row[c]);
            }
          }
        }
      }
}

TEST(Agglomeration, TheCoarseAddressingIsTheSameOnOneThreadAsOnSeveral) {
  // faces counted and placed on every thread land in any order: the buckets' sort must undo it
  for (const LduMatrix& m : {poisson_box(12), random_matrix(3000, 6, 5)}) {
    std::vector<double> weights(m.upper.size());
    for (std::size_t f = 0; f < weights.size(); ++f) weights[f] = std::abs(m.upper[f]);
    label n_coarse = 0;
    const std::vector<label> coarse_of = pair_agglomerate(*m.addressing, weights, true, n_coarse);
    const auto build = [&](int threads) {
      const test::Threads scope(threads);
      return agglomerate_addressing(*m.addressing, coarse_of, n_coarse);
    };
    const Agglomeration one = build(1), several = build(3);
    EXPECT_EQ(one.face_map, several.face_map);
    EXPECT_EQ(one.coarse->lower, several.coarse->lower);
    EXPECT_EQ(one.coarse->upper, several.coarse->upper);
    // --- the coarse faces sorted by (lower, upper), each pair once, as LduAddressing asks
    for (label f = 1; f < one.coarse->n_faces(); ++f)
      EXPECT_LT(std::make_pair(one.coarse->lower[f - 1], one.coarse->upper[f - 1]),
                std::make_pair(one.coarse->lower[f], one.coarse->upper[f]));
  }
}

TEST(Agglomeration, RoundingNoiseInTheWeightsDoesNotTearTheRegularPairing) {
  // A uniform box whose face coefficients carry the rounding of its geometry (a side of 0.1 m
  // split in 10ths is not exact in binary) must pair as the exact one does.
  const LduMatrix exact = poisson_box(16);
  LduMatrix noisy = exact;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& v : noisy.upper) v *= 1.0 + 1e-13 * u(rng);
  const AgglomerationHierarchy a = agglomerate(exact, 10, 2), b = agglomerate(noisy, 10, 2);
  ASSERT_EQ(a.levels(), b.levels());
  for (label l = 0; l + 1 < a.levels(); ++l) {
    EXPECT_EQ(a.agglomerations[l]->coarse_of, b.agglomerations[l]->coarse_of) << "level " << l;
    EXPECT_EQ(a.coarse[l].addressing->nnz(), b.coarse[l].addressing->nnz()) << "level " << l;
  }
}

TEST(Agglomeration, CoarseMatricesAreTheGalerkinProduct) {
  for (const LduMatrix& m : {box_matrix(7, 6, 5, 4), random_matrix(300, 6, 8)})
    for (const int merge : {1, 2})
      for (const bool parallel : {false, true}) {
        const AgglomerationHierarchy h = agglomerate(m, 4, merge, parallel);
        ASSERT_GE(h.levels(), 3);
        for (label k = 0; k + 1 < h.levels(); ++k) {
          const LduMatrix& fine = k == 0 ? m : h.coarse[k - 1];
          const LduMatrix& coarse = h.coarse[k];
          const auto& coarse_of = h.agglomerations[k]->coarse_of;
          // --- R A R^T densely, R_ci = 1 when fine row i is in group c
          const std::size_t n = fine.n_rows(), nc = coarse.n_rows();
          const std::vector<double> a = dense(fine);
          std::vector<double> rar(nc * nc, 0.0);
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) rar[coarse_of[i] * nc + coarse_of[j]] += a[i * n + j];
          const std::vector<double> got = dense(coarse);
          for (std::size_t e = 0; e < nc * nc; ++e)
            ASSERT_NEAR(got[e], rar[e], 1e-12 * (1.0 + std::abs(rar[e]))) << "level " << k + 1 << " entry " << e;
          // faces sorted by (lower, upper), each pair once
          for (label f = 1; f < coarse.addressing->n_faces(); ++f)
            ASSERT_LT(std::make_pair(coarse.lower_addr()[f - 1], coarse.upper_addr()[f - 1]),
                      std::make_pair(coarse.lower_addr()[f], coarse.upper_addr()[f]));
        }
        // OpenFOAM's rule: the coarsest keeps at least nCellsInCoarsestLevel cells
        EXPECT_GE(h.coarse.back().n_rows(), 4);
      }
}

TEST(Agglomeration, ARefreshRecomputesTheCoarseValues) {
  const LduMatrix first = box_matrix(8, 7, 6, 1), second = box_matrix(8, 7, 6, 2);
  AgglomerationHierarchy refreshed = agglomerate(first, 10, 2);
  refresh_coarse_values(second, refreshed);
  // the same grouping on the new values, level by level
  for (label k = 0; k + 1 < refreshed.levels(); ++k) {
    LduMatrix expected = make_ldu_matrix(refreshed.agglomerations[k]->coarse);
    galerkin_values(k == 0 ? second : refreshed.coarse[k - 1], *refreshed.agglomerations[k], expected);
    EXPECT_EQ(expected.diag, refreshed.coarse[k].diag);
    EXPECT_EQ(expected.upper, refreshed.coarse[k].upper);
  }
}

// The flow's momentum matrix is the pressure's Laplacian times nu plus a diagonal: its own
// agglomeration and the pressure's are the same groups, so taking the other's costs nothing.
LduMatrix momentum_like(const LduMatrix& laplacian) {
  LduMatrix m = laplacian;  // the same addressing object
  for (double& u : m.upper) u *= 0.5;  // exact: the faces' order and ties kept
  for (double& d : m.diag) d = 0.5 * d + 3.0;
  return m;
}

TEST(Agglomeration, ASharedAgglomerationIsTheMatrixsOwnWhereItsFacesAreAMultiple) {
  for (const LduMatrix& p : {box_matrix(9, 8, 7, 4), random_matrix(700, 6, 9)})
    for (const bool parallel : {false, true}) {
      const LduMatrix u = momentum_like(p);
      const AgglomerationHierarchy model = agglomerate(p, 10, 2, parallel), own = agglomerate(u, 10, 2, parallel);
      const AgglomerationHierarchy shared = shared_agglomeration(u, model);
      ASSERT_EQ(shared.levels(), own.levels());
      for (label k = 0; k + 1 < own.levels(); ++k) {
        EXPECT_EQ(shared.agglomerations[k]->coarse_of, own.agglomerations[k]->coarse_of) << "level " << k;
        EXPECT_EQ(shared.coarse[k].addressing, model.coarse[k].addressing) << "level " << k;  // shared, not copied
        EXPECT_EQ(shared.coarse[k].diag, own.coarse[k].diag) << "level " << k;
        EXPECT_EQ(shared.coarse[k].upper, own.coarse[k].upper) << "level " << k;
      }
    }
}

TEST(DenseInverse, TimesTheMatrixIsTheIdentityAndIndefiniteIsAnError) {
  const LduMatrix m = random_matrix(40, 5, 2);
  const std::vector<double> a = dense(m), inv = dense_spd_inverse(m);
  const std::size_t n = m.n_rows();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (std::size_t k = 0; k < n; ++k) s += a[i * n + k] * inv[k * n + j];
      ASSERT_NEAR(s, i == j ? 1.0 : 0.0, 1e-10);
    }
  LduMatrix bad = m;
  bad.diag[3] = -1.0;
  EXPECT_THROW(dense_spd_inverse(bad), SolverError);
}

SolverSettings gamg_settings(Smoother smoother, int sweeps, int vcycles, const std::string& ordering) {
  SolverSettings s;
  s.preconditioner = "GAMG";
  s.gamg.smoother = smoother;
  s.gamg.n_pre_sweeps = s.gamg.n_post_sweeps = sweeps;
  s.gamg.n_vcycles = vcycles;
  s.ordering = ordering;
  return s;
}

TEST(Gamg, TheVcycleIsSymmetricPositiveDefinite) {
  for (const LduMatrix& m : {box_matrix(9, 8, 7, 3), random_matrix(600, 6, 5)})
    for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs})
      for (const auto& [sweeps, vcycles] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {0, 1}, {1, 2}})
        for (const std::string ordering : {"none", "rcm"}) {
          const SolverSettings s = gamg_settings(smoother, sweeps, vcycles, ordering);
          auto op = make_reference_operator(m, prepare_format(m, "csr", ordering, {}));
          HostPreconditioner gamg(m, op->prepared().permutation, s);
          const label n = m.n_rows();
          const std::string what = name(smoother) + " sweeps " + std::to_string(sweeps) + " vcycles " +
                                   std::to_string(vcycles) + " " + ordering + " n " + std::to_string(n);
          for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const auto x = random_vector(n, seed), y = random_vector(n, seed + 10);
            std::vector<double> mx(n, std::nan("")), my(n, std::nan(""));  // poisoned
            gamg.apply(*op, x, mx);
            gamg.apply(*op, y, my);
            EXPECT_NEAR(dot(y, mx), dot(x, my), 1e-11 * (std::abs(dot(y, mx)) + 1.0)) << what;
            EXPECT_GT(dot(x, mx), 0.0) << what;
          }
        }
}

TEST(Gamg, ACycleFromTheFinestIsAnApplicationAndFromEachLevelRuns) {
  // cycle_from is what fvmmini-dist-bench times level by level
  const LduMatrix m = box_matrix(12, 11, 10, 4);
  for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs}) {
    const SolverSettings s = gamg_settings(smoother, 1, 1, "rcm");
    auto op = make_reference_operator(m, prepare_format(m, "csr", "rcm", {}));
    HostGamg gamg(m, op->prepared().permutation, s);
    ASSERT_GE(gamg.hierarchy().levels(), 3) << name(smoother);
    const auto r = random_vector(m.n_rows(), 5);
    std::vector<double> applied(m.n_rows(), std::nan("")), cycled(m.n_rows(), std::nan(""));
    gamg.apply(*op, r, applied);
    gamg.cycle_from(*op, 0, r, cycled);
    for (label i = 0; i < m.n_rows(); ++i) ASSERT_EQ(cycled[i], applied[i]) << name(smoother) << " row " << i;
    for (label level = 1; level < gamg.hierarchy().levels(); ++level)
      EXPECT_NO_THROW(gamg.cycle_from(*op, level, r, cycled)) << name(smoother) << " level " << level;
    EXPECT_THROW(gamg.cycle_from(*op, gamg.hierarchy().levels(), r, cycled), std::out_of_range);
  }
}

int iterations(const LduMatrix& m, SolverSettings s, const std::string& format = "csr") {
  s.tolerance = 1e-10;
  s.max_iter = 3000;
  s.format = format;
  auto solver = make_linear_solver(m, s);
  const auto b = random_vector(m.n_rows(), 2);
  std::vector<double> x(m.n_rows(), 0.0);
  const SolverPerformance perf = solver->solve(x, b, "p");
  EXPECT_TRUE(perf.converged) << solver->describe();
  return perf.iterations;
}

TEST(Gamg, PcgConvergesInFarFewerIterationsThanJacobi) {
  SolverSettings jacobi;
  jacobi.preconditioner = "diagonal";
  // the random matrix is strongly diagonally dominant: Jacobi needs few iterations there
  for (const auto& [m, ratio] : std::vector<std::pair<LduMatrix, double>>{{poisson_box(20), 0.4},
                                                                         {random_matrix(6000, 6, 9), 0.8}})
    for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs})
      for (const std::string format : {"csr", "staircase"}) {
        const int j = iterations(m, jacobi), g = iterations(m, gamg_settings(smoother, 1, 1, "rcm"), format);
        EXPECT_LT(g, ratio * j) << name(smoother) << " " << format << ": GAMG " << g << " against Jacobi " << j;
      }
}

// parallelPair's hierarchy preconditions about as well as algebraicPair's (the bar: PCG
// iterations within 10 %), on a uniform box (every face a tie) and an unstructured matrix.
TEST(Gamg, AParallelPairHierarchyTakesAboutAsManyIterationsAsAlgebraicPair) {
  for (const LduMatrix& m : {poisson_box(32), box_matrix(24, 22, 20, 3), random_matrix(20000, 6, 9)}) {
    SolverSettings s = gamg_settings(Smoother::jacobi, 1, 1, "none");
    s.gamg.agglomerator = Agglomerator::algebraic_pair;
    const int algebraic = iterations(m, s);
    s.gamg.agglomerator = Agglomerator::parallel_pair;
    const int parallel = iterations(m, s);
    EXPECT_LE(parallel, 1.1 * algebraic + 1) << "parallelPair " << parallel << ", algebraicPair " << algebraic;
  }
}

TEST(Gamg, IterationsStayNearlyFlatAsTheMeshIsRefined) {
  const SolverSettings s = gamg_settings(Smoother::jacobi, 1, 1, "none");
  const int coarse = iterations(poisson_box(12), s), fine = iterations(poisson_box(36), s);
  EXPECT_LE(fine, coarse + 8) << coarse << " -> " << fine;
}

TEST(Gamg, ARefreshGivesTheSameAnswerAsAFreshSetUp) {
  for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs}) {
    // new values whose faces keep their order of strength: the agglomeration, made once from the
    // first values, is the one a fresh set-up makes
    const LduMatrix first = box_matrix(10, 9, 8, 21);
    LduMatrix second = first;
    for (double& d : second.diag) d *= 1.7;
    for (double& u : second.upper) u *= 1.2;
    SolverSettings s = gamg_settings(smoother, 1, 1, "rcm");
    s.tolerance = 1e-12;
    auto refreshed = make_linear_solver(first, s);
    refreshed->update_coefficients(second);
    auto fresh = make_linear_solver(second, s);
    const auto b = random_vector(first.n_rows(), 8);
    std::vector<double> x1(first.n_rows(), 0.0), x2(first.n_rows(), 0.0);
    const SolverPerformance p1 = refreshed->solve(x1, b, "p");
    const SolverPerformance p2 = fresh->solve(x2, b, "p");
    EXPECT_EQ(p1.iterations, p2.iterations) << name(smoother);
    for (label i = 0; i < first.n_rows(); ++i) ASSERT_EQ(x1[i], x2[i]) << name(smoother) << " row " << i;
    EXPECT_GT(refreshed->preconditioner_info().refresh_seconds, 0.0);
  }
}

// The mcsgs smoother colours each level in its ordering, before the format's grouping by row
// length: staircase gets csr's colours on every level (a colour-ordered box: 2 on the finest;
// coloured after staircase's grouping it had 3), and the log and JSON carry them.
// make_linear_solver's same_pattern: the second GAMG on one pattern (the flow's p after U) takes
// the first's agglomeration where the keys that shape it agree, and solves exactly as on its own.
TEST(Gamg, ASolverOnTheSamePatternSharesTheAgglomerationAndSolvesAlike) {
  const LduMatrix p = box_matrix(12, 11, 10, 6), u = momentum_like(p);
  const std::vector<double> b = random_vector(p.n_rows(), 7);
  SolverSettings s = gamg_settings(Smoother::jacobi, 1, 1, "none");
  s.tolerance = 1e-10;
  const auto first_part = [](const LinearSolver& solver) {
    return solver.preconditioner_info().setup_parts.at(0).first;
  };
  for (const std::string format : {"csr", "sell"}) {
    s.format = format;
    const auto velocity = make_linear_solver(u, s);
    const auto alone = make_linear_solver(p, s);
    const auto pressure = make_linear_solver(p, s, velocity.get());
    EXPECT_EQ(first_part(*velocity), "agglomeration");
    EXPECT_EQ(first_part(*pressure), "shared agglomeration") << format;
    EXPECT_NE(pressure->describe().find(" ms: shared agglomeration "), std::string::npos) << pressure->describe();
    std::vector<double> x_alone(b.size(), 0.0), x_shared(b.size(), 0.0);
    const SolverPerformance a = alone->solve(x_alone, b, "p"), shared = pressure->solve(x_shared, b, "p");
    EXPECT_TRUE(shared.converged) << format;
    EXPECT_EQ(shared.iterations, a.iterations) << format;
    EXPECT_EQ(x_shared, x_alone) << format;  // the same groups, the same coarse values
  }
  // --- not shared: other keys that shape the groups, or another pattern
  s.format = "csr";
  const auto velocity = make_linear_solver(u, s);
  SolverSettings merged_once = s;
  merged_once.gamg.merge_levels = 1;
  EXPECT_EQ(first_part(*make_linear_solver(p, merged_once, velocity.get())), "agglomeration");
  SolverSettings parallel = s;
  parallel.gamg.agglomerator = Agglomerator::parallel_pair;
  EXPECT_EQ(first_part(*make_linear_solver(p, parallel, velocity.get())), "agglomeration");
  const LduMatrix other = box_matrix(12, 11, 10, 6);  // equal, but its own addressing object
  EXPECT_EQ(first_part(*make_linear_solver(other, s, velocity.get())), "agglomeration");
  // --- a smoother or a sweep count is no part of the groups
  SolverSettings mcsgs = gamg_settings(Smoother::mcsgs, 2, 1, "none");
  mcsgs.format = "csr";
  EXPECT_EQ(first_part(*make_linear_solver(p, mcsgs, velocity.get())), "shared agglomeration");
}

// What a shared agglomeration shares: its model's groups and, where both levels are numbered as
// the model's (the same format and ordering), its transfers, the level formats copied with this
// matrix's values; the V-cycle is the standalone one's to the bit either way.
TEST(Gamg, ASharedHierarchyTakesItsModelsTransfersAndCopiesItsLevelFormats) {
  const LduMatrix p = box_matrix(12, 11, 10, 6), u = momentum_like(p);
  const std::vector<double> r = random_vector(p.n_rows(), 3);
  for (const auto& [model_format, format] : std::vector<std::pair<std::string, std::string>>{
           {"csr", "csr"}, {"sell", "sell"}, {"csr", "sell"}, {"staircase", "staircase"}}) {
    SolverSettings s = gamg_settings(Smoother::jacobi, 1, 1, "none");
    SolverSettings model_settings = s;
    model_settings.format = model_format;
    s.format = format;
    const auto model_op = make_reference_operator(u, prepare_format(u, model_format, "none", {}));
    const auto op = make_reference_operator(p, prepare_format(p, format, "none", {}));
    const HostGamg model(u, model_op->prepared().permutation, model_settings,
                         model_op->prepared().position_before_grouping);
    HostGamg shared(p, op->prepared().permutation, s, op->prepared().position_before_grouping, {}, &model);
    HostGamg alone(p, op->prepared().permutation, s, op->prepared().position_before_grouping);
    const GamgHierarchy& h = shared.hierarchy();
    ASSERT_TRUE(h.shared);
    ASSERT_GE(h.levels(), 4) << format;
    for (label l = 0; l + 1 < h.levels(); ++l) {
      EXPECT_EQ(h.agglomeration.agglomerations[l], model.hierarchy().agglomeration.agglomerations[l]) << l;
      const bool same_numbering = h.numbering[l].new_to_old == model.hierarchy().numbering[l].new_to_old &&
                                  h.numbering[l + 1].new_to_old == model.hierarchy().numbering[l + 1].new_to_old;
      EXPECT_EQ(h.transfers[l] == model.hierarchy().transfers[l], same_numbering) << format << " level " << l;
      if (model_format == format) {
        EXPECT_TRUE(same_numbering) << format << " level " << l;  // copied formats
      }
      EXPECT_EQ(h.numbering[l].new_to_old, alone.hierarchy().numbering[l].new_to_old) << format << " level " << l;
    }
    std::vector<double> z_shared(r.size(), std::nan("")), z_alone(r.size(), std::nan(""));
    shared.apply(*op, r, z_shared);
    alone.apply(*op, r, z_alone);
    EXPECT_EQ(z_shared, z_alone) << model_format << " -> " << format;
  }
}

TEST(Gamg, TheMcsgsSmootherKeepsTheOrderingsColoursInEveryFormat) {
  const LduMatrix m = poisson_box(16);
  auto colours_in = [&](const std::string& format) {
    SolverSettings s = gamg_settings(Smoother::mcsgs, 1, 1, "colour");
    s.format = format;
    auto solver = make_linear_solver(m, s);
    std::vector<label> colours;
    for (const auto& level : solver->preconditioner_info().grid_levels) colours.push_back(level.colours);
    return std::pair{colours, solver->describe()};
  };
  const auto [csr, csr_line] = colours_in("csr");
  const auto [staircase, staircase_line] = colours_in("staircase");
  ASSERT_GE(csr.size(), 3u);
  EXPECT_EQ(csr.front(), 2);
  EXPECT_EQ(csr.back(), 0) << "the coarsest level is solved directly";
  EXPECT_EQ(staircase, csr);
  EXPECT_NE(staircase_line.find("staircase, 2 colours"), std::string::npos) << staircase_line;
}

TEST(Gamg, TheDescribeLineAndInfoGiveTheHierarchy) {
  const LduMatrix m = poisson_box(16);
  auto solver = make_linear_solver(m, gamg_settings(Smoother::jacobi, 1, 1, "none"));
  const PreconditionerInfo info = solver->preconditioner_info();
  EXPECT_EQ(info.name, "GAMG");
  EXPECT_EQ(info.smoother, "jacobi");
  ASSERT_GE(info.grid_levels.size(), 3u);
  EXPECT_EQ(info.grid_levels.front().rows, 4096);
  EXPECT_EQ(info.grid_levels.front().format, "csr");
  EXPECT_EQ(info.grid_levels.back().format, "dense");
  for (std::size_t l = 1; l < info.grid_levels.size(); ++l)
    EXPECT_LT(info.grid_levels[l].rows, info.grid_levels[l - 1].rows);
  EXPECT_GT(info.operator_complexity(), 1.0);
  EXPECT_LT(info.operator_complexity(), 2.0);
  // --- the set-up timed in parts, which the line lists after its total
  std::vector<std::string> names;
  double parts_seconds = 0.0;
  for (const auto& [part, seconds] : info.setup_parts) {
    names.push_back(part);
    EXPECT_GE(seconds, 0.0) << part;
    parts_seconds += seconds;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"agglomeration", "formats", "transfers", "coarsest", "levels"}));
  EXPECT_LE(parts_seconds, info.setup_seconds);
  const std::string line = solver->describe();
  EXPECT_NE(line.find("GAMG (levels "), std::string::npos) << line;
  EXPECT_NE(line.find(" ms: agglomeration "), std::string::npos) << line;
  EXPECT_NE(line.find("level  0:       4096 cells"), std::string::npos) << line;
  // --- a refresh timed in parts too
  solver->update_coefficients(m);
  names.clear();
  for (const auto& [part, seconds] : solver->preconditioner_info().refresh_parts) names.push_back(part);
  EXPECT_EQ(names, (std::vector<std::string>{"coarse matrices", "operators", "smoothers"}));
}

TEST(Gamg, UnequalSweepsAndAnIndefiniteMatrixAreClearErrors) {
  SolverSettings s = gamg_settings(Smoother::jacobi, 1, 1, "none");
  s.gamg.n_post_sweeps = 2;
  try {
    make_linear_solver(poisson_box(6), s);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nPreSweeps (1) and nPostSweeps (2) must be equal"), std::string::npos)
        << e.what();
  }
  LduMatrix indefinite = poisson_box(6);
  for (auto& d : indefinite.diag) d = 1.0;  // rows sum to -5 .. -2: every coarse level indefinite
  EXPECT_THROW(make_linear_solver(indefinite, gamg_settings(Smoother::jacobi, 1, 1, "none")), SolverError);
}

}  // namespace
}  // namespace fvmmini
