#include "app/vtk_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDoubleArray.h>
#include <vtkIntArray.h>
#include <vtkErrorCode.h>
#include <vtkNew.h>
#include <vtkObject.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "app/atomic_file.hpp"
#include "app/rank_failure.hpp"
#include "app/scalar_text.hpp"

namespace fvmmini {

namespace {

using FaceLoops = std::vector<std::vector<label>>;
using FaceTemplate = std::vector<std::vector<int>>;

// --- VTK's faces of each native cell, in its local point numbering (vtkHexahedron, vtkTetra, ...).
const FaceTemplate hexahedron_faces{{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}};
const FaceTemplate tetrahedron_faces{{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, {0, 2, 1}};
const FaceTemplate wedge_faces{{0, 1, 2}, {3, 5, 4}, {0, 3, 4, 1}, {1, 4, 5, 2}, {2, 5, 3, 0}};
const FaceTemplate pyramid_faces{{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}};

bool contains(const std::vector<label>& values, label value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

/// The one vertex joined to `vertex` by an edge of the cell and not in `base`; nullopt if none or several.
std::optional<label> partner(label vertex, const FaceLoops& faces, const std::vector<label>& base) {
  std::optional<label> found;
  for (const auto& loop : faces)
    for (std::size_t i = 0; i < loop.size(); ++i) {
      const label a = loop[i], b = loop[(i + 1) % loop.size()];
      const label other = a == vertex ? b : (b == vertex ? a : -1);
      if (other < 0 || contains(base, other)) continue;
      if (found && *found != other) return std::nullopt;
      found = other;
    }
  return found;
}

/// True when the template's faces, through `points`, are exactly the cell's faces (as vertex sets).
bool faces_match(const FaceLoops& faces, const std::vector<label>& points, const FaceTemplate& local) {
  if (faces.size() != local.size()) return false;
  std::vector<std::vector<label>> expected, actual;
  for (const auto& face : local) {
    std::vector<label> vertices;
    for (int i : face) vertices.push_back(points[static_cast<std::size_t>(i)]);
    std::sort(vertices.begin(), vertices.end());
    expected.push_back(vertices);
  }
  for (const auto& loop : faces) {
    std::vector<label> vertices = loop;
    std::sort(vertices.begin(), vertices.end());
    actual.push_back(vertices);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  return expected == actual;
}

/// The VTK type and point order of a cell whose faces form a native shape; nullopt otherwise.
/// `faces` are the cell's faces oriented outward; VTK's base faces (hex bottom, tet and pyramid
/// base) have their normal pointing into the cell, the wedge's first triangle points out.
std::optional<std::pair<int, std::vector<label>>> native_cell(const FaceLoops& faces) {
  std::set<label> unique_points;
  std::size_t triangles = 0, quads = 0;
  for (const auto& loop : faces) {
    unique_points.insert(loop.begin(), loop.end());
    triangles += loop.size() == 3;
    quads += loop.size() == 4;
  }
  if (triangles + quads != faces.size()) return std::nullopt;

  const auto first_with = [&](std::size_t size) {
    return *std::find_if(faces.begin(), faces.end(), [&](const auto& loop) { return loop.size() == size; });
  };
  const auto reversed = [](std::vector<label> loop) {
    std::reverse(loop.begin() + 1, loop.end());
    return loop;
  };
  const auto apex = [&](const std::vector<label>& base) -> std::optional<label> {
    for (label p : unique_points)
      if (!contains(base, p)) return p;
    return std::nullopt;
  };
  const auto extrude = [&](std::vector<label> points) -> std::optional<std::vector<label>> {
    const std::vector<label> base = points;
    for (label vertex : base) {
      const auto top = partner(vertex, faces, base);
      if (!top) return std::nullopt;
      points.push_back(*top);
    }
    return points;
  };

  int type = VTK_EMPTY_CELL;
  std::optional<std::vector<label>> points;
  const FaceTemplate* local = nullptr;
  if (faces.size() == 6 && quads == 6 && unique_points.size() == 8) {
    type = VTK_HEXAHEDRON;
    local = &hexahedron_faces;
    points = extrude(reversed(first_with(4)));
  } else if (faces.size() == 4 && triangles == 4 && unique_points.size() == 4) {
    type = VTK_TETRA;
    local = &tetrahedron_faces;
    std::vector<label> base = reversed(first_with(3));
    if (const auto top = apex(base)) {
      base.push_back(*top);
      points = base;
    }
  } else if (faces.size() == 5 && triangles == 2 && quads == 3 && unique_points.size() == 6) {
    type = VTK_WEDGE;
    local = &wedge_faces;
    points = extrude(first_with(3));
  } else if (faces.size() == 5 && triangles == 4 && quads == 1 && unique_points.size() == 5) {
    type = VTK_PYRAMID;
    local = &pyramid_faces;
    std::vector<label> base = reversed(first_with(4));
    if (const auto top = apex(base)) {
      base.push_back(*top);
      points = base;
    }
  }
  if (!points || !faces_match(faces, *points, *local)) return std::nullopt;
  return std::pair{type, *points};
}

}  // namespace

bool vtk_output_available() { return true; }

struct VtkSeriesWriter::Impl {
  std::filesystem::path directory;
  std::string basename;
  label n_cells = 0;
  vtkNew<vtkUnstructuredGrid> grid;
  VtkCellTypeCounts counts;
  std::vector<std::pair<double, std::string>> written;  ///< (time, file name) of every .vtu so far

  const Communicator* ranks = nullptr;
  std::vector<label> global_cell;  ///< several ranks: the cell field globalCell

  bool pieces() const { return ranks->distributed(); }

  /// The root's index of one time's pieces, with the arrays each piece holds.
  struct ArrayInfo {
    std::string name;
    int components;
    const char* type;  ///< VTK's name of the value type
  };
  std::string parallel_index_text(std::size_t number, const std::vector<ArrayInfo>& arrays) const {
    std::string text =
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\" "
        "header_type=\"UInt64\">\n"
        "  <PUnstructuredGrid GhostLevel=\"0\">\n"
        "    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n    </PPoints>\n"
        "    <PCellData>\n";
    for (const auto& [name, components, type] : arrays)
      text += fmt::format("      <PDataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\"/>\n", type, name,
                          components);
    text += "    </PCellData>\n";
    for (int rank = 0; rank < ranks->size(); ++rank)
      text += fmt::format("    <Piece Source=\"{}\"/>\n", piece_name(number, rank));
    text += "  </PUnstructuredGrid>\n</VTKFile>\n";
    return text;
  }
  std::string piece_name(std::size_t number, int rank) const {
    return fmt::format("{}_{:06d}_{}.vtu", basename, number, rank);
  }

  std::string collection_text() const {
    std::string text =
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <Collection>\n";
    for (const auto& [time, file] : written)
      text += fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", format_real(time), file);
    text += "  </Collection>\n</VTKFile>\n";
    return text;
  }
};

VtkSeriesWriter::VtkSeriesWriter(const Mesh& mesh, std::filesystem::path directory, std::string basename,
                                 const Communicator& ranks, std::vector<label> global_cell)
    : impl_(std::make_unique<Impl>()) {
  impl_->directory = std::move(directory);
  impl_->basename = std::move(basename);
  impl_->n_cells = mesh.n_cells;
  impl_->ranks = &ranks;
  impl_->global_cell = std::move(global_cell);
  if (ranks.distributed() && impl_->global_cell.size() != static_cast<std::size_t>(mesh.n_cells))
    throw std::invalid_argument("VTK output: a rank's piece needs the whole-mesh number of each of its cells");

  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(mesh.n_points());
  for (label p = 0; p < mesh.n_points(); ++p) points->SetPoint(p, mesh.points[p].x, mesh.points[p].y, mesh.points[p].z);
  impl_->grid->SetPoints(points);

  // --- Faces per cell in compressed rows: f for the owner, ~f (negative) for the neighbour.
  std::vector<label> cell_offsets(static_cast<std::size_t>(mesh.n_cells) + 1, 0);
  for (label f = 0; f < mesh.n_faces(); ++f) {
    ++cell_offsets[mesh.owner[f] + 1];
    if (f < mesh.n_internal_faces()) ++cell_offsets[mesh.neighbour[f] + 1];
  }
  for (label c = 0; c < mesh.n_cells; ++c) cell_offsets[c + 1] += cell_offsets[c];
  std::vector<label> cell_faces(static_cast<std::size_t>(cell_offsets.back()));
  std::vector<label> fill(cell_offsets.begin(), cell_offsets.end() - 1);
  for (label f = 0; f < mesh.n_faces(); ++f) {
    cell_faces[fill[mesh.owner[f]]++] = f;
    if (f < mesh.n_internal_faces()) cell_faces[fill[mesh.neighbour[f]]++] = ~f;
  }

  // --- Native VTK cells where the faces allow, polyhedra (outward face stream) otherwise.
  impl_->grid->Allocate(mesh.n_cells);
  FaceLoops faces;
  for (label c = 0; c < mesh.n_cells; ++c) {
    // --- The cell's faces oriented outward: as stored for the owner, reversed for the neighbour.
    faces.resize(static_cast<std::size_t>(cell_offsets[c + 1] - cell_offsets[c]));
    for (label i = cell_offsets[c]; i < cell_offsets[c + 1]; ++i) {
      const label f = cell_faces[i] >= 0 ? cell_faces[i] : ~cell_faces[i];
      const auto face = mesh.face(f);
      auto& loop = faces[static_cast<std::size_t>(i - cell_offsets[c])];
      loop.assign(face.begin(), face.end());
      if (cell_faces[i] < 0) std::reverse(loop.begin() + 1, loop.end());
    }

    if (const auto native = native_cell(faces)) {
      std::vector<vtkIdType> ids(native->second.begin(), native->second.end());
      impl_->grid->InsertNextCell(native->first, static_cast<vtkIdType>(ids.size()), ids.data());
      switch (native->first) {
        case VTK_HEXAHEDRON: ++impl_->counts.hexahedra; break;
        case VTK_TETRA: ++impl_->counts.tetrahedra; break;
        case VTK_WEDGE: ++impl_->counts.wedges; break;
        default: ++impl_->counts.pyramids; break;
      }
      continue;
    }
    std::set<label> unique_points;
    std::vector<vtkIdType> stream;
    for (const auto& loop : faces) {
      unique_points.insert(loop.begin(), loop.end());
      stream.push_back(static_cast<vtkIdType>(loop.size()));
      stream.insert(stream.end(), loop.begin(), loop.end());
    }
    std::vector<vtkIdType> ids(unique_points.begin(), unique_points.end());
    impl_->grid->InsertNextCell(VTK_POLYHEDRON, static_cast<vtkIdType>(ids.size()), ids.data(),
                                static_cast<vtkIdType>(faces.size()), stream.data());
    ++impl_->counts.polyhedra;
  }
}

VtkSeriesWriter::~VtkSeriesWriter() = default;

std::filesystem::path VtkSeriesWriter::collection_path() const {
  return impl_->directory / (impl_->basename + ".pvd");
}

VtkCellTypeCounts VtkSeriesWriter::cell_type_counts() const { return impl_->counts; }

std::filesystem::path VtkSeriesWriter::write(double time, const std::vector<ScalarCellField>& scalars,
                                             const std::vector<VectorCellField>& vectors) {
  // --- Fields: one value per cell, distinct names.
  std::set<std::string> names;
  const auto check = [&](const std::string& name, std::size_t size) {
    if (name.empty() || !names.insert(name).second)
      throw std::invalid_argument("VTK output: field names must be non-empty and distinct ('" + name + "')");
    if (size != static_cast<std::size_t>(impl_->n_cells))
      throw std::invalid_argument("VTK output: field '" + name + "' has " + std::to_string(size) + " values for " +
                                  std::to_string(impl_->n_cells) + " cells");
  };
  for (const auto& field : scalars) check(field.name, field.values.size());
  for (const auto& field : vectors) check(field.name, field.values.size());

  vtkCellData* data = impl_->grid->GetCellData();
  data->Initialize();
  for (const auto& field : scalars) {
    vtkNew<vtkDoubleArray> array;
    array->SetName(field.name.c_str());
    array->SetNumberOfComponents(1);
    array->SetNumberOfTuples(impl_->n_cells);
    for (label c = 0; c < impl_->n_cells; ++c) array->SetValue(c, field.values[c]);
    data->AddArray(array);
  }
  for (const auto& field : vectors) {
    vtkNew<vtkDoubleArray> array;
    array->SetName(field.name.c_str());
    array->SetNumberOfComponents(3);
    array->SetNumberOfTuples(impl_->n_cells);
    for (label c = 0; c < impl_->n_cells; ++c) {
      const Vec3& v = field.values[c];
      const double tuple[3] = {v.x, v.y, v.z};
      array->SetTypedTuple(c, tuple);
    }
    data->AddArray(array);
  }

  if (impl_->pieces()) {
    vtkNew<vtkIntArray> array;
    array->SetName("globalCell");
    array->SetNumberOfComponents(1);
    array->SetNumberOfTuples(impl_->n_cells);
    for (label c = 0; c < impl_->n_cells; ++c) array->SetValue(c, impl_->global_cell[c]);
    data->AddArray(array);
  }
  if (!impl_->pieces()) {
    const std::string file = fmt::format("{}_{:06d}.vtu", impl_->basename, impl_->written.size());
    write_grid(impl_->directory / file);
    impl_->written.emplace_back(time, file);
    write_file_atomically(collection_path(), impl_->collection_text());
    return impl_->directory / file;
  }

  // --- Several ranks: every piece, then (once all are whole) the root's index and collection
  const Communicator& ranks = *impl_->ranks;
  const std::size_t number = impl_->written.size();
  bool written = true;
  try {
    write_grid(impl_->directory / impl_->piece_name(number, ranks.rank()));
  } catch (const std::exception& e) {
    written = false;
    std::fputs(fmt::format("fvmmini: error: rank {}: {}\n", ranks.rank(), e.what()).c_str(), stderr);
  }
  const std::vector<long long> all = ranks.gather(static_cast<long long>(written));
  const auto failed = std::find(all.begin(), all.end(), 0LL);
  if (failed != all.end())
    throw CollectiveFailure(fmt::format("rank {} could not write its piece of the fields at time {} (its reason above)",
                                        failed - all.begin(), format_real(time)),
                            1);
  const std::string index = fmt::format("{}_{:06d}.pvtu", impl_->basename, number);
  impl_->written.emplace_back(time, index);
  on_root_for_all(
      ranks,
      [&] {
        std::vector<Impl::ArrayInfo> arrays;
        for (const auto& field : scalars) arrays.push_back({field.name, 1, "Float64"});
        for (const auto& field : vectors) arrays.push_back({field.name, 3, "Float64"});
        arrays.push_back({"globalCell", 1, "Int32"});  // vtkIntArray
        write_file_atomically(impl_->directory / index, impl_->parallel_index_text(number, arrays));
        write_file_atomically(collection_path(), impl_->collection_text());
      },
      [](const std::exception&) { return 1; });
  return impl_->directory / index;
}

void VtkSeriesWriter::write_grid(const std::filesystem::path& target) {
  std::error_code ec;
  std::filesystem::create_directories(impl_->directory, ec);
  if (ec) throw std::runtime_error("cannot create " + impl_->directory.string() + ": " + ec.message());

  // --- The .vtu, complete before it takes its name.
  replace_file_atomically(target, [&](const std::filesystem::path& temporary) {
    // --- Open it ourselves first: VTK says that it failed, the system says why.
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(write_error(target, errno));
    ::close(fd);
    vtkObject::GlobalWarningDisplayOff();  // a failure is reported below, once, with the system's reason
    vtkNew<vtkXMLUnstructuredGridWriter> writer;
    writer->SetInputData(impl_->grid);
    writer->SetFileName(temporary.c_str());
    writer->SetDataModeToAppended();
    writer->EncodeAppendedDataOff();
    writer->SetCompressorTypeToZLib();
    writer->SetHeaderTypeToUInt64();
    errno = 0;
    if (writer->Write() != 1 || writer->GetErrorCode() != 0) {
      const unsigned long code = writer->GetErrorCode();
      // errno is the failed call's reason; VTK says "out of disk space" for any short write
      if (errno != 0) throw std::runtime_error(write_error(target, errno));
      if (code == vtkErrorCode::OutOfDiskSpaceError) throw std::runtime_error(write_error(target, ENOSPC));
      throw std::runtime_error("cannot write " + target.string() + ": the VTK writer failed (VTK error code " +
                               std::to_string(code) + ")");
    }
  });
}

}  // namespace fvmmini
