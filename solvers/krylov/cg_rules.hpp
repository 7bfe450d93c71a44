#pragma once
// The rules both CGs follow, written once: the reference CG (solvers/krylov/reference_cg) and the device
// CG (solvers/krylov/cuda/device_cg). OpenFOAM's stopping tests on the normalised residual, the
// breakdown test, the checks of the matrix before a solve, and one message per failure. The tests
// a kernel evaluates are inline and compile for host and device.

#include <cmath>
#include <span>

#include "comm/communicator.hpp"
#include "linalg/solver_settings.hpp"

#if defined(__CUDACC__)
#define FVMMINI_CG_HD __host__ __device__
#else
#define FVMMINI_CG_HD
#endif

namespace fvmmini {

/// OpenFOAM's SMALL, added to the residual's normalisation factor: keeps it finite for b = 0, x = 0.
inline constexpr double cg_small = 1e-20;

/// Why a CG stopped, or that it has not. The device CG keeps it as an int in device memory that
/// its kernels and the preconditioners' kernels read: running must stay 0 (nonzero means stop).
enum class CgStatus : int {
  running = 0,
  converged,
  max_iterations,
  breakdown,                 ///< p'Ap not positive: the matrix is not positive definite, or NaN
  preconditioner_breakdown,  ///< r'M^-1 r not positive: the preconditioner is not, or NaN
  residual_not_finite,       ///< after an iteration
  initial_not_finite,        ///< NaN or Inf in A, x or b
  singular,                  ///< every row sums to zero (cg_singular)
  nonpositive_diagonal,      ///< Jacobi on a diagonal entry that is not positive
};

/// The stopping settings as plain values, for a kernel argument.
struct CgStop {
  double tolerance;  ///< absolute, on the normalised residual
  double rel_tol;    ///< against the initial residual; 0: off
  int max_iter;      ///< >= 0
};

/// The settings' stopping rules (a negative max_iter is 0: no iteration).
inline CgStop cg_stop(const SolverSettings& s) { return {s.tolerance, s.rel_tol, s.max_iter > 0 ? s.max_iter : 0}; }

/// residual < tolerance, or residual < rel_tol * initial when rel_tol > 0.
FVMMINI_CG_HD inline bool cg_converged(double residual, double initial, const CgStop& stop) {
  return residual < stop.tolerance || (stop.rel_tol > 0.0 && residual < stop.rel_tol * initial);
}

/// The status once `iterations` iterations are done and the normalised residual is `residual`
/// (0 iterations: the initial residual, which is also `initial`). In this order: not finite,
/// converged, max_iter reached; otherwise running.
FVMMINI_CG_HD inline CgStatus cg_status_after(double residual, double initial, int iterations, const CgStop& stop) {
  if (!std::isfinite(residual)) return iterations == 0 ? CgStatus::initial_not_finite : CgStatus::residual_not_finite;
  if (cg_converged(residual, initial, stop)) return CgStatus::converged;
  if (iterations >= stop.max_iter) return CgStatus::max_iterations;
  return CgStatus::running;
}

/// The device CG's next batch of iterations, queued before the host reads the state again: from
/// the residual's fall per iteration over the last `done` iterations (`before` to `now`), the
/// iterations left to the stopping point, four fifths of them rounded down, at least one and at
/// most `cap`, so that the batch ends short of convergence rather than past it (an iteration
/// queued past it costs nearly a whole one, a check a few microseconds); `unmeasured` where the
/// residual did not fall; `cap` where no residual stops it (tolerance and relTol zero: max_iter does).
inline int cg_next_batch(int done, double before, double now, double initial, const CgStop& stop, int unmeasured,
                         int cap) {
  double target = stop.tolerance;
  if (stop.rel_tol > 0.0) target = std::fmax(target, stop.rel_tol * initial);
  if (!(target > 0.0)) return cap;
  if (done <= 0 || !(now > 0.0) || !(now < before)) return unmeasured < cap ? unmeasured : cap;
  const double left = std::log(target / now) / (std::log(now / before) / done);
  if (!(left < static_cast<double>(cap))) return cap;
  const int batch = static_cast<int>(0.8 * left);
  return batch > 1 ? batch : 1;
}

/// The largest batch the device CG queues after `queued` iterations: half as many again, at
/// least `interval` (in mixed precision `interval`: its residual replacements follow the checks).
/// The batches grow by half, not double, because CG's residual often falls faster as it goes: a
/// batch sized from the fall so far then ends past the stopping point (doubling let a first
/// solve of about 450 iterations run 59 past it where the fall sped up twofold; half as many
/// again, none, at a few checks more).
inline int cg_batch_cap(int queued, int interval, bool mixed) {
  return mixed || queued / 2 < interval ? interval : queued / 2;
}

/// Where the device runs the CG's iterations as its own loop (a test and a relaunch after each):
/// how many to queue unrolled ahead of the loop, which then runs the rest. An unrolled iteration
/// costs no test, so the lead is the last solve's count less an eighth and one (time steps change
/// slowly; a count that falls by more runs past convergence inside the lead); `interval` for a
/// first solve; never more than max_iter.
inline int cg_loop_lead(int last_iterations, int interval, int max_iter) {
  const int lead = last_iterations > 0 ? last_iterations - 1 - last_iterations / 8 : interval;
  return lead < 0 ? 0 : lead < max_iter ? lead : max_iter;
}

/// The breakdown test on p'Ap (CgStatus::breakdown) and on r'M^-1 r (preconditioner_breakdown):
/// CG needs both positive, so a matrix and a preconditioner that are positive definite; NaN fails.
FVMMINI_CG_HD inline bool cg_breaks_down(double curvature) { return !(curvature > 0.0); }

/// Whether every row of A sums to zero (|s_i| <= 1e-12 |a_ii|, s = A 1), so that the constant
/// vector is in the null space: no fixed value and no reference level.
bool cg_singular(std::span<const double> row_sums, std::span<const double> diagonal);

/// The first row whose diagonal entry Jacobi cannot take (not positive, or NaN); -1 when none.
label cg_nonpositive_diagonal(std::span<const double> diagonal);

/// Jacobi's check over the ranks of comm (collective; one rank alone checks its own diagonal).
/// @throws SolverError (CgStatus::nonpositive_diagonal) on every rank when any rank's diagonal has
///         an entry that is not positive, naming the first such rank's first such entry
void cg_check_diagonal(std::span<const double> diagonal, const Communicator& comm);
/// The same from the rank's first such entry found already (cg_nonpositive_diagonal: row, -1 when
/// none, and its value), for a solver that keeps no host copy of its diagonal.
void cg_check_nonpositive(label row, double value, const Communicator& comm);

/// What a failure's message reports. `iterations`: those completed when it was found (a
/// breakdown names the next one, in which it happened); `value`: the p'Ap, r'M^-1 r or
/// diagonal entry that failed; `row`: the diagonal entry's.
struct CgFailure {
  CgStatus status = CgStatus::running;
  int iterations = 0;
  double value = 0.0;
  label row = 0;
};

/// The error of a failed solve, its message naming what failed and where.
/// @throws std::invalid_argument for a status that is not a failure (running, converged, max_iterations)
SolverError cg_error(const CgFailure& failure);

}  // namespace fvmmini
