#pragma once
// The mesh a case asks for, and the checks of the case against that mesh.

#include <cstdint>
#include <string>
#include <vector>

#include "app/resolved_case.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_regions.hpp"
#include "mesh/mesh_size.hpp"

namespace fvmmini {

/// Build the mesh of mesh.type (box generator, OpenFOAM polyMesh or Gmsh reader) and apply
/// mesh.patchTypes. Throws MeshError for a mesh file that cannot be read, CaseError when
/// patchTypes names a patch the mesh does not have.
Mesh build_case_mesh(const ResolvedCase& resolved);

/// A built mesh's counts (what mesh_size and the keys' memory estimates take).
MeshCounts mesh_counts(const Mesh& mesh);

/// Memory that a key of the case sizes on a mesh of given counts, beyond what estimated_run_bytes
/// counts: a format's padding past CSR's (chunkSize), the centreline samples (sampling.points).
struct KeyMemory {
  std::string key;         ///< the key to blame ("solvers.T.chunkSize")
  std::string what;        ///< what it sizes ("sell storage of 2 rows in chunks of 2147483647")
  std::uint64_t bytes = 0;  ///< about
  std::string note;        ///< more for --dry-run ("centrelines.csv about 35 KiB a write"), or ""
};

/// Every key's memory on a mesh of these counts, in key order. The estimates are each owner's own:
/// the format unit's storage_bytes (estimated_format_bytes: every GAMG level built in the format
/// alike), the sampler's sampler_bytes.
std::vector<KeyMemory> key_memory(const ResolvedCase& resolved, const MeshCounts& counts);

/// Check the case against its mesh's patches and counts: the mesh has cells; boundaryField (when
/// the physics has one) names every mesh patch and no other, `empty` exactly on patches of type
/// empty; discretisation.referenceCell is a cell of the mesh; the run with each key's memory
/// (key_memory) fits under the memory limit. Throws CaseError listing every problem, before any of
/// that memory is allocated.
void check_case_against_mesh(const ResolvedCase& resolved, const std::vector<Patch>& patches,
                             const MeshCounts& counts);

/// Check that a steady equation of the case has its level fixed in every region of the mesh
/// (`regions`, mesh_regions' or the mesh check's: cells that no internal face connects):
/// poisson's T by a face of a fixedValue patch, incompressible's p by a face of a pressureOutlet
/// patch, in each region; where no patch is of that type, discretisation.referenceCell fixes its
/// own region and every other region is singular. A transient diffusion is never singular (its
/// time term). Throws CaseError at boundaryField naming the regions, the first region left free
/// (its size and lowest cell) and the way out, before anything is solved.
void check_case_regions(const ResolvedCase& resolved, const Mesh& mesh, const MeshRegions& regions);

/// What --dry-run says about the case's mesh.
struct MeshDryRun {
  std::string report;                 ///< "# Mesh: ..." with the sizes, the mesh check and the memory estimate
  std::vector<std::string> failures;  ///< the mesh check's failures; empty when it passed
};

/// The mesh as --dry-run checks it, allocating no mesh it does not need: a mesh file is read
/// and checked (reading is its validation); a box is only sized, and its patches laid out, as
/// the generator would make them (a generated box needs no check). Then the case is checked
/// against the mesh (and a mesh file's regions, check_case_regions; a box has one). Throws as
/// build_case_mesh, check_case_against_mesh and check_case_regions do.
MeshDryRun dry_run_mesh(const ResolvedCase& resolved);

}  // namespace fvmmini
