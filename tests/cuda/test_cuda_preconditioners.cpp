// DIC (level-scheduled and cusparseSpSV) and mcsgs on the device against the reference backend:
// the device builds the host's pattern, its level analysis the host's factor, and it applies the
// factor as the host does; the same factor gives the same iterations (to one) and the same
// solution, whatever the format and ordering; every applied unit of the preconditioner table has a
// CUDA twin that agrees with the reference backend; a value refresh equals a fresh set-up; a
// matrix that is not SPD is a clear error. On an asymmetric matrix DILU and smoothSolver's
// Gauss-Seidel splitting build and apply the host's factor, each slot its own coefficient, and
// refresh from values on the device as a fresh set-up would.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "linalg/ordering/orderings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "solvers/preconditioners/triangular/cuda/factor_pattern.cuh"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"
#include "solvers/preconditioners/triangular/triangular_solve.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaPreconditioner = test::CudaTest;

struct Variant {
  std::string kind;  ///< DIC or mcsgs
  TriangularSolve solve;
  int sweeps;
};

const TriangularMethod& method_of(const std::string& kind) {
  return kind == "DIC" ? incomplete_cholesky : multicolour_gauss_seidel;
}

std::string label_of(const Variant& v) {
  return v.kind + (v.kind == "DIC" ? " " + name(v.solve) : " sweeps " + std::to_string(v.sweeps));
}

const std::vector<Variant> variants{{"DIC", TriangularSolve::levels, 1},
                                    {"DIC", TriangularSolve::cusparse, 1},
                                    {"mcsgs", TriangularSolve::levels, 1},
                                    {"mcsgs", TriangularSolve::levels, 2}};

SolverSettings settings_for(const Variant& v, Backend backend, const std::string& format, const std::string& ordering) {
  SolverSettings s;
  s.preconditioner = v.kind;
  s.triangular_solve = v.solve;
  s.sweeps = v.sweeps;
  s.backend = backend;
  s.format = format;
  s.ordering = ordering;
  s.tolerance = 1e-11;
  s.max_iter = 2000;
  return s;
}

// n rows each coupled to every other: greedy colours 0 to n - 1, so past 64 for n > 64.
LduMatrix clique_matrix(label n, std::uint64_t seed) {
  std::vector<std::pair<label, label>> pairs;
  for (label i = 0; i < n; ++i)
    for (label j = i + 1; j < n; ++j) pairs.emplace_back(i, j);
  return test::random_values(test::addressing_from_pairs(n, pairs), seed);
}

// Matrices whose schedules differ: a box (hundreds of levels in natural order), unstructured
// graphs (rows up to about 12 and about 60 entries wide: a sweep waits for them in one or in
// several chunks), a star (a hub row of 299 entries), a line of cells (one row per level: the
// longest chain of waits) and a clique (more colours than the colour pass keeps in a word).
std::vector<std::pair<std::string, LduMatrix>> schedule_matrices() {
  return {{"box 12x10x9", test::box_matrix(12, 10, 9, 3)},
          {"random 3000", test::random_matrix(3000, 8, 5)},
          {"random 2000 wide rows", test::random_matrix(2000, 40, 6)},
          {"star 300", test::star_matrix(300, 7)},
          {"line 700", test::box_matrix(700, 1, 1, 4)},
          {"clique 70", clique_matrix(70, 9)}};
}

const std::vector<std::pair<std::string, cuda::LevelLaunch>> launches{{"per level", cuda::LevelLaunch::per_level},
                                                                       {"sync-free", cuda::LevelLaunch::sync_free}};

// The device's factor equals the host's, slot for slot (the pivots to round-off).
void expect_same_factor(const TriangularFactor& got, const TriangularFactor& host, const std::string& where) {
  EXPECT_EQ(got.level_ptr, host.level_ptr) << where;
  EXPECT_EQ(got.rows, host.rows) << where;
  EXPECT_EQ(got.rows_contiguous, host.rows_contiguous) << where;
  EXPECT_EQ(got.colours, host.colours) << where;
  for (auto [a, b] : {std::pair{&got.lower, &host.lower}, std::pair{&got.upper, &host.upper}}) {
    EXPECT_EQ(a->offset, b->offset) << where;
    EXPECT_EQ(a->width, b->width) << where;
    EXPECT_EQ(a->col, b->col) << where;
    EXPECT_EQ(a->face, b->face) << where;
    EXPECT_EQ(a->value, b->value) << where;
  }
  ASSERT_EQ(got.rdiag.size(), host.rdiag.size()) << where;
  for (std::size_t i = 0; i < host.rdiag.size(); ++i)
    ASSERT_NEAR(got.rdiag[i], host.rdiag[i], 1e-13 * std::abs(host.rdiag[i])) << where << " row " << i;
}

// The pattern built on the device is factor_pattern's, entry for entry: in the matrix's own
// numbering and a shuffled one, with two faces between one pair of cells (ordered by face, as the
// host's stable sort leaves them), a row without faces and no rows at all.
TEST_F(CudaPreconditioner, TheDevicePatternIsTheHostPattern) {
  auto doubled = std::make_shared<LduAddressing>();
  doubled->n_rows = 5;  // row 4 has no face
  doubled->lower = {0, 0, 1, 0, 2};
  doubled->upper = {1, 3, 2, 1, 3};
  auto empty = std::make_shared<LduAddressing>();
  std::vector<std::pair<std::string, std::shared_ptr<const LduAddressing>>> cases{{"two faces on a pair", doubled},
                                                                                  {"no rows", empty}};
  for (const auto& [what, m] : schedule_matrices()) cases.emplace_back(what, m.addressing);
  for (const auto& [what, a] : cases)
    for (const bool shuffled : {false, true}) {
      std::vector<label> new_to_old(a->n_rows);
      std::iota(new_to_old.begin(), new_to_old.end(), 0);
      if (shuffled) std::shuffle(new_to_old.begin(), new_to_old.end(), std::mt19937(11));
      const Permutation op = Permutation::from_new_to_old(new_to_old);
      const std::string where = what + (shuffled ? ", shuffled" : ", own numbering");
      const FactorPattern host = factor_pattern(*a, op);
      cuda::DevicePattern device = cuda::device_factor_pattern(*a, op, nullptr);
      EXPECT_EQ(device.n_rows, a->n_rows) << where;
      EXPECT_EQ(device.widest, widest_row(host)) << where;
      const FactorPattern got = cuda::download(device);
      EXPECT_EQ(got.row_ptr, host.row_ptr) << where;
      EXPECT_EQ(got.col, host.col) << where;
      EXPECT_EQ(got.face, host.face) << where;
      // the schedule's order and its inverse, or nothing for index order
      std::vector<label> order(new_to_old.rbegin(), new_to_old.rend());
      cuda::set_schedule_order(device, order, nullptr);
      if (a->n_rows > 1) {
        std::vector<int> rank(a->n_rows);
        ASSERT_EQ(device.rank.size(), rank.size()) << where;
        device.rank.download(std::span<int>(rank));
        for (label k = 0; k < a->n_rows; ++k) ASSERT_EQ(rank[order[k]], k) << where;
      }
      std::iota(order.begin(), order.end(), 0);
      cuda::set_schedule_order(device, order, nullptr);
      EXPECT_EQ(device.order.size(), 0u) << where;
      EXPECT_EQ(device.rank.size(), 0u) << where;
    }
}

TEST_F(CudaPreconditioner, TheDeviceAnalysisBuildsTheHostFactor) {
  for (const auto& [what, m] : schedule_matrices())
    for (const std::string kind : {"DIC", "mcsgs"})
      for (const std::string ordering : {"none", "rcm", "colour"})
        for (const std::string format : {"csr", "staircase"})  // staircase: scheduled before its grouping
        for (const auto& [launch_name, launch] : launches) {
          const std::string where = what + ", " + kind + ", " + ordering + ", " + format + ", " + launch_name;
          const PreparedFormat prepared = prepare_format(m, format, ordering, {});
          const Permutation& op = prepared.permutation;
          const std::span<const label> sequence = prepared.position_before_grouping;
          const bool dic = kind == "DIC";
          const TriangularFactor host =
              build_triangular_factor(m, op, dic ? incomplete_cholesky : multicolour_gauss_seidel, sequence);
          const cuda::DeviceTriangularPreconditioner device(m, op, method_of(kind), TriangularSolve::levels, 1, nullptr,
                                                            launch, sequence);
          ASSERT_EQ(device.level_launch(), launch) << where;
          expect_same_factor(device.download(), host, where);
        }
}

// A long natural order (each row waits on its x neighbour, the rank before) with more rows than a
// device of up to 148 multiprocessors holds threads: the blocks' tickets must hand out the ranks in
// order as the resident window slides, and the levels fall at every x-line.
TEST_F(CudaPreconditioner, TheDeviceAnalysisOfALongNaturalOrderBuildsTheHostFactor) {
  const LduMatrix m = test::box_matrix(120, 60, 50, 8);  // 360 000 rows
  const Permutation op = make_ordering("none", *m.addressing);
  const TriangularFactor host = build_triangular_factor(m, op, incomplete_cholesky);
  for (const auto& [launch_name, launch] : launches) {
    const cuda::DeviceTriangularPreconditioner device(m, op, incomplete_cholesky, TriangularSolve::levels, 1,
                                                      nullptr, launch);
    expect_same_factor(device.download(), host, "box 120x60x50, DIC, none, " + launch_name);
  }
}

TEST_F(CudaPreconditioner, TheDeviceAppliesTheHostFactor) {
  for (const auto& [what, m] : schedule_matrices())
    for (const std::string kind : {"DIC", "mcsgs"})
      for (const std::string ordering : {"none", "colour"})
        for (const TriangularSolve solve : {TriangularSolve::levels, TriangularSolve::cusparse})
          for (const auto& [launch_name, launch] : launches) {
            if (kind == "mcsgs" && solve == TriangularSolve::cusparse) continue;
            const std::string where = what + ", " + kind + ", " + ordering + ", " + name(solve) + ", " + launch_name;
            const Permutation op = make_ordering(ordering, *m.addressing);
            const bool dic = kind == "DIC";
            const TriangularFactor host =
                build_triangular_factor(m, op, dic ? incomplete_cholesky : multicolour_gauss_seidel);
            cuda::DeviceTriangularPreconditioner device(m, op, method_of(kind), solve, 1, nullptr, launch);
            const std::size_t n = m.n_rows();
            const std::vector<double> r = test::random_vector(m.n_rows(), 11);
            std::vector<double> expected(n), z(n, -7.0);
            reference::triangular_apply(host, r, expected);
            double *dr = nullptr, *dz = nullptr;
            ASSERT_EQ(cudaMalloc(&dr, n * sizeof(double)), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&dz, n * sizeof(double)), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(dr, r.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemset(dz, 0xff, n * sizeof(double)), cudaSuccess);  // poison: every row is written
            for (int application = 0; application < 2; ++application) {  // the same twice: no state kept
              device.apply(dr, dz, nullptr, nullptr);
              ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
              ASSERT_EQ(cudaMemcpy(z.data(), dz, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
              for (std::size_t i = 0; i < n; ++i)
                ASSERT_NEAR(z[i], expected[i], 1e-12 * (1.0 + std::abs(expected[i]))) << where << " row " << i;
            }
            cudaFree(dr);
            cudaFree(dz);
          }
}

// An asymmetric box (convection-diffusion-like: lower coefficients of their own, the diagonal
// dominant), an asymmetric unstructured graph (rows waited for in several chunks) and a symmetric
// box, on which DILU is DIC.
std::vector<std::pair<std::string, LduMatrix>> asymmetric_matrices() {
  return {{"asymmetric box 12x10x9", test::asymmetric(test::box_matrix(12, 10, 9, 3), 4)},
          {"asymmetric random 2000", test::asymmetric(test::random_matrix(2000, 20, 5), 6)},
          {"symmetric box 12x10x9", test::box_matrix(12, 10, 9, 3)}};
}

/// A device copy of host values, freed at the end of its scope.
struct DeviceVector {
  explicit DeviceVector(std::span<const double> host) : size(host.size()) {
    EXPECT_EQ(cudaMalloc(&data, std::max<std::size_t>(size, 1) * sizeof(double)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.data(), size * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    // a pageable copy may return before it lands, and a non-blocking stream would not wait for it
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceVector() { cudaFree(data); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  std::vector<double> download() const {
    std::vector<double> host(size);
    EXPECT_EQ(cudaMemcpy(host.data(), data, size * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  double* data = nullptr;
  std::size_t size;
};

void expect_near_relative(std::span<const double> got, std::span<const double> expected, const std::string& where) {
  ASSERT_EQ(got.size(), expected.size()) << where;
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-12 * (1.0 + std::abs(expected[i]))) << where << " row " << i;
}

// DILU and smoothSolver's Gauss-Seidel splitting on an asymmetric matrix: the device's factor is the
// host's, each slot holding its own coefficient of its face and DILU's pivots its recurrence on
// a_ij a_ji, whatever the ordering, the format's grouping and the launch. On a symmetric matrix
// DILU's device factor is DIC's to the bit (its slots read the upper coefficients alone, as DIC's do).
TEST_F(CudaPreconditioner, TheDeviceBuildsTheHostFactorOfAnAsymmetricMatrix) {
  for (const auto& [what, m] : asymmetric_matrices())
    for (const TriangularMethod* method : {&incomplete_lu, &gauss_seidel})
      for (const std::string ordering : {"none", "rcm", "colour"})
        for (const std::string format : {"csr", "staircase"})
          for (const auto& [launch_name, launch] : launches) {
            const std::string where =
                what + ", " + method->name + ", " + ordering + ", " + format + ", " + launch_name;
            const PreparedFormat prepared = prepare_format(m, format, ordering, {});
            const Permutation& op = prepared.permutation;
            const std::span<const label> sequence = prepared.position_before_grouping;
            const TriangularFactor host = build_triangular_factor(m, op, *method, sequence);
            const cuda::DeviceTriangularPreconditioner device(m, op, *method, TriangularSolve::levels, 1, nullptr,
                                                              launch, sequence);
            const TriangularFactor got = device.download();
            expect_same_factor(got, host, where);
            if (m.symmetric() && method == &incomplete_lu) {
              const cuda::DeviceTriangularPreconditioner dic(m, op, incomplete_cholesky, TriangularSolve::levels, 1,
                                                             nullptr, launch, sequence);
              const TriangularFactor dic_factor = dic.download();
              EXPECT_EQ(got.lower.value, dic_factor.lower.value) << where;
              EXPECT_EQ(got.upper.value, dic_factor.upper.value) << where;
              EXPECT_EQ(got.rdiag, dic_factor.rdiag) << where;
            }
          }
}

// The device applies the host's DILU factor of an asymmetric matrix (level kernels, and cusparseSpSV
// on the CSR of each triangle's own coefficients), and the Gauss-Seidel splitting's forward solve
// alone, (D + L)^-1 r, as the host's forward sweep from zero; each application leaves the sweeps'
// buffers ready for the next, whichever comes next.
TEST_F(CudaPreconditioner, TheDeviceAppliesTheHostFactorOfAnAsymmetricMatrix) {
  for (const auto& [what, m] : asymmetric_matrices())
    for (const std::string ordering : {"none", "colour"})
      for (const TriangularSolve solve : {TriangularSolve::levels, TriangularSolve::cusparse})
        for (const auto& [launch_name, launch] : launches) {
          const std::string where = what + ", " + ordering + ", " + name(solve) + ", " + launch_name;
          const Permutation op = make_ordering(ordering, *m.addressing);
          const TriangularFactor dilu = build_triangular_factor(m, op, incomplete_lu);
          const TriangularFactor gs = build_triangular_factor(m, op, gauss_seidel);
          cuda::DeviceTriangularPreconditioner device_dilu(m, op, incomplete_lu, solve, 1, nullptr, launch);
          cuda::DeviceTriangularPreconditioner device_gs(m, op, gauss_seidel, solve, 1, nullptr, launch);
          const std::size_t n = m.n_rows();
          const std::vector<double> r = test::random_vector(m.n_rows(), 11);
          std::vector<double> expected_dilu(n), expected_forward(n, 0.0), expected_sgs(n);
          reference::triangular_apply(dilu, r, expected_dilu);
          reference::gs_sweep(gs, r, expected_forward);  // from zero: the forward solve alone
          reference::triangular_apply(gs, r, expected_sgs);
          const DeviceVector dr(r);
          const DeviceVector dz(std::vector<double>(n, std::nan("")));  // poison: every row is written
          for (int application = 0; application < 2; ++application) {  // the same twice: no state kept
            device_dilu.apply(dr.data, dz.data, nullptr, nullptr);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
            expect_near_relative(dz.download(), expected_dilu, where + ", DILU");
            device_gs.apply_lower(dr.data, dz.data, nullptr, nullptr);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
            expect_near_relative(dz.download(), expected_forward, where + ", GaussSeidel's forward solve");
            device_gs.apply(dr.data, dz.data, nullptr, nullptr);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
            expect_near_relative(dz.download(), expected_sgs, where + ", symGaussSeidel's pair");
          }
        }
}

// New values written on the device (the faces' upper and lower coefficients, the diagonal in the
// operator's numbering), taken on a stream, give the factor and the applications of a fresh set-up
// on those values: DIC and mcsgs on symmetric matrices (lower the upper coefficients), DILU and the
// Gauss-Seidel splitting on asymmetric ones, with the level kernels and with cusparseSpSV.
TEST_F(CudaPreconditioner, ARefreshOnTheDeviceEqualsAFreshSetUp) {
  struct Case {
    const TriangularMethod* method;
    TriangularSolve solve;
    bool asymmetric;
  };
  const std::vector<Case> cases{{&incomplete_cholesky, TriangularSolve::levels, false},
                                {&incomplete_cholesky, TriangularSolve::cusparse, false},
                                {&multicolour_gauss_seidel, TriangularSolve::levels, false},
                                {&incomplete_lu, TriangularSolve::levels, true},
                                {&incomplete_lu, TriangularSolve::cusparse, true},
                                {&incomplete_lu, TriangularSolve::levels, false},
                                {&gauss_seidel, TriangularSolve::levels, true}};
  // (one stream for all cases: it outlives every preconditioner whose cuSPARSE handle its calls set to it)
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const Case& c : cases)
    for (const auto& [launch_name, launch] : launches) {
      const std::string where =
          c.method->name + " " + name(c.solve) + (c.asymmetric ? ", asymmetric, " : ", symmetric, ") + launch_name;
      LduMatrix first = test::box_matrix(10, 9, 8, 1), second = test::box_matrix(10, 9, 8, 2);
      if (c.asymmetric) {
        first = test::asymmetric(std::move(first), 3);
        second = test::asymmetric(std::move(second), 4);
      }
      const Permutation op = make_ordering("rcm", *first.addressing);
      cuda::DeviceTriangularPreconditioner refreshed(first, op, *c.method, c.solve, 1, nullptr, launch);
      std::vector<double> diagonal(second.n_rows());
      for (label i = 0; i < second.n_rows(); ++i) diagonal[i] = second.diag[op.new_to_old[i]];
      const DeviceVector d_diagonal(diagonal), d_upper(second.upper), d_lower(second.lower_coeffs());
      refreshed.refresh_on_device({d_diagonal.data, d_upper.data, c.asymmetric ? d_lower.data : d_upper.data},
                                  stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << where;
      cuda::DeviceTriangularPreconditioner fresh(second, op, *c.method, c.solve, 1, nullptr, launch);
      expect_same_factor(refreshed.download(), fresh.download(), where);
      const std::vector<double> r = test::random_vector(second.n_rows(), 12);
      const DeviceVector dr(r), dz_refreshed(r), dz_fresh(r);
      refreshed.apply(dr.data, dz_refreshed.data, nullptr, stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << where;
      fresh.apply(dr.data, dz_fresh.data, nullptr, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
      expect_near_relative(dz_refreshed.download(), dz_fresh.download(), where);
    }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// A set-up on a symmetric matrix reads the upper coefficients alone: lower coefficients of their
// own afterwards are refused, from the host and from the device, rather than half taken.
TEST_F(CudaPreconditioner, LowerCoefficientsOfTheirOwnNeedAnAsymmetricSetUp) {
  const LduMatrix symmetric = test::box_matrix(6, 5, 4, 1);
  const LduMatrix asymmetric = test::asymmetric(test::box_matrix(6, 5, 4, 2), 3);
  cuda::DeviceTriangularPreconditioner device(symmetric, Permutation::identity(symmetric.n_rows()), incomplete_lu,
                                              TriangularSolve::levels, 1, nullptr);
  EXPECT_THROW(device.refresh(asymmetric), std::invalid_argument);
  const DeviceVector d_diagonal(asymmetric.diag), d_upper(asymmetric.upper), d_lower(asymmetric.lower);
  EXPECT_THROW(device.refresh_on_device({d_diagonal.data, d_upper.data, d_lower.data}, nullptr),
               std::invalid_argument);
  // --- the same values taken as a symmetric matrix's (lower the upper ones)
  device.refresh_on_device({d_diagonal.data, d_upper.data, d_upper.data}, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(CudaPreconditioner, LargeLevelsLaunchPerLevelAndSmallOnesSyncFree) {
  // 64 x 64 x 32 cells: two colours of 65536 rows each, against 158 levels in natural order
  const LduMatrix m = test::box_matrix(64, 64, 32, 1);
  for (const auto& [ordering, expected] : {std::pair{"colour", cuda::LevelLaunch::per_level},
                                           std::pair{"none", cuda::LevelLaunch::sync_free}}) {
    const cuda::DeviceTriangularPreconditioner device(m, make_ordering(ordering, *m.addressing), incomplete_cholesky,
                                                      TriangularSolve::levels, 1, nullptr);
    EXPECT_EQ(device.info(m.addressing->nnz()).levels, std::string(ordering) == "colour" ? 2 : 158) << ordering;
    EXPECT_EQ(device.level_launch(), expected) << ordering;
  }
}

TEST_F(CudaPreconditioner, DeviceAndReferenceAgreeOnEveryVariantFormatAndOrdering) {
  const std::vector<std::pair<std::string, LduMatrix>> matrices{{"box 12x10x9", test::box_matrix(12, 10, 9, 3)},
                                                                 {"random 3000", test::random_matrix(3000, 8, 5)}};
  for (const auto& [what, m] : matrices)
    for (const Variant& v : variants)
      for (const std::string format : {"csr", "staircase"})
        for (const std::string ordering : {"none", "rcm", "colour"}) {
          const std::string where = what + ", " + label_of(v) + ", " + format + ", " + ordering;
          const auto b = test::random_vector(m.n_rows(), 7);
          // the reference backend always solves by levels: the same factor as cusparse's
          auto reference = make_linear_solver(m, settings_for(v, Backend::reference, "csr", ordering));
          auto device = cuda::make_cuda_linear_solver(m, settings_for(v, Backend::cuda, format, ordering));
          std::vector<double> x_ref(m.n_rows(), 0.0), x_dev(m.n_rows(), 0.0);
          const SolverPerformance r = reference->solve(x_ref, b, "T");
          const SolverPerformance d = device->solve(x_dev, b, "T");
          ASSERT_TRUE(r.converged) << where;
          ASSERT_TRUE(d.converged) << where;
          EXPECT_EQ(d.solver_name, v.kind + "PCG[" + format + "]");
          EXPECT_NEAR(d.iterations, r.iterations, format == "csr" ? 1 : 2) << where;
          double scale = 0.0, diff = 0.0;
          for (label i = 0; i < m.n_rows(); ++i) {
            scale = std::max(scale, std::abs(x_ref[i]));
            diff = std::max(diff, std::abs(x_dev[i] - x_ref[i]));
          }
          EXPECT_LT(diff, 1e-8 * scale) << where;
          const PreconditionerInfo info = device->preconditioner_info();
          EXPECT_GT(info.levels, 0) << where;
          EXPECT_GT(info.setup_seconds, 0.0) << where;
          std::vector<std::string> parts{"pattern", v.kind == "mcsgs" ? "colouring" : "order", "workspace",
                                         "analysis", "layout", "buffers", "values"};
          if (v.solve == TriangularSolve::cusparse) parts.push_back("cusparseSpSV");
          std::vector<std::string> names;
          double parts_seconds = 0.0;
          for (const auto& [part, seconds] : info.setup_parts) {
            names.push_back(part);
            EXPECT_GE(seconds, 0.0) << where << " " << part;
            parts_seconds += seconds;
          }
          EXPECT_EQ(names, parts) << where;
          EXPECT_LE(parts_seconds, info.setup_seconds) << where;
          // levels are scheduled in the ordering, whatever the format's grouping (cusparseSpSV: by operator index)
          if (v.solve == TriangularSolve::levels) {
            EXPECT_EQ(info.levels, reference->preconditioner_info().levels) << where;
            EXPECT_EQ(info.colours, reference->preconditioner_info().colours) << where;
          }
        }
}

// Every unit of the table the CG applies that the cuda backend lists has its CUDA twin, and the
// device's PCG with it agrees with the reference backend's: its solve line, iterations within two,
// the solution to rounding, its name in the report. A new unit is tested here by being listed; one
// the backend does not list is refused there.
TEST_F(CudaPreconditioner, EveryAppliedUnitHasADeviceTwinThatAgreesWithTheReference) {
  const LduMatrix m = test::box_matrix(12, 10, 8, 41);
  const std::vector<double> b = test::random_vector(m.n_rows(), 6);
  for (const PreconditionerUnit& unit : preconditioner_table()) {
    if (unit.cg_step != CgStep::applied) continue;
    const std::vector<std::string> backends = preconditioner_backends(unit.name);
    if (std::find(backends.begin(), backends.end(), "cuda") == backends.end()) {
      SolverSettings s;
      s.preconditioner = unit.name;
      s.backend = Backend::cuda;
      EXPECT_THROW(make_linear_solver(m, s), std::invalid_argument) << unit.name;
      continue;
    }
    EXPECT_EQ(cuda::find_device_preconditioner(unit.name).name, unit.name);
    SolverSettings s;
    s.preconditioner = unit.name;
    s.gamg.agglomerator = Agglomerator::parallel_pair;  // the same groups on both backends
    s.format = "csr";
    s.ordering = "rcm";
    s.tolerance = 1e-11;
    s.backend = Backend::reference;
    std::vector<double> x_ref(m.n_rows(), 0.0), x_dev(m.n_rows(), 0.0);
    const SolverPerformance r = make_linear_solver(m, s)->solve(x_ref, b, "T");
    s.backend = Backend::cuda;
    auto device = cuda::make_cuda_linear_solver(m, s);
    const SolverPerformance d = device->solve(x_dev, b, "T");
    EXPECT_TRUE(d.converged) << unit.name;
    EXPECT_EQ(d.solver_name, r.solver_name) << unit.name;
    EXPECT_NEAR(d.iterations, r.iterations, 2) << unit.name;
    double scale = 0.0, diff = 0.0;
    for (label i = 0; i < m.n_rows(); ++i) {
      scale = std::max(scale, std::abs(x_ref[i]));
      diff = std::max(diff, std::abs(x_dev[i] - x_ref[i]));
    }
    EXPECT_LT(diff, 1e-8 * scale) << unit.name;
    EXPECT_EQ(device->preconditioner_info().name, unit.name);
  }
  EXPECT_THROW(cuda::find_device_preconditioner("diagonal"), std::invalid_argument);  // fused: no twin
}

TEST_F(CudaPreconditioner, ARefreshGivesTheSameAnswerAsAFreshSetUp) {
  for (const Variant& v : variants) {
    const LduMatrix first = test::box_matrix(10, 9, 8, 1), second = test::box_matrix(10, 9, 8, 2);
    const SolverSettings s = settings_for(v, Backend::cuda, "staircase", "rcm");
    auto refreshed = cuda::make_cuda_linear_solver(first, s);
    std::vector<double> x(first.n_rows(), 0.0), b = test::random_vector(first.n_rows(), 3);
    refreshed->solve(x, b, "T");  // graphs captured on the first values
    refreshed->update_coefficients(second);
    auto fresh = cuda::make_cuda_linear_solver(second, s);
    std::vector<double> x1(first.n_rows(), 0.0), x2(first.n_rows(), 0.0);
    const SolverPerformance p1 = refreshed->solve(x1, b, "T");
    const SolverPerformance p2 = fresh->solve(x2, b, "T");
    EXPECT_EQ(p1.iterations, p2.iterations) << label_of(v);
    for (label i = 0; i < first.n_rows(); ++i) ASSERT_EQ(x1[i], x2[i]) << label_of(v) << " row " << i;
  }
}

TEST_F(CudaPreconditioner, NotSpdIsAClearErrorAndCusparseNeedsDic) {
  LduMatrix m = test::box_matrix(6, 5, 4, 2);
  m.diag[3] = -1.0;
  EXPECT_THROW(cuda::make_cuda_linear_solver(m, settings_for(variants[0], Backend::cuda, "csr", "none")), SolverError);
  const LduMatrix good = test::box_matrix(6, 5, 4, 2);
  Variant sgs_cusparse{"mcsgs", TriangularSolve::cusparse, 1};
  try {
    cuda::make_cuda_linear_solver(good, settings_for(sgs_cusparse, Backend::cuda, "csr", "none"));
    FAIL() << "cusparse with mcsgs must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cusparseSpSV needs triangles split by index"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fvmmini
