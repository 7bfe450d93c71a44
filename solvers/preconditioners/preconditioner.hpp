#pragma once
// A linear solve's preconditioner on the reference backend, as its unit sets it up
// (preconditioner_unit.hpp): once per mesh in the operator's numbering, refreshed when only the
// values change (no new analysis), applied here. The units: none and diagonal set nothing up (the
// CG fuses Jacobi into its vector passes); DIC and mcsgs are triangular methods
// (triangular/triangular_method.hpp); GAMG is aggregation multigrid (gamg/multigrid.hpp). Across
// ranks DIC and mcsgs act on the rank's block (block Jacobi over the ranks); GAMG's levels couple
// the ranks, so it stays one multigrid of the whole matrix.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "solvers/preconditioners/preconditioner_unit.hpp"

namespace fvmmini {

class HostPreconditioner {
 public:
  /// The unit of settings.preconditioner, set up where the CG applies it.
  /// @param[in] op the operator's numbering (new -> old mesh rows)
  /// @param[in] sequence the solve's ordering before a format's grouping (schedule_order)
  /// @param[in] ranks across ranks, the matrix's processor interfaces (GAMG couples its levels)
  /// @param[in] same_pattern another solver's preconditioner on the same pattern (GAMG may share its
  ///            agglomeration), or null
  /// @throws std::invalid_argument for an unknown preconditioner or keys it refuses; SolverError
  ///         when the matrix breaks it (a pivot that is not positive)
  HostPreconditioner(const LduMatrix& matrix, const Permutation& op, const SolverSettings& settings,
                     std::span<const label> sequence = {}, GamgRanks ranks = {},
                     const HostPreconditioner* same_pattern = nullptr);
  ~HostPreconditioner();

  /// New values on the same addressing: the method's values, not its analysis.
  /// @param[in] interfaces across ranks, the interfaces' new coefficients (null: unchanged)
  void refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces = nullptr);

  const PreconditionerUnit& unit() const { return *unit_; }
  /// Whether apply() is set up (the unit's cg_step is applied).
  bool applied() const { return method_ != nullptr; }
  /// The triangles (DIC, mcsgs); null for the others.
  const TriangularFactor* factor() const { return method_ ? method_->factor() : nullptr; }
  /// GAMG's multigrid; null for the others.
  HostGamg* gamg() { return method_ ? method_->gamg() : nullptr; }
  const HostGamg* gamg() const { return method_ ? method_->gamg() : nullptr; }

  /// z = M^-1 r in the operator's numbering; `a` is the operator (across ranks its local_block()
  /// is the rank's block). @pre applied()
  void apply(const HostOperator& a, std::span<const double> r, std::span<double> z);
  /// Whether apply_block takes k vectors together (GAMG with the jacobi smoother on one rank).
  bool applies_block(const HostOperator& a, int k) const { return method_ && method_->applies_block(a, k); }
  /// Z = M^-1 R for k vectors interleaved by row, each vector's as apply() gives it, bit for bit.
  /// @pre applies_block(a, k)
  void apply_block(const HostOperator& a, int k, std::span<const double> r, std::span<double> z);

  /// Set-up and refresh times, levels, colours and the modelled cost of one application.
  /// @param[in] nnz the operator's nonzeros (for the SpMV it is compared with)
  PreconditionerInfo info(std::int64_t nnz) const;

 private:
  const PreconditionerUnit* unit_;
  std::unique_ptr<PreconditionerMethod> method_;
  double setup_seconds_ = 0.0, refresh_seconds_ = 0.0;
};

/// "DIC (levels 382, 1.20 SpMV per application, setup 12.3 ms)" for the describe line; GAMG's
/// adds its hierarchy, a line per level.
std::string describe(const PreconditionerInfo& info);

}  // namespace fvmmini
