#pragma once
// A linear solve's preconditioner on the reference backend: set up once per mesh in the
// operator's numbering (colouring, levels, triangles), refreshed when only the values change (no
// new analysis), applied here; the cuda backend builds the same factor on the device
// (kernels/cuda/triangular_preconditioner.hpp).
//   none, diagonal: nothing to set up (the CG fuses Jacobi into its vector passes).
//   DIC:   IC(0) on the LDU pattern, triangles split by the operator's numbering, so its
//          ordering decides the levels: natural and Cuthill-McKee give many, `ordering: colour`
//          as many as colours.
//   mcsgs: symmetric Gauss-Seidel on a greedy colouring of the operator's numbering, one level
//          per colour whatever the ordering; `sweeps` symmetric sweeps per application.
//   GAMG:  aggregation multigrid V-cycles (registry/multigrid.hpp).
// Across ranks DIC and mcsgs act on the rank's block (block Jacobi over the ranks); GAMG's levels
// couple the ranks, so it stays one multigrid of the whole matrix.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/preconditioners/triangular_factor.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "registry/multigrid.hpp"

namespace fvmmini {

class HostPreconditioner {
 public:
  /// @param[in] op the operator's numbering (new -> old mesh rows)
  /// @param[in] sequence the solve's ordering before a format's grouping (schedule_order)
  /// @param[in] ranks across ranks, the matrix's processor interfaces (GAMG couples its levels)
  /// @throws SolverError when the factor has a pivot that is not positive
  HostPreconditioner(const LduMatrix& matrix, const Permutation& op, const SolverSettings& settings,
                     std::span<const label> sequence = {}, GamgRanks ranks = {});
  ~HostPreconditioner();

  /// New values on the same addressing: the triangles and the pivots, not the levels.
  /// @param[in] interfaces across ranks, the interfaces' new coefficients (null: unchanged)
  void refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces = nullptr);

  Preconditioner kind() const { return kind_; }
  int sweeps() const { return sweeps_; }
  /// The triangles (DIC, mcsgs); null for the others.
  const TriangularFactor* factor() const { return factor_ ? &*factor_ : nullptr; }
  /// GAMG's multigrid; null for the others.
  HostGamg* gamg() { return gamg_.get(); }
  /// Whether apply() is set up (DIC, mcsgs, GAMG; none and diagonal are fused into the CG).
  bool applied() const { return factor_ || gamg_; }

  /// z = M^-1 r in the operator's numbering; `a` is the operator (mcsgs sweeps after the first
  /// relax on its rank's block's residual; GAMG's finest level is `a` itself, across ranks
  /// too). @pre applied()
  void apply(const HostOperator& a, std::span<const double> r, std::span<double> z);

  /// Set-up and refresh times, levels, colours and the modelled cost of one application.
  /// @param[in] nnz the operator's nonzeros (for the SpMV it is compared with)
  PreconditionerInfo info(std::int64_t nnz) const;

 private:
  Preconditioner kind_;
  int sweeps_;
  std::optional<TriangularFactor> factor_;
  std::unique_ptr<HostGamg> gamg_;
  double setup_seconds_ = 0.0, refresh_seconds_ = 0.0;
  std::vector<double> residual_, correction_;  ///< mcsgs sweeps after the first
};

/// How the preconditioner meets the ranks, for a solver's describe line: "GAMG coupled across
/// the ranks" (", its levels of at most N cells gathered": nCellsToGather, on more than one rank)
/// or "preconditioner on each rank's block".
std::string preconditioner_across_ranks(const SolverSettings& settings, int ranks);

/// "DIC (levels 382, 1.20 SpMV per application, setup 12.3 ms)" for the describe line; GAMG's
/// adds its hierarchy, a line per level.
std::string describe(const PreconditionerInfo& info);

}  // namespace fvmmini
