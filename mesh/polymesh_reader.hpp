#pragma once
// Reader for OpenFOAM's ASCII polyMesh (points, faces, owner, neighbour, boundary).

#include <filesystem>
#include <vector>

#include "mesh/mesh.hpp"

namespace fvmmini {

/// Read an OpenFOAM polyMesh.
///
/// @param[in] case_or_polymesh_dir a case directory (the mesh is in constant/polyMesh) or the
///   polyMesh directory itself. Each file may be gzip-compressed with a .gz suffix (the plain
///   file wins when both exist). Files must be ASCII, with or without the FoamFile header;
///   faces may be a faceList (`4(0 1 2 3)` or the list spread over lines) or an ASCII
///   faceCompactList.
///
/// Everything is validated: list sizes against their counts and against the owner header's
/// note (nPoints, nCells, nFaces, nInternalFaces), indices in range and non-negative,
/// owner/neighbour sizes, patches contiguous and covering all boundary faces, every cell
/// closed. Internal faces that are not upper-triangular with owner < neighbour are put in
/// that order (faces flipped and reordered; cell numbers unchanged).
/// Throws MeshError naming the file and line at fault. Processor and cyclic patches are
/// rejected (a serial solver without coupled patches).
Mesh read_polymesh(const std::filesystem::path& case_or_polymesh_dir);

/// The five files read_polymesh reads there (points, faces, owner, neighbour, boundary; each
/// plain or .gz). Throws MeshError as read_polymesh does when the folder or a file is missing.
std::vector<std::filesystem::path> polymesh_files(const std::filesystem::path& case_or_polymesh_dir);

}  // namespace fvmmini
