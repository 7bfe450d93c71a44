// Fuzz harness: the Gmsh reader, then geometry and checkMesh as fvmmini runs them.
// Input: one .msh file (ASCII 2.2 or 4.1, plain or gzip).

#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_error.hpp"
#include "tests/fuzz/scratch_folder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fvmmini;
  const auto file = fuzz::write_scratch_file("mesh.msh", fuzz::as_bytes(data, size));
  try {
    const Mesh mesh = read_gmsh(file);
    check_mesh(mesh, compute_geometry(mesh));
  } catch (const MeshError&) {
    // the documented answer to a bad mesh; anything else escaping is a finding
  }
  return 0;
}
