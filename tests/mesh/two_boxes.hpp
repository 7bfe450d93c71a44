#pragma once
// A mesh of two regions for the tests: two boxes of hexahedra side by side with a gap between
// them, which no internal face connects; and an OpenFOAM polyMesh writer to put such a mesh on disk.

#include <filesystem>
#include <fstream>
#include <string>

#include "mesh/box_generator.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini::test {

/// Box `first` ([0, 1]^3, cells 0 .. first's count - 1) and box `second` ([2, 3] x [0, 1]^2, the
/// cells after), each with one patch of all its sides named as given (type wall).
inline Mesh two_boxes(std::array<label, 3> first, std::array<label, 3> second, const std::string& first_patch,
                      const std::string& second_patch) {
  const auto all_sides = [](const std::string& name) {
    return BoxPatch{name, "wall",
                    {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::ymax, BoxSide::zmin, BoxSide::zmax}};
  };
  BoxSpec a, b;
  a.cells = first;
  a.patches = {all_sides(first_patch)};
  b.cells = second;
  b.min = {2.0, 0.0, 0.0};
  b.max = {3.0, 1.0, 1.0};
  b.patches = {all_sides(second_patch)};
  const Mesh boxes[2] = {generate_box(a), generate_box(b)};
  const label cell_offset[2] = {0, boxes[0].n_cells}, point_offset[2] = {0, boxes[0].n_points()};

  Mesh mesh;
  mesh.description = "two boxes apart";
  mesh.n_cells = boxes[0].n_cells + boxes[1].n_cells;
  for (const Mesh& box : boxes) mesh.points.insert(mesh.points.end(), box.points.begin(), box.points.end());
  const auto add = [&](int k, label f) {
    std::vector<label> loop(boxes[k].face(f).begin(), boxes[k].face(f).end());
    for (label& v : loop) v += point_offset[k];
    mesh.add_face(loop, boxes[k].owner[f] + cell_offset[k]);
  };
  for (int k = 0; k < 2; ++k)  // internal faces: the first box's owners are all below the second's
    for (label f = 0; f < boxes[k].n_internal_faces(); ++f) {
      add(k, f);
      mesh.neighbour.push_back(boxes[k].neighbour[f] + cell_offset[k]);
    }
  for (int k = 0; k < 2; ++k)
    for (const Patch& patch : boxes[k].patches) {
      mesh.patches.push_back({patch.name, patch.type, mesh.n_faces(), patch.size});
      for (label f = patch.start; f < patch.start + patch.size; ++f) add(k, f);
    }
  return mesh;
}

/// Write `mesh` as an ASCII OpenFOAM polyMesh into `folder` (created): points, faces, owner,
/// neighbour, boundary.
inline void write_polymesh(const Mesh& mesh, const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  const auto header = [](const std::string& cls, const std::string& object, const std::string& note = "") {
    return "FoamFile\n{\n    version 2.0;\n    format ascii;\n    class " + cls + ";\n" +
           (note.empty() ? "" : "    note \"" + note + "\";\n") + "    object " + object + ";\n}\n\n";
  };
  std::ofstream points(folder / "points");
  points << header("vectorField", "points") << mesh.n_points() << "\n(\n";
  points.precision(17);
  for (const Vec3& p : mesh.points) points << "(" << p.x << " " << p.y << " " << p.z << ")\n";
  points << ")\n";
  std::ofstream faces(folder / "faces");
  faces << header("faceList", "faces") << mesh.n_faces() << "\n(\n";
  for (label f = 0; f < mesh.n_faces(); ++f) {
    faces << mesh.face(f).size() << "(";
    for (std::size_t i = 0; i < mesh.face(f).size(); ++i) faces << (i == 0 ? "" : " ") << mesh.face(f)[i];
    faces << ")\n";
  }
  faces << ")\n";
  std::ofstream owner(folder / "owner");
  owner << header("labelList", "owner",
                  "nPoints:" + std::to_string(mesh.n_points()) + "  nCells:" + std::to_string(mesh.n_cells) +
                      "  nFaces:" + std::to_string(mesh.n_faces()) +
                      "  nInternalFaces:" + std::to_string(mesh.n_internal_faces()))
        << mesh.n_faces() << "\n(\n";
  for (label c : mesh.owner) owner << c << "\n";
  owner << ")\n";
  std::ofstream neighbour(folder / "neighbour");
  neighbour << header("labelList", "neighbour") << mesh.n_internal_faces() << "\n(\n";
  for (label c : mesh.neighbour) neighbour << c << "\n";
  neighbour << ")\n";
  std::ofstream boundary(folder / "boundary");
  boundary << header("polyBoundaryMesh", "boundary") << mesh.patches.size() << "\n(\n";
  for (const Patch& patch : mesh.patches)
    boundary << "    " << patch.name << "\n    {\n        type " << patch.type << ";\n        nFaces " << patch.size
             << ";\n        startFace " << patch.start << ";\n    }\n";
  boundary << ")\n";
}

}  // namespace fvmmini::test
