#pragma once
// Boundary conditions of incompressible flow, one per mesh patch, and the scalar
// conditions they imply for the velocity components and the pressure.
//
//   wall            U fixed (no-slip; a moving wall gives its tangential velocity), zero flux,
//                   p zeroGradient
//   velocityInlet   U fixed (uniform value), flux U.S, p zeroGradient
//   pressureOutlet  U zeroGradient, p fixed (uniform value)
//   empty           the 2-D front and back: no flux, no gradient contribution
//   processor       (no case key) the faces of a processor patch on a rank's part of a decomposed
//                   mesh: coupled to the cells across as internal faces are

#include <string>
#include <vector>

#include "discretisation/boundary_conditions.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

enum class FlowPatchType { wall, velocity_inlet, pressure_outlet, empty, processor };

/// Parse "wall" | "velocityInlet" | "pressureOutlet" | "empty"; throws std::invalid_argument otherwise.
FlowPatchType parse_flow_patch_type(const std::string& name);
const char* to_string(FlowPatchType type);

struct FlowPatchCondition {
  FlowPatchType type = FlowPatchType::wall;
  Vec3 velocity;          ///< wall: the wall's velocity (normal part removed); inlet: the inflow velocity
  double pressure = 0.0;  ///< pressureOutlet: the fixed (kinematic) pressure
};

/// The conditions in the mesh's patch order.
struct FlowBoundary {
  std::vector<FlowPatchCondition> patches;

  /// True when some patch fixes the pressure (otherwise a reference level is needed).
  bool fixes_pressure() const;
};

/// Check one condition per patch, empty exactly on patches of type empty and processor exactly on
/// processor patches. Throws std::invalid_argument naming the patch.
void validate_flow_boundary(const Mesh& mesh, const FlowBoundary& boundary);

/// The scalar condition every velocity component obeys (fixedValue on walls and inlets, values
/// of component `component`; zeroGradient on outlets; empty).
ScalarBoundary velocity_component_boundary(const Mesh& mesh, const MeshGeometry& geometry,
                                           const FlowBoundary& boundary, int component);

/// The pressure condition: fixedValue on outlets, zeroGradient on walls and inlets, empty.
ScalarBoundary pressure_boundary(const Mesh& mesh, const FlowBoundary& boundary);

/// The velocity of each boundary face (index f - n_internal_faces) on walls and inlets; walls lose
/// their normal component so that the wall carries no flux. Zero on other patches.
std::vector<Vec3> boundary_face_velocities(const Mesh& mesh, const MeshGeometry& geometry,
                                           const FlowBoundary& boundary);

}  // namespace fvmmini
