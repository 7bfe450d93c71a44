#pragma once
// The Laplacian's per-face and per-cell formulas (OpenFOAM's Gauss linear corrected), written once
// as inline functions for the host's loops (laplacian.cpp) and the device's kernels
// (incompressible/device_flow_operators.cu): a face's implicit coefficient and correction vector, a
// cell's diagonal and boundary source gathered over its faces in face order, the order of the
// host's pass over the faces. Neither side contracts a multiply and an add, so the device's
// coefficients are the host's to the bit.

#include <cmath>
#include <cstdint>

#include "mesh/cell_face_lists.hpp"
#include "mesh/mesh_formulas.hpp"
#include "mesh/vec3.hpp"

#if defined(__CUDACC__)
#define FVMMINI_LAPLACIAN_HD __host__ __device__
#else
#define FVMMINI_LAPLACIAN_HD
#endif

namespace fvmmini::laplacian_formulas {

/// A face's implicit coefficient |S| / (n.d), n.d bounded below by 0.05 |d| as OpenFOAM does, and
/// its correction vector |S| k with k = n - d / (n.d): zero on an orthogonal face.
struct FaceTerms {
  double coeff;
  Vec3 correction;
  double area;
  FVMMINI_LAPLACIAN_HD bool orthogonal() const { return !(sqrt(dot(correction, correction)) > 1e-10 * area); }
};

/// The terms of a face with area vector sf whose d runs from the owner's centre to the far end
/// (the neighbour's centre, a boundary face's centre, the centre across a processor face).
FVMMINI_LAPLACIAN_HD inline FaceTerms face_terms(const Vec3& sf, const Vec3& d) {
  const double area = sqrt(dot(sf, sf));
  const Vec3 n = sf / area;
  const double along = dot(n, d), floor = 0.05 * sqrt(dot(d, d));
  const double nd = along < floor ? floor : along;  // std::max's choice, NaN included
  return {area / nd, area * (n - d / nd), area};
}

/// Cell c's diagonal of -div(gamma grad): gamma coeff of each internal face, then gamma bcoeff of
/// each fixed-value boundary face (fixed[f - n_internal] non-zero), in face order.
FVMMINI_LAPLACIAN_HD inline double cell_diagonal(const mesh_formulas::CellListView& cells, label c, label n_internal, double gamma,
                                                 const double* coeff, const double* bcoeff,
                                                 const std::uint8_t* fixed) {
  double diag = 0.0;
  for_each_face_in_face_order(cells, c, [&](label f) {
    if (f < n_internal)
      diag += gamma * coeff[f];
    else if (fixed[f - n_internal])
      diag += gamma * bcoeff[f - n_internal];
  });
  return diag;
}

/// Cell c's boundary source: gamma bcoeff value(b) of each fixed-value boundary face (b = f -
/// n_internal), in face order: the sums of Laplacian::add_boundary_source's pass over the faces
/// into a zeroed source, to the bit.
template <class Value>
FVMMINI_LAPLACIAN_HD double cell_boundary_source(const mesh_formulas::CellListView& cells, label c, label n_internal,
                                                 double gamma, const double* bcoeff, const std::uint8_t* fixed,
                                                 Value&& value) {
  double source = 0.0;
  for_each_face_in_face_order(cells, c, [&](label f) {
    if (f >= n_internal && fixed[f - n_internal]) source += gamma * bcoeff[f - n_internal] * value(f - n_internal);
  });
  return source;
}

}  // namespace fvmmini::laplacian_formulas
