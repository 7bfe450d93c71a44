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

using namespace mesh_formulas;

constexpr size_t max_listed = 10;

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
// Each pass runs on every thread in chunks of figure_chunk items whose figures are then merged in
// order: the same sums to the bit on any number of threads.

template <class Figures, class Pass>
Figures in_chunks(std::int64_t n, Pass&& pass) {
  std::vector<Figures> partial(static_cast<std::size_t>((n + figure_chunk - 1) / figure_chunk));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(partial.size()); ++c)
    pass(partial[c], static_cast<label>(c * figure_chunk), static_cast<label>(std::min(n, (c + 1) * figure_chunk)));
  Figures all;
  for (const Figures& p : partial) all.merge(p);
  return all;
}

GeometryView geometry_view(const MeshGeometry& g) {
  return {g.face_centres.data(), g.face_areas.data(), g.cell_centres.data(), g.cell_volumes.data()};
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
  const GeometryView view = geometry_view(g);
  for (label f = 0; f < mesh.n_faces(); ++f)
    if (non_finite_face(view, f)) add_offender(r.n_non_finite_faces, listed_faces, f);
  for (label c = 0; c < mesh.n_cells; ++c)
    if (non_finite_cell(view, c)) add_offender(r.n_non_finite_cells, listed_cells, c);
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
  const CellListView lists = cell_list_view(cells);
  for (label c = 0; figures.open > 0 && c < mesh.n_cells; ++c)  // the first offenders listed in cell order
    if (cell_openness(lists, g.face_areas.data(), c, sum_mag) > closed_threshold) add_offender(r.n_open_cells, r.open_cells, c);
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
  const MeshView view = mesh_view(mesh);
  const GeometryView geometry = geometry_view(g);
  for (label f = 0; figures.wrongly_oriented > 0 && f < mesh.n_faces(); ++f)  // the first offenders, in face order
    if (wrongly_oriented(view, geometry, f)) add_offender(r.n_wrongly_oriented_faces, r.wrongly_oriented_faces, f);
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

FigureRules figure_rules(const Mesh& mesh, const MeshGeometry& g) {
  FigureRules rules;
  rules.severe_cos = std::cos(non_orthogonality_threshold_deg * std::numbers::pi / 180.0);
  Vec3 empty_dir;  // OpenFOAM's calcDirections
  bool any_empty = false;
  for (const auto& p : mesh.patches)
    if (p.type == "empty" && p.size > 0) {
      any_empty = true;
      for (label f = p.start; f < p.start + p.size; ++f) empty_dir += component_magnitudes(g.face_areas[f]);
    }
  if (any_empty && mag(empty_dir) > 0.0) {
    empty_dir /= mag(empty_dir);
    for (int d = 0; d < 3; ++d) rules.directions.d[d] = !(empty_dir[d] > 1.0e-6);
  }
  return rules;
}

MeshFigures mesh_figures(const Mesh& mesh, const MeshGeometry& g, const CellFaceLists& cells) {
  const FigureRules rules = figure_rules(mesh, g);
  const MeshView view = mesh_view(mesh);
  const CellListView lists = cell_list_view(cells);
  const GeometryView geometry = geometry_view(g);
  MeshFigures figures;
  figures.faces = in_chunks<FaceFigures>(mesh.n_faces(), [&](FaceFigures& s, label begin, label end) {
    for (label f = begin; f < end; ++f) add_face_figures(s, view, geometry, f, rules.severe_cos);
  });
  figures.cells = in_chunks<CellFigures>(mesh.n_cells, [&](CellFigures& s, label begin, label end) {
    for (label c = begin; c < end; ++c) add_cell_figures(s, view, lists, geometry, c, rules.directions);
  });
  return figures;
}

MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& g) { return check_mesh(mesh, g, cell_face_lists(mesh)); }

MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& g, const CellFaceLists& cells) {
  return check_mesh(mesh, g, cells, mesh_figures(mesh, g, cells));
}

MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& g, const CellFaceLists& cells,
                           const MeshFigures& figures) {
  MeshCheckReport r;
  r.n_points = mesh.n_points();
  r.n_faces = mesh.n_faces();
  r.n_internal_faces = mesh.n_internal_faces();
  r.n_cells = mesh.n_cells;
  const FaceFigures& faces = figures.faces;
  const CellFigures& cell = figures.cells;
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
