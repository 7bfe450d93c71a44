#include "mesh/mesh_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "mesh/cell_face_lists.hpp"
#include "mesh/mesh_assembly.hpp"

namespace fvmmini {

namespace {

// Thresholds as in OpenFOAM's primitiveMeshCheck.
constexpr double closed_threshold = 1.0e-6;
constexpr double aspect_threshold = 1000.0;
constexpr double non_orthogonality_threshold_deg = 70.0;
constexpr double skew_threshold = 4.0;
constexpr double vsmall = 1.0e-300;
constexpr double rootvsmall = 1.0e-150;
constexpr size_t max_listed = 10;

Vec3 cmpt_mag(const Vec3& v) { return {std::abs(v.x), std::abs(v.y), std::abs(v.z)}; }
double radians_to_degrees(double r) { return r * 180.0 / std::numbers::pi; }

double max_abs_component(const Vec3& v) { return std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)}); }

std::string vec_text(const Vec3& v) { return fmt::format("({:.6g} {:.6g} {:.6g})", v.x, v.y, v.z); }

std::string list_text(const std::vector<label>& items, label total) {
  std::string s;
  for (label i : items) s += fmt::format("{}{}", s.empty() ? "" : " ", i);
  if (total > static_cast<label>(items.size())) s += " ...";
  return s;
}

/// Count an offender; the first max_listed are kept for the message.
void add_offender(label& count, std::vector<label>& listed, label item) {
  ++count;
  if (listed.size() < max_listed) listed.push_back(item);
}

/// From the owner's centre to the neighbour's across internal face f.
Vec3 centre_to_centre(const Mesh& mesh, const MeshGeometry& g, label f) {
  return g.cell_centres[mesh.neighbour[f]] - g.cell_centres[mesh.owner[f]];
}

/// OpenFOAM's face skewness: the distance from the face centre to where the line between
/// the cell centres (or the face normal through the owner centre) crosses the face plane,
/// relative to the face size in that direction.
double face_skewness(const Mesh& mesh, const MeshGeometry& g, label f, const Vec3& d) {
  const Vec3& sf = g.face_areas[f];
  const Vec3 cpf = g.face_centres[f] - g.cell_centres[mesh.owner[f]];
  // --- sv = Cpf - (Sf.Cpf / Sf.d) d: the offset of the crossing point from the face centre
  const Vec3 sv = cpf - (dot(sf, cpf) / (dot(sf, d) + rootvsmall)) * d;
  const Vec3 sv_hat = sv / (mag(sv) + rootvsmall);
  // --- normalise by the face's extent along sv (at least 0.2 |d|)
  double fd = 0.2 * mag(d) + rootvsmall;
  for (label v : mesh.face(f)) fd = std::max(fd, std::abs(dot(sv_hat, mesh.points[v] - g.face_centres[f])));
  return mag(sv) / fd;
}

// ---------------------------------------------------------------------------------------
// The checks of the addressing, the patches and the points, one per property as in
// primitiveMeshCheck. Each fills its fields of the report and adds its own failure or warning.

void check_upper_triangular(const Mesh& mesh, MeshCheckReport& r) {
  r.upper_triangular = is_upper_triangular(mesh);
  if (!r.upper_triangular) r.failures.push_back("internal faces are not in upper-triangular order with owner < neighbour");
}

/// Patches must follow the internal faces and each other without gaps, ending at the last face.
void check_boundary_definition(const Mesh& mesh, MeshCheckReport& r) {
  label next_start = mesh.n_internal_faces();
  for (const auto& p : mesh.patches) {
    r.patches.push_back({p.name, p.type, p.size});
    if (p.start != next_start || p.size < 0) r.boundary_definition_ok = false;
    next_start = p.start + p.size;
  }
  if (next_start != mesh.n_faces()) r.boundary_definition_ok = false;
  if (!r.boundary_definition_ok) r.failures.push_back("patches are not contiguous or do not cover all boundary faces");
}

/// Cells that no internal face connects: valid, but each region's level is its own (OpenFOAM's
/// checkMesh says so too).
void count_regions(const Mesh& mesh, MeshCheckReport& r) {
  r.regions = mesh_regions(mesh);
  const MeshRegions& regions = r.regions;
  if (regions.count <= 1) return;
  std::string sizes;
  for (label k = 0; k < std::min<label>(regions.count, max_listed); ++k)
    sizes += fmt::format("{}{} cells from cell {}", k == 0 ? "" : ", ", regions.cells[k], regions.first_cell[k]);
  r.warnings.push_back(fmt::format("{} regions that no internal face connects ({}{}): a steady equation needs a "
                                   "fixed value in each",
                                   regions.count, sizes,
                                   regions.count > static_cast<label>(max_listed) ? ", ..." : ""));
}

void check_point_usage(const Mesh& mesh, MeshCheckReport& r) {
  std::vector<char> used(mesh.points.size(), 0);
  const auto n_vertices = static_cast<std::int64_t>(mesh.face_vertices.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n_vertices; ++k)  // threads may mark one point together: atomic stores
    std::atomic_ref<char>(used[mesh.face_vertices[k]]).store(1, std::memory_order_relaxed);
  const auto n_points = static_cast<std::int64_t>(used.size());
  label unused = 0;
#pragma omp parallel for schedule(static) reduction(+ : unused)
  for (std::int64_t p = 0; p < n_points; ++p) unused += used[p] == 0;
  r.n_unused_points = unused;
  if (r.n_unused_points > 0) r.warnings.push_back(fmt::format("{} points are used by no face", r.n_unused_points));
}

void find_bounding_box(const Mesh& mesh, MeshCheckReport& r) {
  if (mesh.points.empty()) return;
  const Bounds b = bounds_of(mesh.points);
  r.bounding_box_min = b.lo;
  r.bounding_box_max = b.hi;
}

/// Boundary openness: sum Sf / sum |Sf| over boundary faces, zero for a closed domain.
void check_closed_boundary(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  Vec3 sum_boundary;
  double sum_mag_boundary = 0.0;
  for (label f = mesh.n_internal_faces(); f < mesh.n_faces(); ++f) {
    sum_boundary += g.face_areas[f];
    sum_mag_boundary += mag(g.face_areas[f]);
  }
  r.boundary_openness = sum_mag_boundary > 0.0 ? sum_boundary / sum_mag_boundary : Vec3{};
  if (max_abs_component(r.boundary_openness) > closed_threshold)
    r.failures.push_back("open boundary: boundary openness " + vec_text(r.boundary_openness) + " (possible hole in the boundary)");
}

// ---------------------------------------------------------------------------------------
// The geometry's figures: one pass over the faces and one over the cells, every property at
// once (each pass reads the faces or the cells from memory once instead of once a property).
// Each pass runs on every thread in chunks of a fixed size whose figures are then merged in
// order: the same sums to the bit on any number of threads.

template <class Figures, class Pass>
Figures in_chunks(std::int64_t n, Pass&& pass) {
  constexpr std::int64_t chunk = 1 << 16;
  std::vector<Figures> partial(static_cast<std::size_t>((n + chunk - 1) / chunk));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(partial.size()); ++c)
    pass(partial[c], static_cast<label>(c * chunk), static_cast<label>(std::min(n, (c + 1) * chunk)));
  Figures all;
  for (const Figures& p : partial) all.merge(p);
  return all;
}

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool non_finite_face(const MeshGeometry& g, label f) { return !finite(g.face_areas[f]) || !finite(g.face_centres[f]); }
bool non_finite_cell(const MeshGeometry& g, label c) {
  return !std::isfinite(g.cell_volumes[c]) || !finite(g.cell_centres[c]);
}

/// From the owner's centre across face f: to the neighbour's centre, or to a boundary face's centre.
Vec3 owner_to_across(const Mesh& mesh, const MeshGeometry& g, label f) {
  return f < mesh.n_internal_faces() ? centre_to_centre(mesh, g, f) : g.face_centres[f] - g.cell_centres[mesh.owner[f]];
}

/// Area vectors point out of the owner: d.Sf > 0 on internal faces, (Cf - C).Sf > 0 on boundary ones.
bool wrongly_oriented(const Mesh& mesh, const MeshGeometry& g, label f) {
  return !(dot(owner_to_across(mesh, g, f), g.face_areas[f]) > 0.0);
}

struct FaceFigures {
  label non_finite = 0, zero_area = 0, wrongly_oriented = 0, severely_non_orthogonal = 0, highly_skew = 0;
  double min_area = std::numeric_limits<double>::max(), max_area = 0.0;
  double min_cos = 1.0, sum_cos = 0.0;  ///< of the non-orthogonality angle, internal faces
  double max_skewness = 0.0;

  void merge(const FaceFigures& o) {
    non_finite += o.non_finite, zero_area += o.zero_area, wrongly_oriented += o.wrongly_oriented;
    severely_non_orthogonal += o.severely_non_orthogonal, highly_skew += o.highly_skew;
    min_area = std::min(min_area, o.min_area), max_area = std::max(max_area, o.max_area);
    min_cos = std::min(min_cos, o.min_cos), sum_cos += o.sum_cos;
    max_skewness = std::max(max_skewness, o.max_skewness);
  }
};

/// Areas, orientation, non-orthogonality (internal faces) and skewness (along the line between
/// the cell centres on internal faces, along the face normal through the owner's centre on
/// boundary ones) of every face.
FaceFigures face_figures(const Mesh& mesh, const MeshGeometry& g) {
  const label n_internal = mesh.n_internal_faces();
  const double severe_cos = std::cos(non_orthogonality_threshold_deg * std::numbers::pi / 180.0);
  return in_chunks<FaceFigures>(mesh.n_faces(), [&](FaceFigures& s, label begin, label end) {
    for (label f = begin; f < end; ++f) {
      const Vec3& sf = g.face_areas[f];
      const double area = mag(sf);
      s.non_finite += non_finite_face(g, f);
      s.min_area = std::min(s.min_area, area);
      s.max_area = std::max(s.max_area, area);
      s.zero_area += area < vsmall;
      s.wrongly_oriented += wrongly_oriented(mesh, g, f);
      const Vec3 d = owner_to_across(mesh, g, f);
      double skew = 0.0;
      if (f < n_internal) {
        const double cos = dot(d, sf) / (mag(d) * area + rootvsmall);
        s.severely_non_orthogonal += cos < severe_cos && cos > 0.0;
        s.min_cos = std::min(s.min_cos, cos);
        s.sum_cos += cos;
        skew = face_skewness(mesh, g, f, d);
      } else {
        const Vec3 normal = sf / (area + rootvsmall);
        skew = face_skewness(mesh, g, f, normal * dot(normal, d));
      }
      s.max_skewness = std::max(s.max_skewness, skew);
      s.highly_skew += skew > skew_threshold;
    }
  });
}

/// Cell c's openness: the largest component of |sum Sf| / sum |Sf| over its faces turned outward.
/// @param[out] sum_mag the sum of its faces' component magnitudes (the aspect ratio's areas)
double cell_openness(const CellFaceLists& cells, const MeshGeometry& g, label c, Vec3& sum_mag) {
  Vec3 sum;
  sum_mag = Vec3{};
  const label owned_end = cells.start[c] + cells.owned[c];
  for (label k = cells.start[c]; k < cells.start[c + 1]; ++k) {
    const Vec3& sf = g.face_areas[cells.faces[k]];
    if (k < owned_end) sum += sf;
    else sum -= sf;
    sum_mag += cmpt_mag(sf);
  }
  double openness = 0.0;
  for (int d = 0; d < 3; ++d) openness = std::max(openness, std::abs(sum[d]) / (sum_mag[d] + rootvsmall));
  return openness;
}

/// The directions not normal to empty patches (as OpenFOAM's calcDirections): a 2-D mesh's
/// aspect ratio leaves out its thickness.
std::array<bool, 3> solution_directions(const Mesh& mesh, const MeshGeometry& g) {
  Vec3 empty_dir;
  bool any_empty = false;
  for (const auto& p : mesh.patches)
    if (p.type == "empty" && p.size > 0) {
      any_empty = true;
      for (label f = p.start; f < p.start + p.size; ++f) empty_dir += cmpt_mag(g.face_areas[f]);
    }
  std::array<bool, 3> solution_dir = {true, true, true};
  if (any_empty && mag(empty_dir) > 0.0) {
    empty_dir /= mag(empty_dir);
    for (int d = 0; d < 3; ++d) solution_dir[d] = !(empty_dir[d] > 1.0e-6);
  }
  return solution_dir;
}

/// OpenFOAM's aspect ratio: the largest over the smallest projected area (sum_mag's components)
/// in the solution directions, and in 3-D at least the cell's surface over that of a cube of its
/// volume.
double aspect_ratio(const Vec3& sum_mag, double volume, const std::array<bool, 3>& solution_dir) {
  const int n_dims = solution_dir[0] + solution_dir[1] + solution_dir[2];
  double min_cmpt = std::numeric_limits<double>::max(), max_cmpt = -std::numeric_limits<double>::max();
  for (int d = 0; d < 3; ++d)
    if (solution_dir[d]) {
      min_cmpt = std::min(min_cmpt, sum_mag[d]);
      max_cmpt = std::max(max_cmpt, sum_mag[d]);
    }
  double aspect = n_dims > 0 ? max_cmpt / (min_cmpt + rootvsmall) : 1.0;
  if (n_dims == 3) {
    const double v = std::max(rootvsmall, volume);
    aspect = std::max(aspect, (sum_mag.x + sum_mag.y + sum_mag.z) / 6.0 / std::pow(v, 2.0 / 3.0));
  }
  return aspect;
}

/// Counts a cell's shape from its face, triangle, quadrilateral and distinct vertex counts, as
/// OpenFOAM names them. @param vertices scratch
void count_cell_type(const Mesh& mesh, const CellFaceLists& cells, label c, std::vector<label>& vertices,
                     CellTypeCounts& types) {
  label nf = 0, t = 0, q = 0;
  vertices.clear();
  for (label k = cells.start[c]; k < cells.start[c + 1]; ++k) {
    const auto loop = mesh.face(cells.faces[k]);
    ++nf;
    if (loop.size() == 3) ++t;
    if (loop.size() == 4) ++q;
    vertices.insert(vertices.end(), loop.begin(), loop.end());
  }
  std::sort(vertices.begin(), vertices.end());
  const auto nv = std::unique(vertices.begin(), vertices.end()) - vertices.begin();
  if (nf == 6 && q == 6 && nv == 8) ++types.hexahedra;
  else if (nf == 5 && t == 2 && q == 3 && nv == 6) ++types.prisms;
  else if (nf == 6 && t == 2 && q == 4 && nv == 7) ++types.wedges;
  else if (nf == 5 && t == 4 && q == 1 && nv == 5) ++types.pyramids;
  else if (nf == 4 && t == 2 && q == 2 && nv == 5) ++types.tet_wedges;
  else if (nf == 4 && t == 4 && nv == 4) ++types.tetrahedra;
  else ++types.polyhedra;
}

struct CellFigures {
  CellTypeCounts types;
  label non_finite = 0, non_positive = 0, open = 0, high_aspect = 0;
  double min_volume = std::numeric_limits<double>::max(), max_volume = -std::numeric_limits<double>::max();
  double total_volume = 0.0, max_openness = 0.0, max_aspect = 0.0;

  void merge(const CellFigures& o) {
    types.hexahedra += o.types.hexahedra, types.prisms += o.types.prisms, types.wedges += o.types.wedges;
    types.pyramids += o.types.pyramids, types.tet_wedges += o.types.tet_wedges;
    types.tetrahedra += o.types.tetrahedra, types.polyhedra += o.types.polyhedra;
    non_finite += o.non_finite, non_positive += o.non_positive, open += o.open, high_aspect += o.high_aspect;
    min_volume = std::min(min_volume, o.min_volume), max_volume = std::max(max_volume, o.max_volume);
    total_volume += o.total_volume;
    max_openness = std::max(max_openness, o.max_openness), max_aspect = std::max(max_aspect, o.max_aspect);
  }
};

/// Shapes, volumes, openness and aspect ratio of every cell.
CellFigures cell_figures(const Mesh& mesh, const CellFaceLists& cells, const MeshGeometry& g) {
  const std::array<bool, 3> solution_dir = solution_directions(mesh, g);
  return in_chunks<CellFigures>(mesh.n_cells, [&](CellFigures& s, label begin, label end) {
    std::vector<label> vertices;
    for (label c = begin; c < end; ++c) {
      count_cell_type(mesh, cells, c, vertices, s.types);
      s.non_finite += non_finite_cell(g, c);
      const double v = g.cell_volumes[c];
      s.min_volume = std::min(s.min_volume, v);
      s.max_volume = std::max(s.max_volume, v);
      s.non_positive += v < vsmall;
      s.total_volume += v;
      Vec3 sum_mag;
      const double openness = cell_openness(cells, g, c, sum_mag);
      s.max_openness = std::max(s.max_openness, openness);
      s.open += openness > closed_threshold;
      const double aspect = aspect_ratio(sum_mag, v, solution_dir);
      s.max_aspect = std::max(s.max_aspect, aspect);
      s.high_aspect += aspect > aspect_threshold;
    }
  });
}

// ---------------------------------------------------------------------------------------
// The geometry's verdicts from the figures, one per property as in primitiveMeshCheck.

/// Face areas and centres, cell volumes and centres that are numbers: coordinates near 1e300 make
/// their products overflow, which every later check would take for a broken cell.
/// @return whether the geometry is finite
bool check_finite_geometry(const Mesh& mesh, const MeshGeometry& g, const FaceFigures& faces,
                           const CellFigures& cells, MeshCheckReport& r) {
  r.max_coordinate = mesh.points.empty() ? 0.0
                                         : std::max({max_abs_component(r.bounding_box_min),
                                                     max_abs_component(r.bounding_box_max)});
  if (faces.non_finite == 0 && cells.non_finite == 0) return true;
  std::vector<label> listed_faces, listed_cells;  // the first offenders, in order
  for (label f = 0; f < mesh.n_faces(); ++f)
    if (non_finite_face(g, f)) add_offender(r.n_non_finite_faces, listed_faces, f);
  for (label c = 0; c < mesh.n_cells; ++c)
    if (non_finite_cell(g, c)) add_offender(r.n_non_finite_cells, listed_cells, c);
  r.failures.push_back(fmt::format(
      "the geometry overflows a double: {} faces whose area and {} cells whose volume are not finite numbers "
      "(coordinates up to {:.3g}: their products pass 1.8e308; scale the mesh){}{}",
      r.n_non_finite_faces, r.n_non_finite_cells, r.max_coordinate,
      r.n_non_finite_faces > 0 ? "; faces " + list_text(listed_faces, r.n_non_finite_faces) : "",
      r.n_non_finite_cells > 0 ? "; cells " + list_text(listed_cells, r.n_non_finite_cells) : ""));
  return false;
}

void check_closed_cells(const Mesh& mesh, const CellFaceLists& cells, const MeshGeometry& g,
                        const CellFigures& figures, MeshCheckReport& r) {
  r.max_cell_openness = figures.max_openness;
  Vec3 sum_mag;
  for (label c = 0; figures.open > 0 && c < mesh.n_cells; ++c)  // the first offenders listed in cell order
    if (cell_openness(cells, g, c, sum_mag) > closed_threshold) add_offender(r.n_open_cells, r.open_cells, c);
  if (r.n_open_cells > 0)
    r.failures.push_back(fmt::format("{} open cells (max openness {:.3g}): {}", r.n_open_cells, r.max_cell_openness,
                                     list_text(r.open_cells, r.n_open_cells)));
}

void check_face_areas(const Mesh& mesh, const FaceFigures& figures, MeshCheckReport& r) {
  r.min_face_area = mesh.n_faces() > 0 ? figures.min_area : 0.0;
  r.max_face_area = figures.max_area;
  r.n_zero_area_faces = figures.zero_area;
  if (r.n_zero_area_faces > 0) r.failures.push_back(fmt::format("{} faces with zero area", r.n_zero_area_faces));
}

void check_cell_volumes(const Mesh& mesh, const MeshGeometry& g, const CellFigures& figures, MeshCheckReport& r) {
  r.min_volume = mesh.n_cells > 0 ? figures.min_volume : 0.0;
  r.max_volume = mesh.n_cells > 0 ? figures.max_volume : 0.0;
  r.total_volume = figures.total_volume;
  for (label c = 0; figures.non_positive > 0 && c < mesh.n_cells; ++c)
    if (g.cell_volumes[c] < vsmall) add_offender(r.n_non_positive_volumes, r.non_positive_cells, c);
  if (r.n_non_positive_volumes > 0)
    r.failures.push_back(fmt::format("{} cells with zero or negative volume (min {:.6g}): {}", r.n_non_positive_volumes, r.min_volume,
                                     list_text(r.non_positive_cells, r.n_non_positive_volumes)));
}

void check_face_orientation(const Mesh& mesh, const MeshGeometry& g, const FaceFigures& figures, MeshCheckReport& r) {
  for (label f = 0; figures.wrongly_oriented > 0 && f < mesh.n_faces(); ++f)  // the first offenders, in face order
    if (wrongly_oriented(mesh, g, f)) add_offender(r.n_wrongly_oriented_faces, r.wrongly_oriented_faces, f);
  if (r.n_wrongly_oriented_faces > 0)
    r.failures.push_back(fmt::format("{} wrongly oriented faces (area vector not pointing out of the owner): {}", r.n_wrongly_oriented_faces,
                                     list_text(r.wrongly_oriented_faces, r.n_wrongly_oriented_faces)));
}

/// The angle acos(d.Sf / |d||Sf|) on internal faces. OpenFOAM reports the angle of the
/// worst face and the angle of the average cosine.
void check_non_orthogonality(const Mesh& mesh, const FaceFigures& figures, MeshCheckReport& r) {
  const label n_internal = mesh.n_internal_faces();
  r.n_severely_non_orthogonal = figures.severely_non_orthogonal;
  r.max_non_orthogonality = radians_to_degrees(std::acos(std::clamp(figures.min_cos, -1.0, 1.0)));
  r.avg_non_orthogonality =
      n_internal > 0 ? radians_to_degrees(std::acos(std::clamp(figures.sum_cos / n_internal, -1.0, 1.0))) : 0.0;
  if (r.n_severely_non_orthogonal > 0)
    r.warnings.push_back(fmt::format("{} severely non-orthogonal faces (> {} degrees)", r.n_severely_non_orthogonal, non_orthogonality_threshold_deg));
}

void check_face_skewness(const FaceFigures& figures, MeshCheckReport& r) {
  r.max_skewness = figures.max_skewness;
  r.n_highly_skew_faces = figures.highly_skew;
  if (r.n_highly_skew_faces > 0) r.warnings.push_back(fmt::format("{} highly skew faces (skewness > {})", r.n_highly_skew_faces, skew_threshold));
}

void check_aspect_ratio(const CellFigures& figures, MeshCheckReport& r) {
  r.max_aspect_ratio = figures.max_aspect;
  r.n_high_aspect_ratio_cells = figures.high_aspect;
  if (r.n_high_aspect_ratio_cells > 0)
    r.warnings.push_back(fmt::format("{} cells with aspect ratio above {}", r.n_high_aspect_ratio_cells, aspect_threshold));
}

}  // namespace

MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& g) { return check_mesh(mesh, g, cell_face_lists(mesh)); }

MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& g, const CellFaceLists& cells) {
  MeshCheckReport r;
  r.n_points = mesh.n_points();
  r.n_faces = mesh.n_faces();
  r.n_internal_faces = mesh.n_internal_faces();
  r.n_cells = mesh.n_cells;
  const FaceFigures faces = face_figures(mesh, g);
  const CellFigures cell = cell_figures(mesh, cells, g);
  // The calls run in the order the failures and the warnings are listed in the report.
  check_upper_triangular(mesh, r);
  check_boundary_definition(mesh, r);
  count_regions(mesh, r);
  r.cell_types = cell.types;
  find_bounding_box(mesh, r);
  if (!check_finite_geometry(mesh, g, faces, cell, r)) {  // the rest would report the overflow as broken cells
    check_point_usage(mesh, r);
    return r;
  }
  check_closed_boundary(mesh, g, r);
  check_closed_cells(mesh, cells, g, cell, r);
  check_face_areas(mesh, faces, r);
  check_cell_volumes(mesh, g, cell, r);
  check_face_orientation(mesh, g, faces, r);
  check_non_orthogonality(mesh, faces, r);
  check_face_skewness(faces, r);
  check_aspect_ratio(cell, r);
  check_point_usage(mesh, r);
  return r;
}

std::string format_mesh_check(const MeshCheckReport& r) {
  std::string s;
  auto line = [&](const std::string& text) { s += text + "\n"; };
  auto verdict = [](bool ok) { return ok ? std::string(" OK.") : std::string(" ***FAILED***"); };

  line("Mesh stats");
  line(fmt::format("    points:           {}", r.n_points));
  line(fmt::format("    faces:            {}", r.n_faces));
  line(fmt::format("    internal faces:   {}", r.n_internal_faces));
  line(fmt::format("    cells:            {}", r.n_cells));
  line(fmt::format("    boundary patches: {}", r.patches.size()));
  line("");
  line("Overall number of cells of each type:");
  line(fmt::format("    hexahedra:     {}", r.cell_types.hexahedra));
  line(fmt::format("    prisms:        {}", r.cell_types.prisms));
  line(fmt::format("    wedges:        {}", r.cell_types.wedges));
  line(fmt::format("    pyramids:      {}", r.cell_types.pyramids));
  line(fmt::format("    tet wedges:    {}", r.cell_types.tet_wedges));
  line(fmt::format("    tetrahedra:    {}", r.cell_types.tetrahedra));
  line(fmt::format("    polyhedra:     {}", r.cell_types.polyhedra));
  line("");
  line("Checking topology...");
  line("    Boundary definition" + verdict(r.boundary_definition_ok));
  line(r.n_unused_points == 0 ? "    Point usage OK." : fmt::format("   *Point usage: {} unused points.", r.n_unused_points));
  line("    Upper triangular ordering" + verdict(r.upper_triangular));
  if (r.regions.count > 1)
    line(fmt::format("   *Number of regions: {} (cells that no internal face connects)", r.regions.count));
  line("");
  line("Checking patch topology...");
  line(fmt::format("    {:<20} {:<14} {:>10}", "Patch", "Type", "Faces"));
  for (const auto& p : r.patches) line(fmt::format("    {:<20} {:<14} {:>10}", p.name, p.type, p.size));
  line("");
  line("Checking geometry...");
  line("    Overall domain bounding box " + vec_text(r.bounding_box_min) + " " + vec_text(r.bounding_box_max));
  if (r.n_non_finite_faces > 0 || r.n_non_finite_cells > 0)
    line(fmt::format("   ***Geometry not finite: {} face areas and {} cell volumes overflow (coordinates up to {:.3g})",
                     r.n_non_finite_faces, r.n_non_finite_cells, r.max_coordinate));
  line("    Boundary openness " + vec_text(r.boundary_openness) +
       verdict(max_abs_component(r.boundary_openness) <= closed_threshold));
  if (r.n_open_cells == 0) line(fmt::format("    Max cell openness = {:.6g} OK.", r.max_cell_openness));
  else line(fmt::format("   ***Open cells found, max cell openness: {:.6g}, number of open cells {}", r.max_cell_openness, r.n_open_cells));
  if (r.n_high_aspect_ratio_cells == 0) line(fmt::format("    Max aspect ratio = {:.6g} OK.", r.max_aspect_ratio));
  else line(fmt::format("   *High aspect ratio cells found, Max aspect ratio: {:.6g}, number of cells {}", r.max_aspect_ratio, r.n_high_aspect_ratio_cells));
  line(fmt::format("    Minimum face area = {:.6g}. Maximum face area = {:.6g}.  Face area magnitudes{}", r.min_face_area, r.max_face_area,
                   verdict(r.n_zero_area_faces == 0)));
  line(fmt::format("    Min volume = {:.6g}. Max volume = {:.6g}.  Total volume = {:.6g}.  Cell volumes{}", r.min_volume, r.max_volume,
                   r.total_volume, verdict(r.n_non_positive_volumes == 0)));
  line(fmt::format("    Mesh non-orthogonality Max: {:.6g} average: {:.6g}", r.max_non_orthogonality, r.avg_non_orthogonality));
  if (r.n_severely_non_orthogonal == 0) line("    Non-orthogonality check OK.");
  else line(fmt::format("   *Number of severely non-orthogonal (> {} degrees) faces: {}.", non_orthogonality_threshold_deg, r.n_severely_non_orthogonal));
  line("    Face orientation" + verdict(r.n_wrongly_oriented_faces == 0));
  if (r.n_highly_skew_faces == 0) line(fmt::format("    Max skewness = {:.6g} OK.", r.max_skewness));
  else line(fmt::format("   *Max skewness = {:.6g}, {} highly skew faces detected which may impair the quality of the results", r.max_skewness, r.n_highly_skew_faces));
  line("");
  for (const auto& w : r.warnings) line("  Warning: " + w);
  for (const auto& f : r.failures) line("  ***Failed: " + f);
  if (!r.warnings.empty() || !r.failures.empty()) line("");
  line(r.ok() ? "Mesh OK." : fmt::format("Failed {} mesh checks.", r.failures.size()));
  return s;
}

}  // namespace fvmmini
