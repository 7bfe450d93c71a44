// Sizes before a mesh is built: the memory limit and its override, the run estimate, the
// box generator's refusals, and mesh assembly refusing a cell count its faces cannot close.

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "mesh/box_generator.hpp"
#include "mesh/mesh_assembly.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh_test_support.hpp"

namespace fvmmini {
namespace {

using test::expect_mesh_error;
using test::ScopedEnv;

TEST(MemoryLimit, OverrideAndPhysicalMemory) {
  {
    const ScopedEnv limit(memory_limit_variable, "8G");
    EXPECT_EQ(memory_limit().bytes, 8ull << 30);
    EXPECT_EQ(memory_limit().source, "FVMMINI_MEMORY_LIMIT");
  }
  {
    const ScopedEnv limit(memory_limit_variable, "1.5t");
    EXPECT_EQ(memory_limit().bytes, 3ull << 39);
  }
  {
    const ScopedEnv limit(memory_limit_variable, "1048576");
    EXPECT_EQ(memory_limit().bytes, 1048576u);
  }
  for (const char* bad : {"", "abc", "0", "-1", "8X", "8GB", "0.1"}) {
    const ScopedEnv limit(memory_limit_variable, bad);
    try {
      memory_limit();
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(std::string("FVMMINI_MEMORY_LIMIT='") + bad + "' is not a memory size", 0), 0u)
          << e.what();
    }
  }
  const ScopedEnv unset(memory_limit_variable, "");
  ::unsetenv(memory_limit_variable);
  const MemoryLimit physical = memory_limit();
  EXPECT_GT(physical.bytes, 64ull << 20);
  EXPECT_TRUE(physical.source == "physical memory" || physical.source == "the cgroup memory limit") << physical.source;
}

TEST(MeshSize, EstimateAndProblems) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(3ull << 29), "1.50 GiB");
  const ScopedEnv limit(memory_limit_variable, "1G");
  const MeshCounts small{.points = 1000, .faces = 3000, .internal_faces = 2700, .cells = 1000, .face_vertices = 12000};
  EXPECT_EQ(mesh_size_problem(small), "");
  EXPECT_GT(estimated_run_bytes(small), 0u);
  EXPECT_EQ(mesh_size_problem({.cells = 3000000000}), "3000000000 cells are past the 32-bit index range (at most 2147483647)");
  EXPECT_EQ(mesh_size_problem({.points = 100000000}),
            "a mesh of 100000000 points needs at least about 2.24 GiB for a run, more than the memory limit of 1.00 GiB "
            "(FVMMINI_MEMORY_LIMIT)");
}

TEST(BoxGeneratorSize, RefusedBeforeAnythingIsAllocated) {
  // --- 800^3 has 1.5e9 faces (under the old check) but 6.2e9 face-vertex entries
  BoxSpec spec;
  spec.cells = {800, 800, 800};
  EXPECT_EQ(box_size_problem(spec),
            "box 800x800x800: 6151680000 face-vertex entries are past the 32-bit index range (at most 2147483647)");
  try {
    generate_box(spec);
    ADD_FAILURE() << "built an 800^3 box";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), box_size_problem(spec));
  }
  spec.cells = {2000000000, 2000000000, 2000000000};
  EXPECT_EQ(box_size_problem(spec),
            "box 2000000000x2000000000x2000000000: 8.00e+27 cells are past the 32-bit index range "
            "(at most 2147483647)");
  EXPECT_THROW(generate_box(spec), std::invalid_argument);

  // --- within the index range but not within the memory limit
  const ScopedEnv limit(memory_limit_variable, "1G");
  spec.cells = {400, 400, 400};
  EXPECT_EQ(box_size_problem(spec),
            "box 400x400x400: a mesh of 64000000 cells, 192480000 faces and 64481201 points needs at least about 48.9 GiB "
            "for a run, more than the memory limit of 1.00 GiB (FVMMINI_MEMORY_LIMIT)");
  EXPECT_THROW(generate_box(spec), std::invalid_argument);

  // --- the layout without the mesh: counts and patches as generate_box makes them
  spec.cells = {3, 4, 5};
  const BoxLayout layout = box_layout(spec);
  const Mesh mesh = generate_box(spec);
  EXPECT_EQ(layout.counts.cells, mesh.n_cells);
  EXPECT_EQ(layout.counts.points, mesh.n_points());
  EXPECT_EQ(layout.counts.faces, mesh.n_faces());
  EXPECT_EQ(layout.counts.internal_faces, mesh.n_internal_faces());
  EXPECT_EQ(layout.counts.face_vertices, static_cast<std::int64_t>(mesh.face_vertices.size()));
  ASSERT_EQ(layout.patches.size(), mesh.patches.size());
  for (size_t p = 0; p < layout.patches.size(); ++p) {
    EXPECT_EQ(layout.patches[p].name, mesh.patches[p].name);
    EXPECT_EQ(layout.patches[p].start, mesh.patches[p].start);
    EXPECT_EQ(layout.patches[p].size, mesh.patches[p].size);
  }
}

TEST(MeshAssemblySize, CellCountTheFacesCannotCloseIsRefusedBeforeSizing) {
  // --- one closed tetrahedron, but a cell count of 2^31 - 1: its four faces close at most one cell
  Mesh mesh;
  mesh.points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (const auto& loop : {std::array<label, 3>{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}) mesh.add_face(loop, 0);
  mesh.patches = {{"walls", "wall", 0, 4}};
  mesh.n_cells = 1;
  EXPECT_NO_THROW(check_mesh_addressing(mesh, "tet"));
  mesh.n_cells = std::numeric_limits<label>::max();
  expect_mesh_error([&] { check_mesh_addressing(mesh, "tet"); }, "tet", 0,
                    "2147483647 cells, but 4 faces (0 internal) can close at most 1 (a cell needs at least 4 faces)");
}

}  // namespace
}  // namespace fvmmini
