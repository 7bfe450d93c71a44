#pragma once
// The hierarchy of an aggregation multigrid in OpenFOAM's GAMG style: cells are agglomerated in
// pairs across their strongest faces (pairGAMGAgglomeration's algorithm, on the weights |a_f| of
// the algebraicPair agglomerator, or parallelPair's handshake on the same weights, which the
// device builds too), the transfer between levels is piecewise constant, and each
// coarse matrix is the Galerkin product R A R^T formed by summing face coefficients, so every
// coarse level is again an LDU matrix. The agglomeration is made once per mesh, from the first
// matrix; new values refresh only the coarse coefficients.

#include <memory>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// One pass of pairwise agglomeration (OpenFOAM's pairGAMGAgglomeration::agglomerate): visiting
/// cells forwards (or backwards), a cell not yet grouped pairs with the ungrouped neighbour across
/// its heaviest face; one whose neighbours are all grouped joins the group across its heaviest
/// face; an isolated cell becomes a group of its own.
/// @param[in] weights one per face, the heavier the stronger the coupling
/// @return fine row -> coarse row; n_coarse receives the number of groups
std::vector<label> pair_agglomerate(const LduAddressing& fine, const std::vector<double>& weights, bool forward,
                                    label& n_coarse);

/// One pass of parallelPair (pair_matching.hpp): handshake rounds pair cells across faces each
/// of them ranks first, a cell left free joins the pair across its heaviest face or stays alone;
/// groups numbered in the order of their least row. The cuda backend's device pass
/// (cuda/device_hierarchy.cuh) pairs the same cells.
/// @param[in] weights one per face, the heavier the stronger the coupling
/// @param[in] nearer_first ties to the nearer cells (else the farther: pair_matching.hpp)
/// @return fine row -> coarse row; n_coarse receives the number of groups
std::vector<label> parallel_pair_agglomerate(const LduAddressing& fine, const std::vector<double>& weights,
                                             bool nearer_first, label& n_coarse);

/// Fine level -> the next coarser one.
struct Agglomeration {
  std::vector<label> coarse_of;  ///< fine row -> coarse row
  /// fine face -> coarse face, or -1 - c for a face inside coarse cell c (it adds to c's diagonal)
  std::vector<label> face_map;
  std::shared_ptr<const LduAddressing> coarse;  ///< faces sorted by (lower, upper)
  /// Per coarse row, the finest level's row that places it: pair_agglomerate numbers the groups in
  /// their leading rows' order (the least after a forward pass, the greatest after a backward one,
  /// pass after pass). The same groups numbered in this order elsewhere (a level gathered from
  /// several ranks) agglomerate alike.
  std::vector<label> leading_row;
};

/// The coarse addressing and face map of a grouping of the fine cells. With face_weights (one per
/// fine face), those are summed onto the coarse faces in their place (OpenFOAM's
/// restrictFaceField; each coarse face's in fine face order, as one pass over the faces adds them).
Agglomeration agglomerate_addressing(const LduAddressing& fine, std::vector<label> coarse_of, label n_coarse,
                                     std::vector<double>* face_weights = nullptr);

/// The coarse matrix R A R^T for piecewise-constant R (R_ci = 1 when cell i is in group c):
/// diag_c = sum of the group's diagonals + twice its inner faces; each coarse face the sum of the
/// fine faces between the two groups.
/// @param[in,out] coarse on agglomeration.coarse (make_ldu_matrix); overwritten
void galerkin_values(const LduMatrix& fine, const Agglomeration& agglomeration, LduMatrix& coarse);

struct AgglomerationHierarchy {
  /// level k -> level k + 1; never changed once made, so the GAMGs of one pattern share them
  std::vector<std::shared_ptr<const Agglomeration>> agglomerations;
  std::vector<LduMatrix> coarse;  ///< level k + 1, in its own (agglomeration) numbering
  label levels() const { return static_cast<label>(coarse.size()) + 1; }
};

/// Agglomerate until the next level would have fewer than n_cells_in_coarsest_level cells or no
/// fewer cells than the last (OpenFOAM's rule). merge_levels pairings make one level (group sizes
/// about 2^merge_levels). Face weights are |a_f| of `fine`, summed onto the coarse faces.
/// @param[in] parallel pair by parallel_pair_agglomerate (else pair_agglomerate, alternating directions)
AgglomerationHierarchy agglomerate(const LduMatrix& fine, label n_cells_in_coarsest_level, int merge_levels,
                                   bool parallel = false);

/// Another matrix's agglomeration on `fine`'s pattern (OpenFOAM keeps one agglomeration a mesh
/// for every GAMG solve on it): its agglomerations shared, not copied, the coarse values fine's
/// Galerkin products. @pre `model` was agglomerated on fine's addressing
AgglomerationHierarchy shared_agglomeration(const LduMatrix& fine, const AgglomerationHierarchy& model);

/// Levels of one group per row appended until the hierarchy has `levels` levels: across ranks
/// every rank cycles through the same number of levels, whatever its rows.
void pad_levels(const LduMatrix& fine, label levels, AgglomerationHierarchy& hierarchy);

/// Levels past `levels` dropped (across ranks, below the level gathered whole).
void truncate_levels(label levels, AgglomerationHierarchy& hierarchy);

/// New fine values on the same addressing: every coarse matrix recomputed, nothing re-agglomerated.
void refresh_coarse_values(const LduMatrix& fine, AgglomerationHierarchy& hierarchy);

/// Restriction and prolongation between two levels, both in their operators' numberings.
struct Transfer {
  std::vector<label> coarse_of;   ///< fine operator row -> coarse operator row (prolongation)
  std::vector<label> group_ptr;   ///< coarse rows + 1, into group_rows
  std::vector<label> group_rows;  ///< the fine operator rows of each coarse row, ascending (restriction)
};

/// The agglomeration's map seen from the operators: fine and coarse map new -> old rows of their
/// level's LDU numbering.
Transfer make_transfer(const Agglomeration& agglomeration, const Permutation& fine, const Permutation& coarse);

}  // namespace fvmmini
