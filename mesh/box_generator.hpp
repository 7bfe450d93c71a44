#pragma once
// The built-in generator: a box of nx x ny x nz hexahedra (nz = 1 with empty
// front and back patches is the OpenFOAM-style 2-D mesh).

#include <array>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

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

/// Build the box mesh. Throws std::invalid_argument on non-positive cell counts,
/// an empty extent, or a side named by two patches.
Mesh generate_box(const BoxSpec& spec);

}  // namespace fvmmini
