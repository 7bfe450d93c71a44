// Fuzz harness: the OpenFOAM polyMesh reader, then geometry and checkMesh as fvmmini runs them.
//
// Input: the five files of a polyMesh folder in the order points, faces, owner, neighbour,
// boundary, separated by a form feed byte (0x0C). Fewer parts leave the later files missing;
// parts after the fifth are ignored. Each part is written as is, so it may be gzip data.

#include <iterator>

#include "mesh/geometry.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/polymesh_reader.hpp"
#include "tests/fuzz/scratch_folder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fvmmini;
  static const char* const files[] = {"points", "faces", "owner", "neighbour", "boundary"};
  const auto parts = fuzz::split(fuzz::as_bytes(data, size), '\f');
  for (size_t i = 0; i < std::size(files); ++i) {
    if (i < parts.size())
      fuzz::write_scratch_file(files[i], parts[i]);
    else
      fuzz::remove_scratch_file(files[i]);
  }
  try {
    const Mesh mesh = read_polymesh(fuzz::scratch_folder());
    check_mesh(mesh, compute_geometry(mesh));
  } catch (const MeshError&) {
    // the documented answer to a bad mesh; anything else escaping is a finding
  }
  return 0;
}
