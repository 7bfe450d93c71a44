#pragma once
// OpenFOAM's PBiCGStab on the reference backend: the stabilised bi-conjugate gradients of
// van der Vorst (1992), preconditioned on the right as OpenFOAM's PBiCGStab writes it, for
// matrices that need not be symmetric (the momentum matrix with implicit convection).

#include <memory>
#include <span>

#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "solvers/krylov/work_store.hpp"
#include "solvers/preconditioners/preconditioner.hpp"

namespace fvmmini {

/// Work vectors (views of its store's buffers, taken at the start of every solve); y and z (the
/// preconditioned directions) are not used under preconditioner none.
struct BiCgStabWorkspace {
  std::span<double> r, r0, p, v, t, y, z, row_sums, inv_diag;
  std::shared_ptr<WorkStore> store = std::make_shared<WorkStore>();
  void resize(label n);
};

/// Solve A x = b by PBiCGStab: unpreconditioned ("none"), with Jacobi ("diagonal"), or with a
/// set-up `preconditioner` applied to the search and the intermediate directions. Each iteration:
/// y = M^-1 p, v = A y, alpha = r0.r / r0.v, s = r - alpha v; stop there (x += alpha y) where s
/// passes the tolerances; z = M^-1 s, t = A z, omega = t.s / t.t, x += alpha y + omega z,
/// r = s - omega t. Residuals, normalisation and stopping rules as reference_cg's (OpenFOAM's);
/// where r0.r or omega vanishes (|.| < 1e-300) the method stops as OpenFOAM's does, the solve
/// not converged unless the residual says so.
/// @param[in,out] x initial guess in, solution out
/// @throws SolverError for a singular system, a diagonal entry Jacobi cannot take, or a residual
///         that is not finite; std::invalid_argument for an applied preconditioner not set up
SolverPerformance reference_bicgstab(const HostOperator& a, std::span<double> x, std::span<const double> b,
                                     const SolverSettings& settings, BiCgStabWorkspace& work,
                                     HostPreconditioner* preconditioner = nullptr);

}  // namespace fvmmini
