#pragma once
// One rank's piece of a matrix decomposed over ranks (OpenFOAM's processor interfaces): the LDU
// matrix of its own rows and, per neighbouring rank, the coefficients that couple its rows with
// the rows across. y = A x on the rank is its local product plus, for every interface face k,
// coefficients[k] x_across[k], where x_across is the neighbour's x at its face cells, sent in the
// face order both sides agree on (the shared faces in the whole mesh's order).

#include <span>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"

namespace fvmmini {

struct ProcessorInterface {
  int neighbour_rank = -1;
  std::vector<label> face_cells;     ///< the local row at each shared face
  std::vector<double> coefficients;  ///< A(row, the row across) at each shared face
};

struct DistributedLdu {
  LduMatrix local;                              ///< this rank's rows and their couplings among themselves
  std::vector<ProcessorInterface> interfaces;  ///< by increasing neighbour rank
  /// Per local row, its row in the whole matrix (the mesh's cell); empty where unknown. GAMG
  /// numbers a level it gathers whole in this order, so that it agglomerates as one rank would.
  std::vector<label> global_rows;
};

/// The piece of the whole matrix on part `part` given each row's part: its rows in their relative
/// order (local row i is the i-th row of the part), the faces between two of them, and an
/// interface per other part it couples with, its faces in the whole matrix's face order
/// (mesh/decomposition.hpp's extract_local_mesh orders cells and processor faces alike).
/// @throws std::invalid_argument when row_part does not have one entry per row
DistributedLdu distribute_ldu(const LduMatrix& whole, std::span<const int> row_part, int part);

/// The interfaces with their face cells in an operator's numbering (old_to_new of the LDU rows);
/// a face cell out of range stays as it is, for the operator to refuse.
std::vector<ProcessorInterface> in_operator_rows(const std::vector<ProcessorInterface>& interfaces,
                                                 const Permutation& permutation);

}  // namespace fvmmini
