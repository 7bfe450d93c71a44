// Several right-hand sides with one matrix on the reference backend: the multi-vector SpMV of each
// format that has one gives each vector the one-vector product bit for bit, and the block CG gives
// each system what reference_cg gives it alone (iterations, residuals, solution, bit for bit),
// including systems that stop at different iterations or at the start, with the fused Jacobi and
// with GAMG's V-cycle applied to the block.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "linalg/block_vectors.hpp"
#include "matrix_generators.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {
namespace {

/// Vector j of k interleaved by row.
std::vector<double> component(const std::vector<double>& block, int k, int j) {
  std::vector<double> v(block.size() / k);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = block[i * k + j];
  return v;
}

std::vector<double> interleave(const std::vector<std::vector<double>>& vectors) {
  const int k = static_cast<int>(vectors.size());
  std::vector<double> block(vectors[0].size() * k);
  for (int j = 0; j < k; ++j)
    for (std::size_t i = 0; i < vectors[j].size(); ++i) block[i * k + j] = vectors[j][i];
  return block;
}

struct BlockCase {
  std::string format, ordering;
};
const std::vector<BlockCase> block_cases{{"csr", "none"}, {"csr", "rcm"}, {"sell", "rcm"}, {"staircase", "cm"}};

TEST(BlockSpmv, EachVectorIsTheOneVectorProductBitForBit) {
  // --- every unit that has one, in an ordering it takes (dia: a box in natural order only)
  const std::vector<LduMatrix> matrices{test::box_matrix(13, 11, 7, 41), test::random_matrix(2000, 13, 42)};
  std::vector<BlockCase> cases;
  for (const FormatUnit& unit : format_table())
    if (unit.multiply_block)
      for (const char* ordering : {"none", "rcm"}) cases.push_back({unit.name, ordering});
  EXPECT_GE(cases.size(), 10u);
  for (const LduMatrix& m : matrices)
    for (const BlockCase& c : cases) {
      std::unique_ptr<ReferenceOperator> op;
      try {
        op = make_reference_operator(m, prepare_format(m, c.format, c.ordering, {}));
      } catch (const std::invalid_argument&) {
        ASSERT_EQ(c.format, "dia");  // the only unit that declines a matrix
        continue;
      }
      ASSERT_TRUE(op->has_multiply_block()) << c.format;
      for (int k = 1; k <= max_block_vectors; ++k) {
        std::vector<std::vector<double>> xs;
        for (int j = 0; j < k; ++j) xs.push_back(test::random_vector(m.n_rows(), 50 + j));
        std::vector<double> y(m.n_rows() * static_cast<std::size_t>(k), std::nan(""));
        op->multiply_block(k, interleave(xs), y);
        for (int j = 0; j < k; ++j) {
          std::vector<double> expected(m.n_rows());
          op->multiply(xs[j], expected);
          EXPECT_EQ(component(y, k, j), expected) << c.format << " / " << c.ordering << " / k " << k << " / " << j;
        }
      }
    }
}

TEST(BlockCg, EachSystemIsReferenceCgOnItsOwnBitForBit) {
  const LduMatrix m = test::box_matrix(16, 14, 12, 43);
  const label n = m.n_rows();
  for (const BlockCase& c : block_cases)
    for (const char* preconditioner : {"none", "diagonal", "GAMG"})
      for (int k = 2; k <= max_block_vectors; ++k) {
        SCOPED_TRACE(c.format + " / " + c.ordering + " / " + preconditioner + " / k " + std::to_string(k));
        auto op = make_reference_operator(m, prepare_format(m, c.format, c.ordering, {}));
        SolverSettings s;
        s.preconditioner = parse_preconditioner(preconditioner);
        s.tolerance = 1e-10;
        s.format = c.format;  // GAMG's levels: the field's format and ordering
        s.ordering = c.ordering;
        s.gamg.n_cells_in_coarsest_level = 20;
        s.gamg.n_vcycles = k == 3 ? 2 : 1;
        const PreparedFormat& prepared = op->prepared();
        HostPreconditioner gamg(m, prepared.permutation, s, prepared.position_before_grouping);
        HostPreconditioner* pc = gamg.applied() ? &gamg : nullptr;
        if (pc) ASSERT_TRUE(pc->applies_block(*op, k));
        // --- systems that stop apart: one from a guess near its solution, one from zero, and (k = 3)
        //     one whose guess already solves it
        std::vector<std::vector<double>> b, x0;
        for (int j = 0; j < k; ++j) {
          b.push_back(test::random_vector(n, 60 + j));
          x0.push_back(std::vector<double>(n, 0.0));
        }
        x0[0] = test::random_vector(n, 71);
        op->multiply(x0[0], b[0]);
        for (label i = 0; i < n; ++i) x0[0][i] += 1e-6 * std::sin(0.1 * i);
        if (k == 3) {
          x0[2] = test::random_vector(n, 70);
          op->multiply(x0[2], b[2]);
        }
        std::vector<double> x = interleave(x0);
        BlockCgWorkspace work;
        const std::vector<SolverPerformance> block = reference_block_cg(*op, k, x, interleave(b), s, work, pc);
        ASSERT_EQ(block.size(), static_cast<std::size_t>(k));
        for (int j = 0; j < k; ++j) {
          std::vector<double> xj = x0[j];
          CgWorkspace single_work;
          const SolverPerformance single = reference_cg(*op, xj, b[j], s, single_work, pc);
          EXPECT_EQ(block[j].iterations, single.iterations) << j;
          EXPECT_EQ(block[j].initial_residual, single.initial_residual) << j;
          EXPECT_EQ(block[j].final_residual, single.final_residual) << j;
          EXPECT_EQ(block[j].converged, single.converged) << j;
          EXPECT_EQ(block[j].solver_name, single.solver_name) << j;
          EXPECT_EQ(component(x, k, j), xj) << j;
        }
        if (k == 3) {
          EXPECT_EQ(block[2].iterations, 0);
        }
        EXPECT_NE(block[0].iterations, block[1].iterations);
      }
}

TEST(BlockCg, TheReferenceSolverSolvesComponentsTogetherAsItSolvesEachAlone) {
  // --- mesh order in and out, an ordering in between; a preconditioner without a block CG (DIC,
  //     GAMG with mcsgs) solves one by one; the records carry the field names
  const LduMatrix m = test::box_matrix(12, 10, 9, 45);
  const label n = m.n_rows();
  for (const std::string preconditioner : {"diagonal", "DIC", "GAMG", "GAMG/mcsgs"}) {
    SolverSettings s;
    s.backend = Backend::reference;
    s.format = "staircase";
    s.ordering = "rcm";
    s.preconditioner = parse_preconditioner(preconditioner.substr(0, preconditioner.find('/')));
    if (preconditioner == "GAMG/mcsgs") s.gamg.smoother = Smoother::mcsgs;
    s.tolerance = 1e-9;
    auto solver = make_linear_solver(m, s);
    EXPECT_EQ(solver->solves_together(2), preconditioner == "diagonal" || preconditioner == "GAMG") << preconditioner;
    std::vector<std::vector<double>> x(2, std::vector<double>(n, 0.0)), b{test::random_vector(n, 80), test::random_vector(n, 81)};
    std::vector<std::vector<double>> x_alone = x;
    const std::vector<std::string> fields{"Ux", "Uy"};
    const std::vector<std::span<double>> xs{x[0], x[1]};
    const std::vector<std::span<const double>> bs{b[0], b[1]};
    const std::vector<SolverPerformance> together = solver->solve_block(xs, bs, fields);
    ASSERT_EQ(together.size(), 2u);
    for (int j = 0; j < 2; ++j) {
      const SolverPerformance alone = solver->solve(x_alone[j], b[j], fields[j]);
      EXPECT_EQ(together[j].field, fields[j]);
      EXPECT_EQ(together[j].iterations, alone.iterations) << preconditioner << " " << j;
      EXPECT_EQ(together[j].final_residual, alone.final_residual) << preconditioner << " " << j;
      EXPECT_EQ(x[j], x_alone[j]) << preconditioner << " " << j;
    }
    EXPECT_THROW(solver->solve_block(xs, std::span<const std::span<const double>>(bs).first(1), fields),
                 std::invalid_argument);
  }
}

// The flow's U (a block of three) and p (one vector) solvers share one WorkStore: their work
// vectors are one memory, and each solve gives what it gives with a store of its own, to the bit,
// whichever ran before it and grew the buffers.
TEST(BlockCg, SolversSharingAWorkStoreSolveAsWithTheirOwn) {
  const LduMatrix u = test::box_matrix(9, 8, 7, 45), p = test::box_matrix(9, 8, 7, 46);
  const label n = u.n_rows();
  SolverSettings s;
  s.preconditioner = "diagonal";
  s.tolerance = 1e-10;
  auto u_op = make_reference_operator(u, prepare_format(u, "csr", "none", {}));
  auto p_op = make_reference_operator(p, prepare_format(p, "csr", "none", {}));
  const std::vector<double> bu = test::random_vector(3 * n, 47), bp = test::random_vector(n, 48);
  const auto solve_both = [&](BlockCgWorkspace& block_work, CgWorkspace& work, bool p_first) {
    std::vector<double> xu(3 * n, 0.0), xp(n, 0.0);
    for (int round = 0; round < 2; ++round) {
      if (p_first) reference_cg(*p_op, xp, bp, s, work);
      reference_block_cg(*u_op, 3, xu, bu, s, block_work);
      if (!p_first) reference_cg(*p_op, xp, bp, s, work);
    }
    return std::make_pair(xu, xp);
  };
  BlockCgWorkspace own_block;
  CgWorkspace own;
  const auto alone = solve_both(own_block, own, false);
  for (const bool p_first : {false, true}) {
    BlockCgWorkspace block_work;
    CgWorkspace work;
    work.store = block_work.store;
    EXPECT_EQ(solve_both(block_work, work, p_first), alone) << "p first " << p_first;
    EXPECT_EQ(work.r.data(), block_work.r.data());  // the same memory
    EXPECT_EQ(block_work.store->buffers[0].size(), static_cast<std::size_t>(3 * n));
  }
}

TEST(BlockCg, OtherPreconditionersAndFormatsWithoutItAreRefused) {
  const LduMatrix m = test::box_matrix(6, 6, 6, 44);
  std::vector<double> x(m.n_rows() * 2, 0.0), b(x.size(), 1.0);
  BlockCgWorkspace work;
  SolverSettings s;
  auto csr = make_reference_operator(m, prepare_format(m, "csr", "none", {}));
  s.preconditioner = "DIC";
  EXPECT_THROW(reference_block_cg(*csr, 2, x, b, s, work), std::invalid_argument);
  s.preconditioner = "GAMG";  // not set up
  EXPECT_THROW(reference_block_cg(*csr, 2, x, b, s, work), std::invalid_argument);
  s.gamg.smoother = Smoother::mcsgs;  // set up, but its smoother takes one vector at a time
  HostPreconditioner mcsgs(m, csr->prepared().permutation, s);
  EXPECT_FALSE(mcsgs.applies_block(*csr, 2));
  EXPECT_THROW(reference_block_cg(*csr, 2, x, b, s, work, &mcsgs), std::invalid_argument);
  s.preconditioner = "diagonal";
  auto coo = make_reference_operator(m, prepare_format(m, "coo", "none", {}));
  EXPECT_FALSE(coo->has_multiply_block());
  EXPECT_THROW(reference_block_cg(*coo, 2, x, b, s, work), std::invalid_argument);
  EXPECT_THROW(coo->multiply_block(2, x, b), std::logic_error);
  std::vector<double> x4(m.n_rows() * 4, 0.0), y4(x4.size());
  EXPECT_THROW(csr->multiply_block(4, x4, y4), std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
