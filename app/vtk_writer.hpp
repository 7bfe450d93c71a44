#pragma once
// Results as VTK XML for ParaView: one .vtu (unstructured grid with cell data)
// per written time and a .pvd collection listing them with their times. On several ranks
// each writes its piece (<basename>_<NNNNNN>_<rank>.vtu, with the cells' numbers in the whole
// mesh as the cell field globalCell) and the root a .pvtu per time that joins them, listed by
// the .pvd: ParaView opens it as one dataset.
// Cells whose faces make a hexahedron, tetrahedron, wedge or pyramid are written
// as those native VTK types, every other cell as a VTK_POLYHEDRON. Every file is
// written under a temporary name and renamed when complete.
// The one place that owns VTK output: vtk_writer.cpp implements it with FVMMINI_WITH_VTK=ON,
// no_vtk_writer.cpp without VTK (nothing can be written there), so no caller needs an #if.

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

/// Whether this build writes VTK. Without it the command line refuses output.vtk: true before
/// anything runs, and constructing a VtkSeriesWriter throws.
bool vtk_output_available();

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
  /// as <basename>_<NNNNNN>.vtu and <basename>.pvd. On several ranks (`ranks` distributed) the
  /// mesh is this rank's part, global_cell its cells' numbers in the whole mesh, and every write
  /// is collective.
  VtkSeriesWriter(const Mesh& mesh, std::filesystem::path directory, std::string basename,
                  const Communicator& ranks = Communicator::serial(), std::vector<label> global_cell = {});
  ~VtkSeriesWriter();
  VtkSeriesWriter(const VtkSeriesWriter&) = delete;
  VtkSeriesWriter& operator=(const VtkSeriesWriter&) = delete;

  /// Write the fields at `time` as the next .vtu and rewrite the .pvd to list it (several ranks:
  /// each its piece; once every piece is whole, the root's .pvtu and .pvd).
  /// Throws std::invalid_argument for a field of the wrong size, std::runtime_error when a file
  /// cannot be written (then no file of this write exists under its final name); on several
  /// ranks a piece that could not be written fails every rank (CollectiveFailure, the rank's
  /// own reason on its standard error).
  /// @return the path of the .vtu (or .pvtu) written
  std::filesystem::path write(double time, const std::vector<ScalarCellField>& scalars,
                              const std::vector<VectorCellField>& vectors = {});

  /// The .pvd collection file.
  std::filesystem::path collection_path() const;
  /// How the cells are written.
  VtkCellTypeCounts cell_type_counts() const;

 private:
  /// The grid with its current cell data as one .vtu.
  void write_grid(const std::filesystem::path& target);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini
