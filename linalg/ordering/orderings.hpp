#pragma once
// Row orderings of the (structurally symmetric) LDU matrix graph: Cuthill-McKee, reverse
// Cuthill-McKee, the Staircase SELL ordering, METIS nested dissection, multicolour, random; and the
// table of ordering units (ordering_unit.hpp) that names them for case files.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/ordering_unit.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

/// Where Cuthill-McKee starts each connected component.
enum class CmStart {
  pseudo_peripheral,  ///< George & Liu's pseudo-peripheral node (used by cm and rcm)
  min_degree,         ///< a minimally connected node, as Algorithm 2 of Wikberg (2025) (used by staircase)
};

/// Cuthill-McKee: breadth-first from the start node, visiting each node's unvisited neighbours
/// by ascending degree with the index as tie-break (Wikberg 2025, Algorithm 2). Connected components are
/// ordered one after another, in the order of their minimally connected node (degree, then index).
Permutation cuthill_mckee(const LduAddressing& addressing, CmStart start = CmStart::pseudo_peripheral);

/// Reverse Cuthill-McKee (George & Liu): the CM order reversed.
Permutation reverse_cuthill_mckee(const LduAddressing& addressing);

/// Stable re-grouping of an ordering by row length (row_lengths: each row's nonzeros, diagonal
/// included, as row_lengths() gives them), shortest rows first (longest first when `descending`),
/// ties kept in the order of `base`. Ascending is the Staircase SELL ordering's second stage
/// (Algorithm 3 merges small groups and passes leftover rows on to the next longer group);
/// descending is ELL-WARP's renumbering.
Permutation group_by_row_length(std::span<const label> row_lengths, const Permutation& base, bool descending = false);

/// The Staircase SELL ordering of Wikberg 2025, 4.3.1: Cuthill-McKee from a minimally connected node,
/// then grouped by row length with the CM order as tie-break.
Permutation staircase_ordering(const LduAddressing& addressing);

/// METIS_NodeND (nested dissection) on the matrix graph.
/// @throws std::runtime_error when METIS reports an error
Permutation metis_ordering(const LduAddressing& addressing);

/// The multicolour ordering: rows sorted by their greedy colour (linalg/ordering/colouring.hpp),
/// index order within a colour, so each colour is one contiguous range of rows.
Permutation colour_ordering(const LduAddressing& addressing);

/// A uniformly random permutation from a seeded generator (stress tests).
Permutation random_ordering(label n_rows, std::uint64_t seed);

/// The ordering units listed in linalg/CMakeLists.txt (FVMMINI_ORDERING_UNITS), in that order,
/// checked once (names unique).
const std::vector<OrderingUnit>& ordering_table();

/// The unit of a name. @throws std::invalid_argument for an unknown one, listing the known names
const OrderingUnit& find_ordering(const std::string& name);

/// The ordering names accepted by make_ordering, in table order: none, cm, rcm, staircase, metis,
/// colour, random.
const std::vector<std::string>& ordering_names();

/// The ordering by name. @param[in] seed used by "random" only
/// @throws std::invalid_argument for an unknown name, listing the known ones
Permutation make_ordering(const std::string& name, const LduAddressing& addressing, std::uint64_t seed = 1);

}  // namespace fvmmini
