#pragma once
// Conjugate gradients on the reference backend, flat and annotated in the manner
// of HPCG, with OpenFOAM's residual normalisation and stopping rules.

#include <memory>
#include <span>

#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "solvers/krylov/work_store.hpp"
#include "solvers/preconditioners/preconditioner.hpp"

namespace fvmmini {

/// Work vectors (views of its store's buffers, taken at the start of every solve). Under none and
/// diagonal z = M^-1 r is never stored: the passes that need it recompute it from r and inv_diag.
struct CgWorkspace {
  std::span<double> r, p, q, row_sums, inv_diag;
  std::span<double> z;  ///< M^-1 r, for the preconditioners that are not fused (DIC, mcsgs, GAMG)
  std::shared_ptr<WorkStore> store = std::make_shared<WorkStore>();
  void resize(label n);
};

/// Solve A x = b by CG (preconditioner "none"), Jacobi-PCG ("diagonal"), or PCG with the set-up
/// `preconditioner` (DIC, mcsgs, GAMG: z = M^-1 r kept in the workspace).
/// Residual = sum|b - Ax| / normFactor, normFactor = sum(|Ax - A x̄| + |b - A x̄|) + 1e-20, x̄ = mean(x)
/// (OpenFOAM's). Stops when residual < tolerance, residual < relTol * initial, or maxIter. These
/// rules and the errors' messages are the device CG's too: solvers/krylov/cg_rules.hpp.
/// @param[in,out] x initial guess in, solution out
/// @param[in] preconditioner the set-up DIC, mcsgs or GAMG, in the operator's numbering; null otherwise
/// @throws SolverError on breakdown (p'Ap <= 0, r'M^-1 r <= 0, or NaN), a residual that is not
///         finite, a singular system (every row sum zero: no fixed value and no reference level)
///         and a diagonal entry that is not positive under Jacobi;
///         std::invalid_argument for DIC, mcsgs or GAMG without a preconditioner
SolverPerformance reference_cg(const HostOperator& a, std::span<double> x, std::span<const double> b,
                               const SolverSettings& settings, CgWorkspace& work,
                               HostPreconditioner* preconditioner = nullptr);

/// Work vectors of reference_block_cg: k n values each, interleaved by row; row_sums and inv_diag n
/// (views of its store's buffers, as CgWorkspace's).
struct BlockCgWorkspace {
  std::span<double> r, p, q, row_sums, inv_diag;
  std::span<double> z;  ///< M^-1 R, for a preconditioner applied to the block (GAMG; taken on use)
  std::shared_ptr<WorkStore> store = std::make_shared<WorkStore>();
  void resize(label n, int k);
};

/// k systems A x_j = b_j with one operator at once (the velocity components of one momentum
/// matrix): CG or Jacobi-PCG (preconditioner none or diagonal), or PCG with a set-up
/// `preconditioner` that takes the k vectors together (HostPreconditioner::applies_block: GAMG) on
/// each, x and b holding the k vectors interleaved by row (x[i * k + j]), one multi-vector SpMV per
/// iteration for all of them (HostOperator::multiply_block). Each system has its own alpha and beta
/// and stops by reference_cg's rules on its own residual; one that has stopped is left as it is
/// (alpha and beta zero) while the others go on. Each result is reference_cg's on that system
/// alone: the same iterations, residuals and solution, bit for bit.
/// @param[in,out] x initial guesses in, solutions out
/// @return the k performance records, in order
/// @throws as reference_cg, for the first system that fails; std::invalid_argument for a
///         preconditioner that does not take the block or an operator without a multi-vector SpMV
std::vector<SolverPerformance> reference_block_cg(const HostOperator& a, int k, std::span<double> x,
                                                  std::span<const double> b, const SolverSettings& settings,
                                                  BlockCgWorkspace& work, HostPreconditioner* preconditioner = nullptr);

}  // namespace fvmmini
