#pragma once
// Shared steps of the mesh readers: putting faces into the order mesh.hpp promises, and
// checking that addressing read from a file describes closed cells.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace fvmmini {

/// Faces as a reader finds them, in any order: vertex loops pointing out of `owner`,
/// with neighbour -1 and a patch index on boundary faces.
struct FaceList {
  std::vector<label> offsets{0};
  std::vector<label> vertices;
  std::vector<label> owner;
  std::vector<label> neighbour;  ///< -1 on boundary faces
  std::vector<label> patch;      ///< index into the patch list on boundary faces, -1 on internal ones

  label size() const { return static_cast<label>(owner.size()); }
  /// Append one face.
  void add(std::span<const label> loop, label face_owner, label face_neighbour, label face_patch);
};

/// Build a Mesh in the order mesh.hpp requires: internal faces whose owner is above the
/// neighbour are flipped (loop reversed, cells swapped), internal faces are sorted by
/// (owner, neighbour) into upper-triangular order, and boundary faces follow grouped by
/// patch in the order of `patches` (both sorts stable). Patch start and size are set here.
/// @param[in] patches names and types; one per index used in faces.patch
Mesh assemble_mesh(UnfilledVector<Vec3> points, const FaceList& faces, std::vector<Patch> patches, label n_cells,
                   std::string description);

/// The most cells that `n_faces` faces, `n_internal` of them internal, can close: a cell has
/// at least 4 faces (a tetrahedron), a boundary face bounds one cell and an internal face two.
inline std::int64_t max_closed_cells(std::int64_t n_faces, std::int64_t n_internal) { return (n_faces + n_internal) / 4; }

/// Check addressing: no more cells than the faces can close (checked first, before anything
/// is sized by the cell count), face offsets, vertex indices in range and not repeated within a face,
/// at least three vertices per face, owner and neighbour in range with owner < neighbour,
/// internal faces upper-triangular, patches contiguous and covering all boundary faces,
/// and every cell topologically closed. Throws MeshError(source, 0, ...) on the first fault.
void check_mesh_addressing(const Mesh& mesh, const std::string& source);

/// Cells whose faces do not close: with faces turned outward from the cell, some edge
/// is not traversed equally often in both directions (a missing or flipped face).
/// Returns at most `max_count` cell indices, in increasing order.
std::vector<label> find_open_cells(const Mesh& mesh, size_t max_count);

/// True when internal faces are in upper-triangular order with owner < neighbour.
bool is_upper_triangular(const Mesh& mesh);

}  // namespace fvmmini
