#pragma once
// The face-based polyhedral mesh, in OpenFOAM's owner/neighbour addressing.
//
// Faces 0 .. n_internal_faces()-1 are internal, ordered upper-triangular
// (sorted by owner, then neighbour) with owner[f] < neighbour[f]; their area
// vector points from owner to neighbour. Boundary faces follow, grouped by
// patch, pointing out of the domain.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/unfilled_vector.hpp"
#include "mesh/vec3.hpp"

namespace fvmmini {

/// Index type for points, faces and cells (OpenFOAM's label).
using label = std::int32_t;

/// A named group of consecutive boundary faces.
struct Patch {
  std::string name;
  std::string type;  ///< "patch", "wall", "empty", "symmetryPlane", ... (as OpenFOAM)
  label start = 0;   ///< first face index
  label size = 0;    ///< number of faces
  /// A processor patch (type "processor", a rank's piece of a decomposed mesh): the rank whose
  /// cells are across its faces; -1 for every other patch.
  int neighbour_rank = -1;
};

struct Mesh {
  // unfilled: a generator sizes them and fills them on every thread
  UnfilledVector<Vec3> points;
  UnfilledVector<label> face_offsets{0};  ///< face f has vertices face_vertices[face_offsets[f] .. face_offsets[f+1])
  UnfilledVector<label> face_vertices;
  UnfilledVector<label> owner;      ///< one per face
  UnfilledVector<label> neighbour;  ///< one per internal face
  std::vector<Patch> patches;
  label n_cells = 0;
  std::string description;  ///< where the mesh came from, for logs

  label n_points() const { return static_cast<label>(points.size()); }
  label n_faces() const { return static_cast<label>(owner.size()); }
  label n_internal_faces() const { return static_cast<label>(neighbour.size()); }

  /// The vertex indices of face f, ordered so that the right-hand normal points out of the owner.
  std::span<const label> face(label f) const {
    return {face_vertices.data() + face_offsets[f], static_cast<size_t>(face_offsets[f + 1] - face_offsets[f])};
  }
  /// Append a face (vertex loop) with its owner; neighbour is added separately for internal faces.
  void add_face(std::span<const label> vertices, label face_owner) {
    face_vertices.insert(face_vertices.end(), vertices.begin(), vertices.end());
    face_offsets.push_back(static_cast<label>(face_vertices.size()));
    owner.push_back(face_owner);
  }
  /// Frees the points and the faces' vertex lists, for the run's driver once the set-up has read
  /// them (the geometry, the checks, the outputs, whose VTK writer keeps its own grid): the steps'
  /// work then reuses the memory. Owner, neighbour, patches and counts stay; face() and the points
  /// may not be read after.
  void drop_vertices() {
    decltype(points)().swap(points);
    decltype(face_offsets)().swap(face_offsets);
    decltype(face_vertices)().swap(face_vertices);
  }
  /// The patch with this name, or nullptr.
  const Patch* find_patch(const std::string& name) const {
    for (const auto& p : patches)
      if (p.name == name) return &p;
    return nullptr;
  }
};

}  // namespace fvmmini
