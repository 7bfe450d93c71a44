// VTK output in a build without VTK (FVMMINI_WITH_VTK=OFF): the command line refuses
// output.vtk: true before anything runs, so no writer is made; one made anyway is a clear error.

#include <stdexcept>

#include "app/vtk_writer.hpp"

namespace fvmmini {

namespace {

[[noreturn]] void no_vtk_output() {
  throw std::runtime_error("this build of fvmmini has no VTK output (built with FVMMINI_WITH_VTK=OFF)");
}

}  // namespace

bool vtk_output_available() { return false; }

struct VtkSeriesWriter::Impl {};

VtkSeriesWriter::VtkSeriesWriter(const Mesh&, std::filesystem::path, std::string, const Communicator&,
                                 std::vector<label>) {
  no_vtk_output();
}

VtkSeriesWriter::~VtkSeriesWriter() = default;

// --- never reached (no writer exists), but linked by the callers
std::filesystem::path VtkSeriesWriter::write(double, const std::vector<ScalarCellField>&,
                                             const std::vector<VectorCellField>&) {
  no_vtk_output();
}

std::filesystem::path VtkSeriesWriter::collection_path() const { no_vtk_output(); }

VtkCellTypeCounts VtkSeriesWriter::cell_type_counts() const { no_vtk_output(); }

}  // namespace fvmmini
