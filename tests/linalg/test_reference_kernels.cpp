// The reference backend's fused kernels against the unfused operations they replace, on fresh
// random inputs each run (the seed is printed on failure), with 1 to 3 threads and sizes below
// and above the parallel threshold.

#include <gtest/gtest.h>


#include <cmath>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "kernels/reference/csr_spmv.hpp"
#include "kernels/reference/symmetric_spmv.hpp"
#include "kernels/reference/vector_ops.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/parallel.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "matrix_generators.hpp"
#include "omp_threads.hpp"

namespace fvmmini {
namespace {

namespace ops = reference;

std::uint64_t fresh_seed() { return std::random_device{}(); }

using test::Threads;

std::vector<double> positive_vector(label n, std::uint64_t seed) {
  auto v = test::random_vector(n, seed);
  for (auto& x : v) x = 0.5 + std::abs(x);
  return v;
}

void expect_close(double got, double expected, double scale) {
  EXPECT_LE(std::abs(got - expected), 1e-12 * scale) << got << " vs " << expected;
}

TEST(FusedVectorOps, ResidualUpdateEqualsTheUnfusedPasses) {
  const std::uint64_t seed = fresh_seed();
  for (int threads : {1, 2, 3})
    for (label n : {1, 5, 1000, 3 * static_cast<label>(min_parallel_rows) + 7})
      for (bool jacobi : {false, true}) {
        SCOPED_TRACE(fmt::format("seed {}, {} threads, n {}, jacobi {}", seed, threads, n, jacobi));
        Threads scope(threads);
        const auto q = test::random_vector(n, seed + 1);
        const auto inv_diag = positive_vector(n, seed + 2);
        const double alpha = 0.37;
        std::vector<double> r = test::random_vector(n, seed), r_ref = r, z(n);
        double rz = 0.0;
        const double r_norm = ops::residual_update(alpha, q, jacobi ? inv_diag : std::vector<double>{}, r, rz);
        // --- unfused: r -= alpha q; z = M^-1 r; r.z and |r|_1 in separate passes
        for (label i = 0; i < n; ++i) r_ref[i] -= alpha * q[i];
        const double rz_ref = jacobi ? ops::jacobi_apply_dot(r_ref, inv_diag, z) : ops::dot(r_ref, r_ref);
        const double norm_ref = ops::sum_abs(r_ref);
        EXPECT_EQ(r, r_ref);
        expect_close(rz, rz_ref, rz_ref);
        expect_close(r_norm, norm_ref, norm_ref);
        // --- bit-identical on a repeat with the same thread count
        std::vector<double> r2 = test::random_vector(n, seed);
        double rz2 = 0.0;
        EXPECT_EQ(ops::residual_update(alpha, q, jacobi ? inv_diag : std::vector<double>{}, r2, rz2), r_norm);
        EXPECT_EQ(rz2, rz);
      }
}

TEST(FusedVectorOps, SolutionAndDirectionUpdateEqualsAxpyThenXpby) {
  const std::uint64_t seed = fresh_seed();
  for (int threads : {1, 2})
    for (label n : {1, 1000, 2 * static_cast<label>(min_parallel_rows) + 3})
      for (bool jacobi : {false, true}) {
        SCOPED_TRACE(fmt::format("seed {}, {} threads, n {}, jacobi {}", seed, threads, n, jacobi));
        Threads scope(threads);
        const auto r = test::random_vector(n, seed);
        const auto inv_diag = positive_vector(n, seed + 1);
        const double alpha = -0.8, beta = 0.45;
        std::vector<double> p = test::random_vector(n, seed + 2), x = test::random_vector(n, seed + 3);
        std::vector<double> p_ref = p, x_ref = x, z(n);
        ops::solution_and_direction_update(alpha, beta, r, jacobi ? inv_diag : std::vector<double>{}, p, x);
        ops::axpy(alpha, p_ref, x_ref);
        if (jacobi)
          ops::jacobi_apply_dot(r, inv_diag, z);
        else
          z = r;
        ops::xpby(z, beta, p_ref);
        EXPECT_EQ(x, x_ref);
        EXPECT_EQ(p, p_ref);
      }
}

/// Rows above the parallel threshold of the symmetric kernels.
constexpr label symmetric_big_rows = 2 * static_cast<label>(min_parallel_rows) + 11;

/// Matrices for the symmetric kernels: below and above the parallel threshold, and a box. With
/// the "random" ordering the transposed scatter reaches across every thread block, in natural
/// order only into the next.
std::vector<std::pair<std::string, LduMatrix>> symmetric_test_matrices(std::uint64_t seed) {
  std::vector<std::pair<std::string, LduMatrix>> matrices;
  matrices.emplace_back("random small", test::random_matrix(300, 6, seed));
  matrices.emplace_back("random big", test::random_matrix(symmetric_big_rows, 5, seed + 1));
  matrices.emplace_back("box 40x30x20", test::box_matrix(40, 30, 20, seed + 2));
  return matrices;
}

TEST(SymmetricSpmv, EqualsCsrAndItsDotOnRandomAndBoxMatrices) {
  const std::uint64_t seed = fresh_seed();
  auto matrices = symmetric_test_matrices(seed);
  matrices.emplace_back("star", test::star_matrix(symmetric_big_rows, seed + 3));
  for (const auto& [name, m] : matrices)
    for (const std::string ordering : {"none", "rcm", "random"})
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(fmt::format("seed {}, {}, ordering {}, {} threads", seed, name, ordering, threads));
        Threads scope(threads);
        const Permutation perm = make_ordering(ordering, *m.addressing, seed);
        const CsrMatrix csr = permuted_csr(m, perm);
        const SymmetricMatrix sym = build_symmetric(csr);
        const label n = m.n_rows();
        const auto x = test::random_vector(n, seed + 4);
        std::vector<double> y(n, std::nan("")), y_ref(n);
        const double dot = ops::symmetric_spmv(sym, x, y);
        ops::csr_spmv(csr, x, y_ref);
        double scale = 0.0;
        for (label i = 0; i < n; ++i) scale = std::max(scale, std::abs(y_ref[i]));
        for (label i = 0; i < n; ++i) ASSERT_LE(std::abs(y[i] - y_ref[i]), 1e-13 * scale) << "row " << i;
        double dot_scale = 0.0;
        for (label i = 0; i < n; ++i) dot_scale += std::abs(x[i] * y_ref[i]);
        expect_close(dot, ops::dot(x, y_ref), dot_scale);
        // --- deterministic for a given thread count
        std::vector<double> y2(n);
        EXPECT_EQ(ops::symmetric_spmv(sym, x, y2), dot);
        EXPECT_EQ(y2, y);
      }
}

TEST(SymmetricCgSweep, EqualsTheUnfusedUpdatesAndProduct) {
  const std::uint64_t seed = fresh_seed();
  auto matrices = symmetric_test_matrices(seed);
  matrices.emplace_back("one row", test::random_matrix(1, 0, seed + 3));
  for (const auto& [name, m] : matrices)
    for (const std::string ordering : {"none", "rcm", "random"})
      for (int threads : {1, 2, 3})
        for (bool jacobi : {false, true}) {
          SCOPED_TRACE(fmt::format("seed {}, {}, ordering {}, {} threads, jacobi {}", seed, name, ordering, threads,
                                   jacobi));
          Threads scope(threads);
          const CsrMatrix csr = permuted_csr(m, make_ordering(ordering, *m.addressing, seed));
          const SymmetricMatrix sym = build_symmetric(csr);
          const label n = m.n_rows();
          const double alpha = 0.3, beta = 0.7;
          std::vector<double> x = test::random_vector(n, seed + 6), r = test::random_vector(n, seed + 7),
                              p = test::random_vector(n, seed + 8), q = test::random_vector(n, seed + 9);
          std::vector<double> x_ref = x, r_ref = r, p_ref = p, q_old = q, q_ref(n), z(n);
          const reference::CgSweepSums sums = ops::symmetric_cg_sweep(sym, alpha, beta, x, r, p, q, jacobi);
          // --- unfused: r -= alpha q; x += alpha p; z = M^-1 r (M = diag(A) or I); p = z + beta p; q = A p
          const double* diag = sym.diagonal();
          for (label i = 0; i < n; ++i) r_ref[i] -= alpha * q_old[i];
          ops::axpy(alpha, p_ref, x_ref);
          for (label i = 0; i < n; ++i) z[i] = jacobi ? r_ref[i] / diag[i] : r_ref[i];
          ops::xpby(z, beta, p_ref);
          ops::csr_spmv(csr, p_ref, q_ref);
          EXPECT_EQ(r, r_ref);
          EXPECT_EQ(x, x_ref);
          EXPECT_EQ(p, p_ref);
          double q_scale = 0.0;
          for (double v : q_ref) q_scale = std::max(q_scale, std::abs(v));
          for (label i = 0; i < n; ++i) ASSERT_LE(std::abs(q[i] - q_ref[i]), 1e-13 * q_scale) << "row " << i;
          // --- the sums, each against its own pass
          std::vector<double> mq(n);
          for (label i = 0; i < n; ++i) mq[i] = jacobi ? q_ref[i] / diag[i] : q_ref[i];
          auto abs_dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
            double t = 0.0;
            for (label i = 0; i < n; ++i) t += std::abs(u[i] * v[i]);
            return t;
          };
          expect_close(sums.r_norm1, ops::sum_abs(r_ref), ops::sum_abs(r_ref));
          expect_close(sums.rz, ops::dot(r_ref, z), abs_dot(r_ref, z));
          expect_close(sums.pq, ops::dot(p_ref, q_ref), abs_dot(p_ref, q_ref));
          expect_close(sums.rq, ops::dot(r_ref, mq), abs_dot(r_ref, mq));
          expect_close(sums.qq, ops::dot(q_ref, mq), abs_dot(q_ref, mq));
        }
}

TEST(SymmetricSpmv, RefusesAnAsymmetricPattern) {
  CsrMatrix csr;
  csr.n_rows = 2;
  csr.row_ptr = {0, 2, 3};
  csr.col = {0, 1, 1};
  csr.values = {1.0, 2.0, 3.0};
  EXPECT_THROW(build_symmetric(csr), std::invalid_argument);
}

TEST(FusedCg, SymmetricAndCsrSolveAlikeWithTwoThreadsAndRunToRunIdentical) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  Threads scope(2);
  const LduMatrix m = test::box_matrix(40, 30, 20, seed);
  const label n = m.n_rows();
  const auto b = test::random_vector(n, seed + 1);
  for (const std::string preconditioner : {"none", "diagonal"}) {
    SCOPED_TRACE(preconditioner);
    SolverSettings s;
    s.preconditioner = preconditioner;
    s.tolerance = 1e-10;
    s.max_iter = 2000;
    auto csr = make_reference_operator(m, prepare_format(m, "csr", "none", {}));
    auto sym = make_reference_operator(m, prepare_format(m, "symmetric", "none", {}));
    CgWorkspace work;
    std::vector<double> x_csr(n, 0.0), x_sym(n, 0.0), x_again(n, 0.0);
    const auto p_csr = reference_cg(*csr, x_csr, b, s, work);
    const auto p_sym = reference_cg(*sym, x_sym, b, s, work);
    const auto p_again = reference_cg(*sym, x_again, b, s, work);
    EXPECT_TRUE(p_csr.converged);
    EXPECT_TRUE(p_sym.converged);
    EXPECT_NEAR(p_sym.iterations, p_csr.iterations, 2);
    double x_scale = 0.0;
    for (double v : x_csr) x_scale = std::max(x_scale, std::abs(v));
    for (label i = 0; i < n; ++i) ASSERT_NEAR(x_sym[i], x_csr[i], 1e-7 * x_scale) << "row " << i;
    EXPECT_EQ(p_again.final_residual, p_sym.final_residual);
    EXPECT_EQ(x_again, x_sym);
  }
}

// The same operator without its fused sweep: the reference CG takes the three-pass path.
class WithoutSweep final : public HostOperator {
 public:
  explicit WithoutSweep(const HostOperator& a) : a_(a) {}
  label n_rows() const override { return a_.n_rows(); }
  void multiply(std::span<const double> x, std::span<double> y) const override { a_.multiply(x, y); }
  std::span<const double> diagonal() const override { return a_.diagonal(); }
  void refresh_values(const LduMatrix&) override {}
  std::string format_name() const override { return a_.format_name(); }

 private:
  const HostOperator& a_;
};

TEST(FusedCg, OnePassIteratesLikeThreePasses) {
  const std::uint64_t seed = fresh_seed();
  Threads scope(2);
  const LduMatrix m = test::box_matrix(30, 30, 20, seed);
  const label n = m.n_rows();
  const auto b = test::random_vector(n, seed + 1);
  auto sym = make_reference_operator(m, prepare_format(m, "symmetric", "rcm", {}, seed));
  ASSERT_TRUE(sym->has_cg_sweep());
  const WithoutSweep plain(*sym);
  for (const std::string preconditioner : {"none", "diagonal"})
    for (int max_iter : {1, 2, 5, 20, 60}) {
      SCOPED_TRACE(fmt::format("seed {}, {}, maxIter {}", seed, preconditioner, max_iter));
      SolverSettings s;
      s.preconditioner = preconditioner;
      s.tolerance = 0.0;
      s.max_iter = max_iter;
      CgWorkspace work;
      std::vector<double> x_one(n, 0.0), x_three(n, 0.0);
      const auto one = reference_cg(*sym, x_one, b, s, work);
      const auto three = reference_cg(plain, x_three, b, s, work);
      EXPECT_EQ(one.iterations, max_iter);
      EXPECT_EQ(three.iterations, max_iter);
      // --- the same iterates up to rounding, which grows as the residual nears machine precision:
      // below about 1e-13 of the initial residual the sums' rounding (1e-16 of it) dominates
      EXPECT_NEAR(one.final_residual, three.final_residual,
                  1e-6 * three.final_residual + 1e-15 * three.initial_residual);
      double x_scale = 0.0;
      for (double v : x_three) x_scale = std::max(x_scale, std::abs(v));
      for (label i = 0; i < n; ++i) ASSERT_NEAR(x_one[i], x_three[i], 1e-9 * x_scale) << "row " << i;
    }
  // --- and both stop at the same iteration on a tolerance
  SolverSettings s;
  s.preconditioner = "diagonal";
  s.tolerance = 1e-8;
  s.max_iter = 1000;
  CgWorkspace work;
  std::vector<double> x_one(n, 0.0), x_three(n, 0.0);
  const auto one = reference_cg(*sym, x_one, b, s, work);
  const auto three = reference_cg(plain, x_three, b, s, work);
  EXPECT_TRUE(one.converged);
  EXPECT_EQ(one.iterations, three.iterations);
}

}  // namespace
}  // namespace fvmmini
