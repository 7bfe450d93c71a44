#pragma once
// The mesh a case asks for, and the checks of the case against that mesh.

#include "app/resolved_case.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

/// Build the mesh of mesh.type (box generator, OpenFOAM polyMesh or Gmsh reader) and apply
/// mesh.patchTypes. Throws MeshError for a mesh file that cannot be read, CaseError when
/// patchTypes names a patch the mesh does not have.
Mesh build_case_mesh(const ResolvedCase& resolved);

/// Check the case against its mesh: boundaryField (when the physics has one) names every
/// mesh patch and no other, `empty` exactly on patches of type empty; discretisation.referenceCell
/// is a cell of the mesh. Throws CaseError listing every problem.
void check_case_against_mesh(const ResolvedCase& resolved, const Mesh& mesh);

}  // namespace fvmmini
