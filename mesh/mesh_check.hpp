#pragma once
// A mesh quality report in the spirit of OpenFOAM's checkMesh.

#include <string>
#include <vector>

#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_formulas.hpp"
#include "mesh/mesh_regions.hpp"

namespace fvmmini {

using mesh_formulas::CellTypeCounts;

struct PatchReport {
  std::string name;
  std::string type;
  label size = 0;
};

struct MeshCheckReport {
  // --- counts
  label n_points = 0, n_faces = 0, n_internal_faces = 0, n_cells = 0;
  CellTypeCounts cell_types;
  std::vector<PatchReport> patches;
  label n_unused_points = 0;
  bool upper_triangular = true;
  bool boundary_definition_ok = true;  ///< patches contiguous after the internal faces, covering all boundary faces
  MeshRegions regions;  ///< the connected regions (more than one: a warning, each needs its own fixed value)

  // --- geometry
  Vec3 bounding_box_min, bounding_box_max;
  Vec3 boundary_openness;           ///< sum of boundary area vectors / sum of their magnitudes
  double max_cell_openness = 0.0;   ///< max over cells and components of |sum Sf| / sum |Sf| (OpenFOAM's)
  double max_aspect_ratio = 0.0;    ///< OpenFOAM's closed-cell aspect ratio
  double min_face_area = 0.0, max_face_area = 0.0;
  double min_volume = 0.0, max_volume = 0.0, total_volume = 0.0;
  double max_non_orthogonality = 0.0;  ///< degrees, internal faces
  double avg_non_orthogonality = 0.0;  ///< degrees: the angle of the mean cosine over internal faces (as OpenFOAM)
  double max_skewness = 0.0;           ///< OpenFOAM's face skewness, all faces

  // --- offenders
  label n_open_cells = 0;                ///< openness above 1e-6
  label n_non_positive_volumes = 0;      ///< volume <= 1e-300
  label n_wrongly_oriented_faces = 0;    ///< d.Sf <= 0 (internal) or (Cf - C).Sf <= 0 (boundary)
  label n_zero_area_faces = 0;
  label n_severely_non_orthogonal = 0;   ///< above 70 degrees
  label n_highly_skew_faces = 0;         ///< skewness above 4
  label n_high_aspect_ratio_cells = 0;   ///< above 1000
  label n_non_finite_faces = 0;          ///< area vector or centre past a double (coordinates near 1e300)
  label n_non_finite_cells = 0;          ///< volume or centre past a double
  double max_coordinate = 0.0;           ///< the largest |x|, |y| or |z| of a point
  std::vector<label> open_cells;               ///< the first few, for messages
  std::vector<label> non_positive_cells;       ///< the first few
  std::vector<label> wrongly_oriented_faces;   ///< the first few

  std::vector<std::string> failures;  ///< fatal: the mesh must not be used
  std::vector<std::string> warnings;  ///< quality concerns that do not stop a run

  bool ok() const { return failures.empty(); }
};

/// The figures of the geometry's checks (mesh_formulas.hpp's): one pass over the faces and one
/// over the cells, every sum in chunks of figure_chunk merged in order.
struct MeshFigures {
  mesh_formulas::FaceFigures faces;
  mesh_formulas::CellFigures cells;
};

/// What the passes take beside the mesh and its geometry: the cosine of the severe
/// non-orthogonality angle and the aspect ratio's directions (from the empty patches' areas).
struct FigureRules {
  double severe_cos = 0.0;
  mesh_formulas::AspectDirections directions;
};
FigureRules figure_rules(const Mesh& mesh, const MeshGeometry& geometry);

/// The passes on every thread of the host.
MeshFigures mesh_figures(const Mesh& mesh, const MeshGeometry& geometry, const CellFaceLists& cells);

/// Check a mesh and its geometry (from compute_geometry): counts, cell types, patch sizes,
/// closedness, volumes, face orientation, non-orthogonality, skewness, bounding box.
/// Fatal: broken ordering or boundary definition, face areas or cell volumes that are not finite
/// (coordinates whose products overflow a double: said so, the other geometry checks skipped,
/// which would only report the overflow as open, inverted or wrongly oriented cells), open cells
/// or boundary, non-positive volumes, wrongly oriented or zero-area faces. Warnings: severe non-orthogonality
/// (> 70 deg), high skewness (> 4), high aspect ratio (> 1000), unused points, more than one
/// region (cells that no internal face connects: a steady equation needs a fixed value in each).
/// The addressing must index valid points, faces and cells (as the readers and the box
/// generator guarantee; check_mesh_addressing in mesh_assembly.hpp verifies it).
MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& geometry);
/// The same, over the mesh's cell_face_lists already made (compute_geometry's).
MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& geometry, const CellFaceLists& cells);
/// The same from the figures of these geometry and lists made elsewhere (the device's:
/// discretisation/device_mesh_check.hpp); the offenders are listed from `geometry`.
MeshCheckReport check_mesh(const Mesh& mesh, const MeshGeometry& geometry, const CellFaceLists& cells,
                           const MeshFigures& figures);

/// The report as OpenFOAM's checkMesh prints it, ending in "Mesh OK." or
/// "Failed N mesh checks." (N = number of failures).
std::string format_mesh_check(const MeshCheckReport& report);

}  // namespace fvmmini
