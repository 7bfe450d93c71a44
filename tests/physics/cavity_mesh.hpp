#pragma once
// The 2-D lid-driven cavity's mesh, for the physics tests and the distributed ones (which link
// no app code, so this header includes none).

#include "mesh/box_generator.hpp"

namespace fvmmini::testing {

/// An n x n x 1 unit cavity: movingWall (ymax), fixedWalls, frontAndBack (empty).
inline Mesh cavity_mesh(label n) {
  BoxSpec spec;
  spec.cells = {n, n, 1};
  spec.max = {1.0, 1.0, 0.1};
  spec.patches = {{"movingWall", "wall", {BoxSide::ymax}},
                  {"fixedWalls", "wall", {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin}},
                  {"frontAndBack", "empty", {BoxSide::zmin, BoxSide::zmax}}};
  return generate_box(spec);
}

}  // namespace fvmmini::testing
