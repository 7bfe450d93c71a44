#include "discretisation/incompressible/flow_boundary.hpp"

#include <stdexcept>

#include "discretisation/incompressible/flow_formulas.hpp"

namespace fvmmini {

FlowPatchType parse_flow_patch_type(const std::string& name) {
  if (name == "wall") return FlowPatchType::wall;
  if (name == "velocityInlet") return FlowPatchType::velocity_inlet;
  if (name == "pressureOutlet") return FlowPatchType::pressure_outlet;
  if (name == "empty") return FlowPatchType::empty;
  throw std::invalid_argument("unknown flow boundary type '" + name +
                              "' (known: wall, velocityInlet, pressureOutlet, empty)");
}

const char* to_string(FlowPatchType type) {
  switch (type) {
    case FlowPatchType::wall: return "wall";
    case FlowPatchType::velocity_inlet: return "velocityInlet";
    case FlowPatchType::pressure_outlet: return "pressureOutlet";
    case FlowPatchType::empty: return "empty";
    case FlowPatchType::processor: return "processor";
  }
  return "?";
}

bool FlowBoundary::fixes_pressure() const {
  for (const auto& p : patches)
    if (p.type == FlowPatchType::pressure_outlet) return true;
  return false;
}

void validate_flow_boundary(const Mesh& mesh, const FlowBoundary& boundary) {
  if (boundary.patches.size() != mesh.patches.size())
    throw std::invalid_argument("flow boundary: " + std::to_string(boundary.patches.size()) +
                                " conditions given for " + std::to_string(mesh.patches.size()) + " mesh patches");
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    const bool empty_patch = patch.type == "empty";
    if (empty_patch != (boundary.patches[p].type == FlowPatchType::empty))
      throw std::invalid_argument("patch '" + patch.name + "' of type " + patch.type + " cannot take condition " +
                                  to_string(boundary.patches[p].type) +
                                  (empty_patch ? " (use empty)" : " (empty needs a patch of type empty)"));
    if ((patch.neighbour_rank >= 0) != (boundary.patches[p].type == FlowPatchType::processor))
      throw std::invalid_argument("patch '" + patch.name + "' of type " + patch.type + " cannot take condition " +
                                  to_string(boundary.patches[p].type) + " (processor is a processor patch's only)");
  }
}

std::vector<Vec3> boundary_face_velocities(const Mesh& mesh, const MeshGeometry& g, const FlowBoundary& boundary) {
  const label n_internal = mesh.n_internal_faces();
  std::vector<Vec3> velocity(mesh.n_faces() - n_internal);
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    const FlowPatchCondition& bc = boundary.patches[p];
    if (bc.type != FlowPatchType::wall && bc.type != FlowPatchType::velocity_inlet) continue;
    for (label f = patch.start; f < patch.start + patch.size; ++f) {
      velocity[f - n_internal] =
          bc.type == FlowPatchType::wall ? flow::wall_velocity(bc.velocity, g.face_areas[f]) : bc.velocity;
    }
  }
  return velocity;
}

ScalarBoundary velocity_component_boundary(const Mesh& mesh, const MeshGeometry& g, const FlowBoundary& boundary,
                                           int component) {
  const auto face_velocity = boundary_face_velocities(mesh, g, boundary);
  const label n_internal = mesh.n_internal_faces();
  ScalarBoundary s;
  s.patches.resize(mesh.patches.size());
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    PatchCondition& pc = s.patches[p];
    switch (boundary.patches[p].type) {
      case FlowPatchType::wall:
      case FlowPatchType::velocity_inlet:
        pc.type = BoundaryType::fixed_value;
        pc.values.resize(patch.size);
        for (label i = 0; i < patch.size; ++i) pc.values[i] = face_velocity[patch.start + i - n_internal][component];
        break;
      case FlowPatchType::pressure_outlet: pc.type = BoundaryType::zero_gradient; break;
      case FlowPatchType::empty: pc.type = BoundaryType::empty; break;
      case FlowPatchType::processor: pc.type = BoundaryType::processor; break;
    }
  }
  return s;
}

ScalarBoundary pressure_boundary(const Mesh& mesh, const FlowBoundary& boundary) {
  ScalarBoundary s;
  s.patches.resize(mesh.patches.size());
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    PatchCondition& pc = s.patches[p];
    switch (boundary.patches[p].type) {
      case FlowPatchType::wall:
      case FlowPatchType::velocity_inlet: pc.type = BoundaryType::zero_gradient; break;
      case FlowPatchType::pressure_outlet:
        pc.type = BoundaryType::fixed_value;
        pc.values.assign(mesh.patches[p].size, boundary.patches[p].pressure);
        break;
      case FlowPatchType::empty: pc.type = BoundaryType::empty; break;
      case FlowPatchType::processor: pc.type = BoundaryType::processor; break;
    }
  }
  return s;
}

}  // namespace fvmmini
