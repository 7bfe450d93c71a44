// GAMG on the device against the reference backend: one application equals the host's V-cycle
// on the same hierarchy (each smoother, format, number of cycles and, with Jacobi, of sweeps; the
// coarse levels in one block below levels of their own kernels); PCG takes the same
// iterations and reaches the same solution; a value refresh equals a fresh set-up; a new
// diagonal set on the device (refactor) equals a set-up from that diagonal; a V-cycle from each
// level runs (fvmmini-dist-bench times them) and from the finest equals an application; the
// V-cycle of several vectors at once gives each vector the host's V-cycle of it. The
// hierarchy built on the device (parallelPair) is the host's parallelPair hierarchy to the bit,
// before and after a refresh, and preconditions about as well as the host's algebraicPair; a
// solver on another's pattern takes its agglomeration and solves as with its own.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/cuda/device_spmv.cuh"
#include "linalg/block_vectors.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/gamg/agglomeration.hpp"
#include "solvers/preconditioners/gamg/cuda/device_gamg.hpp"
#include "solvers/preconditioners/gamg/cuda/device_hierarchy.cuh"
#include "solvers/preconditioners/preconditioner.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaGamg = test::CudaTest;

SolverSettings gamg_settings(Smoother smoother, int vcycles, Backend backend, const std::string& format) {
  SolverSettings s;
  s.preconditioner = "GAMG";
  s.gamg.smoother = smoother;
  s.gamg.n_vcycles = vcycles;
  s.gamg.n_cells_in_coarsest_level = 20;
  s.backend = backend;
  s.format = format;
  s.ordering = "rcm";
  s.tolerance = 1e-11;
  s.max_iter = 500;
  return s;
}

std::vector<std::pair<std::string, LduMatrix>> matrices() {
  return {{"box 14x12x10", test::box_matrix(14, 12, 10, 3)}, {"random 3000", test::random_matrix(3000, 8, 5)}};
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double e : v) m = std::max(m, std::abs(e));
  return m;
}

TEST_F(CudaGamg, OneApplicationEqualsTheHostVcycle) {
  auto cases = matrices();
  // levels above the one-block size (cuda::one_block_rows) before those in one block
  cases.emplace_back("box 40x40x40", test::box_matrix(40, 40, 40, 3));
  for (const auto& [what, m] : cases)
    for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs})
      for (const int vcycles : {1, 2})
        for (const std::string format : {"csr", "staircase"})
          for (const int sweeps : {1, 0, 2}) {
          if (sweeps != 1 && (smoother != Smoother::jacobi || format != "csr")) continue;
          const std::string where = what + ", " + name(smoother) + ", " + std::to_string(vcycles) + " cycles, " + format +
                                    ", " + std::to_string(sweeps) + " sweeps";
          SolverSettings s = gamg_settings(smoother, vcycles, Backend::cuda, format);
          s.gamg.n_pre_sweeps = s.gamg.n_post_sweeps = sweeps;
          PreparedFormat prepared = prepare_format(m, format, s.ordering, s.format_parameters);
          const Permutation op = prepared.permutation;
          // --- the host: the same format and ordering on every level
          auto host_op = make_reference_operator(m, prepared);
          HostPreconditioner host(m, op, s, prepared.position_before_grouping);
          const label n = m.n_rows();
          const auto r = test::random_vector(n, 4);
          std::vector<double> z_host(n, std::nan(""));
          host.apply(*host_op, r, z_host);
          // --- the device, its output poisoned
          cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
          cuda::DeviceGamg gamg(m, op, s, device.spmv(), prepared.position_before_grouping);
          double *dr = nullptr, *dz = nullptr;
          ASSERT_EQ(cudaMalloc(&dr, n * sizeof(double)), cudaSuccess);
          ASSERT_EQ(cudaMalloc(&dz, n * sizeof(double)), cudaSuccess);
          ASSERT_EQ(cudaMemcpy(dr, r.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
          ASSERT_EQ(cudaMemset(dz, 0xff, n * sizeof(double)), cudaSuccess);  // NaN
          gamg.apply(dr, dz, nullptr, nullptr);
          std::vector<double> z_device(n);
          ASSERT_EQ(cudaMemcpy(z_device.data(), dz, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
          cudaFree(dr);
          cudaFree(dz);
          const double scale = max_abs(z_host);
          for (label i = 0; i < n; ++i) ASSERT_NEAR(z_device[i], z_host[i], 1e-11 * scale) << where << " row " << i;
          const PreconditionerInfo info = gamg.info(0);
          const PreconditionerInfo host_info = host.info(0);
          ASSERT_EQ(info.grid_levels.size(), host_info.grid_levels.size()) << where;
          for (std::size_t l = 0; l < info.grid_levels.size(); ++l)  // the smoother's colours: the same schedule
            EXPECT_EQ(info.grid_levels[l].colours, host_info.grid_levels[l].colours) << where << " level " << l;
          EXPECT_GT(info.setup_seconds, 0.0) << where;
          std::vector<std::string> names;
          double parts_seconds = 0.0;
          for (const auto& [part, seconds] : info.setup_parts) {
            names.push_back(part);
            parts_seconds += seconds;
          }
          EXPECT_EQ(names, (std::vector<std::string>{"agglomeration", "formats", "transfers", "coarsest", "levels"}))
              << where;
          EXPECT_LE(parts_seconds, info.setup_seconds) << where;
        }
}

// The V-cycle on k vectors at once (the momentum's components, interleaved by row): vector j of
// the block is the host's V-cycle of vector j, on the host's hierarchy uploaded (csr or staircase
// levels) and on the one built on the device (csr levels), the coarse levels in one block below
// the large ones, with 1 and 2 V-cycles and 0 to 2 sweeps.
TEST_F(CudaGamg, AVcycleOfSeveralVectorsIsEachVectorsOwn) {
  auto cases = matrices();
  cases.emplace_back("box 40x40x40", test::box_matrix(40, 40, 40, 3));
  for (const auto& [what, m] : cases)
    for (const bool built_on_device : {false, true})
      for (const std::string format : {"csr", "staircase"})
        for (const int vcycles : {1, 2})
          for (const int sweeps : {1, 0, 2})
            for (int k = 2; k <= max_block_vectors; ++k) {
              if (sweeps != 1 && (vcycles != 1 || k != 3)) continue;
              const std::string where = what + (built_on_device ? ", built on the device, " : ", the host's, ") +
                                        format + ", " + std::to_string(vcycles) + " cycles, " +
                                        std::to_string(sweeps) + " sweeps, k " + std::to_string(k);
              SolverSettings s = gamg_settings(Smoother::jacobi, vcycles, Backend::cuda, format);
              s.gamg.n_pre_sweeps = s.gamg.n_post_sweeps = sweeps;
              s.gamg.agglomerator = built_on_device ? Agglomerator::parallel_pair : Agglomerator::algebraic_pair;
              PreparedFormat prepared = prepare_format(m, format, s.ordering, s.format_parameters);
              const Permutation op = prepared.permutation;
              auto host_op = make_reference_operator(m, prepared);
              HostPreconditioner host(m, op, s, prepared.position_before_grouping);
              cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
              cuda::DeviceGamg gamg(m, op, s, device.spmv(), prepared.position_before_grouping, {}, nullptr,
                                    built_on_device ? prepared.value_map.get() : nullptr);
              bool matched = false;  // the device build's part
              for (const auto& [part, seconds] : gamg.info(0).setup_parts) matched = matched || part == "matching";
              EXPECT_EQ(matched, built_on_device) << where;
              ASSERT_TRUE(gamg.applies_block(k)) << where;
              EXPECT_THROW(gamg.apply_block(k, nullptr, nullptr, nullptr, nullptr), std::logic_error) << where;
              gamg.reserve_block();
              // --- k right-hand sides interleaved; the host's V-cycle of each
              const label n = m.n_rows();
              const auto values = static_cast<std::size_t>(n) * k;
              std::vector<double> r(values), z(values);
              std::vector<std::vector<double>> z_host(k, std::vector<double>(n, std::nan("")));
              for (int j = 0; j < k; ++j) {
                const auto rj = test::random_vector(n, 40 + j);
                for (label i = 0; i < n; ++i) r[static_cast<std::size_t>(i) * k + j] = rj[i];
                host.apply(*host_op, rj, z_host[j]);
              }
              // --- the device's block, its output poisoned
              double *dr = nullptr, *dz = nullptr;
              ASSERT_EQ(cudaMalloc(&dr, values * sizeof(double)), cudaSuccess);
              ASSERT_EQ(cudaMalloc(&dz, values * sizeof(double)), cudaSuccess);
              ASSERT_EQ(cudaMemcpy(dr, r.data(), values * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
              ASSERT_EQ(cudaMemset(dz, 0xff, values * sizeof(double)), cudaSuccess);  // NaN
              gamg.apply_block(k, dr, dz, nullptr, nullptr);
              ASSERT_EQ(cudaMemcpy(z.data(), dz, values * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
              cudaFree(dr);
              cudaFree(dz);
              for (int j = 0; j < k; ++j) {
                const double scale = max_abs(z_host[j]);
                for (label i = 0; i < n; ++i)
                  ASSERT_NEAR(z[static_cast<std::size_t>(i) * k + j], z_host[j][i], 1e-11 * scale)
                      << where << ", vector " << j << ", row " << i;
              }
            }
  // --- the mcsgs smoother takes one vector at a time
  const LduMatrix m = test::box_matrix(10, 10, 10, 3);
  SolverSettings s = gamg_settings(Smoother::mcsgs, 1, Backend::cuda, "csr");
  PreparedFormat prepared = prepare_format(m, "csr", s.ordering, s.format_parameters);
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  cuda::DeviceGamg gamg(m, prepared.permutation, s, device.spmv(), prepared.position_before_grouping);
  EXPECT_FALSE(gamg.applies_block(2));
  gamg.reserve_block();
  EXPECT_THROW(gamg.apply_block(2, nullptr, nullptr, nullptr, nullptr), std::logic_error);
}

TEST_F(CudaGamg, ACycleFromEachLevelRunsAndFromTheFinestIsAnApplication) {
  const LduMatrix m = test::box_matrix(40, 40, 40, 3);  // levels of their own kernels, then one block
  const SolverSettings s = gamg_settings(Smoother::jacobi, 1, Backend::cuda, "csr");
  PreparedFormat prepared = prepare_format(m, s.format, s.ordering, s.format_parameters);
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  cuda::DeviceGamg gamg(m, prepared.permutation, s, device.spmv(), prepared.position_before_grouping);
  const label n = m.n_rows();
  const auto r = test::random_vector(n, 9);
  double *dr = nullptr, *dz = nullptr;
  ASSERT_EQ(cudaMalloc(&dr, n * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dz, n * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dr, r.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<double> applied(n), cycled(n);
  gamg.apply(dr, dz, nullptr, nullptr);
  ASSERT_EQ(cudaMemcpy(applied.data(), dz, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_GE(gamg.levels(), 5);
  const auto& grid = gamg.info(0).grid_levels;
  EXPECT_EQ(grid[1].format, "csr");  // 16000 rows: its own kernels
  EXPECT_EQ(grid[grid.size() - 2].format, "csr (one block)");
  for (int level = gamg.levels() - 1; level >= 0; --level) {
    ASSERT_EQ(cudaMemset(dz, 0xff, n * sizeof(double)), cudaSuccess);  // NaN
    gamg.cycle_from(level, dr, dz, nullptr, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "level " << level;
  }
  ASSERT_EQ(cudaMemcpy(cycled.data(), dz, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dr);
  cudaFree(dz);
  for (label i = 0; i < n; ++i) ASSERT_EQ(cycled[i], applied[i]) << "row " << i;
}

template <class T>
std::vector<T> download(const cuda::DeviceBuffer<T>& buffer) {
  std::vector<T> host(buffer.size());
  buffer.download(std::span<T>(host));
  return host;
}

// Level by level the device's groups (the finest in the operator's numbering), transfers and
// coarse matrices are the host's parallelPair ones, exactly: the same pairing rules
// (pair_matching.hpp) and every sum in the host's order. New values on the device refresh the
// coarse matrices as the host refreshes the same groups.
TEST_F(CudaGamg, TheDeviceHierarchyIsTheHostsParallelPairToTheBit) {
  auto cases = matrices();
  cases.emplace_back("box 40x40x40", test::box_matrix(40, 40, 40, 3));
  for (const auto& [what, m] : cases)
    for (const int merge : {1, 2, 3})
      for (const std::string ordering : {"none", "rcm"}) {
        const std::string where = what + ", mergeLevels " + std::to_string(merge) + ", " + ordering;
        const std::string format = ordering == "none" ? "csr" : "staircase";
        PreparedFormat prepared = prepare_format(m, format, ordering, {});
        cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
        GamgSettings g;
        g.merge_levels = merge;
        g.n_cells_in_coarsest_level = 10;
        cuda::DeviceHierarchy h(m, prepared.permutation, g, device.spmv().device_values(), *prepared.value_map,
                                nullptr);
        h.refresh({}, {}, nullptr);
        AgglomerationHierarchy host = agglomerate(m, 10, merge, true);
        ASSERT_EQ(h.levels(), host.levels()) << where;
        ASSERT_GE(h.levels(), 3) << where;
        const auto same_matrices = [&](const std::string& when) {
          for (int l = 1; l < h.levels(); ++l) {
            const LduMatrix got = h.download(l, nullptr);
            const LduMatrix& expected = host.coarse[l - 1];
            ASSERT_EQ(got.addressing->lower, expected.addressing->lower) << where << when << ", level " << l;
            ASSERT_EQ(got.addressing->upper, expected.addressing->upper) << where << when << ", level " << l;
            ASSERT_EQ(got.diag, expected.diag) << where << when << ", level " << l;
            ASSERT_EQ(got.upper, expected.upper) << where << when << ", level " << l;
          }
        };
        for (int l = 0; l + 1 < h.levels(); ++l) {
          const Permutation fine = l == 0 ? prepared.permutation : Permutation::identity(h.level(l).n);
          const Transfer t =
              make_transfer(*host.agglomerations[l], fine, Permutation::identity(h.level(l + 1).n));
          const cuda::DeviceLevel& d = h.level(l);
          EXPECT_EQ(download(d.coarse_of), t.coarse_of) << where << ", level " << l;
          EXPECT_EQ(download(d.group_ptr), t.group_ptr) << where << ", level " << l;
          EXPECT_EQ(download(d.group_rows), t.group_rows) << where << ", level " << l;
        }
        same_matrices("");
        // --- new values on the same addressing, refreshed on the device
        const LduMatrix second = test::random_values(m.addressing, 77);
        refresh_format_values(second, prepared);
        device.upload_values(prepared.format.values());
        h.refresh({}, {}, nullptr);
        refresh_coarse_values(second, host);
        same_matrices(", refreshed");
      }
}

// The bar for the device's hierarchy: PCG iterations within 10 % of the host's
// algebraicPair hierarchy's, on a uniform box (every face a tie) and a box of random values.
TEST_F(CudaGamg, ADeviceHierarchyTakesAboutAsManyIterationsAsTheHosts) {
  for (const auto& [what, m] : std::vector<std::pair<std::string, LduMatrix>>{
           {"uniform 48^3", [] {
              LduMatrix u = make_ldu_matrix(test::box_addressing(48, 48, 48));
              for (double& a : u.upper) a = -1.0;
              for (double& d : u.diag) d = 6.0;
              return u;
            }()},
           {"random 40^3", test::box_matrix(40, 40, 40, 3)}}) {
    SolverSettings s = gamg_settings(Smoother::jacobi, 1, Backend::cuda, "staircase");
    s.ordering = "none";
    s.tolerance = 0.0;
    s.rel_tol = 1e-8;
    const auto b = test::random_vector(m.n_rows(), 5);
    const auto solve = [&](Agglomerator agglomerator) {
      s.gamg.agglomerator = agglomerator;
      auto solver = cuda::make_cuda_linear_solver(m, s);
      std::vector<double> x(m.n_rows(), 0.0);
      const SolverPerformance p = solver->solve(x, b, "p");
      EXPECT_TRUE(p.converged) << what << ", " << name(agglomerator);
      solver->update_coefficients(m);  // a refresh, timed in parts
      return std::make_pair(p.iterations, solver->preconditioner_info());
    };
    const auto [host_iterations, host_info] = solve(Agglomerator::algebraic_pair);
    const auto [device_iterations, device_info] = solve(Agglomerator::automatic);
    EXPECT_LE(device_iterations, 1.1 * host_iterations + 1) << what << ": " << host_iterations << " on the host's";
    EXPECT_EQ(device_info.grid_levels[1].format, "csr (built on the device)") << what;
    std::vector<std::string> parts;
    for (const auto& [part, seconds] : device_info.setup_parts) parts.push_back(part);
    EXPECT_EQ(parts, (std::vector<std::string>{"fine level", "matching", "coarse faces", "operators", "levels",
                                               "coefficients", "coarsest", "smoothers"}))
        << what;
    EXPECT_EQ(host_info.grid_levels[1].format, "staircase") << what;
    const auto refresh_parts = [](const PreconditionerInfo& info) {
      std::vector<std::string> names;
      for (const auto& [part, seconds] : info.refresh_parts) names.push_back(part);
      return names;
    };
    EXPECT_EQ(refresh_parts(device_info), (std::vector<std::string>{"coefficients", "coarsest", "smoothers"})) << what;
    EXPECT_EQ(refresh_parts(host_info), (std::vector<std::string>{"coarse matrices", "operators", "smoothers"}))
        << what;
  }
}

TEST_F(CudaGamg, PcgAgreesWithTheReferenceBackend) {
  for (const auto& [what, m] : matrices())
    for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs})
      for (const Agglomerator agglomerator : {Agglomerator::algebraic_pair, Agglomerator::parallel_pair}) {
      // parallelPair with jacobi: the device builds the same hierarchy the reference backend does
      const std::string where = what + ", " + name(smoother) + ", " + name(agglomerator);
      const auto b = test::random_vector(m.n_rows(), 7);
      SolverSettings s = gamg_settings(smoother, 1, Backend::reference, "staircase");
      s.gamg.agglomerator = agglomerator;
      auto reference = make_linear_solver(m, s);
      s.backend = Backend::cuda;
      auto device = cuda::make_cuda_linear_solver(m, s);
      std::vector<double> x_ref(m.n_rows(), 0.0), x_dev(m.n_rows(), 0.0);
      const SolverPerformance r = reference->solve(x_ref, b, "p");
      const SolverPerformance d = device->solve(x_dev, b, "p");
      ASSERT_TRUE(r.converged) << where;
      ASSERT_TRUE(d.converged) << where;
      EXPECT_EQ(d.solver_name, "GAMGPCG[staircase]");
      EXPECT_NEAR(d.iterations, r.iterations, 1) << where;
      double diff = 0.0;
      for (label i = 0; i < m.n_rows(); ++i) diff = std::max(diff, std::abs(x_dev[i] - x_ref[i]));
      EXPECT_LT(diff, 1e-8 * max_abs(x_ref)) << where;
      EXPECT_NE(device->describe().find("GAMG (levels "), std::string::npos) << device->describe();
    }
}

TEST_F(CudaGamg, ARefreshGivesTheSameAnswerAsAFreshSetUp) {
  for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs}) {
    const LduMatrix first = test::box_matrix(12, 10, 9, 1);
    LduMatrix second = first;  // the faces keep their order of strength: the same agglomeration
    for (double& d : second.diag) d *= 1.7;
    for (double& u : second.upper) u *= 1.2;
    const SolverSettings s = gamg_settings(smoother, 1, Backend::cuda, "staircase");
    auto refreshed = cuda::make_cuda_linear_solver(first, s);
    std::vector<double> x(first.n_rows(), 0.0), b = test::random_vector(first.n_rows(), 3);
    refreshed->solve(x, b, "p");  // graphs captured on the first values
    refreshed->update_coefficients(second);
    auto fresh = cuda::make_cuda_linear_solver(second, s);
    std::vector<double> x1(first.n_rows(), 0.0), x2(first.n_rows(), 0.0);
    const SolverPerformance p1 = refreshed->solve(x1, b, "p");
    const SolverPerformance p2 = fresh->solve(x2, b, "p");
    EXPECT_EQ(p1.iterations, p2.iterations) << name(smoother);
    for (label i = 0; i < first.n_rows(); ++i) ASSERT_EQ(x1[i], x2[i]) << name(smoother) << " row " << i;
  }
}

TEST_F(CudaGamg, ADiagonalSetOnTheDeviceEqualsASetUpFromIt) {
  for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs}) {
    const LduMatrix first = test::box_matrix(12, 10, 9, 5);
    LduMatrix second = first;
    for (label i = 0; i < second.n_rows(); ++i) second.diag[i] += 0.5 + 0.001 * (i % 7);
    const SolverSettings s = gamg_settings(smoother, 1, Backend::cuda, "staircase");
    cuda::DeviceSolver refactored(first, s);
    double *dd = nullptr, *dx = nullptr, *db = nullptr;
    const label n = first.n_rows();
    ASSERT_EQ(cudaMalloc(&dd, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dx, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&db, n * sizeof(double)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dd, second.diag.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    refactored.set_diagonal(dd, nullptr);
    const auto b = test::random_vector(n, 6);
    std::vector<double> x1(n, 0.0), x2(n, 0.0);
    ASSERT_EQ(cudaMemcpy(db, b.data(), n * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(dx, 0, n * sizeof(double)), cudaSuccess);
    const SolverPerformance p1 = refactored.solve(dx, db, "U", nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(x1.data(), dx, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(dd);
    cudaFree(dx);
    cudaFree(db);
    cuda::DeviceSolver fresh(second, s);
    const SolverPerformance p2 = fresh.solve(x2, b, "U");
    EXPECT_NEAR(p1.iterations, p2.iterations, 1) << name(smoother);
    const double scale = max_abs(x2);
    for (label i = 0; i < n; ++i) ASSERT_NEAR(x1[i], x2[i], 1e-9 * scale) << name(smoother) << " row " << i;
  }
}

/// A solver on another's pattern shares its host format and uploads its own values: it solves to
/// the bit as one with a format of its own, and a refresh of either leaves the other alone.
TEST_F(CudaGamg, ASolverSharingAnothersFormatSolvesAsOneOfItsOwn) {
  const LduMatrix u = test::box_matrix(12, 10, 9, 1);
  LduMatrix p = u;  // the same addressing, other values
  for (label i = 0; i < p.n_rows(); ++i) p.diag[i] = 1.7 * p.diag[i] + 0.01 * (i % 5);
  for (double& a : p.upper) a *= 1.3;
  const SolverSettings s = gamg_settings(Smoother::jacobi, 1, Backend::cuda, "staircase");
  cuda::DeviceSolver first(u, s);
  cuda::DeviceSolver shared(p, s, &first);
  cuda::DeviceSolver own(p, s);
  EXPECT_NE(shared.describe().find("(the previous solver's, shared)"), std::string::npos) << shared.describe();
  EXPECT_EQ(own.describe().find("shared"), std::string::npos) << own.describe();
  const label n = u.n_rows();
  const auto b = test::random_vector(n, 9);
  const auto solve = [&](cuda::DeviceSolver& solver) {
    std::vector<double> x = test::random_vector(n, 4);  // not zero: the residual's scale reads A
    const SolverPerformance performance = solver.solve(x, b, "p");
    EXPECT_TRUE(performance.converged);
    return std::make_pair(performance.iterations, x);
  };
  EXPECT_EQ(solve(shared), solve(own));
  // --- the first solver refreshed: the sharing one keeps its values; and the other way round
  LduMatrix u2 = u;
  for (double& d : u2.diag) d *= 2.0;
  first.update_coefficients(u2);
  EXPECT_EQ(solve(shared), solve(own));
  cuda::DeviceSolver fresh_u2(u2, s);
  EXPECT_EQ(solve(first), solve(fresh_u2));
  LduMatrix p2 = p;
  for (double& a : p2.upper) a *= 0.9;
  shared.update_coefficients(p2);
  own.update_coefficients(p2);
  EXPECT_EQ(solve(shared), solve(own));
  EXPECT_EQ(solve(first), solve(fresh_u2));
  // --- another ordering: a format of its own
  SolverSettings other = s;
  other.ordering = "none";
  EXPECT_EQ(cuda::DeviceSolver(p, other, &first).describe().find("shared"), std::string::npos);
}

/// The flow's p after U: a GAMG on another's pattern and value slots takes its agglomeration (the
/// device hierarchy's structure, held past the solver that built it) and computes its own coarse
/// values: it solves to the bit as one that agglomerated on its own, before and after a refresh.
/// The host-built hierarchy (the mcsgs smoother) is shared the same way.
TEST_F(CudaGamg, ASolverOnTheSamePatternTakesTheOthersAgglomeration) {
  const LduMatrix p = test::box_matrix(12, 10, 9, 2);
  LduMatrix u = p;  // the momentum's: nu times the pressure's faces (exact here), plus V/dt
  for (double& a : u.upper) a *= 0.5;
  for (double& d : u.diag) d = 0.5 * d + 3.0;
  const auto first_part = [](const cuda::DeviceSolver& solver) {
    return solver.preconditioner_info().setup_parts.at(0).first;
  };
  const label n = p.n_rows();
  const auto b = test::random_vector(n, 9);
  const auto solve = [&](cuda::DeviceSolver& solver) {
    std::vector<double> x(n, 0.0);
    const SolverPerformance performance = solver.solve(x, b, "p");
    EXPECT_TRUE(performance.converged);
    return std::make_pair(performance.iterations, x);
  };
  for (const Smoother smoother : {Smoother::jacobi, Smoother::mcsgs}) {
    const SolverSettings s = gamg_settings(smoother, 1, Backend::cuda, "staircase");
    auto velocity = std::make_unique<cuda::DeviceSolver>(u, s);
    cuda::DeviceSolver pressure(p, s, velocity.get());
    cuda::DeviceSolver own(p, s);
    const std::string built = smoother == Smoother::jacobi ? "fine level" : "agglomeration";
    EXPECT_EQ(first_part(*velocity), built);
    EXPECT_EQ(first_part(own), built);
    EXPECT_EQ(first_part(pressure), "shared agglomeration") << name(smoother);
    const auto& shared_grid = pressure.preconditioner_info().grid_levels;
    const auto& own_grid = own.preconditioner_info().grid_levels;
    ASSERT_EQ(shared_grid.size(), own_grid.size());
    for (std::size_t l = 0; l < own_grid.size(); ++l) EXPECT_EQ(shared_grid[l].nnz, own_grid[l].nnz) << l;
    velocity.reset();  // what p took outlives the solver that built it
    EXPECT_EQ(solve(pressure), solve(own)) << name(smoother);
    LduMatrix p2 = p;
    for (double& d : p2.diag) d *= 1.5;
    pressure.update_coefficients(p2);
    own.update_coefficients(p2);
    EXPECT_EQ(solve(pressure), solve(own)) << name(smoother);
    // --- keys that shape the groups otherwise: an agglomeration of its own
    SolverSettings merged_once = s;
    merged_once.gamg.merge_levels = 1;
    const cuda::DeviceSolver velocity2(u, s);
    EXPECT_EQ(first_part(cuda::DeviceSolver(p, merged_once, &velocity2)), built) << name(smoother);
  }
}

}  // namespace
}  // namespace fvmmini
