#pragma once
// GAMG, OpenFOAM's aggregation multigrid, as a preconditioner of CG: the hierarchy is set up once
// per mesh on the host (solvers/preconditioners/gamg/agglomeration.hpp), every level but the coarsest ordered
// and stored in one of fvmmini's formats, so that the same SpMV kernels run on every level; the
// coarsest level is solved directly. One application is n_vcycles symmetric V-cycles from zero,
// so the preconditioner is a fixed symmetric positive definite operator and CG stays valid.
// The reference backend applies it here; the cuda backend uploads the same hierarchy
// (solvers/preconditioners/gamg/cuda/device_gamg.hpp), or builds its own on the device where
// builds_on_device (cuda/device_hierarchy.cuh). Across ranks each rank agglomerates its own rows and every
// level keeps its processor interfaces (solvers/preconditioners/gamg/rank_interfaces.hpp): the smoothers'
// and residuals' products couple the ranks on every level, and the coarsest level is solved
// whole, so the V-cycle is one preconditioner of the whole matrix, not one per rank's block.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/preconditioners/gamg/agglomeration.hpp"
#include "solvers/preconditioners/gamg/rank_interfaces.hpp"
#include "solvers/preconditioners/triangular/triangular_factor.hpp"

namespace fvmmini {

/// Damping of GAMG's Jacobi smoother: AmgX's default relaxation factor. Below 1 it keeps the
/// smoother convergent in the energy norm on diagonally dominant levels (eigenvalues of D^-1 A
/// below 2), so the symmetric V-cycle stays positive definite; on the 128^3 cavity pressure it
/// takes 25 GAMG-PCG iterations to 1e-8 where 2/3 takes 31.
constexpr double jacobi_smoother_weight = 0.9;

/// nCellsToGather's values by backend (its -1). A gathered level's V-cycle runs whole on every
/// rank; on a GPU a level of up to about 2e5 rows costs less that way than the two halo exchanges
/// a V-cycle makes on it across ranks (launch-bound kernels against NCCL's latency), on CPUs a
/// level of a few thousand rows about an MPI message's latency.
constexpr label cuda_cells_to_gather = 200000;
constexpr label reference_cells_to_gather = 2000;

/// Whether the cuda backend builds GAMG's hierarchy on the device (cuda/device_hierarchy.cuh):
/// agglomerator parallelPair or auto, the jacobi smoother (mcsgs colours each level on the host),
/// one rank. Elsewhere the host builds it (agglomerate, with parallelPair where asked).
bool builds_on_device(const GamgSettings& g, bool across_ranks);

/// nCellsToGather as the backend resolves it.
label cells_to_gather(const GamgSettings& g, bool cuda);

/// GAMG across ranks: the finest level's processor interfaces (rows of the rank's LDU block) and
/// the ranks; both null for a matrix on one rank alone.
struct GamgRanks {
  const std::vector<ProcessorInterface>* interfaces = nullptr;
  const Communicator* comm = nullptr;
  label cells_to_gather = 0;  ///< nCellsToGather, resolved (0: none)
  std::span<const label> global_rows = {};  ///< DistributedLdu::global_rows (empty: unknown)
  bool across() const { return comm != nullptr; }
};

/// The hierarchy in the operators' numberings. Level 0 is the solver's own operator; levels
/// 1 .. levels() - 2 have a prepared format; the last level is solved by its dense inverse, or
/// across ranks, when gathered, by a V-cycle of the whole of it on every rank (the backends'
/// GAMG of `gathered->whole`, set up as on one rank).
struct GamgHierarchy {
  AgglomerationHierarchy agglomeration;
  /// What shaped the agglomeration: the finest level's addressing and agglomeration_key(); another
  /// GAMG on the same pattern with the same key may share it (shares_agglomeration)
  std::weak_ptr<const LduAddressing> fine_addressing;
  std::string agglomeration_key;
  bool shared = false;  ///< the agglomeration was another GAMG's
  std::vector<Permutation> numbering;     ///< per level: operator row -> row of the level's LDU matrix
  std::vector<PreparedFormat> prepared;   ///< levels 1 .. levels() - 2, at [level - 1]
  /// Levels 0 .. levels() - 2: per operator row, its position in the level's ordering before the
  /// format's grouping (PreparedFormat::position_before_grouping; empty: no grouping). The mcsgs
  /// smoother colours in that order, so a colour ordering keeps its colours in any format.
  std::vector<std::vector<label>> sequence;
  /// level l -> l + 1; a shared agglomeration's GAMG takes its model's where it numbers both
  /// levels alike
  std::vector<std::shared_ptr<const Transfer>> transfers;
  WholeCoarsest coarsest;                 ///< the coarsest level's direct solve, in its operator numbering
  std::vector<PreconditionerInfo::GridLevel> grid;  ///< rows, nonzeros and format per level
  /// build_gamg_hierarchy's time in parts (PreconditionerInfo::setup_parts): agglomeration,
  /// interfaces (across ranks), formats, transfers, coarsest (its inverse, or the gathered level)
  std::vector<std::pair<std::string, double>> setup_parts;

  // --- across ranks (comm not null); every rank has the same number of levels
  const Communicator* comm = nullptr;
  std::vector<ProcessorInterface> fine_interfaces;           ///< level 0's, the LDU block's rows
  std::vector<InterfaceAgglomeration> interface_transfers;  ///< level l -> l + 1
  std::vector<std::vector<label>> coarsest_across;          ///< the coarsest interfaces' rows across
  std::optional<GatheredLevel> gathered;  ///< the last level gathered whole (nCellsToGather); coarsest unused
  /// Per row of the gathered level here, its leading row's place in the whole matrix
  /// (Agglomeration::leading_row, GamgRanks::global_rows): the gathered level's order. Empty
  /// without global rows.
  std::vector<label> gathered_keys;

  label levels() const { return agglomeration.levels(); }
  bool across_ranks() const { return comm != nullptr; }
  /// Level l's processor interfaces in its LDU rows (empty on one rank).
  const std::vector<ProcessorInterface>& interfaces(label level) const {
    return level == 0 ? fine_interfaces : interface_transfers[level - 1].coarse;
  }
  /// Level l's LDU matrix (its agglomeration numbering); level 0 is `fine`.
  const LduMatrix& matrix(label level, const LduMatrix& fine) const {
    return level == 0 ? fine : agglomeration.coarse[level - 1];
  }
};

/// The keys that shape an agglomeration (the pairing as built on the host, mergeLevels,
/// nCellsInCoarsestLevel): two GAMGs with the same key on one pattern agglomerate alike.
std::string agglomeration_key(const GamgSettings& g);

/// Whether a GAMG of `fine` with settings g and ranks may take `model`'s agglomeration: on one rank,
/// `model` built on fine's addressing with the same agglomeration key. The groups come from |a_f|,
/// so a matrix whose faces are another's times a constant (the momentum's nu L beside the
/// pressure's L) agglomerates alike, up to ties.
bool shares_agglomeration(const LduMatrix& fine, const GamgSettings& g, const GamgRanks& ranks,
                          const GamgHierarchy& model);

/// Agglomerate `fine` (GamgSettings), or take `model`'s agglomeration where shares_agglomeration,
/// order and build every intermediate level in settings.format (or `fallback_format` where that
/// format declines the level's matrix) with settings.ordering, and invert the coarsest. Across
/// ranks (collective): every rank pads its levels to the most any rank has (pad_levels),
/// agglomerates its interfaces level by level and inverts the whole coarsest matrix.
/// @param[in] op the solver operator's numbering of `fine`
/// @param[in] sequence the solver operator's position_before_grouping (empty: none)
/// @param[in] model another GAMG's hierarchy on the same pattern (null: none)
/// @param[in] level_formats where the agglomeration is model's: model's formats of levels 1 ..
///   levels() - 2 (at [level - 1]; null or missing: none), each copied with this matrix's values
///   where it fits (prepare_format's model) instead of being ordered and built again
/// @throws std::invalid_argument for unequal pre- and post-sweeps or a bad key
/// @throws SolverError when the coarsest matrix is not SPD or too large for a direct solve
GamgHierarchy build_gamg_hierarchy(const LduMatrix& fine, const Permutation& op, const SolverSettings& settings,
                                   const std::string& fallback_format, std::span<const label> sequence = {},
                                   GamgRanks ranks = {}, const GamgHierarchy* model = nullptr,
                                   std::span<const PreparedFormat* const> level_formats = {});

/// New values of `fine` (and of the finest interfaces' coefficients, across ranks): the coarse
/// matrices, the coarse interfaces and the coarsest solve (the formats' values are their
/// owners' to refresh from hierarchy.matrix()). Collective across ranks.
/// @param[in] interfaces the finest level's new interfaces (null: unchanged)
void refresh_gamg_hierarchy(const LduMatrix& fine, GamgHierarchy& hierarchy,
                            const std::vector<ProcessorInterface>* interfaces = nullptr);

/// A level's format: settings.format, or `fallback_format` where that declines the matrix; a copy
/// of `model` with m's values where it fits (prepare_format).
PreparedFormat prepare_level(const LduMatrix& m, const SolverSettings& settings, const std::string& fallback_format,
                             const PreparedFormat* model = nullptr);

/// The settings of the GAMG of a gathered level (one V-cycle, on one rank).
SolverSettings gathered_settings(const SolverSettings& settings);

/// The coarsest level's direct solve from its matrix (hierarchy.matrix(levels() - 1)) and, across
/// ranks, the hierarchy's coarsest interfaces. Collective across ranks.
/// @throws SolverError as dense_spd_inverse
WholeCoarsest coarsest_solve(const LduMatrix& coarsest, const GamgHierarchy& hierarchy);

/// The Jacobi smoother's inverse diagonal of a level's matrix, in its operator's numbering.
std::vector<double> inverse_diagonal(const LduMatrix& m, const Permutation& numbering);

class HostOperator;

/// GAMG on the reference backend. On one rank the mcsgs smoother sweeps in place
/// (reference::sgs_sweep) and takes the residual it restricts from its own forward sums: 3 passes
/// over a level's matrix per V-cycle instead of 4 (two SpMVs and two triangular pairs) and two
/// vector passes. Across ranks each sweep relaxes the residual of the level's product across the
/// ranks (x += M^-1 (b - A x), M the rank's symmetric Gauss-Seidel), as the cuda backend does.
class HostGamg {
 public:
  /// @param[in] sequence the operator's position_before_grouping (build_gamg_hierarchy)
  /// @param[in] model another solver's GAMG on the same pattern, whose agglomeration, transfers
  ///            and level formats (copied, with this matrix's values) this one takes where
  ///            shares_agglomeration (null: none)
  HostGamg(const LduMatrix& fine, const Permutation& op, const SolverSettings& settings,
           std::span<const label> sequence = {}, GamgRanks ranks = {}, const HostGamg* model = nullptr);
  ~HostGamg();

  /// z = M^-1 r: n_vcycles V-cycles from zero; `a` is the level-0 operator (across ranks the
  /// distributed one).
  void apply(const HostOperator& a, std::span<const double> r, std::span<double> z);
  /// Whether apply_block takes k vectors together: the jacobi smoother on one rank, every level's
  /// format with a multi-vector SpMV (each level's matrix read once a step for all k).
  bool applies_block(const HostOperator& a, int k) const;
  /// Z = M^-1 R for k vectors interleaved by row (linalg/block_vectors.hpp): vector j's is apply()'s
  /// of vector j, bit for bit. @pre applies_block(a, k)
  void apply_block(const HostOperator& a, int k, std::span<const double> r, std::span<double> z);
  /// New values on the same addressing: coarse matrices, formats, smoothers, the coarsest inverse.
  /// @param[in] interfaces across ranks, the finest level's new interfaces (null: unchanged)
  void refresh(const LduMatrix& fine, const std::vector<ProcessorInterface>* interfaces = nullptr);
  const GamgHierarchy& hierarchy() const { return hierarchy_; }
  /// The hierarchy's set-up parts, then this backend's: levels (operators, smoothers) and, where
  /// there is one, gathered (the gathered level whole and its GAMG).
  const std::vector<std::pair<std::string, double>>& setup_parts() const { return setup_parts_; }
  /// The last refresh's parts: coarse matrices (and interfaces, the coarsest solve), operators,
  /// smoothers, and the gathered level's where there is one.
  const std::vector<std::pair<std::string, double>>& refresh_parts() const { return refresh_parts_; }
  const GamgSettings& settings() const { return settings_; }
  /// One V-cycle from `level` down: level 0's is apply()'s first cycle (of r into z); a coarser
  /// level's runs on that level's own right-hand side and correction (what the last cycle left
  /// there), so that timing it and the next level's apart gives the level's own share.
  void cycle_from(const HostOperator& a, label level, std::span<const double> r, std::span<double> z);

 private:
  struct Level;
  struct Gathered;
  /// n_vcycles V-cycles of k vectors (b, x of k n values: the level's own buffers hold k_ vectors)
  void vcycles(const HostOperator& a, int k, std::span<const double> r, std::span<double> z);
  void cycle(label level, std::span<const double> b, std::span<double> x);
  /// x += M^-1 (b - A x): a Jacobi sweep, or across ranks a symmetric Gauss-Seidel one
  void correct(label level, std::span<const double> b, std::span<double> x);
  /// x = M^-1 b (the first sweep from zero)
  void start(label level, std::span<const double> b, std::span<double> x);
  void solve_coarsest(std::span<const double> b, std::span<double> x);
  /// y = A x on the level for the k_ vectors of x
  void multiply(label level, std::span<const double> x, std::span<double> y) const;
  /// The level's buffer v, k_ vectors long.
  std::span<double> vectors(label level, std::vector<double>& v);
  /// gathered_ = every rank's coarsest right-hand side, padded to `width` values a rank
  void gather_coarsest(std::span<const double> b, label width);
  const HostOperator& op(label level) const;  ///< level 0's is the solver's
  void refresh_diagonals(const LduMatrix& fine);

  GamgSettings settings_;
  GamgHierarchy hierarchy_;
  std::vector<Level> levels_;
  const HostOperator* fine_op_ = nullptr;  ///< level 0's operator during apply
  int k_ = 1;                                  ///< the vectors the running V-cycle takes together
  std::vector<double> residual_, correction_;  ///< level 0, V-cycles after the first
  std::vector<double> padded_;                 ///< across ranks: this rank's coarsest right-hand side, padded
  std::vector<double> gathered_;               ///< across ranks: the coarsest right-hand sides of all ranks
  std::unique_ptr<Gathered> whole_;            ///< the GAMG of the gathered level (hierarchy().gathered)
  std::vector<std::pair<std::string, double>> setup_parts_;
  std::vector<std::pair<std::string, double>> refresh_parts_;
};

/// The grid levels of a hierarchy whose last level is gathered, with the gathered level's own
/// GAMG's (`whole`) in its place, marked as whole on every rank.
std::vector<PreconditionerInfo::GridLevel> with_whole_levels(std::vector<PreconditionerInfo::GridLevel> levels,
                                                             const std::vector<PreconditionerInfo::GridLevel>& whole);

}  // namespace fvmmini
