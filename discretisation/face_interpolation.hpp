#pragma once
// Linear interpolation to faces and the Gauss gradient, as OpenFOAM's
// surfaceInterpolation::weights and gaussGrad with linear interpolation.

#include <span>
#include <vector>

#include "discretisation/boundary_conditions.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

/// Owner weight per internal face: phi_f = w phi_P + (1 - w) phi_N,
/// w = Sf.(C_N - C_f) / Sf.(C_N - C_P) (distances along the face normal).
std::vector<double> linear_weights(const Mesh& mesh, const MeshGeometry& geometry);

/// The value of a scalar on each boundary face (face index minus n_internal_faces):
/// fixedValue gives its value, zeroGradient and empty the owner's value.
void boundary_face_values(const Mesh& mesh, const ScalarBoundary& boundary, std::span<const double> phi,
                          std::span<double> face_values);

/// Gauss gradient grad(phi)_P = (1/V_P) sum_f phi_f S_f, linear interpolation inside,
/// boundary values from the conditions (empty faces contribute nothing).
/// @param[out] gradient one vector per cell
void gauss_gradient(const Mesh& mesh, const MeshGeometry& geometry, std::span<const double> weights,
                    const ScalarBoundary& boundary, std::span<const double> phi, std::span<Vec3> gradient);

}  // namespace fvmmini
