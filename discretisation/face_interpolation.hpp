#pragma once
// Linear interpolation weights to faces, as OpenFOAM's surfaceInterpolation::weights.

#include <vector>

#include "mesh/geometry.hpp"

namespace fvmmini {

/// Owner weight per internal face: phi_f = w phi_P + (1 - w) phi_N,
/// w = Sf.(C_N - C_f) / Sf.(C_N - C_P) (distances along the face normal).
std::vector<double> linear_weights(const Mesh& mesh, const MeshGeometry& geometry);

}  // namespace fvmmini
