#pragma once
// GAMG across ranks, as OpenFOAM's processor GAMG interfaces do it: each rank agglomerates its own
// rows, so no group spans two ranks, and each level's processor interfaces are agglomerated with
// the level. The coarse interface to a neighbour has one face per distinct pair (group here,
// group across) of its fine faces, with their coefficients summed: R A R^T's coupling between the
// two groups. So every level is again a decomposed matrix, its smoother and residual couple the
// ranks as the finest level's product does, and the coarse-grid correction sees the whole mesh.
// The coarsest level is solved whole: every rank gathers every rank's coarsest rows and
// couplings, inverts the whole coarsest matrix once per set-up or refresh and keeps its own rows
// of the inverse.

#include <span>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// Per interface, each face's row on the other side (the face cell the neighbour lists at that
/// face). Collective among neighbours.
std::vector<std::vector<label>> rows_across(const std::vector<ProcessorInterface>& interfaces,
                                            const Communicator& comm);

/// A level's interfaces -> the next coarser level's.
struct InterfaceAgglomeration {
  std::vector<ProcessorInterface> coarse;       ///< face cells in the coarse level's (agglomeration) rows
  std::vector<std::vector<label>> rows_across;  ///< per coarse interface, each face's group across
  std::vector<std::vector<label>> face_map;     ///< per interface, fine face -> coarse face
};

/// The coarse interfaces of a grouping of this rank's rows. Both sides of an interface list its
/// coarse faces in the same order: by (lower rank's group, higher rank's group). Collective
/// among neighbours (each side learns the groups across).
/// @param[in] coarse_of fine row -> group (the level's Agglomeration::coarse_of)
InterfaceAgglomeration agglomerate_interfaces(const std::vector<ProcessorInterface>& fine,
                                              std::span<const label> coarse_of, const Communicator& comm);

/// New fine coefficients on the same faces: the coarse ones summed afresh.
void coarse_interface_values(const std::vector<ProcessorInterface>& fine, InterfaceAgglomeration& agglomeration);

/// The whole coarsest matrix from every rank's piece: rank r's rows are offsets[r] ..
/// offsets[r + 1) of it, in their local order; each interface face couples the row here with
/// the row across on its rank. Collective.
/// @param[in] rows_across per interface, each face's row on the other rank (rows_across())
/// @param[out] offsets ranks + 1 entries
LduMatrix gather_whole_matrix(const LduMatrix& local, const std::vector<ProcessorInterface>& interfaces,
                              const std::vector<std::vector<label>>& rows_across, const Communicator& comm,
                              std::vector<label>& offsets);

/// A level gathered whole on every rank (GamgSettings::n_cells_to_gather). In rank order, rank
/// r's rows are offsets[r] .. offsets[r + 1), in their local order; `whole` numbers them by
/// `order` (by key where gather_level had keys). A gather of every rank's values pads each
/// rank's rows to `width` (rank r's row j at r * width + j).
struct GatheredLevel {
  LduMatrix whole;
  Permutation order;           ///< whole's rows (new) -> rows in rank order (old)
  std::vector<label> offsets;  ///< ranks + 1
  label width = 0;             ///< the most rows a rank has
  int rank = 0;                ///< this rank
  /// Per row of an ordering of the whole (p: new -> old rows), its place among the gathered values.
  std::vector<label> padded_rows(const Permutation& p) const;
  /// Per row of this rank, its row in the ordering p.
  std::vector<label> own_rows(const Permutation& p) const;
};

/// Gather a level whole (gather_whole_matrix), its rows numbered by ascending key (ties in rank
/// order) where `keys` has one per local row, else in rank order. Collective.
GatheredLevel gather_level(const LduMatrix& local, const std::vector<ProcessorInterface>& interfaces,
                           const std::vector<std::vector<label>>& rows_across, const Communicator& comm,
                           std::span<const label> keys = {});

/// The level a hierarchy across ranks is gathered at: the first below the finest whose rows over
/// all ranks number at most `cells`; 0 (none) when cells is 0, the hierarchy has one level, there
/// is one rank or no level is that small. Collective; every rank's hierarchy has as many levels (pad_levels).
label gathering_level(const std::vector<label>& rows_per_level, label cells, const Communicator& comm);

/// The coarsest solve of a hierarchy across ranks: x (this rank's rows) = the rows of the whole
/// inverse times the right-hand sides of all ranks, gathered width values a rank. Rows and
/// right-hand sides are in each rank's operator numbering of its coarsest level.
struct WholeCoarsest {
  label rows = 0;   ///< this rank's rows
  label width = 0;  ///< the most rows a rank has: each rank's right-hand side is gathered padded to it
  int ranks = 1;
  /// rows x (ranks * width), row-major: this rank's rows of the whole inverse, rank r's row j at
  /// column r * width + j, zero beyond a rank's rows. On one rank the whole inverse.
  std::vector<double> inverse;
};

/// The whole coarsest matrix gathered and inverted (dense_spd_inverse). Collective.
/// @param[in] new_to_old this rank's operator row -> row of `local` (empty: the same rows)
/// @throws SolverError on every rank when the whole coarsest matrix is not SPD or too large
WholeCoarsest whole_coarsest(const LduMatrix& local, const std::vector<ProcessorInterface>& interfaces,
                             const std::vector<std::vector<label>>& rows_across, const Communicator& comm,
                             std::span<const label> new_to_old = {});

}  // namespace fvmmini
