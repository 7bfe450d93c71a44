#pragma once
// Every per-face and per-cell formula of the mesh's geometry (OpenFOAM's
// primitiveMeshFaceCentresAndAreas and primitiveMeshCellCentresAndVols) and of its check
// (primitiveMeshCheck's figures), written once as inline functions over plain views of the mesh.
// The host's OpenMP loops (geometry.cpp, mesh_check.cpp) and the device's kernels
// (discretisation/device_mesh_check.cu) call the same functions in the same order of operations;
// neither side contracts a multiply and an add, so the device's geometry is the host's to the bit.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "mesh/cell_face_lists.hpp"
#include "mesh/mesh.hpp"
#include "mesh/vec3.hpp"

#if defined(__CUDACC__)
#define FVMMINI_MESH_HD __host__ __device__
#else
#define FVMMINI_MESH_HD
#endif

namespace fvmmini::mesh_formulas {

// Thresholds as in OpenFOAM's primitiveMeshCheck.
inline constexpr double closed_threshold = 1.0e-6;
inline constexpr double aspect_threshold = 1000.0;
inline constexpr double non_orthogonality_threshold_deg = 70.0;
inline constexpr double skew_threshold = 4.0;
inline constexpr double vsmall = 1.0e-300;
inline constexpr double rootvsmall = 1.0e-150;

/// The check's passes run over chunks of this many faces or cells, each summed in order and the
/// chunks' sums merged in order: the same sums to the bit on any number of threads, or on the device.
inline constexpr std::int64_t figure_chunk = std::int64_t{1} << 16;

struct MeshView {
  label n_cells = 0, n_faces = 0, n_internal = 0;
  const Vec3* points = nullptr;
  const label* face_offsets = nullptr;  ///< n_faces + 1
  const label* face_vertices = nullptr;
  const label* owner = nullptr;
  const label* neighbour = nullptr;  ///< internal faces
};

/// CellFaceLists' arrays: each cell's owned faces, then its neighboured ones.
struct CellListView {
  const std::int64_t* start = nullptr;  ///< n_cells + 1
  const label* faces = nullptr;
  const label* owned = nullptr;
};

struct GeometryView {
  const Vec3* face_centres = nullptr;
  const Vec3* face_areas = nullptr;
  const Vec3* cell_centres = nullptr;
  const double* cell_volumes = nullptr;
};

/// The views of a mesh and its cell_face_lists in host memory.
inline MeshView mesh_view(const Mesh& mesh) {
  return {.n_cells = mesh.n_cells,
          .n_faces = mesh.n_faces(),
          .n_internal = mesh.n_internal_faces(),
          .points = mesh.points.data(),
          .face_offsets = mesh.face_offsets.data(),
          .face_vertices = mesh.face_vertices.data(),
          .owner = mesh.owner.data(),
          .neighbour = mesh.neighbour.data()};
}
inline CellListView cell_list_view(const CellFaceLists& cells) {
  return {.start = cells.start.data(), .faces = cells.faces.data(), .owned = cells.owned.data()};
}

FVMMINI_MESH_HD inline double magnitude(const Vec3& v) { return sqrt(dot(v, v)); }
FVMMINI_MESH_HD inline Vec3 component_magnitudes(const Vec3& v) { return {fabs(v.x), fabs(v.y), fabs(v.z)}; }

FVMMINI_MESH_HD inline bool finite(double x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}
FVMMINI_MESH_HD inline bool finite(const Vec3& v) { return finite(v.x) && finite(v.y) && finite(v.z); }

// ---------------------------------------------------------------------------------------
// Geometry

/// Face f's centre and area vector: triangles (p_i, p_i+1, c_est) about the point average.
FVMMINI_MESH_HD inline void face_centre_and_area(const MeshView& m, label f, Vec3& centre, Vec3& area) {
  const label* vertices = m.face_vertices + m.face_offsets[f];
  const label n = m.face_offsets[f + 1] - m.face_offsets[f];
  const Vec3* p = m.points;
  if (n == 3) {
    centre = (p[vertices[0]] + p[vertices[1]] + p[vertices[2]]) / 3.0;
    area = 0.5 * cross(p[vertices[1]] - p[vertices[0]], p[vertices[2]] - p[vertices[0]]);
    return;
  }
  Vec3 estimate;
  for (label i = 0; i < n; ++i) estimate += p[vertices[i]];
  estimate /= static_cast<double>(n);

  Vec3 sum_n, sum_ac;
  double sum_a = 0.0;
  for (label i = 0; i < n; ++i) {
    const Vec3& a = p[vertices[i]];
    const Vec3& b = p[vertices[(i + 1) % n]];
    const Vec3 tri_normal = cross(b - a, estimate - a);  // twice the triangle's area vector
    sum_n += tri_normal;
    sum_a += magnitude(tri_normal);
    sum_ac += magnitude(tri_normal) * (a + b + estimate);
  }
  centre = sum_a > 0.0 ? sum_ac / (3.0 * sum_a) : estimate;
  area = 0.5 * sum_n;
}

/// Cell c's centre and volume over its faces (owned, then neighboured: the order of a pass over
/// the owners and one over the neighbours, so the same sums to the bit): the centre estimate, the
/// average of its face centres; then the pyramids (face, estimate): V = Sf.(Cf - Ce)/3,
/// centroid = 3/4 Cf + 1/4 Ce.
FVMMINI_MESH_HD inline void cell_centre_and_volume(const CellListView& cells, const Vec3* face_centres,
                                                   const Vec3* face_areas, label c, Vec3& centre, double& volume) {
  const std::int64_t first = cells.start[c], last = cells.start[c + 1], owned_end = first + cells.owned[c];
  Vec3 estimate;
  for (std::int64_t k = first; k < last; ++k) estimate += face_centres[cells.faces[k]];
  estimate /= static_cast<double>(last - first > 1 ? last - first : 1);
  Vec3 sum;
  double v3 = 0.0;
  for (std::int64_t k = first; k < last; ++k) {
    const label f = cells.faces[k];
    const double pyr3 = (k < owned_end ? 1.0 : -1.0) * dot(face_areas[f], face_centres[f] - estimate);
    sum += pyr3 * (0.75 * face_centres[f] + 0.25 * estimate);
    v3 += pyr3;
  }
  centre = fabs(v3) > 0.0 ? sum / v3 : estimate;
  volume = v3 / 3.0;
}

// ---------------------------------------------------------------------------------------
// The check's figures of one face and of one cell, and their merges

FVMMINI_MESH_HD inline bool non_finite_face(const GeometryView& g, label f) {
  return !finite(g.face_areas[f]) || !finite(g.face_centres[f]);
}
FVMMINI_MESH_HD inline bool non_finite_cell(const GeometryView& g, label c) {
  return !finite(g.cell_volumes[c]) || !finite(g.cell_centres[c]);
}

/// From the owner's centre across face f: to the neighbour's centre, or to a boundary face's centre.
FVMMINI_MESH_HD inline Vec3 owner_to_across(const MeshView& m, const GeometryView& g, label f) {
  return f < m.n_internal ? g.cell_centres[m.neighbour[f]] - g.cell_centres[m.owner[f]]
                          : g.face_centres[f] - g.cell_centres[m.owner[f]];
}

/// Area vectors point out of the owner: d.Sf > 0 on internal faces, (Cf - C).Sf > 0 on boundary ones.
FVMMINI_MESH_HD inline bool wrongly_oriented(const MeshView& m, const GeometryView& g, label f) {
  return !(dot(owner_to_across(m, g, f), g.face_areas[f]) > 0.0);
}

/// OpenFOAM's face skewness: the distance from the face centre to where the line d from the
/// owner's centre (between the cell centres, or along the face normal) crosses the face plane,
/// relative to the face's extent in that direction (at least 0.2 |d|).
FVMMINI_MESH_HD inline double face_skewness(const MeshView& m, const GeometryView& g, label f, const Vec3& d) {
  const Vec3& sf = g.face_areas[f];
  const Vec3 cpf = g.face_centres[f] - g.cell_centres[m.owner[f]];
  const Vec3 sv = cpf - (dot(sf, cpf) / (dot(sf, d) + rootvsmall)) * d;  // the crossing's offset from Cf
  const Vec3 sv_hat = sv / (magnitude(sv) + rootvsmall);
  double fd = 0.2 * magnitude(d) + rootvsmall;
  for (label k = m.face_offsets[f]; k < m.face_offsets[f + 1]; ++k)
    fd = std::max(fd, fabs(dot(sv_hat, m.points[m.face_vertices[k]] - g.face_centres[f])));
  return magnitude(sv) / fd;
}

struct FaceFigures {
  label non_finite = 0, zero_area = 0, wrongly_oriented = 0, severely_non_orthogonal = 0, highly_skew = 0;
  double min_area = std::numeric_limits<double>::max(), max_area = 0.0;
  double min_cos = 1.0, sum_cos = 0.0;  ///< of the non-orthogonality angle, internal faces
  double max_skewness = 0.0;

  FVMMINI_MESH_HD void merge(const FaceFigures& o) {
    non_finite += o.non_finite, zero_area += o.zero_area, wrongly_oriented += o.wrongly_oriented;
    severely_non_orthogonal += o.severely_non_orthogonal, highly_skew += o.highly_skew;
    min_area = std::min(min_area, o.min_area), max_area = std::max(max_area, o.max_area);
    min_cos = std::min(min_cos, o.min_cos), sum_cos += o.sum_cos;
    max_skewness = std::max(max_skewness, o.max_skewness);
  }
};

/// Face f's area, orientation, non-orthogonality (internal faces: its cosine returned, else 0)
/// and skewness (along the line between the cell centres on internal faces, along the face
/// normal through the owner's centre on boundary ones) added to s; severe_cos: the cosine of
/// non_orthogonality_threshold_deg.
FVMMINI_MESH_HD inline double add_face_figures(FaceFigures& s, const MeshView& m, const GeometryView& g, label f,
                                               double severe_cos) {
  const Vec3& sf = g.face_areas[f];
  const double area = magnitude(sf);
  s.non_finite += non_finite_face(g, f);
  s.min_area = std::min(s.min_area, area);
  s.max_area = std::max(s.max_area, area);
  s.zero_area += area < vsmall;
  s.wrongly_oriented += wrongly_oriented(m, g, f);
  const Vec3 d = owner_to_across(m, g, f);
  double skew = 0.0, cos = 0.0;
  if (f < m.n_internal) {
    cos = dot(d, sf) / (magnitude(d) * area + rootvsmall);
    s.severely_non_orthogonal += cos < severe_cos && cos > 0.0;
    s.min_cos = std::min(s.min_cos, cos);
    s.sum_cos += cos;
    skew = face_skewness(m, g, f, d);
  } else {
    const Vec3 normal = sf / (area + rootvsmall);
    skew = face_skewness(m, g, f, normal * dot(normal, d));
  }
  s.max_skewness = std::max(s.max_skewness, skew);
  s.highly_skew += skew > skew_threshold;
  return cos;
}

/// A cell's shape, as OpenFOAM names it.
enum class CellShape { hexahedron, prism, wedge, pyramid, tet_wedge, tetrahedron, polyhedron };

/// Cells by shape.
struct CellTypeCounts {
  label hexahedra = 0;   ///< 6 quadrilaterals, 8 vertices
  label prisms = 0;      ///< 2 triangles + 3 quadrilaterals, 6 vertices
  label wedges = 0;      ///< 2 triangles + 4 quadrilaterals, 7 vertices (OpenFOAM's collapsed hex)
  label pyramids = 0;    ///< 1 quadrilateral + 4 triangles, 5 vertices
  label tet_wedges = 0;  ///< 2 triangles + 2 quadrilaterals, 5 vertices
  label tetrahedra = 0;  ///< 4 triangles, 4 vertices
  label polyhedra = 0;   ///< everything else

  FVMMINI_MESH_HD void add(CellShape shape) {
    label* counts[] = {&hexahedra, &prisms, &wedges, &pyramids, &tet_wedges, &tetrahedra, &polyhedra};
    ++*counts[static_cast<int>(shape)];
  }
  FVMMINI_MESH_HD void merge(const CellTypeCounts& o) {
    hexahedra += o.hexahedra, prisms += o.prisms, wedges += o.wedges, pyramids += o.pyramids;
    tet_wedges += o.tet_wedges, tetrahedra += o.tetrahedra, polyhedra += o.polyhedra;
  }
};

/// Cell c's shape: a named shape where its faces, triangles and quadrilaterals (every face one or
/// the other: at most 24 vertex references) and its distinct vertices are as many as the shape's
/// (counted in a small array, stopping at one too many); else a polyhedron.
FVMMINI_MESH_HD inline CellShape cell_shape(const MeshView& m, const CellListView& cells, label c) {
  // faces, triangles, quadrilaterals, vertices: in CellShape's order
  constexpr label shapes[6][4] = {{6, 0, 6, 8}, {5, 2, 3, 6}, {6, 2, 4, 7}, {5, 4, 1, 5}, {4, 2, 2, 5}, {4, 4, 0, 4}};
  label nf = 0, t = 0, q = 0;
  for (std::int64_t k = cells.start[c]; k < cells.start[c + 1]; ++k) {
    const label f = cells.faces[k], size = m.face_offsets[f + 1] - m.face_offsets[f];
    ++nf, t += size == 3, q += size == 4;
  }
  int shape = 0;
  while (shape < 6 && !(shapes[shape][0] == nf && shapes[shape][1] == t && shapes[shape][2] == q)) ++shape;
  if (shape == 6) return CellShape::polyhedron;
  const label expected = shapes[shape][3];
  label seen[8];
  label n_seen = 0;
  for (std::int64_t k = cells.start[c]; k < cells.start[c + 1]; ++k) {
    const label f = cells.faces[k];
    for (label i = m.face_offsets[f]; i < m.face_offsets[f + 1]; ++i) {
      const label v = m.face_vertices[i];
      label j = 0;
      while (j < n_seen && seen[j] != v) ++j;
      if (j < n_seen) continue;
      if (n_seen == expected) return CellShape::polyhedron;  // one vertex more than the shape has
      seen[n_seen++] = v;
    }
  }
  return n_seen == expected ? static_cast<CellShape>(shape) : CellShape::polyhedron;
}

/// Cell c's openness: the largest component of |sum Sf| / sum |Sf| over its faces turned outward.
/// @param[out] sum_mag the sum of its faces' component magnitudes (the aspect ratio's areas)
FVMMINI_MESH_HD inline double cell_openness(const CellListView& cells, const Vec3* face_areas, label c,
                                            Vec3& sum_mag) {
  Vec3 sum;
  sum_mag = Vec3{};
  const std::int64_t owned_end = cells.start[c] + cells.owned[c];
  for (std::int64_t k = cells.start[c]; k < cells.start[c + 1]; ++k) {
    const Vec3& sf = face_areas[cells.faces[k]];
    if (k < owned_end) sum += sf;
    else sum -= sf;
    sum_mag += component_magnitudes(sf);
  }
  double openness = 0.0;
  for (int d = 0; d < 3; ++d) openness = std::max(openness, fabs(sum[d]) / (sum_mag[d] + rootvsmall));
  return openness;
}

/// The directions the aspect ratio measures: those not normal to empty patches (OpenFOAM's
/// calcDirections; a 2-D mesh's thickness left out).
struct AspectDirections {
  bool d[3] = {true, true, true};
};

/// OpenFOAM's aspect ratio: the largest over the smallest projected area (sum_mag's components)
/// in the solution directions, and in 3-D at least the cell's surface over that of a cube of its
/// volume.
FVMMINI_MESH_HD inline double aspect_ratio(const Vec3& sum_mag, double volume, const AspectDirections& dirs) {
  const int n_dims = dirs.d[0] + dirs.d[1] + dirs.d[2];
  double min_cmpt = std::numeric_limits<double>::max(), max_cmpt = -std::numeric_limits<double>::max();
  for (int d = 0; d < 3; ++d)
    if (dirs.d[d]) {
      min_cmpt = std::min(min_cmpt, sum_mag[d]);
      max_cmpt = std::max(max_cmpt, sum_mag[d]);
    }
  double aspect = n_dims > 0 ? max_cmpt / (min_cmpt + rootvsmall) : 1.0;
  if (n_dims == 3) {
    const double v = rootvsmall < volume ? volume : rootvsmall;  // std::max without a reference to a host constant
    aspect = std::max(aspect, (sum_mag.x + sum_mag.y + sum_mag.z) / 6.0 / pow(v, 2.0 / 3.0));
  }
  return aspect;
}

struct CellFigures {
  CellTypeCounts types;
  label non_finite = 0, non_positive = 0, open = 0, high_aspect = 0;
  double min_volume = std::numeric_limits<double>::max(), max_volume = -std::numeric_limits<double>::max();
  double total_volume = 0.0, max_openness = 0.0, max_aspect = 0.0;

  FVMMINI_MESH_HD void merge(const CellFigures& o) {
    types.merge(o.types);
    non_finite += o.non_finite, non_positive += o.non_positive, open += o.open, high_aspect += o.high_aspect;
    min_volume = std::min(min_volume, o.min_volume), max_volume = std::max(max_volume, o.max_volume);
    total_volume += o.total_volume;
    max_openness = std::max(max_openness, o.max_openness), max_aspect = std::max(max_aspect, o.max_aspect);
  }
};

/// Cell c's shape, volume, openness and aspect ratio added to s.
FVMMINI_MESH_HD inline void add_cell_figures(CellFigures& s, const MeshView& m, const CellListView& cells,
                                             const GeometryView& g, label c, const AspectDirections& dirs) {
  s.types.add(cell_shape(m, cells, c));
  s.non_finite += non_finite_cell(g, c);
  const double v = g.cell_volumes[c];
  s.min_volume = std::min(s.min_volume, v);
  s.max_volume = std::max(s.max_volume, v);
  s.non_positive += v < vsmall;
  s.total_volume += v;
  Vec3 sum_mag;
  const double openness = cell_openness(cells, g.face_areas, c, sum_mag);
  s.max_openness = std::max(s.max_openness, openness);
  s.open += openness > closed_threshold;
  const double aspect = aspect_ratio(sum_mag, v, dirs);
  s.max_aspect = std::max(s.max_aspect, aspect);
  s.high_aspect += aspect > aspect_threshold;
}

}  // namespace fvmmini::mesh_formulas
