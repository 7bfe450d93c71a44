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

/// The sum of term(i) over [0, n), on every thread in chunks of a fixed size whose sums are then
/// added in order: the same bits on any number of threads.
template <class Term>
double ordered_sum(std::int64_t n, Term&& term) {
  constexpr std::int64_t chunk = 1 << 16;
  std::vector<double> partial(static_cast<std::size_t>((n + chunk - 1) / chunk), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(partial.size()); ++c) {
    double sum = 0.0;
    for (std::int64_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) sum += term(i);
    partial[c] = sum;
  }
  double sum = 0.0;
  for (double p : partial) sum += p;
  return sum;
}

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
// The checks, one per property as in primitiveMeshCheck. Each fills its fields of the
// report and adds its own failure or warning.

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

/// Cell shapes from face, triangle, quadrilateral and distinct vertex counts, as OpenFOAM names them.
void count_cell_types(const Mesh& mesh, const CellFaceLists& cells, MeshCheckReport& r) {
  label hexahedra = 0, prisms = 0, wedges = 0, pyramids = 0, tet_wedges = 0, tetrahedra = 0, polyhedra = 0;
#pragma omp parallel reduction(+ : hexahedra, prisms, wedges, pyramids, tet_wedges, tetrahedra, polyhedra)
  {
    std::vector<label> vertices;
#pragma omp for schedule(static)
    for (label c = 0; c < mesh.n_cells; ++c) {
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
      if (nf == 6 && q == 6 && nv == 8) ++hexahedra;
      else if (nf == 5 && t == 2 && q == 3 && nv == 6) ++prisms;
      else if (nf == 6 && t == 2 && q == 4 && nv == 7) ++wedges;
      else if (nf == 5 && t == 4 && q == 1 && nv == 5) ++pyramids;
      else if (nf == 4 && t == 2 && q == 2 && nv == 5) ++tet_wedges;
      else if (nf == 4 && t == 4 && nv == 4) ++tetrahedra;
      else ++polyhedra;
    }
  }
  r.cell_types = {hexahedra, prisms, wedges, pyramids, tet_wedges, tetrahedra, polyhedra};
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

/// Per cell, over its faces turned outward: the sum of the area vectors and the sum of
/// their component magnitudes (closedness and aspect ratio both start from these).
struct CellAreaSums {
  std::vector<Vec3> sum, sum_mag;
};

CellAreaSums cell_area_sums(const Mesh& mesh, const CellFaceLists& cells, const MeshGeometry& g) {
  CellAreaSums s{std::vector<Vec3>(mesh.n_cells), std::vector<Vec3>(mesh.n_cells)};
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh.n_cells; ++c) {
    const label owned_end = cells.start[c] + cells.owned[c];
    for (label k = cells.start[c]; k < cells.start[c + 1]; ++k) {
      const Vec3& sf = g.face_areas[cells.faces[k]];
      if (k < owned_end) s.sum[c] += sf;
      else s.sum[c] -= sf;
      s.sum_mag[c] += cmpt_mag(sf);
    }
  }
  return s;
}

/// Cell openness: the largest component of |sum Sf| / sum |Sf|.
void check_closed_cells(const CellAreaSums& sums, MeshCheckReport& r) {
  const auto openness = [&](label c) {
    double o = 0.0;
    for (int d = 0; d < 3; ++d) o = std::max(o, std::abs(sums.sum[c][d]) / (sums.sum_mag[c][d] + rootvsmall));
    return o;
  };
  const auto n_cells = static_cast<label>(sums.sum.size());
  double max_openness = r.max_cell_openness;
  label open = 0;
#pragma omp parallel for schedule(static) reduction(max : max_openness) reduction(+ : open)
  for (label c = 0; c < n_cells; ++c) {
    const double o = openness(c);
    max_openness = std::max(max_openness, o);
    open += o > closed_threshold;
  }
  r.max_cell_openness = max_openness;
  for (label c = 0; open > 0 && c < n_cells; ++c)  // the first offenders listed in cell order
    if (openness(c) > closed_threshold) add_offender(r.n_open_cells, r.open_cells, c);
  if (r.n_open_cells > 0)
    r.failures.push_back(fmt::format("{} open cells (max openness {:.3g}): {}", r.n_open_cells, r.max_cell_openness,
                                     list_text(r.open_cells, r.n_open_cells)));
}

/// Face areas and centres, cell volumes and centres that are numbers: coordinates near 1e300 make
/// their products overflow, which every later check would take for a broken cell.
/// @return whether the geometry is finite
bool check_finite_geometry(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  const auto finite = [](const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  const auto bad_face = [&](label f) { return !finite(g.face_areas[f]) || !finite(g.face_centres[f]); };
  const auto bad_cell = [&](label c) { return !std::isfinite(g.cell_volumes[c]) || !finite(g.cell_centres[c]); };
  const auto n_points = static_cast<std::int64_t>(mesh.points.size());
  double largest = 0.0;
#pragma omp parallel for schedule(static) reduction(max : largest)
  for (std::int64_t k = 0; k < n_points; ++k) {
    const Vec3& p = mesh.points[k];
    largest = std::max({largest, std::abs(p.x), std::abs(p.y), std::abs(p.z)});
  }
  r.max_coordinate = largest;
  // --- counted on every thread; the first offenders listed in order only where there are any
  label bad_faces = 0, bad_cells = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad_faces)
  for (label f = 0; f < mesh.n_faces(); ++f) bad_faces += bad_face(f);
#pragma omp parallel for schedule(static) reduction(+ : bad_cells)
  for (label c = 0; c < mesh.n_cells; ++c) bad_cells += bad_cell(c);
  if (bad_faces == 0 && bad_cells == 0) return true;
  std::vector<label> faces, cells;
  for (label f = 0; f < mesh.n_faces(); ++f)
    if (bad_face(f)) add_offender(r.n_non_finite_faces, faces, f);
  for (label c = 0; c < mesh.n_cells; ++c)
    if (bad_cell(c)) add_offender(r.n_non_finite_cells, cells, c);
  r.failures.push_back(fmt::format(
      "the geometry overflows a double: {} faces whose area and {} cells whose volume are not finite numbers "
      "(coordinates up to {:.3g}: their products pass 1.8e308; scale the mesh){}{}",
      r.n_non_finite_faces, r.n_non_finite_cells, largest,
      r.n_non_finite_faces > 0 ? "; faces " + list_text(faces, r.n_non_finite_faces) : "",
      r.n_non_finite_cells > 0 ? "; cells " + list_text(cells, r.n_non_finite_cells) : ""));
  return false;
}

void check_face_areas(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  double min_area = mesh.n_faces() > 0 ? std::numeric_limits<double>::max() : 0.0, max_area = r.max_face_area;
  label zero_area = 0;
#pragma omp parallel for schedule(static) reduction(min : min_area) reduction(max : max_area) reduction(+ : zero_area)
  for (label f = 0; f < mesh.n_faces(); ++f) {
    const double a = mag(g.face_areas[f]);
    min_area = std::min(min_area, a);
    max_area = std::max(max_area, a);
    if (a < vsmall) ++zero_area;
  }
  r.min_face_area = min_area;
  r.max_face_area = max_area;
  r.n_zero_area_faces = zero_area;
  if (r.n_zero_area_faces > 0) r.failures.push_back(fmt::format("{} faces with zero area", r.n_zero_area_faces));
}

void check_cell_volumes(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  const label n_cells = mesh.n_cells;
  double min_volume = n_cells > 0 ? std::numeric_limits<double>::max() : 0.0;
  double max_volume = n_cells > 0 ? -std::numeric_limits<double>::max() : 0.0;
  label non_positive = 0;
#pragma omp parallel for schedule(static) reduction(min : min_volume) reduction(max : max_volume) \
    reduction(+ : non_positive)
  for (label c = 0; c < n_cells; ++c) {
    const double v = g.cell_volumes[c];
    min_volume = std::min(min_volume, v);
    max_volume = std::max(max_volume, v);
    non_positive += v < vsmall;
  }
  r.min_volume = min_volume;
  r.max_volume = max_volume;
  r.total_volume = ordered_sum(n_cells, [&](std::int64_t c) { return g.cell_volumes[c]; });
  for (label c = 0; non_positive > 0 && c < n_cells; ++c)
    if (g.cell_volumes[c] < vsmall) add_offender(r.n_non_positive_volumes, r.non_positive_cells, c);
  if (r.n_non_positive_volumes > 0)
    r.failures.push_back(fmt::format("{} cells with zero or negative volume (min {:.6g}): {}", r.n_non_positive_volumes, r.min_volume,
                                     list_text(r.non_positive_cells, r.n_non_positive_volumes)));
}

/// Area vectors point out of the owner: d.Sf > 0 on internal faces, (Cf - C).Sf > 0 on boundary ones.
void check_face_orientation(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  const auto wrongly_oriented = [&](label f) {
    const Vec3 d = f < mesh.n_internal_faces() ? centre_to_centre(mesh, g, f)
                                               : g.face_centres[f] - g.cell_centres[mesh.owner[f]];
    return !(dot(d, g.face_areas[f]) > 0.0);
  };
  // --- counted on every thread; the first offenders listed in face order only where there are any
  label wrong = 0;
#pragma omp parallel for schedule(static) reduction(+ : wrong)
  for (label f = 0; f < mesh.n_faces(); ++f) wrong += wrongly_oriented(f);
  for (label f = 0; wrong > 0 && f < mesh.n_faces(); ++f)
    if (wrongly_oriented(f)) add_offender(r.n_wrongly_oriented_faces, r.wrongly_oriented_faces, f);
  if (r.n_wrongly_oriented_faces > 0)
    r.failures.push_back(fmt::format("{} wrongly oriented faces (area vector not pointing out of the owner): {}", r.n_wrongly_oriented_faces,
                                     list_text(r.wrongly_oriented_faces, r.n_wrongly_oriented_faces)));
}

/// The angle acos(d.Sf / |d||Sf|) on internal faces. OpenFOAM reports the angle of the
/// worst face and the angle of the average cosine.
void check_non_orthogonality(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  const label n_internal = mesh.n_internal_faces();
  const double severe_cos = std::cos(non_orthogonality_threshold_deg * std::numbers::pi / 180.0);
  const auto cos_angle = [&](std::int64_t f) {
    const Vec3 d = centre_to_centre(mesh, g, static_cast<label>(f));
    const Vec3& sf = g.face_areas[f];
    return dot(d, sf) / (mag(d) * mag(sf) + rootvsmall);
  };
  double min_cos = 1.0;
  label severe = 0;
#pragma omp parallel for schedule(static) reduction(min : min_cos) reduction(+ : severe)
  for (label f = 0; f < n_internal; ++f) {
    const double c = cos_angle(f);
    severe += c < severe_cos && c > 0.0;
    min_cos = std::min(min_cos, c);
  }
  r.n_severely_non_orthogonal = severe;
  const double sum_cos = ordered_sum(n_internal, cos_angle);
  r.max_non_orthogonality = radians_to_degrees(std::acos(std::clamp(min_cos, -1.0, 1.0)));
  r.avg_non_orthogonality = n_internal > 0 ? radians_to_degrees(std::acos(std::clamp(sum_cos / n_internal, -1.0, 1.0))) : 0.0;
  if (r.n_severely_non_orthogonal > 0)
    r.warnings.push_back(fmt::format("{} severely non-orthogonal faces (> {} degrees)", r.n_severely_non_orthogonal, non_orthogonality_threshold_deg));
}

/// Skewness along the line between cell centres on internal faces, and along the face
/// normal through the owner centre on boundary faces.
void check_face_skewness(const Mesh& mesh, const MeshGeometry& g, MeshCheckReport& r) {
  const label n_internal = mesh.n_internal_faces();
  double max_skewness = r.max_skewness;
  label highly_skew = 0;
#pragma omp parallel for schedule(static) reduction(max : max_skewness) reduction(+ : highly_skew)
  for (label f = 0; f < mesh.n_faces(); ++f) {
    double skew = 0.0;
    if (f < n_internal) {
      skew = face_skewness(mesh, g, f, centre_to_centre(mesh, g, f));
    } else {
      const Vec3& sf = g.face_areas[f];
      const Vec3 normal = sf / (mag(sf) + rootvsmall);
      skew = face_skewness(mesh, g, f, normal * dot(normal, g.face_centres[f] - g.cell_centres[mesh.owner[f]]));
    }
    max_skewness = std::max(max_skewness, skew);
    if (skew > skew_threshold) ++highly_skew;
  }
  r.max_skewness = max_skewness;
  r.n_highly_skew_faces += highly_skew;
  if (r.n_highly_skew_faces > 0) r.warnings.push_back(fmt::format("{} highly skew faces (skewness > {})", r.n_highly_skew_faces, skew_threshold));
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

/// OpenFOAM's aspect ratio: the largest over the smallest projected area in the solution
/// directions, and in 3-D at least the cell's surface over that of a cube of its volume.
void check_aspect_ratio(const Mesh& mesh, const MeshGeometry& g, const CellAreaSums& sums, MeshCheckReport& r) {
  const std::array<bool, 3> solution_dir = solution_directions(mesh, g);
  const int n_dims = solution_dir[0] + solution_dir[1] + solution_dir[2];
  double max_aspect = r.max_aspect_ratio;
  label high_aspect = 0;
#pragma omp parallel for schedule(static) reduction(max : max_aspect) reduction(+ : high_aspect)
  for (label c = 0; c < mesh.n_cells; ++c) {
    const Vec3& sum_mag = sums.sum_mag[c];
    double min_cmpt = std::numeric_limits<double>::max(), max_cmpt = -std::numeric_limits<double>::max();
    for (int d = 0; d < 3; ++d)
      if (solution_dir[d]) {
        min_cmpt = std::min(min_cmpt, sum_mag[d]);
        max_cmpt = std::max(max_cmpt, sum_mag[d]);
      }
    double aspect = n_dims > 0 ? max_cmpt / (min_cmpt + rootvsmall) : 1.0;
    if (n_dims == 3) {
      const double v = std::max(rootvsmall, g.cell_volumes[c]);
      aspect = std::max(aspect, (sum_mag.x + sum_mag.y + sum_mag.z) / 6.0 / std::pow(v, 2.0 / 3.0));
    }
    max_aspect = std::max(max_aspect, aspect);
    if (aspect > aspect_threshold) ++high_aspect;
  }
  r.max_aspect_ratio = max_aspect;
  r.n_high_aspect_ratio_cells += high_aspect;
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
  // The calls run in the order the failures and the warnings are listed in the report.
  check_upper_triangular(mesh, r);
  check_boundary_definition(mesh, r);
  count_regions(mesh, r);
  count_cell_types(mesh, cells, r);
  find_bounding_box(mesh, r);
  if (!check_finite_geometry(mesh, g, r)) {  // the rest would report the overflow as broken cells
    check_point_usage(mesh, r);
    return r;
  }
  check_closed_boundary(mesh, g, r);
  const CellAreaSums sums = cell_area_sums(mesh, cells, g);
  check_closed_cells(sums, r);
  check_face_areas(mesh, g, r);
  check_cell_volumes(mesh, g, r);
  check_face_orientation(mesh, g, r);
  check_non_orthogonality(mesh, g, r);
  check_face_skewness(mesh, g, r);
  check_aspect_ratio(mesh, g, sums, r);
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
