#pragma once
// Linear interpolation weights to faces, as OpenFOAM's surfaceInterpolation::weights.

#include <vector>

#include "base/unfilled_vector.hpp"
#include "mesh/geometry.hpp"

#if defined(__CUDACC__)
#define FVMMINI_INTERPOLATION_HD __host__ __device__
#else
#define FVMMINI_INTERPOLATION_HD
#endif

namespace fvmmini {

/// The owner weight of a face between centres P and N: phi_f = w phi_P + (1 - w) phi_N,
/// w = Sf.(C_N - C_f) / Sf.(C_N - C_P) (distances along the face normal; 1/2 for a degenerate span).
/// On the host and the device (DeviceFlowOperators), the same to the bit.
FVMMINI_INTERPOLATION_HD inline double linear_weight(const Vec3& area, const Vec3& face_centre, const Vec3& owner_centre,
                            const Vec3& neighbour_centre) {
  const double span = dot(area, neighbour_centre - owner_centre);
  return span != 0.0 ? dot(area, neighbour_centre - face_centre) / span : 0.5;
}

/// linear_weight of every internal face.
UnfilledVector<double> linear_weights(const Mesh& mesh, const MeshGeometry& geometry);

}  // namespace fvmmini
