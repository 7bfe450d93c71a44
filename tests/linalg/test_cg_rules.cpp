// The rules both CGs share (solvers/krylov/cg_rules.hpp): the stopping tests, the breakdown test, the
// checks of the matrix before a solve, and each failure's message.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/krylov/cg_rules.hpp"

namespace fvmmini {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

TEST(CgRules, ConvergedOnTheAbsoluteToleranceOrRelativeToTheInitialResidual) {
  const CgStop absolute{1e-6, 0.0, 100};
  EXPECT_TRUE(cg_converged(9e-7, 1.0, absolute));
  EXPECT_FALSE(cg_converged(1e-6, 1.0, absolute));     // strictly below
  EXPECT_FALSE(cg_converged(2e-6, 1e-5, absolute));    // relTol 0 is off, however far it fell
  const CgStop relative{1e-12, 0.01, 100};
  EXPECT_TRUE(cg_converged(0.9e-3, 0.1, relative));    // below 0.01 * initial
  EXPECT_FALSE(cg_converged(1e-3, 0.1, relative));     // equal: not below
  EXPECT_FALSE(cg_converged(2e-3, 0.1, relative));
  EXPECT_TRUE(cg_converged(1e-13, 0.0, relative));     // the absolute tolerance still counts
}

TEST(CgRules, StatusAfterAnIterationTestsFiniteThenConvergedThenMaxIter) {
  const CgStop stop{1e-6, 0.0, 5};
  EXPECT_EQ(cg_status_after(0.5, 1.0, 2, stop), CgStatus::running);
  EXPECT_EQ(cg_status_after(1e-7, 1.0, 2, stop), CgStatus::converged);
  EXPECT_EQ(cg_status_after(0.5, 1.0, 5, stop), CgStatus::max_iterations);
  EXPECT_EQ(cg_status_after(1e-7, 1.0, 5, stop), CgStatus::converged);  // converged on the last one allowed
  EXPECT_EQ(cg_status_after(nan, 1.0, 3, stop), CgStatus::residual_not_finite);
  EXPECT_EQ(cg_status_after(inf, 1.0, 3, stop), CgStatus::residual_not_finite);
  // --- iteration 0 is the initial residual
  EXPECT_EQ(cg_status_after(nan, nan, 0, stop), CgStatus::initial_not_finite);
  EXPECT_EQ(cg_status_after(1e-7, 1e-7, 0, stop), CgStatus::converged);
  EXPECT_EQ(cg_status_after(0.5, 0.5, 0, stop), CgStatus::running);
  EXPECT_EQ(cg_status_after(0.5, 0.5, 0, CgStop{1e-6, 0.0, 0}), CgStatus::max_iterations);
  // --- relTol against the initial residual, not against the residual itself
  EXPECT_EQ(cg_status_after(0.5, 0.5, 0, CgStop{1e-6, 0.9, 5}), CgStatus::running);
  EXPECT_EQ(cg_status_after(0.4, 0.5, 1, CgStop{1e-6, 0.9, 5}), CgStatus::converged);
}

TEST(CgRules, StopComesFromTheSettings) {
  SolverSettings s;
  s.tolerance = 1e-8;
  s.rel_tol = 0.05;
  s.max_iter = 37;
  const CgStop stop = cg_stop(s);
  EXPECT_EQ(stop.tolerance, 1e-8);
  EXPECT_EQ(stop.rel_tol, 0.05);
  EXPECT_EQ(stop.max_iter, 37);
  s.max_iter = -3;
  EXPECT_EQ(cg_stop(s).max_iter, 0);
}

TEST(CgRules, TheNextBatchIsFourFifthsOfTheIterationsTheFallSaysAreLeft) {
  const CgStop absolute{1e-3, 0.0, 1000};
  // a tenfold fall in 10 iterations, two decades to go: 20 left, 16 queued
  EXPECT_EQ(cg_next_batch(10, 1.0, 0.1, 1.0, absolute, 8, 100), 16);
  EXPECT_EQ(cg_next_batch(10, 1.0, 0.1, 1.0, absolute, 8, 5), 5);  // at most cap
  // relTol: the target is 0.01 of the initial residual, one decade below 0.1
  EXPECT_EQ(cg_next_batch(10, 1.0, 0.1, 1.0, CgStop{1e-12, 0.01, 1000}, 8, 100), 8);
  EXPECT_EQ(cg_next_batch(10, 1.0, 1.1e-3, 1.0, absolute, 8, 100), 1);  // almost there: one
  // no fall to measure: the caller's default, within the cap
  EXPECT_EQ(cg_next_batch(4, 0.5, 0.6, 1.0, absolute, 8, 100), 8);
  EXPECT_EQ(cg_next_batch(4, 0.5, 0.6, 1.0, absolute, 8, 3), 3);
  EXPECT_EQ(cg_next_batch(0, 0.5, 0.4, 1.0, absolute, 8, 100), 8);
  EXPECT_EQ(cg_next_batch(4, 0.5, nan, 1.0, absolute, 8, 100), 8);
  // no residual stops it (tolerance and relTol zero: only max_iter): the cap
  EXPECT_EQ(cg_next_batch(4, 0.5, 0.4, 1.0, CgStop{0.0, 0.0, 1000}, 8, 64), 64);
  // stagnating (a fall far too slow for the iterations left): the cap
  EXPECT_EQ(cg_next_batch(4, 1.0, 1.0 - 1e-15, 1.0, absolute, 8, 64), 64);
}

TEST(CgRules, TheBatchesGrowByHalfExceptInMixedPrecision) {
  EXPECT_EQ(cg_batch_cap(0, 8, false), 8);
  EXPECT_EQ(cg_batch_cap(15, 8, false), 8);
  EXPECT_EQ(cg_batch_cap(100, 8, false), 50);
  EXPECT_EQ(cg_batch_cap(100, 8, true), 8);
}

TEST(CgRules, BatchesFromTheFallNeverQueuePastConvergence) {
  // the device CG's loop (DeviceCg::run_batches) on residuals rate^(k (1 + speedup k / K)), K
  // the iterations the rate alone would take: geometric (speedup 0) and falling faster as they
  // go (CG's superlinear convergence; doubling batches ran past it there)
  const CgStop stop{1e-6, 0.0, 100000};
  for (const double speedup : {0.0, 1.0, 2.0})
    for (const double rate : {0.3, 0.5, 0.8, 0.95, 0.99}) {
      const double k0 = std::log(stop.tolerance) / std::log(rate);
      const auto residual = [&](int k) { return std::pow(rate, k * (1.0 + speedup * k / k0)); };
      int converged_at = 1;
      while (!cg_converged(residual(converged_at), 1.0, stop)) ++converged_at;
      for (const int first : {1, 8, std::max(1, converged_at - 1)}) {
        int queued = first, checks = 0, last = 0;
        while (true) {
          ++checks;
          const int done = std::min(queued, converged_at);
          if (cg_converged(residual(done), 1.0, stop)) break;
          queued += cg_next_batch(done - last, residual(last), residual(done), 1.0, stop, 8,
                                  cg_batch_cap(queued, 8, false));
          last = done;
        }
        const std::string what = "rate " + std::to_string(rate) + ", speedup " + std::to_string(speedup) +
                                 ", first batch " + std::to_string(first) + ", " + std::to_string(converged_at) +
                                 " iterations";
        // none past it, but where a batch of the least size (8) covers it: a first batch, or
        // one after a first check that measured little
        if (first < converged_at && converged_at >= 2 * 8) {
          EXPECT_EQ(queued, converged_at) << what;
        }
        EXPECT_LE(queued, std::max(converged_at, first + 8)) << what;
        // a check for each growth by half, and a few to close in
        EXPECT_LE(checks, std::log(std::max(converged_at, 8) / 8.0) / std::log(1.5) + 7) << what;
      }
    }
}

TEST(CgRules, TheDeviceLoopsLeadIsTheLastCountLessAnEighthAndOne) {
  EXPECT_EQ(cg_loop_lead(0, 8, 1000), 8);     // a first solve
  EXPECT_EQ(cg_loop_lead(0, 8, 5), 5);        // never past max_iter
  EXPECT_EQ(cg_loop_lead(1, 8, 1000), 0);     // the loop runs it
  EXPECT_EQ(cg_loop_lead(10, 8, 1000), 8);
  EXPECT_EQ(cg_loop_lead(26, 8, 1000), 22);   // a count that falls to 22 or more stays inside
  EXPECT_EQ(cg_loop_lead(453, 8, 1000), 396);
  EXPECT_EQ(cg_loop_lead(453, 8, 300), 300);
  EXPECT_EQ(cg_loop_lead(5, 8, 0), 0);
}

TEST(CgRules, BreakdownWhenCurvatureIsNotPositive) {
  EXPECT_FALSE(cg_breaks_down(1e-300));
  EXPECT_TRUE(cg_breaks_down(0.0));
  EXPECT_TRUE(cg_breaks_down(-2.0));
  EXPECT_TRUE(cg_breaks_down(nan));
}

TEST(CgRules, SingularWhenEveryRowSumsToZeroAgainstItsDiagonal) {
  const std::vector<double> diagonal{2.0, 4.0, 2.0};
  EXPECT_TRUE(cg_singular(std::vector<double>{0.0, 0.0, 0.0}, diagonal));
  EXPECT_TRUE(cg_singular(std::vector<double>{1e-13, -3e-12, 0.0}, diagonal));  // rounding: |s_i| <= 1e-12 |a_ii|
  EXPECT_FALSE(cg_singular(std::vector<double>{0.0, 0.0, 1e-3}, diagonal));     // one fixed value anchors it
  EXPECT_FALSE(cg_singular(std::vector<double>{0.0, 5e-12, 0.0}, diagonal));
  EXPECT_TRUE(cg_singular(std::vector<double>{0.0}, std::vector<double>{0.0}));  // an empty row
}

TEST(CgRules, FirstDiagonalEntryJacobiCannotTake) {
  EXPECT_EQ(cg_nonpositive_diagonal(std::vector<double>{1.0, 2.0, 3.0}), -1);
  EXPECT_EQ(cg_nonpositive_diagonal(std::vector<double>{1.0, 0.0, -3.0}), 1);
  EXPECT_EQ(cg_nonpositive_diagonal(std::vector<double>{1.0, 2.0, -3.0}), 2);
  EXPECT_EQ(cg_nonpositive_diagonal(std::vector<double>{nan, 2.0}), 0);
  EXPECT_EQ(cg_nonpositive_diagonal(std::vector<double>{}), -1);
}

TEST(CgRules, EachFailureHasOneMessageNamingWhatFailed) {
  auto message = [](const CgFailure& f) { return std::string(cg_error(f).what()); };
  // --- breakdowns name the iteration in which they happened: the one after those completed
  EXPECT_EQ(message({CgStatus::breakdown, 0, -1.25}),
            "CG breakdown at iteration 1: p'Ap = -1.25 (the matrix is not positive definite)");
  EXPECT_EQ(message({CgStatus::breakdown, 6, nan}),
            "CG breakdown at iteration 7: p'Ap = nan (the matrix is not positive definite, or NaN appeared)");
  EXPECT_EQ(message({CgStatus::preconditioner_breakdown, 2, -0.5}),
            "PCG breakdown at iteration 3: r'M^-1 r = -0.5 (the preconditioner is not positive definite)");
  EXPECT_EQ(message({CgStatus::preconditioner_breakdown, 0, nan}),
            "PCG breakdown at iteration 1: r'M^-1 r = nan (the preconditioner is not positive definite, or NaN "
            "appeared)");
  EXPECT_EQ(message({CgStatus::residual_not_finite, 4}), "CG: residual is NaN at iteration 4");
  EXPECT_EQ(message({CgStatus::initial_not_finite}), "CG: initial residual is not finite (NaN or Inf in A, x or b)");
  EXPECT_EQ(message({CgStatus::singular}),
            "singular system: every row sums to zero (no fixedValue boundary and no reference level); "
            "set a fixedValue patch or discretisation.referenceCell");
  EXPECT_EQ(message({CgStatus::nonpositive_diagonal, 0, -2.5, 17}), "Jacobi: diagonal entry 17 is -2.5 (not positive)");
  // --- a status that is not a failure has no error
  for (const CgStatus status : {CgStatus::running, CgStatus::converged, CgStatus::max_iterations})
    EXPECT_THROW(cg_error({status}), std::invalid_argument) << static_cast<int>(status);
}

}  // namespace
}  // namespace fvmmini
