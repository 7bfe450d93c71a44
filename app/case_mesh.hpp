#pragma once
// The mesh a case asks for, and the checks of the case against that mesh.

#include <string>
#include <vector>

#include "app/resolved_case.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

/// Build the mesh of mesh.type (box generator, OpenFOAM polyMesh or Gmsh reader) and apply
/// mesh.patchTypes. Throws MeshError for a mesh file that cannot be read, CaseError when
/// patchTypes names a patch the mesh does not have.
Mesh build_case_mesh(const ResolvedCase& resolved);

/// Check the case against its mesh's patches and cell count: boundaryField (when the physics
/// has one) names every mesh patch and no other, `empty` exactly on patches of type empty;
/// discretisation.referenceCell is a cell of the mesh. Throws CaseError listing every problem.
void check_case_against_mesh(const ResolvedCase& resolved, const std::vector<Patch>& patches, label n_cells);

/// What --dry-run says about the case's mesh.
struct MeshDryRun {
  std::string report;                 ///< "# Mesh: ..." with the sizes, the mesh check and the memory estimate
  std::vector<std::string> failures;  ///< the mesh check's failures; empty when it passed
};

/// The mesh as --dry-run checks it, allocating no mesh it does not need: a mesh file is read
/// and checked (reading is its validation); a box is only sized, and its patches laid out, as
/// the generator would make them (a generated box needs no check). Then the case is checked
/// against the mesh. Throws as build_case_mesh and check_case_against_mesh do.
MeshDryRun dry_run_mesh(const ResolvedCase& resolved);

}  // namespace fvmmini
