#include "mesh/mesh_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

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

std::string vec_text(const Vec3& v) { return fmt::format("({:.6g} {:.6g} {:.6g})", v.x, v.y, v.z); }

std::string list_text(const std::vector<label>& items, label total) {
  std::string s;
  for (label i : items) s += fmt::format("{}{}", s.empty() ? "" : " ", i);
  if (total > static_cast<label>(items.size())) s += " ...";
  return s;
}

}  // namespace

MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& g) {
  MeshCheckReport r;
  const label n_faces = mesh.n_faces();
  const label n_internal = mesh.n_internal_faces();
  const label n_cells = mesh.n_cells;
  r.n_points = mesh.n_points();
  r.n_faces = n_faces;
  r.n_internal_faces = n_internal;
  r.n_cells = n_cells;

  // --- topology: ordering, boundary definition, point usage
  r.upper_triangular = is_upper_triangular(mesh);
  label next_start = n_internal;
  for (const auto& p : mesh.patches) {
    r.patches.push_back({p.name, p.type, p.size});
    if (p.start != next_start || p.size < 0) r.boundary_definition_ok = false;
    next_start = p.start + p.size;
  }
  if (next_start != n_faces) r.boundary_definition_ok = false;
  std::vector<char> used(mesh.points.size(), 0);
  for (label v : mesh.face_vertices) used[v] = 1;
  r.n_unused_points = static_cast<label>(std::count(used.begin(), used.end(), 0));

  // --- cell shapes from face and vertex counts (cell -> faces as CSR)
  std::vector<label> cell_start(n_cells + 1, 0);
  for (label f = 0; f < n_faces; ++f) ++cell_start[mesh.owner[f] + 1];
  for (label f = 0; f < n_internal; ++f) ++cell_start[mesh.neighbour[f] + 1];
  for (label c = 0; c < n_cells; ++c) cell_start[c + 1] += cell_start[c];
  std::vector<label> cell_faces(cell_start[n_cells]);
  {
    std::vector<label> fill(cell_start.begin(), cell_start.end() - 1);
    for (label f = 0; f < n_faces; ++f) cell_faces[fill[mesh.owner[f]]++] = f;
    for (label f = 0; f < n_internal; ++f) cell_faces[fill[mesh.neighbour[f]]++] = f;
  }
  std::vector<label> vertices;
  for (label c = 0; c < n_cells; ++c) {
    label nf = 0, t = 0, q = 0;
    vertices.clear();
    for (label k = cell_start[c]; k < cell_start[c + 1]; ++k) {
      const auto loop = mesh.face(cell_faces[k]);
      ++nf;
      if (loop.size() == 3) ++t;
      if (loop.size() == 4) ++q;
      vertices.insert(vertices.end(), loop.begin(), loop.end());
    }
    std::sort(vertices.begin(), vertices.end());
    const auto nv = std::unique(vertices.begin(), vertices.end()) - vertices.begin();
    auto& ct = r.cell_types;
    if (nf == 6 && q == 6 && nv == 8) ++ct.hexahedra;
    else if (nf == 5 && t == 2 && q == 3 && nv == 6) ++ct.prisms;
    else if (nf == 6 && t == 2 && q == 4 && nv == 7) ++ct.wedges;
    else if (nf == 5 && t == 4 && q == 1 && nv == 5) ++ct.pyramids;
    else if (nf == 4 && t == 2 && q == 2 && nv == 5) ++ct.tet_wedges;
    else if (nf == 4 && t == 4 && nv == 4) ++ct.tetrahedra;
    else ++ct.polyhedra;
  }

  // --- bounding box
  if (!mesh.points.empty()) {
    r.bounding_box_min = r.bounding_box_max = mesh.points.front();
    for (const auto& p : mesh.points)
      for (int d = 0; d < 3; ++d) {
        r.bounding_box_min[d] = std::min(r.bounding_box_min[d], p[d]);
        r.bounding_box_max[d] = std::max(r.bounding_box_max[d], p[d]);
      }
  }

  // --- boundary openness: sum Sf / sum |Sf| over boundary faces
  Vec3 sum_boundary;
  double sum_mag_boundary = 0.0;
  for (label f = n_internal; f < n_faces; ++f) {
    sum_boundary += g.face_areas[f];
    sum_mag_boundary += mag(g.face_areas[f]);
  }
  r.boundary_openness = sum_mag_boundary > 0.0 ? sum_boundary / sum_mag_boundary : Vec3{};

  // --- solution directions: those not normal to empty patches (as OpenFOAM's calcDirections)
  Vec3 empty_dir;
  bool any_empty = false;
  for (const auto& p : mesh.patches)
    if (p.type == "empty" && p.size > 0) {
      any_empty = true;
      for (label f = p.start; f < p.start + p.size; ++f) empty_dir += cmpt_mag(g.face_areas[f]);
    }
  bool solution_dir[3] = {true, true, true};
  if (any_empty && mag(empty_dir) > 0.0) {
    empty_dir /= mag(empty_dir);
    for (int d = 0; d < 3; ++d) solution_dir[d] = !(empty_dir[d] > 1.0e-6);
  }
  const int n_dims = solution_dir[0] + solution_dir[1] + solution_dir[2];

  // --- cell closedness: |sum Sf| / sum |Sf| per component, outward from the cell
  std::vector<Vec3> sum_closed(n_cells), sum_mag_closed(n_cells);
  for (label f = 0; f < n_faces; ++f) {
    sum_closed[mesh.owner[f]] += g.face_areas[f];
    sum_mag_closed[mesh.owner[f]] += cmpt_mag(g.face_areas[f]);
  }
  for (label f = 0; f < n_internal; ++f) {
    sum_closed[mesh.neighbour[f]] -= g.face_areas[f];
    sum_mag_closed[mesh.neighbour[f]] += cmpt_mag(g.face_areas[f]);
  }
  for (label c = 0; c < n_cells; ++c) {
    double openness = 0.0;
    for (int d = 0; d < 3; ++d) openness = std::max(openness, std::abs(sum_closed[c][d]) / (sum_mag_closed[c][d] + rootvsmall));
    r.max_cell_openness = std::max(r.max_cell_openness, openness);
    if (openness > closed_threshold) {
      ++r.n_open_cells;
      if (r.open_cells.size() < max_listed) r.open_cells.push_back(c);
    }
    // --- aspect ratio: largest/smallest projected area, and the hydraulic ratio in 3-D
    double min_cmpt = std::numeric_limits<double>::max(), max_cmpt = -std::numeric_limits<double>::max();
    for (int d = 0; d < 3; ++d)
      if (solution_dir[d]) {
        min_cmpt = std::min(min_cmpt, sum_mag_closed[c][d]);
        max_cmpt = std::max(max_cmpt, sum_mag_closed[c][d]);
      }
    double aspect = n_dims > 0 ? max_cmpt / (min_cmpt + rootvsmall) : 1.0;
    if (n_dims == 3) {
      const double v = std::max(rootvsmall, g.cell_volumes[c]);
      const double sum_mag = sum_mag_closed[c].x + sum_mag_closed[c].y + sum_mag_closed[c].z;
      aspect = std::max(aspect, sum_mag / 6.0 / std::pow(v, 2.0 / 3.0));
    }
    r.max_aspect_ratio = std::max(r.max_aspect_ratio, aspect);
    if (aspect > aspect_threshold) ++r.n_high_aspect_ratio_cells;
  }

  // --- face areas
  r.min_face_area = n_faces > 0 ? std::numeric_limits<double>::max() : 0.0;
  for (label f = 0; f < n_faces; ++f) {
    const double a = mag(g.face_areas[f]);
    r.min_face_area = std::min(r.min_face_area, a);
    r.max_face_area = std::max(r.max_face_area, a);
    if (a < vsmall) ++r.n_zero_area_faces;
  }

  // --- volumes
  r.min_volume = n_cells > 0 ? std::numeric_limits<double>::max() : 0.0;
  r.max_volume = n_cells > 0 ? -std::numeric_limits<double>::max() : 0.0;
  for (label c = 0; c < n_cells; ++c) {
    const double v = g.cell_volumes[c];
    r.min_volume = std::min(r.min_volume, v);
    r.max_volume = std::max(r.max_volume, v);
    r.total_volume += v;
    if (v < vsmall) {
      ++r.n_non_positive_volumes;
      if (r.non_positive_cells.size() < max_listed) r.non_positive_cells.push_back(c);
    }
  }

  // --- internal faces: orientation d.Sf > 0, non-orthogonality acos(d.Sf / |d||Sf|), skewness
  auto mark_wrong = [&](label f) {
    ++r.n_wrongly_oriented_faces;
    if (r.wrongly_oriented_faces.size() < max_listed) r.wrongly_oriented_faces.push_back(f);
  };
  const double severe_cos = std::cos(non_orthogonality_threshold_deg * std::numbers::pi / 180.0);
  double min_cos = 1.0, sum_cos = 0.0;
  for (label f = 0; f < n_internal; ++f) {
    const Vec3 d = g.cell_centres[mesh.neighbour[f]] - g.cell_centres[mesh.owner[f]];
    const Vec3& sf = g.face_areas[f];
    if (!(dot(d, sf) > 0.0)) mark_wrong(f);
    const double cos_angle = dot(d, sf) / (mag(d) * mag(sf) + rootvsmall);
    if (cos_angle < severe_cos && cos_angle > 0.0) ++r.n_severely_non_orthogonal;
    min_cos = std::min(min_cos, cos_angle);
    sum_cos += cos_angle;
    const double skew = face_skewness(mesh, g, f, d);
    r.max_skewness = std::max(r.max_skewness, skew);
    if (skew > skew_threshold) ++r.n_highly_skew_faces;
  }
  // OpenFOAM reports the angle of the worst face and the angle of the average cosine.
  r.max_non_orthogonality = radians_to_degrees(std::acos(std::clamp(min_cos, -1.0, 1.0)));
  r.avg_non_orthogonality = n_internal > 0 ? radians_to_degrees(std::acos(std::clamp(sum_cos / n_internal, -1.0, 1.0))) : 0.0;

  // --- boundary faces: orientation (Cf - C).Sf > 0, skewness against the face normal
  for (label f = n_internal; f < n_faces; ++f) {
    const Vec3& sf = g.face_areas[f];
    const Vec3 cpf = g.face_centres[f] - g.cell_centres[mesh.owner[f]];
    if (!(dot(cpf, sf) > 0.0)) mark_wrong(f);
    const Vec3 normal = sf / (mag(sf) + rootvsmall);
    const double skew = face_skewness(mesh, g, f, normal * dot(normal, cpf));
    r.max_skewness = std::max(r.max_skewness, skew);
    if (skew > skew_threshold) ++r.n_highly_skew_faces;
  }

  // --- verdict
  if (!r.upper_triangular) r.failures.push_back("internal faces are not in upper-triangular order with owner < neighbour");
  if (!r.boundary_definition_ok) r.failures.push_back("patches are not contiguous or do not cover all boundary faces");
  if (std::max({std::abs(r.boundary_openness.x), std::abs(r.boundary_openness.y), std::abs(r.boundary_openness.z)}) > closed_threshold)
    r.failures.push_back("open boundary: boundary openness " + vec_text(r.boundary_openness) + " (possible hole in the boundary)");
  if (r.n_open_cells > 0)
    r.failures.push_back(fmt::format("{} open cells (max openness {:.3g}): {}", r.n_open_cells, r.max_cell_openness,
                                     list_text(r.open_cells, r.n_open_cells)));
  if (r.n_zero_area_faces > 0) r.failures.push_back(fmt::format("{} faces with zero area", r.n_zero_area_faces));
  if (r.n_non_positive_volumes > 0)
    r.failures.push_back(fmt::format("{} cells with zero or negative volume (min {:.6g}): {}", r.n_non_positive_volumes, r.min_volume,
                                     list_text(r.non_positive_cells, r.n_non_positive_volumes)));
  if (r.n_wrongly_oriented_faces > 0)
    r.failures.push_back(fmt::format("{} wrongly oriented faces (area vector not pointing out of the owner): {}", r.n_wrongly_oriented_faces,
                                     list_text(r.wrongly_oriented_faces, r.n_wrongly_oriented_faces)));
  if (r.n_severely_non_orthogonal > 0)
    r.warnings.push_back(fmt::format("{} severely non-orthogonal faces (> {} degrees)", r.n_severely_non_orthogonal, non_orthogonality_threshold_deg));
  if (r.n_highly_skew_faces > 0) r.warnings.push_back(fmt::format("{} highly skew faces (skewness > {})", r.n_highly_skew_faces, skew_threshold));
  if (r.n_high_aspect_ratio_cells > 0)
    r.warnings.push_back(fmt::format("{} cells with aspect ratio above {}", r.n_high_aspect_ratio_cells, aspect_threshold));
  if (r.n_unused_points > 0) r.warnings.push_back(fmt::format("{} points are used by no face", r.n_unused_points));
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
  line("");
  line("Checking patch topology...");
  line(fmt::format("    {:<20} {:<14} {:>10}", "Patch", "Type", "Faces"));
  for (const auto& p : r.patches) line(fmt::format("    {:<20} {:<14} {:>10}", p.name, p.type, p.size));
  line("");
  line("Checking geometry...");
  line("    Overall domain bounding box " + vec_text(r.bounding_box_min) + " " + vec_text(r.bounding_box_max));
  line("    Boundary openness " + vec_text(r.boundary_openness) +
       verdict(std::max({std::abs(r.boundary_openness.x), std::abs(r.boundary_openness.y), std::abs(r.boundary_openness.z)}) <= closed_threshold));
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
