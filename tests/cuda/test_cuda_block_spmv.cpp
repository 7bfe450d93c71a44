// Several right-hand sides with one matrix on the device. The multi-vector SpMV (the matrix read
// once): for every format that has one, each of k vectors interleaved by row multiplies as the
// float64 face loop does, its fused dot products sum to x_j . y_j, and a format or k without it is
// a clear error. The block CG, with the fused Jacobi and with GAMG's V-cycle of the k vectors:
// each system as its own DeviceCg solve (iterations to one, solution to rounding), systems that
// stop apart included; from its second solve the device loop and the batches from graphs give the
// bits of the first solve's direct launches; the cuda solver's solve_block in mesh order.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/krylov/cuda/device_block_cg.hpp"
#include "solvers/krylov/cuda/device_cg.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/gamg/cuda/device_gamg.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaBlockSpmv = test::CudaTest;

struct BlockCase {
  std::string format;
  std::string ordering;
  FormatParameters parameters;
};

FormatParameters with(const char* key, ParameterValue value) {
  FormatParameters p;
  p.set(key, std::move(value));
  return p;
}

TEST_F(CudaBlockSpmv, EachVectorOfTheBlockMatchesTheFaceLoopAndItsDot) {
  // --- a box (short rows), and a random matrix with rows longer than the unrolled lengths (> 8)
  const std::vector<LduMatrix> matrices{test::box_matrix(23, 17, 11, 31), test::random_matrix(3001, 14, 32)};
  const std::vector<BlockCase> cases{{"staircase", "rcm", {}},
                                     {"staircase", "staircase", with("sliceHeight", 64.0)},
                                     {"sell", "rcm", {}},
                                     {"sell", "none", with("chunkSize", 4.0)},
                                     {"csr", "none", {}},
                                     {"csr", "rcm", {}}};
  for (const LduMatrix& m : matrices)
    for (const BlockCase& c : cases)
      for (int k = 2; k <= 3; ++k) {
        SCOPED_TRACE(c.format + " / " + c.ordering + " / " + std::to_string(m.n_rows()) + " rows / k " +
                     std::to_string(k));
        const PreparedFormat prepared = prepare_format(m, c.format, c.ordering, c.parameters);
        cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
        ASSERT_EQ(device.max_block(), 3);
        const label n = m.n_rows();
        // --- vector j in the mesh's numbering, interleaved in the operator's
        std::vector<std::vector<double>> x_mesh, expected(k, std::vector<double>(n)), scale;
        std::vector<double> x(static_cast<std::size_t>(n) * k), y(x.size());
        for (int j = 0; j < k; ++j) {
          x_mesh.push_back(test::random_vector(n, 100 + j));
          reference::ldu_spmv(m, x_mesh[j], expected[j]);
          scale.push_back(test::abs_row_scale(m, x_mesh[j]));
          for (label i = 0; i < n; ++i) x[static_cast<std::size_t>(i) * k + j] = x_mesh[j][prepared.permutation.new_to_old[i]];
        }
        for (bool with_dot : {false, true}) {
          const std::vector<double> partials = device.multiply_block(k, x, y, with_dot);
          for (int j = 0; j < k; ++j) {
            double dot = 0.0, dot_scale = 0.0;
            for (label i = 0; i < n; ++i) {
              const label old = prepared.permutation.new_to_old[i];
              const double got = y[static_cast<std::size_t>(i) * k + j];
              ASSERT_LE(std::abs(got - expected[j][old]), 1e-12 * scale[j][old])
                  << "vector " << j << ", row " << i << ": " << got << " vs " << expected[j][old];
              dot += x_mesh[j][old] * expected[j][old];
              dot_scale += std::abs(x_mesh[j][old]) * scale[j][old];
            }
            if (!with_dot) continue;
            const std::size_t count = partials.size() / k;
            ASSERT_EQ(partials.size(), count * k);
            double sum = 0.0;
            for (std::size_t b = 0; b < count; ++b) sum += partials[j * count + b];
            EXPECT_LE(std::abs(sum - dot), 1e-12 * dot_scale) << "vector " << j << ": " << sum << " vs " << dot;
          }
        }
      }
}

TEST_F(CudaBlockSpmv, AFormatWithoutItOrTooManyVectorsIsAClearError) {
  const LduMatrix m = test::box_matrix(8, 8, 8, 33);
  const std::vector<double> x(static_cast<std::size_t>(m.n_rows()) * 2, 1.0);
  std::vector<double> y(x.size());
  for (const BlockCase& c :
       {BlockCase{"coo", "none", {}}, BlockCase{"staircase", "rcm", with("launch", std::string("groups"))}}) {
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepare_format(m, c.format, c.ordering, c.parameters));
    EXPECT_EQ(device.max_block(), 1) << c.format;
    EXPECT_THROW(device.multiply_block(2, x, y), cuda::CudaError) << c.format;
  }
  cuda::DeviceMatrix sell = cuda::make_device_matrix(prepare_format(m, "sell", "none", {}));
  std::vector<double> x4(static_cast<std::size_t>(m.n_rows()) * 4, 1.0), y4(x4.size());
  EXPECT_THROW(sell.multiply_block(4, x4, y4), cuda::CudaError);
  // --- k = 1 is the usual SpMV
  std::vector<double> x1(m.n_rows(), 1.0), y1(m.n_rows()), y1_ref(m.n_rows());
  sell.multiply_block(1, x1, y1);
  sell.multiply(x1, y1_ref);
  EXPECT_EQ(y1, y1_ref);
}

/// GAMG's hierarchy built on the device for `single` where s asks for GAMG (its jacobi smoother
/// takes the k vectors together); null otherwise.
std::unique_ptr<cuda::DeviceGamg> device_gamg(const LduMatrix& m, const PreparedFormat& prepared,
                                              cuda::DeviceMatrix& device, const SolverSettings& s,
                                              cuda::DeviceCg& single) {
  if (s.preconditioner != "GAMG") return nullptr;
  auto gamg = std::make_unique<cuda::DeviceGamg>(m, prepared.permutation, s, device.spmv(),
                                                 prepared.position_before_grouping, GamgRanks{}, nullptr,
                                                 prepared.value_map.get());
  single.set_preconditioner(gamg.get());
  return gamg;
}

TEST_F(CudaBlockSpmv, TheBlockCgSolvesEachSystemAsItsOwnSolveDoes) {
  // --- systems that stop apart (a guess near its solution, one from zero, one solved at the start)
  const LduMatrix m = test::box_matrix(20, 18, 16, 34);
  const label n = m.n_rows();
  for (const char* format : {"staircase", "sell", "csr"})
    for (const char* preconditioner : {"none", "diagonal", "GAMG"})
      for (int k = 2; k <= 3; ++k) {
        SCOPED_TRACE(std::string(format) + " / " + preconditioner + " / k " + std::to_string(k));
        const PreparedFormat prepared = prepare_format(m, format, "rcm", {});
        cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
        std::vector<double> diagonal(n);
        permute_to_new(prepared.permutation, m.diag, diagonal);
        SolverSettings s;
        s.preconditioner = parse_preconditioner(preconditioner);
        s.tolerance = 1e-10;
        s.gamg.n_cells_in_coarsest_level = 20;
        cuda::DeviceCg single(device, diagonal);
        const std::unique_ptr<cuda::DeviceGamg> gamg = device_gamg(m, prepared, device, s, single);
        cuda::DeviceBlockCg block(single, k);
        std::vector<std::vector<double>> b, x0;
        for (int j = 0; j < k; ++j) {
          b.push_back(test::random_vector(n, 90 + j));
          x0.push_back(std::vector<double>(n, 0.0));
        }
        x0[0] = test::random_vector(n, 95);
        device.multiply(x0[0], b[0]);
        for (label i = 0; i < n; ++i) x0[0][i] += 1e-6 * std::sin(0.1 * i);
        if (k == 3) {
          x0[2] = test::random_vector(n, 96);
          device.multiply(x0[2], b[2]);
        }
        std::vector<double> x(static_cast<std::size_t>(n) * k), bb(x.size());
        for (label i = 0; i < n; ++i)
          for (int j = 0; j < k; ++j) {
            x[static_cast<std::size_t>(i) * k + j] = x0[j][i];
            bb[static_cast<std::size_t>(i) * k + j] = b[j][i];
          }
        const std::vector<SolverPerformance> together = block.solve(x, bb, s);
        ASSERT_EQ(together.size(), static_cast<std::size_t>(k));
        for (int j = 0; j < k; ++j) {
          std::vector<double> xj = x0[j];
          const SolverPerformance alone = single.solve(xj, b[j], s);
          EXPECT_NEAR(together[j].iterations, alone.iterations, 1) << j;
          EXPECT_TRUE(together[j].converged) << j;
          EXPECT_EQ(together[j].solver_name, alone.solver_name) << j;
          EXPECT_NEAR(together[j].initial_residual, alone.initial_residual, 1e-12 * alone.initial_residual) << j;
          double diff = 0.0, scale = 0.0;
          for (label i = 0; i < n; ++i) {
            diff = std::max(diff, std::abs(x[static_cast<std::size_t>(i) * k + j] - xj[i]));
            scale = std::max(scale, std::abs(xj[i]));
          }
          EXPECT_LE(diff, 1e-8 * scale) << j;
        }
        if (k == 3) {
          EXPECT_EQ(together[2].iterations, 0);
        }
        EXPECT_LT(together[0].iterations, together[1].iterations);
      }
}

// The first solve launches its kernels directly; later ones replay graphs, in the device loop or
// in batches: every mode the same bits, and a new tolerance (graphs captured again) a fresh
// solver's answer.
TEST_F(CudaBlockSpmv, RepeatSolvesGiveTheFirstSolvesBitsInTheDeviceLoopAndInBatches) {
  const LduMatrix m = test::box_matrix(24, 20, 18, 35);
  const label n = m.n_rows();
  constexpr int k = 3;
  for (const std::string format : {"staircase", "sell", "staircase/GAMG"}) {
    SCOPED_TRACE(format);
    const PreparedFormat prepared = prepare_format(m, format.substr(0, format.find('/')), "rcm", {});
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
    std::vector<double> diagonal(n);
    permute_to_new(prepared.permutation, m.diag, diagonal);
    SolverSettings s;
    s.preconditioner = format.ends_with("GAMG") ? "GAMG" : "diagonal";
    s.tolerance = 1e-10;
    s.gamg.n_cells_in_coarsest_level = 20;
    cuda::DeviceCg single(device, diagonal);
    const std::unique_ptr<cuda::DeviceGamg> gamg = device_gamg(m, prepared, device, s, single);
    // --- system 0 starts near its solution, so the systems stop apart
    std::vector<double> b(static_cast<std::size_t>(n) * k), x0(b.size(), 0.0);
    const std::vector<double> near = test::random_vector(n, 97);
    std::vector<double> b0(n);
    device.multiply(near, b0);
    for (int j = 0; j < k; ++j) {
      const std::vector<double> bj = j == 0 ? b0 : test::random_vector(n, 98 + j);
      for (label i = 0; i < n; ++i) {
        b[static_cast<std::size_t>(i) * k + j] = bj[i];
        if (j == 0) x0[static_cast<std::size_t>(i) * k] = near[i] + 1e-6 * std::sin(0.1 * i);
      }
    }
    const auto solve = [&](cuda::DeviceBlockCg& block, std::vector<double>& x) {
      x = x0;
      return block.solve(x, b, s);
    };
    cuda::DeviceBlockCg block(single, k);
    std::vector<double> first_x, x;
    const std::vector<SolverPerformance> first = solve(block, first_x);
    EXPECT_FALSE(block.last_solve_looped());
    EXPECT_LT(first[0].iterations, first[1].iterations);
    for (const bool loop : {true, false, true}) {
      block.set_device_loop(loop);
      const std::vector<SolverPerformance> again = solve(block, x);
      EXPECT_EQ(block.last_solve_looped(), loop && cuda::device_loops_enabled()) << "loop " << loop;
      for (int j = 0; j < k; ++j) {
        EXPECT_EQ(again[j].iterations, first[j].iterations) << "loop " << loop << ", system " << j;
        EXPECT_EQ(again[j].final_residual, first[j].final_residual) << "loop " << loop << ", system " << j;
      }
      EXPECT_EQ(std::memcmp(x.data(), first_x.data(), x.size() * sizeof(double)), 0) << "loop " << loop;
    }
    // --- a new tolerance: the graphs captured again, the answer a fresh solver's first solve's
    s.tolerance = 1e-6;
    const std::vector<SolverPerformance> looser = solve(block, x);
    EXPECT_EQ(block.last_solve_looped(), cuda::device_loops_enabled());
    cuda::DeviceBlockCg fresh(single, k);
    std::vector<double> fresh_x;
    const std::vector<SolverPerformance> expected = solve(fresh, fresh_x);
    for (int j = 0; j < k; ++j) {
      EXPECT_EQ(looser[j].iterations, expected[j].iterations) << "system " << j;
      EXPECT_LT(looser[j].iterations, first[j].iterations + (j == 0 ? 1 : 0)) << "system " << j;
    }
    EXPECT_EQ(std::memcmp(x.data(), fresh_x.data(), x.size() * sizeof(double)), 0);
  }
}

TEST_F(CudaBlockSpmv, TheCudaSolverSolvesComponentsTogetherInMeshOrder) {
  const LduMatrix m = test::box_matrix(16, 15, 14, 35);
  const label n = m.n_rows();
  for (const std::string preconditioner : {"diagonal", "GAMG", "GAMG/mcsgs"}) {
    SCOPED_TRACE(preconditioner);
    SolverSettings s;
    s.backend = Backend::cuda;
    s.format = "staircase";
    s.ordering = "rcm";
    s.preconditioner = preconditioner.substr(0, preconditioner.find('/'));
    if (preconditioner == "GAMG/mcsgs") s.gamg.smoother = Smoother::mcsgs;
    s.tolerance = 1e-9;
    auto solver = make_linear_solver(m, s);
    EXPECT_EQ(solver->solves_together(3), preconditioner != "GAMG/mcsgs");
    std::vector<std::vector<double>> x(3, std::vector<double>(n, 0.0)), b;
    for (int j = 0; j < 3; ++j) b.push_back(test::random_vector(n, 97 + j));
    std::vector<std::vector<double>> x_alone = x;
    const std::vector<std::string> fields{"Ux", "Uy", "Uz"};
    const std::vector<std::span<double>> xs{x[0], x[1], x[2]};
    const std::vector<std::span<const double>> bs{b[0], b[1], b[2]};
    const std::vector<SolverPerformance> together = solver->solve_block(xs, bs, fields);
    ASSERT_EQ(together.size(), 3u);
    for (int j = 0; j < 3; ++j) {
      const SolverPerformance alone = solver->solve(x_alone[j], b[j], fields[j]);
      EXPECT_EQ(together[j].field, fields[j]);
      EXPECT_NEAR(together[j].iterations, alone.iterations, 1) << j;
      double diff = 0.0, scale = 0.0;
      for (label i = 0; i < n; ++i) {
        diff = std::max(diff, std::abs(x[j][i] - x_alone[j][i]));
        scale = std::max(scale, std::abs(x_alone[j][i]));
      }
      EXPECT_LE(diff, 1e-7 * scale) << j;
    }
  }
}

}  // namespace
}  // namespace fvmmini
