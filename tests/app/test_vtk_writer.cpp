// VTK output round trip: what VtkSeriesWriter writes, read back with VTK's own XML reader
// (the one ParaView uses): cell count, cell types, field values, outward faces, the .pvd.

#include <gtest/gtest.h>

#include <vtkCell.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <fstream>
#include <sstream>

#include "app/atomic_file.hpp"
#include "app/vtk_writer.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/polymesh_reader.hpp"
#include "temp_folder.hpp"

namespace fvmmini {
namespace {

const std::filesystem::path fixtures{FVMMINI_FIXTURES_DIR};

vtkSmartPointer<vtkUnstructuredGrid> read_back(const std::filesystem::path& file) {
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(file.c_str());
  reader->Update();
  return reader->GetOutput();
}

std::array<double, 3> point(vtkPoints* points, vtkIdType i) {
  std::array<double, 3> p{};
  points->GetPoint(i, p.data());
  return p;
}

/// Every face of every cell, as VTK defines the cell's faces, points away from the cell's centre.
void expect_outward_faces(vtkUnstructuredGrid* grid) {
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
    vtkCell* cell = grid->GetCell(c);
    std::array<double, 3> centre{};
    for (vtkIdType i = 0; i < cell->GetNumberOfPoints(); ++i) {
      const auto p = point(cell->GetPoints(), i);
      for (int k = 0; k < 3; ++k) centre[k] += p[k] / static_cast<double>(cell->GetNumberOfPoints());
    }
    for (int f = 0; f < cell->GetNumberOfFaces(); ++f) {
      vtkCell* face = cell->GetFace(f);
      const vtkIdType n = face->GetNumberOfPoints();
      // --- Newell's area vector and the face centre.
      std::array<double, 3> area{}, middle{};
      for (vtkIdType i = 0; i < n; ++i) {
        const auto a = point(face->GetPoints(), i);
        const auto b = point(face->GetPoints(), (i + 1) % n);
        area[0] += (a[1] - b[1]) * (a[2] + b[2]);
        area[1] += (a[2] - b[2]) * (a[0] + b[0]);
        area[2] += (a[0] - b[0]) * (a[1] + b[1]);
        for (int k = 0; k < 3; ++k) middle[k] += a[k] / static_cast<double>(n);
      }
      double outward = 0.0;
      for (int k = 0; k < 3; ++k) outward += (middle[k] - centre[k]) * area[k];
      ASSERT_GT(outward, 0.0) << "cell " << c << " (VTK type " << cell->GetCellType() << ") face " << f;
    }
  }
}

/// Write one time with T[c] = 0.5 c + 1 and U[c] = (c, -c, 2c); read it back and compare.
vtkSmartPointer<vtkUnstructuredGrid> round_trip(const Mesh& mesh, const std::filesystem::path& folder,
                                                VtkCellTypeCounts* counts = nullptr) {
  std::vector<double> t(static_cast<std::size_t>(mesh.n_cells));
  std::vector<Vec3> u(t.size());
  for (label c = 0; c < mesh.n_cells; ++c) {
    t[c] = 0.5 * c + 1.0;
    u[c] = {double(c), -double(c), 2.0 * c};
  }
  VtkSeriesWriter writer(mesh, folder, "result");
  if (counts != nullptr) *counts = writer.cell_type_counts();
  const auto file = writer.write(0.0, {{"T", t}}, {{"U", u}});
  auto grid = read_back(file);
  EXPECT_EQ(grid->GetNumberOfCells(), mesh.n_cells);
  EXPECT_EQ(grid->GetNumberOfPoints(), mesh.n_points());
  vtkDataArray* read_t = grid->GetCellData()->GetArray("T");
  vtkDataArray* read_u = grid->GetCellData()->GetArray("U");
  EXPECT_NE(read_t, nullptr);
  EXPECT_NE(read_u, nullptr);
  if (read_t == nullptr || read_u == nullptr) return grid;
  EXPECT_EQ(read_t->GetNumberOfComponents(), 1);
  EXPECT_EQ(read_u->GetNumberOfComponents(), 3);
  for (label c = 0; c < mesh.n_cells; ++c) {
    EXPECT_EQ(read_t->GetComponent(c, 0), t[c]);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(read_u->GetComponent(c, k), u[c][k]);
  }
  return grid;
}

TEST(VtkWriter, BoxIsWrittenAsHexahedra) {
  testing::TempFolder folder;
  BoxSpec spec;
  spec.cells = {3, 2, 2};
  spec.max = {3.0, 2.0, 0.5};
  VtkCellTypeCounts counts;
  auto grid = round_trip(generate_box(spec), folder.path(), &counts);
  EXPECT_EQ(counts.hexahedra, 12);
  EXPECT_EQ(counts.polyhedra, 0);
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) EXPECT_EQ(grid->GetCellType(c), VTK_HEXAHEDRON);
  expect_outward_faces(grid);
}

TEST(VtkWriter, TetrahedraPrismsAndPyramidsAreNative) {
  testing::TempFolder folder;
  VtkCellTypeCounts tets, mixed;
  expect_outward_faces(round_trip(read_gmsh(fixtures / "gmsh" / "cube_tet.msh"), folder.path() / "tet", &tets));
  EXPECT_GT(tets.tetrahedra, 0);
  EXPECT_EQ(tets.polyhedra, 0);
  expect_outward_faces(
      round_trip(read_gmsh(fixtures / "gmsh" / "mix_prism_pyr.msh"), folder.path() / "mixed", &mixed));
  EXPECT_GT(mixed.wedges, 0);
  EXPECT_GT(mixed.pyramids, 0);
  EXPECT_EQ(mixed.polyhedra, 0);
}

TEST(VtkWriter, GeneralCellsArePolyhedra) {
  testing::TempFolder folder;
  VtkCellTypeCounts counts;
  const Mesh mesh = read_polymesh(fixtures / "polymesh" / "box_dual");
  auto grid = round_trip(mesh, folder.path(), &counts);
  EXPECT_GT(counts.polyhedra, 0);
  label polyhedra = 0;
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) polyhedra += grid->GetCellType(c) == VTK_POLYHEDRON;
  EXPECT_EQ(polyhedra, counts.polyhedra);
  expect_outward_faces(grid);
}

TEST(VtkWriter, CollectionListsEveryWriteAndNoTemporariesRemain) {
  testing::TempFolder folder;
  BoxSpec spec;
  spec.cells = {2, 2, 1};
  const Mesh mesh = generate_box(spec);
  const std::vector<double> t(4, 1.0);
  VtkSeriesWriter writer(mesh, folder.path() / "out", "cavity");
  EXPECT_EQ(writer.write(0.5, {{"T", t}}), folder.path() / "out" / "cavity_000000.vtu");
  EXPECT_EQ(writer.write(1.0, {{"T", t}}), folder.path() / "out" / "cavity_000001.vtu");

  std::ifstream in(writer.collection_path());
  std::stringstream pvd;
  pvd << in.rdbuf();
  EXPECT_NE(pvd.str().find("<DataSet timestep=\"0.5\" group=\"\" part=\"0\" file=\"cavity_000000.vtu\"/>"),
            std::string::npos)
      << pvd.str();
  EXPECT_NE(pvd.str().find("timestep=\"1\" group=\"\" part=\"0\" file=\"cavity_000001.vtu\""), std::string::npos);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path() / "out"))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"cavity.pvd", "cavity_000000.vtu", "cavity_000001.vtu"}));
}

TEST(VtkWriter, BadFieldsAndUnwritableFoldersLeaveNoFile) {
  testing::TempFolder folder;
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  const Mesh mesh = generate_box(spec);
  const std::vector<double> too_short(1, 0.0), right(2, 0.0);

  VtkSeriesWriter writer(mesh, folder.path() / "out", "r");
  EXPECT_THROW(writer.write(0.0, {{"T", too_short}}), std::invalid_argument);
  EXPECT_THROW(writer.write(0.0, {{"T", right}, {"T", right}}), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "out"));

  folder.write("blocked", "a file where the output folder should be");
  VtkSeriesWriter blocked(mesh, folder.path() / "blocked", "r");
  EXPECT_THROW(blocked.write(0.0, {{"T", right}}), std::runtime_error);
  EXPECT_TRUE(std::filesystem::is_regular_file(folder.path() / "blocked"));
}

TEST(VtkWriter, AFailedWriteSaysWhyWithThePath) {
  testing::TempFolder folder;
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  const Mesh mesh = generate_box(spec);
  const std::vector<double> values(2, 0.0);
  const auto message = [&](const std::filesystem::path& directory) {
    VtkSeriesWriter writer(mesh, directory, "r");
    try {
      writer.write(0.0, {{"T", values}});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // --- the temporary cannot be created: a folder has its name
  const std::filesystem::path blocked = folder.path() / "blocked" / "r_000000.vtu";
  std::filesystem::create_directories(temporary_path_for(blocked));
  EXPECT_EQ(message(blocked.parent_path()), "cannot write " + blocked.string() + ": Is a directory");
  // --- a link planted under the temporary's name (here to /dev/full) is removed, never written through
  const std::filesystem::path planted = folder.path() / "planted" / "r_000000.vtu";
  std::filesystem::create_directories(planted.parent_path());
  std::filesystem::create_symlink("/dev/full", temporary_path_for(planted));
  EXPECT_EQ(message(planted.parent_path()), "no error");
  EXPECT_TRUE(std::filesystem::is_regular_file(planted));
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(temporary_path_for(planted))));
}

}  // namespace
}  // namespace fvmmini
