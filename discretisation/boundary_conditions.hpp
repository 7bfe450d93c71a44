#pragma once
// Boundary conditions of a scalar field, one per mesh patch.

#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace fvmmini {

/// processor: the faces of a processor patch (a rank's piece of a decomposed mesh), coupled to the
/// cells across; set by the code for those patches, never written in a case.
enum class BoundaryType { fixed_value, zero_gradient, empty, processor };

/// Parse "fixedValue" | "zeroGradient" | "empty"; throws std::invalid_argument otherwise.
BoundaryType parse_boundary_type(const std::string& name);
const char* to_string(BoundaryType type);

struct PatchCondition {
  BoundaryType type = BoundaryType::zero_gradient;
  std::vector<double> values;  ///< fixedValue: one value per patch face
};

/// The conditions of one field, in the mesh's patch order.
struct ScalarBoundary {
  std::vector<PatchCondition> patches;

  /// True when some patch fixes the value, so the Laplacian is non-singular.
  bool has_fixed_value() const;
};

/// Check that conditions match the mesh: one per patch, fixedValue sized to the patch,
/// empty exactly on patches of type empty, processor exactly on processor patches. Throws
/// std::invalid_argument naming the patch.
void validate_boundary(const Mesh& mesh, const ScalarBoundary& boundary);

}  // namespace fvmmini
