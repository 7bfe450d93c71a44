#pragma once
// Results as VTK XML for ParaView: one .vtu (unstructured grid with cell data)
// per written time and a .pvd collection listing them with their times.
// Cells whose faces make a hexahedron, tetrahedron, wedge or pyramid are written
// as those native VTK types, every other cell as a VTK_POLYHEDRON. Every file is
// written under a temporary name and renamed when complete.
// Compiled only with FVMMINI_WITH_VTK (then FVMMINI_HAVE_VTK is defined to 1).

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace fvmmini {

struct ScalarCellField {
  std::string name;
  std::span<const double> values;  ///< one per cell
};

struct VectorCellField {
  std::string name;
  std::span<const Vec3> values;  ///< one per cell
};

/// Counts of the VTK cell types a mesh is written with.
struct VtkCellTypeCounts {
  label hexahedra = 0, tetrahedra = 0, wedges = 0, pyramids = 0, polyhedra = 0;
};

class VtkSeriesWriter {
 public:
  /// Build the VTK cells of `mesh` once; files go to `directory` (created on the first write)
  /// as <basename>_<NNNNNN>.vtu and <basename>.pvd.
  VtkSeriesWriter(const Mesh& mesh, std::filesystem::path directory, std::string basename);
  ~VtkSeriesWriter();
  VtkSeriesWriter(const VtkSeriesWriter&) = delete;
  VtkSeriesWriter& operator=(const VtkSeriesWriter&) = delete;

  /// Write the fields at `time` as the next .vtu and rewrite the .pvd to list it.
  /// Throws std::invalid_argument for a field of the wrong size, std::runtime_error when a file
  /// cannot be written (then no file of this write exists under its final name).
  /// @return the path of the .vtu written
  std::filesystem::path write(double time, const std::vector<ScalarCellField>& scalars,
                              const std::vector<VectorCellField>& vectors = {});

  /// The .pvd collection file.
  std::filesystem::path collection_path() const;
  /// How the cells are written.
  VtkCellTypeCounts cell_type_counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini
