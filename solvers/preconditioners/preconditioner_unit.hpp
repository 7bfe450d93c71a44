#pragma once
// A preconditioner as one unit: its name, how the CG meets it, the case keys it reads, and how
// the reference backend sets it up. One file per preconditioner in solvers/preconditioners/units/
// defines one, and the list in solvers/CMakeLists.txt is the table (preconditioner_table.hpp
// reads it). The cuda backend adds its own set-up by name (units/cuda/, its own list:
// solvers/preconditioners/cuda/device_preconditioner.hpp). docs/architecture.md, "Adding a
// preconditioner", walks through one.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "solvers/preconditioners/gamg/multigrid.hpp"

namespace fvmmini {

/// How a CG meets the preconditioner.
enum class CgStep {
  none,     ///< plain CG: z = r
  jacobi,   ///< z = D^-1 r, fused into the CG's vector passes (nothing to set up)
  applied,  ///< z = M^-1 r by a set-up method, between the CG's residual and direction steps
};

/// What a unit's set-up gets, in the operator's numbering.
struct PreconditionerInput {
  const LduMatrix& matrix;            ///< the mesh's numbering (a rank's block across ranks)
  const Permutation& op;              ///< the operator's numbering (new -> old mesh rows)
  const SolverSettings& settings;
  std::span<const label> sequence;    ///< the solve's ordering before a format's grouping (schedule_order)
  GamgRanks ranks;                    ///< across ranks: the processor interfaces (empty on one rank)
  /// Another solver's GAMG on the same pattern (the flow's U and p): GAMG takes its agglomeration
  /// where shares_agglomeration; null: none.
  const HostGamg* same_pattern_gamg = nullptr;
};

/// A preconditioner set up on the reference backend: z = M^-1 r in the operator's numbering.
class PreconditionerMethod {
 public:
  virtual ~PreconditionerMethod() = default;
  /// z = M^-1 r; `a` is the operator (across ranks too: its local_block() is the rank's block).
  virtual void apply(const HostOperator& a, std::span<const double> r, std::span<double> z) = 0;
  /// Whether apply_block takes k vectors together (the matrices read once for all of them).
  virtual bool applies_block(const HostOperator& /*a*/, int /*k*/) const { return false; }
  /// Z = M^-1 R for k vectors interleaved by row (linalg/block_vectors.hpp), vector j's as apply()
  /// gives it, bit for bit. @pre applies_block(a, k)
  virtual void apply_block(const HostOperator& /*a*/, int k, std::span<const double> /*r*/, std::span<double> /*z*/) {
    throw std::logic_error("this preconditioner takes one vector at a time, not " + std::to_string(k));
  }
  /// New values on the same addressing: no new analysis. interfaces: across ranks, their new
  /// coefficients (null: unchanged).
  virtual void refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces) = 0;
  /// Levels, colours, the grid and the modelled cost of one application into `info` (the name and
  /// the times are filled by the caller). nnz: the operator's nonzeros.
  virtual void describe(PreconditionerInfo& info, std::int64_t nnz) const = 0;
  /// The triangles of a triangular method (tests compare them with the device's); null otherwise.
  virtual const TriangularFactor* factor() const { return nullptr; }
  /// The multigrid of GAMG (the benchmark times its V-cycle level by level); null otherwise.
  virtual HostGamg* gamg() { return nullptr; }
};

/// One matrix a preconditioner builds beside the operator, in the operator's format (GAMG's coarse
/// levels): the app counts its padding against the memory limit before set-up.
struct LevelSize {
  label rows = 0;
  std::int64_t nnz = 0;
};

struct PreconditionerUnit {
  std::string name{};                  ///< as in case files and OpenFOAM's solve lines ("DICPCG")
  std::vector<std::string> aliases{};  ///< other words a case may write for it ("jacobi")
  std::string summary{};               ///< one line for --help, the docs and errors
  CgStep cg_step = CgStep::applied;
  /// Made for symmetric matrices only (an incomplete Cholesky factor, a symmetric sweep, a
  /// hierarchy of symmetric coarse matrices): set-up refuses an asymmetric matrix.
  bool symmetric_only = false;
  /// The solvers.<field> keys it reads (declared with their types in SolverSettings' declare_keys):
  /// the schema applies each only where the preconditioner is one of its readers.
  std::vector<std::string> keys{};
  /// Set up on the reference backend; null where cg_step is not applied.
  std::function<std::unique_ptr<PreconditionerMethod>(const PreconditionerInput&)> make{};
  /// How it meets the ranks, for the describe line; null: "preconditioner on each rank's block"
  /// (block Jacobi over the ranks).
  std::function<std::string(const SolverSettings&, int ranks)> across_ranks{};
  /// The matrices it builds in the operator's format for n rows of nnz entries (estimated from the
  /// keys); null: none.
  std::function<std::vector<LevelSize>(const SolverSettings&, label rows, std::int64_t nnz)> levels{};
};

}  // namespace fvmmini
