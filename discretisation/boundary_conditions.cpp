#include "discretisation/boundary_conditions.hpp"

#include <stdexcept>

namespace fvmmini {

BoundaryType parse_boundary_type(const std::string& name) {
  if (name == "fixedValue") return BoundaryType::fixed_value;
  if (name == "zeroGradient") return BoundaryType::zero_gradient;
  if (name == "empty") return BoundaryType::empty;
  throw std::invalid_argument("unknown boundary condition '" + name + "' (known: fixedValue, zeroGradient, empty)");
}

const char* to_string(BoundaryType type) {
  switch (type) {
    case BoundaryType::fixed_value: return "fixedValue";
    case BoundaryType::zero_gradient: return "zeroGradient";
    case BoundaryType::empty: return "empty";
    case BoundaryType::processor: return "processor";
  }
  return "?";
}

bool ScalarBoundary::has_fixed_value() const {
  for (const auto& p : patches)
    if (p.type == BoundaryType::fixed_value) return true;
  return false;
}

void validate_boundary(const Mesh& mesh, const ScalarBoundary& boundary) {
  if (boundary.patches.size() != mesh.patches.size())
    throw std::invalid_argument("boundary conditions: " + std::to_string(boundary.patches.size()) + " given for " +
                                std::to_string(mesh.patches.size()) + " mesh patches");
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const Patch& patch = mesh.patches[p];
    const PatchCondition& bc = boundary.patches[p];
    const bool empty_patch = patch.type == "empty";
    if (empty_patch != (bc.type == BoundaryType::empty))
      throw std::invalid_argument("patch '" + patch.name + "' of type " + patch.type + " cannot take condition " +
                                  to_string(bc.type) + (empty_patch ? " (use empty)" : " (empty needs a patch of type empty)"));
    const bool processor_patch = patch.neighbour_rank >= 0;
    if (processor_patch != (bc.type == BoundaryType::processor))
      throw std::invalid_argument("patch '" + patch.name + "' of type " + patch.type + " cannot take condition " +
                                  to_string(bc.type) + (processor_patch ? " (a processor patch couples to the rank across)"
                                                                        : " (processor is for processor patches)"));
    if (bc.type == BoundaryType::fixed_value && static_cast<label>(bc.values.size()) != patch.size)
      throw std::invalid_argument("patch '" + patch.name + "': fixedValue has " + std::to_string(bc.values.size()) +
                                  " values for " + std::to_string(patch.size) + " faces");
  }
}

}  // namespace fvmmini
