#pragma once
// The built-in generator: a box of nx x ny x nz hexahedra (nz = 1 with empty
// front and back patches is the OpenFOAM-style 2-D mesh).

#include <array>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"
#include "mesh/mesh_size.hpp"

namespace fvmmini {

enum class BoxSide { xmin, xmax, ymin, ymax, zmin, zmax };

/// The side's name as written in case files ("xmin", ...).
const char* to_string(BoxSide side);

struct BoxPatch {
  std::string name;
  std::string type = "patch";
  std::vector<BoxSide> sides;
};

struct BoxSpec {
  std::array<label, 3> cells{1, 1, 1};
  Vec3 min{0.0, 0.0, 0.0};
  Vec3 max{1.0, 1.0, 1.0};
  /// Patches in the order they are written; a side no patch names becomes its own patch
  /// (named after the side, type "patch").
  std::vector<BoxPatch> patches;
};

/// Why this box cannot be built here, with the figure and the limit: more cells, faces or
/// face-vertex entries than 32-bit labels hold, or a run needing more than this machine's
/// memory (mesh_size.hpp); "" when it can. Allocates nothing.
std::string box_size_problem(const BoxSpec& spec);

/// The box as generate_box builds it, without building it.
struct BoxLayout {
  std::string description;  ///< "box 4x4x1"
  MeshCounts counts;
  std::vector<Patch> patches;       ///< in mesh order, with start and size
  std::array<int, 6> side_patch{};  ///< the index in patches of each BoxSide
};

/// The box's sizes and patches. Throws std::invalid_argument on non-positive cell counts,
/// an empty extent, a side named by two patches, or a box_size_problem.
BoxLayout box_layout(const BoxSpec& spec);

/// Build the box mesh. Throws std::invalid_argument as box_layout does.
Mesh generate_box(const BoxSpec& spec);

}  // namespace fvmmini
