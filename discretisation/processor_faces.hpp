#pragma once
// The processor patches of a rank's piece of a decomposed mesh (mesh/decomposition.hpp) and the
// exchange of cell values across them. Both sides list their shared faces in the same order, so
// each rank sends its face cells' values in face order and receives, in the same order, the
// values of the cells across. The processor faces are the mesh's faces right after its internal
// faces, processor face k being face n_internal + k; the cell across it is ghost cell n_cells + k
// of the flow step's cell arrays (fill_ghosts).

#include <span>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

class ProcessorFaces {
 public:
  /// @throws std::invalid_argument for a processor patch whose rank is not another rank of comm, or
  ///         processor patches that are not the first patches (extract_local_mesh's order)
  ProcessorFaces(const Mesh& mesh, const Communicator& comm);

  const Communicator& communicator() const { return comm_; }
  /// The processor faces, patch after patch in mesh order (an index k of the spans below).
  std::span<const label> faces() const { return faces_; }
  bool empty() const { return faces_.empty(); }

  /// The value of the cell across each processor face: each rank with processor faces calls it
  /// together with its neighbours.
  void across(std::span<const double> cell_values, std::span<double> face_values);
  /// The same for vectors (the cell centres across, for the face coefficients).
  void across(std::span<const Vec3> cell_values, std::span<Vec3> face_values);
  std::vector<Vec3> across(std::span<const Vec3> cell_values);

  /// values[n_cells + k] = the value of the cell across processor face k, from values[0, n_cells):
  /// a cell array with its ghost cells (n_cells + faces().size() values). Collective, as across.
  void fill_ghosts(std::span<double> values);
  void fill_ghosts(std::span<Vec3> values);

  /// The LDU interfaces of a matrix whose coupling to the cell across processor face k is
  /// coefficients[k].
  std::vector<ProcessorInterface> interfaces(std::span<const double> coefficients) const;

 private:
  const Mesh& mesh_;
  const Communicator& comm_;
  std::vector<label> faces_;
  std::vector<std::size_t> patch_begin_;  ///< per processor patch: its first index in faces_
  std::vector<int> ranks_;
  HaloExchange halo_;
  HaloExchange vector_halo_;  ///< three doubles a face
};

}  // namespace fvmmini
