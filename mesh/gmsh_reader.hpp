#pragma once
// Reader for Gmsh MSH files (4.1 and 2.2, ASCII, plain or gzip-compressed).

#include <filesystem>

#include "mesh/mesh.hpp"

namespace fvmmini {

/// Read a Gmsh mesh of first-order tetrahedra, hexahedra, prisms and pyramids.
///
/// Cells are the 3-D elements in file order. Faces are matched between elements by their
/// sorted vertex sets and oriented out of the owner by Gmsh's node-ordering conventions
/// (an element whose nodes are mirrored, i.e. of negative volume, has its faces reversed).
/// Internal faces come out upper-triangular.
///
/// Boundary patches are the physical surface groups: a boundary face takes the group of
/// the 2-D element (triangle or quadrangle) with the same vertices, named from
/// $PhysicalNames (or `patch<tag>` when unnamed), in increasing group tag. Boundary faces
/// in no group go to a last patch `defaultFaces`, as OpenFOAM's gmshToFoam does. Patch type
/// is "patch", except "empty" for groups named `frontAndBack` or `frontAndBackPlanes`
/// (one-layer extruded 2-D meshes); a case file may override types. When a 2-D element lies
/// in several groups, the first one counts; 2-D elements on internal faces are ignored, and
/// groups left without boundary faces give no patch.
/// Only nodes used by 3-D elements are kept. Physical volume groups are not used, but note
/// that Gmsh saves only elements in physical groups once any group is defined.
///
/// Throws MeshError naming the file (and line) for a missing or truncated file, binary or
/// unsupported format versions, unknown or second-order element types, undefined nodes,
/// faces shared by more than two elements, 2-D elements that match no face, and files
/// without 3-D elements.
Mesh read_gmsh(const std::filesystem::path& path);

}  // namespace fvmmini
