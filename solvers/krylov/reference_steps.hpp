#pragma once
// The steps every Krylov method of the reference backend takes alike (reference_cg,
// reference_bicgstab): the checks of the system before a solve, OpenFOAM's normalised initial
// residual, and the count of an iteration against the stopping rules (cg_rules.hpp).

#include <span>

#include <string>

#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/preconditioners/preconditioner.hpp"

namespace fvmmini {

/// s = A 1 into row_sums (ones: n values of scratch, left at 1), for the normalisation and the
/// singularity check; under Jacobi the positive-diagonal check and inv_diag = 1 / diag. Over all
/// ranks: singular when every rank's rows are; the first rank's bad diagonal entry named.
/// @throws SolverError (cg_error) for a singular system or a diagonal entry Jacobi cannot take
void check_system(const HostOperator& a, bool jacobi, std::span<double> ones, std::span<double> row_sums,
                  std::span<double> inv_diag);

/// Where a solve stands after its start.
struct KrylovStart {
  SolverPerformance perf;  ///< the solve line's name and the initial residual
  CgStop stop;
  double norm_factor = 0.0;  ///< OpenFOAM's, over all ranks
  bool jacobi = false;       ///< inv_diag holds 1 / diag
  bool applied = false;      ///< the set-up preconditioner applies M^-1
  bool done = false;         ///< nothing to iterate (no rows, converged, or maxIter 0): perf is the result
};

/// The vectors start_solve writes: n values each.
struct KrylovStartVectors {
  std::span<double> ones;      ///< scratch (left at 1)
  std::span<double> row_sums;  ///< A 1
  std::span<double> inv_diag;  ///< 1 / diag under Jacobi
  std::span<double> ax;        ///< scratch for A x
  std::span<double> r;         ///< b - A x
};

/// The start every reference method makes: an applied preconditioner must be set up;
/// check_system; r = b - A x and the residual |r|_1 / normFactor, normFactor = sum(|A x - A x̄| +
/// |b - A x̄|) + 1e-20 (OpenFOAM's, x̄ the mean of x over all ranks); the stopping test before the
/// first iteration.
/// @param method the function's name, for the error of a preconditioner not set up
/// @throws SolverError (cg_error) for a singular system, a diagonal entry Jacobi cannot take or an
///         initial residual that is not finite; std::invalid_argument for a preconditioner not set up
KrylovStart start_solve(const std::string& method, const HostOperator& a, std::span<const double> x,
                        std::span<const double> b, const SolverSettings& settings, const HostPreconditioner* m,
                        const KrylovStartVectors& v);

/// a and b summed over the ranks of comm (one exchange for both).
void sum_pair(const Communicator& comm, double& a, double& b);

/// Counts an iteration with its residual. @return whether the method stops here (converged or
/// maxIter) @throws SolverError for a residual that is not finite
bool finish_iteration(double residual, const CgStop& stop, SolverPerformance& perf);

}  // namespace fvmmini
