#pragma once
// Conjugate gradients on the reference backend, flat and annotated in the manner
// of HPCG, with OpenFOAM's residual normalisation and stopping rules.

#include <span>
#include <vector>

#include "registry/host_operator.hpp"
#include "registry/preconditioner.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

/// Work vectors kept between solves so no solve allocates. Under none and diagonal z = M^-1 r is
/// never stored: the passes that need it recompute it from r and inv_diag.
struct CgWorkspace {
  std::vector<double> r, p, q, row_sums, inv_diag;
  std::vector<double> z;  ///< M^-1 r, for the preconditioners that are not fused (DIC, mcsgs, GAMG)
  void resize(label n);
};

/// Solve A x = b by CG (preconditioner "none"), Jacobi-PCG ("diagonal"), or PCG with the set-up
/// `preconditioner` (DIC, mcsgs, GAMG: z = M^-1 r kept in the workspace).
/// Residual = sum|b - Ax| / normFactor, normFactor = sum(|Ax - A x̄| + |b - A x̄|) + 1e-20, x̄ = mean(x)
/// (OpenFOAM's). Stops when residual < tolerance, residual < relTol * initial, or maxIter. These
/// rules and the errors' messages are the device CG's too: linalg/cg_rules.hpp.
/// @param[in,out] x initial guess in, solution out
/// @param[in] preconditioner the set-up DIC, mcsgs or GAMG, in the operator's numbering; null otherwise
/// @throws SolverError on breakdown (p'Ap <= 0, r'M^-1 r <= 0, or NaN), a residual that is not
///         finite, a singular system (every row sum zero: no fixed value and no reference level)
///         and a diagonal entry that is not positive under Jacobi;
///         std::invalid_argument for DIC, mcsgs or GAMG without a preconditioner
SolverPerformance reference_cg(const HostOperator& a, std::span<double> x, std::span<const double> b,
                               const SolverSettings& settings, CgWorkspace& work,
                               HostPreconditioner* preconditioner = nullptr);

}  // namespace fvmmini
