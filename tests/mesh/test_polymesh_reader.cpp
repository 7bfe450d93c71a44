// The OpenFOAM polyMesh reader on meshes written by OpenFOAM v1912 (blockMesh, polyDualMesh),
// on binary copies of them written here as OpenFOAM's List writer writes binary, and on broken
// copies of both.

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_assembly.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh/polymesh_reader.hpp"
#include "mesh_test_support.hpp"

namespace fvmmini {
namespace {

using test::expect_mesh_error;
using test::fixtures;
using test::line_of;
using test::read_file;
using test::replace_once;
using test::ScopedEnv;
using test::ScratchDir;
using test::write_file;

const char* const polymesh_files[] = {"points", "faces", "owner", "neighbour", "boundary"};

/// A copy of the box_hex fixture in a scratch polyMesh directory.
void copy_box_hex(const ScratchDir& dir) {
  for (const char* f : polymesh_files)
    std::filesystem::copy_file(fixtures() / "polymesh/box_hex" / f, dir / f, std::filesystem::copy_options::overwrite_existing);
}

MeshCheckReport check(const Mesh& mesh) { return check_mesh(mesh, compute_geometry(mesh)); }

void expect_same_mesh(const Mesh& a, const Mesh& b) {
  EXPECT_EQ(a.n_cells, b.n_cells);
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) EXPECT_EQ(a.points[i], b.points[i]);
  EXPECT_EQ(a.face_offsets, b.face_offsets);
  EXPECT_EQ(a.face_vertices, b.face_vertices);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_EQ(a.neighbour, b.neighbour);
  ASSERT_EQ(a.patches.size(), b.patches.size());
  for (size_t p = 0; p < a.patches.size(); ++p) {
    EXPECT_EQ(a.patches[p].name, b.patches[p].name);
    EXPECT_EQ(a.patches[p].type, b.patches[p].type);
    EXPECT_EQ(a.patches[p].start, b.patches[p].start);
    EXPECT_EQ(a.patches[p].size, b.patches[p].size);
  }
}

/// How a binary polyMesh is written here: as OpenFOAM's List writer does it (UListIO.C): a
/// contiguous list is "\nN\n" then '(' N raw entries ')', or "\nN\n" alone when N is 0; a
/// faceList's faces are such lists inside an ASCII list; the boundary stays a dictionary.
struct BinaryLayout {
  int label_bytes = 4;
  int scalar_bytes = 8;
  bool compact_faces = true;  ///< faceCompactList (OpenFOAM's binary faces), else faceList
  bool empty_parentheses = false;  ///< an empty list as "0()" instead of "0"
};

std::string binary_header(const BinaryLayout& b, const std::string& class_name, const std::string& object,
                          const std::string& note = "") {
  return "FoamFile\n{\n    version     2.0;\n    format      binary;\n    arch        \"LSB;label=" +
         std::to_string(8 * b.label_bytes) + ";scalar=" + std::to_string(8 * b.scalar_bytes) + "\";\n    class       " +
         class_name + ";\n" + (note.empty() ? "" : "    note        \"" + note + "\";\n") +
         "    location    \"constant/polyMesh\";\n    object      " + object + ";\n}\n// * * //\n\n";
}

template <class T>
void append_raw(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

std::string binary_labels(const BinaryLayout& b, const label* first, size_t n) {
  std::string out = "\n" + std::to_string(n) + "\n";
  if (n == 0) return b.empty_parentheses ? out + "()" : out;
  out += '(';
  for (size_t i = 0; i < n; ++i)
    b.label_bytes == 4 ? append_raw<std::int32_t>(out, first[i]) : append_raw<std::int64_t>(out, first[i]);
  return out + ')';
}

void write_binary_polymesh(const ScratchDir& dir, const Mesh& m, const BinaryLayout& b) {
  std::string points = binary_header(b, "vectorField", "points") + "\n" + std::to_string(m.points.size()) + "\n(";
  for (const Vec3& p : m.points)
    for (const double x : {p.x, p.y, p.z})
      b.scalar_bytes == 8 ? append_raw<double>(points, x) : append_raw<float>(points, static_cast<float>(x));
  write_file(dir / "points", points + ")\n");
  std::string faces;
  if (b.compact_faces) {
    faces = binary_header(b, "faceCompactList", "faces") + binary_labels(b, m.face_offsets.data(), m.face_offsets.size()) +
            binary_labels(b, m.face_vertices.data(), m.face_vertices.size());
  } else {
    faces = binary_header(b, "faceList", "faces") + "\n" + std::to_string(m.n_faces()) + "\n(";
    for (label f = 0; f < m.n_faces(); ++f)
      faces += binary_labels(b, m.face_vertices.data() + m.face_offsets[f],
                             static_cast<size_t>(m.face_offsets[f + 1] - m.face_offsets[f]));
    faces += "\n)";
  }
  write_file(dir / "faces", faces + "\n");
  const std::string note = "nPoints:" + std::to_string(m.n_points()) + "  nCells:" + std::to_string(m.n_cells) +
                           "  nFaces:" + std::to_string(m.n_faces()) +
                           "  nInternalFaces:" + std::to_string(m.n_internal_faces());
  write_file(dir / "owner", binary_header(b, "labelList", "owner", note) + binary_labels(b, m.owner.data(), m.owner.size()) + "\n");
  write_file(dir / "neighbour",
             binary_header(b, "labelList", "neighbour", note) + binary_labels(b, m.neighbour.data(), m.neighbour.size()) + "\n");
  std::string boundary = binary_header(b, "polyBoundaryMesh", "boundary") + std::to_string(m.patches.size()) + "\n(\n";
  for (const Patch& p : m.patches)
    boundary += "    " + p.name + "\n    {\n        type " + p.type + ";\n        nFaces " + std::to_string(p.size) +
                ";\n        startFace " + std::to_string(p.start) + ";\n    }\n";
  write_file(dir / "boundary", boundary + ")\n");
}

TEST(PolyMeshReader, BlockMeshBox) {
  const Mesh mesh = read_polymesh(fixtures() / "polymesh/box_hex");
  EXPECT_EQ(mesh.n_points(), 60);
  EXPECT_EQ(mesh.n_cells, 24);
  EXPECT_EQ(mesh.n_faces(), 98);
  EXPECT_EQ(mesh.n_internal_faces(), 46);
  ASSERT_EQ(mesh.patches.size(), 3u);
  EXPECT_EQ(mesh.patches[0].name, "inlet");
  EXPECT_EQ(mesh.patches[0].size, 12);
  EXPECT_EQ(mesh.patches[1].name, "outlet");
  EXPECT_EQ(mesh.patches[2].name, "walls");
  EXPECT_EQ(mesh.patches[2].type, "wall");
  EXPECT_EQ(mesh.patches[2].start, 70);
  EXPECT_EQ(mesh.patches[2].size, 28);
  EXPECT_TRUE(is_upper_triangular(mesh));

  // --- the same cells as the built-in generator's 2x3x4 box on [0,1]x[0,2]x[0,3]
  BoxSpec spec;
  spec.cells = {2, 3, 4};
  spec.max = {1.0, 2.0, 3.0};
  const MeshGeometry g = compute_geometry(mesh);
  const MeshGeometry box = compute_geometry(generate_box(spec));
  auto key = [](const Vec3& v) { return std::tuple(std::round(v.z * 1e9), std::round(v.y * 1e9), std::round(v.x * 1e9)); };
  std::vector<std::tuple<double, double, double>> a, b;
  for (const auto& c : g.cell_centres) a.push_back(key(c));
  for (const auto& c : box.cell_centres) b.push_back(key(c));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  for (double v : g.cell_volumes) EXPECT_NEAR(v, 0.25, 1e-14);

  const MeshCheckReport report = check_mesh(mesh, g);
  EXPECT_TRUE(report.ok()) << format_mesh_check(report);
  EXPECT_EQ(report.cell_types.hexahedra, 24);
  EXPECT_NEAR(report.total_volume, 6.0, 1e-12);
}

TEST(PolyMeshReader, GzipEqualsPlain) {
  const Mesh plain = read_polymesh(fixtures() / "polymesh/box_hex");
  const Mesh gz = read_polymesh(fixtures() / "polymesh/box_hex_gz");
  expect_same_mesh(plain, gz);
}

TEST(PolyMeshReader, CaseDirectoryLayout) {
  ScratchDir dir;
  std::filesystem::create_directories(dir / "constant/polyMesh");
  for (const char* f : polymesh_files)
    std::filesystem::copy_file(fixtures() / "polymesh/box_hex" / f, dir.path() / "constant/polyMesh" / f);
  expect_same_mesh(read_polymesh(dir.path()), read_polymesh(fixtures() / "polymesh/box_hex"));
}

TEST(PolyMeshReader, PolyDualMeshMatchesOpenFoamCheckMesh) {
  const Mesh mesh = read_polymesh(fixtures() / "polymesh/box_dual");
  const MeshCheckReport r = check(mesh);
  // Reference values printed by OpenFOAM v1912 checkMesh on the same mesh.
  EXPECT_EQ(r.n_points, 192);
  EXPECT_EQ(r.n_faces, 275);
  EXPECT_EQ(r.n_internal_faces, 133);
  EXPECT_EQ(r.n_cells, 60);
  EXPECT_EQ(r.cell_types.hexahedra, 14);
  EXPECT_EQ(r.cell_types.polyhedra, 46);
  EXPECT_NEAR(r.max_aspect_ratio, 3.0000000000000018, 1e-12);
  EXPECT_NEAR(r.min_face_area, 0.083333333333333315, 1e-14);
  EXPECT_NEAR(r.max_face_area, 0.50000000000000044, 1e-14);
  EXPECT_NEAR(r.min_volume, 0.031249999999999986, 1e-14);
  EXPECT_NEAR(r.max_volume, 0.25000000000000022, 1e-14);
  EXPECT_NEAR(r.total_volume, 6.0, 1e-12);
  EXPECT_NEAR(r.max_skewness, 1.0000000000000024, 1e-12);
  EXPECT_LT(r.max_cell_openness, 1e-15);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  ASSERT_EQ(mesh.patches.size(), 3u);
  EXPECT_EQ(mesh.patches[0].size, 30);
  EXPECT_EQ(mesh.patches[2].size, 82);
}

TEST(PolyMeshReader, UnitCubeDualSequence) {
  for (int n : {4, 8, 16}) {
    SCOPED_TRACE(n);
    const Mesh mesh = read_polymesh(fixtures() / ("polymesh/cube_poly_n" + std::to_string(n)));
    EXPECT_EQ(mesh.n_cells, (n + 1) * (n + 1) * (n + 1));
    ASSERT_EQ(mesh.patches.size(), 1u);
    EXPECT_EQ(mesh.patches[0].name, "walls");
    EXPECT_EQ(mesh.patches[0].start + mesh.patches[0].size, mesh.n_faces());
    const MeshCheckReport r = check(mesh);
    EXPECT_TRUE(r.ok()) << format_mesh_check(r);
    EXPECT_NEAR(r.total_volume, 1.0, 1e-12);
    EXPECT_GT(r.cell_types.polyhedra, 0);
    EXPECT_NEAR(r.bounding_box_min.x, 0.0, 1e-12);
    EXPECT_NEAR(r.bounding_box_max.z, 1.0, 1e-12);
  }
}

TEST(PolyMeshReader, CaseMeshReadsAndPasses) {
  const Mesh mesh = read_polymesh(std::filesystem::path(FVMMINI_FIXTURES_DIR) / "../../cases/meshes/cube_poly_n8");
  EXPECT_EQ(mesh.n_cells, 729);
  ASSERT_EQ(mesh.patches.size(), 1u);
  EXPECT_EQ(mesh.patches[0].name, "walls");
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_NEAR(r.total_volume, 1.0, 1e-12);
}

TEST(PolyMeshReader, RenumbersFacesOutOfUpperTriangularOrder) {
  // --- reverse the internal faces and flip every other one (swap cells, reverse the loop)
  const Mesh original = read_polymesh(fixtures() / "polymesh/box_hex");
  const label n_internal = original.n_internal_faces();
  std::string faces = "FoamFile { version 2.0; format ascii; class faceList; object faces; }\n";
  std::string owner = "FoamFile { version 2.0; format ascii; class labelList; object owner; }\n";
  std::string neighbour = "FoamFile { version 2.0; format ascii; class labelList; object neighbour; }\n";
  faces += std::to_string(original.n_faces()) + "\n(\n";
  owner += std::to_string(original.n_faces()) + "\n(\n";
  neighbour += std::to_string(n_internal) + "\n(\n";
  auto write_face = [&](std::vector<label> loop, label own) {
    faces += std::to_string(loop.size()) + "(";
    for (size_t i = 0; i < loop.size(); ++i) faces += (i ? " " : "") + std::to_string(loop[i]);
    faces += ")\n";
    owner += std::to_string(own) + "\n";
  };
  for (label k = 0; k < n_internal; ++k) {
    const label f = n_internal - 1 - k;
    std::vector<label> loop(original.face(f).begin(), original.face(f).end());
    if (k % 2 == 0) {
      std::reverse(loop.begin() + 1, loop.end());
      write_face(loop, original.neighbour[f]);
      neighbour += std::to_string(original.owner[f]) + "\n";
    } else {
      write_face(loop, original.owner[f]);
      neighbour += std::to_string(original.neighbour[f]) + "\n";
    }
  }
  for (label f = n_internal; f < original.n_faces(); ++f) write_face({original.face(f).begin(), original.face(f).end()}, original.owner[f]);
  faces += ")\n";
  owner += ")\n";
  neighbour += ")\n";

  ScratchDir dir;
  copy_box_hex(dir);
  write_file(dir / "faces", faces);
  write_file(dir / "owner", owner);
  write_file(dir / "neighbour", neighbour);
  expect_same_mesh(read_polymesh(dir.path()), original);
}

TEST(PolyMeshReader, ListFormsAndComments) {
  // --- faces spread over lines, unsized lists, comments, a uniform list
  ScratchDir dir;
  const std::string points =
      "/* a unit cube */ FoamFile { format ascii; class vectorField; }\n"
      "8 ( (0 0 0) (1 0 0) (1 1 0) (0 1 0) // bottom\n (0 0 1) (1 0 1) (1 1 1) (0 1 1) )\n";
  const std::string faces =
      "FoamFile { format ascii; class faceList; }\n"
      "(\n4\n(\n0 3 2 1\n)\n4(4 5 6 7) 4 (0 1 5 4) (3 7 6 2) 4(0 4 7 3) 4(1 2 6 5)\n)\n";
  write_file(dir / "points", points);
  write_file(dir / "faces", faces);
  write_file(dir / "owner", "6{0}\n");
  write_file(dir / "neighbour", "0()\n");
  write_file(dir / "boundary", "1 ( walls { type wall; inGroups 1(wall); nFaces 6; startFace 0; } )\n");
  const Mesh mesh = read_polymesh(dir.path());
  EXPECT_EQ(mesh.n_cells, 1);
  EXPECT_EQ(mesh.n_faces(), 6);
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_NEAR(r.total_volume, 1.0, 1e-15);

  // --- the same faces as an ASCII faceCompactList: offsets, then all vertices
  write_file(dir / "faces",
             "FoamFile { format ascii; class faceCompactList; }\n7(0 4 8 12 16 20 24)\n"
             "24(0 3 2 1 4 5 6 7 0 1 5 4 3 7 6 2 0 4 7 3 1 2 6 5)\n");
  const Mesh compact = read_polymesh(dir.path());
  EXPECT_EQ(compact.face_vertices, mesh.face_vertices);
  EXPECT_EQ(compact.face_offsets, mesh.face_offsets);
  write_file(dir / "faces", "FoamFile { format ascii; class faceCompactList; }\n7(0 4 8 12 16 20 25)\n24(0 3 2 1 4 5 6 7 0 1 5 4 3 7 6 2 0 4 7 3 1 2 6 5)\n");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", 2, "beyond the vertex list");
}

TEST(PolyMeshReader, BinaryEqualsAscii) {
  // --- the blockMesh box and the polyhedral dual (faces of 3 to 9 vertices) in every layout
  for (const char* fixture : {"polymesh/box_hex", "polymesh/box_dual"}) {
    const Mesh ascii = read_polymesh(fixtures() / fixture);
    for (const int label_bytes : {4, 8})
      for (const bool compact : {true, false}) {
        SCOPED_TRACE(std::string(fixture) + ", label bytes " + std::to_string(label_bytes) + (compact ? ", compact" : ", faceList"));
        ScratchDir dir;
        write_binary_polymesh(dir, ascii, {.label_bytes = label_bytes, .compact_faces = compact});
        expect_same_mesh(read_polymesh(dir.path()), ascii);
      }
  }
}

TEST(PolyMeshReader, BinaryGzipEqualsBinary) {
  const Mesh ascii = read_polymesh(fixtures() / "polymesh/box_dual");
  ScratchDir dir;
  write_binary_polymesh(dir, ascii, {});
  for (const char* f : polymesh_files) {  // each file compressed as points.gz, ..., as OpenFOAM writes them
    const std::string bytes = read_file(dir / f);
    gzFile out = gzopen((dir / (std::string(f) + ".gz")).c_str(), "wb");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    gzclose(out);
    std::filesystem::remove(dir / f);
  }
  expect_same_mesh(read_polymesh(dir.path()), ascii);
}

TEST(PolyMeshReader, BinarySinglePrecisionAndEmptyLists) {
  // --- scalar=32: each coordinate the float nearest the ASCII one (2/3 is not exact)
  const Mesh ascii = read_polymesh(fixtures() / "polymesh/box_hex");
  ScratchDir dir;
  write_binary_polymesh(dir, ascii, {.scalar_bytes = 4});
  Mesh rounded = ascii;
  for (Vec3& p : rounded.points) p = {float(p.x), float(p.y), float(p.z)};
  expect_same_mesh(read_polymesh(dir.path()), rounded);
  // --- one cell: its neighbour list is empty, written "0" alone (or "0()")
  BoxSpec spec;
  spec.cells = {1, 1, 1};
  const Mesh cell = generate_box(spec);
  ASSERT_EQ(cell.n_internal_faces(), 0);
  for (const bool parentheses : {false, true}) {
    ScratchDir one;
    write_binary_polymesh(one, cell, {.empty_parentheses = parentheses});
    const Mesh read = read_polymesh(one.path());
    EXPECT_EQ(read.n_cells, 1);
    EXPECT_EQ(read.n_internal_faces(), 0);
    EXPECT_EQ(read.n_faces(), 6);
  }
}

TEST(PolyMeshReaderErrors, BinaryBlocksCutOrMislabelled) {
  const Mesh ascii = read_polymesh(fixtures() / "polymesh/box_hex");
  ScratchDir dir;
  write_binary_polymesh(dir, ascii, {});
  const std::string points = read_file(dir / "points");
  const long size_line = line_of(points, "\n60\n") + 1;
  // --- the block cut short: the 60 points cannot fit, refused at the size
  write_file(dir / "points", points.substr(0, points.size() - 100));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", size_line,
                    "60 entries of the binary points list cannot fit in the");
  // --- a block longer than its size says: no ')' where the size ends it
  write_file(dir / "points", replace_once(points, "\n60\n", "\n59\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", -1, "expected ')'");
  // --- a coordinate that is not a number
  std::string nan_point = points;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(nan_point.data() + points.find("\n60\n(") + 5 + 3 * 8 * 7 + 8, &nan, sizeof nan);
  write_file(dir / "points", nan_point);
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", size_line, "point 7 has a coordinate that is not a finite number");
  write_file(dir / "points", points);
  // --- an ASCII file that says it is binary: its text read as numbers does not end where it should
  copy_box_hex(dir);
  const std::string text = read_file(dir / "owner");
  write_file(dir / "owner", replace_once(text, "format      ascii;", "format      binary;"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", -1);
}

TEST(PolyMeshReaderHostile, BinaryArchAndWideLabels) {
  const Mesh ascii = read_polymesh(fixtures() / "polymesh/box_hex");
  ScratchDir dir;
  write_binary_polymesh(dir, ascii, {.label_bytes = 8});
  const std::string owner = read_file(dir / "owner");
  const long header_line = line_of(owner, "FoamFile");
  for (const auto& [arch, fragment] : {std::pair{"MSB;label=64;scalar=64", "big-endian (MSB) binary is not supported"},
                                       std::pair{"LSB;label=16;scalar=64", "label=16 is not supported"},
                                       std::pair{"LSB;label=64;scalar=128", "scalar=128 is not supported"}}) {
    write_file(dir / "owner", replace_once(owner, "LSB;label=64;scalar=64", arch));
    expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", header_line, fragment);
  }
  // --- a 64-bit label past the 32-bit range, in entry 5 of the owner list
  std::string wide = owner;
  const std::int64_t big = std::int64_t{1} << 33;
  std::memcpy(wide.data() + owner.find("\n98\n(") + 5 + 5 * 8, &big, sizeof big);
  write_file(dir / "owner", wide);
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", line_of(owner, "\n98\n") + 1,
                    "entry 5 of the owner list, 8589934592, does not fit a 32-bit label");
  // --- a size past the 32-bit labels
  write_file(dir / "owner", replace_once(owner, "\n98\n", "\n4294967296\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", -1, "past the 32-bit index range");
}

// --- bad input: every fault names the file, and the line where there is one

TEST(PolyMeshReaderErrors, MissingDirectoryOrFile) {
  expect_mesh_error([] { read_polymesh("/nonexistent/case"); }, "/nonexistent/case", 0, "no polyMesh");
  ScratchDir dir;
  copy_box_hex(dir);
  std::filesystem::remove(dir / "neighbour");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "neighbour", 0, "no such file");
}

TEST(PolyMeshReaderErrors, TruncatedFile) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "faces");
  // --- cut early, the 98 faces announced cannot fit in what is left: refused at the count
  write_file(dir / "faces", text.substr(0, text.find("4(7 19 20 8)") + 6));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line_of(text, "\n98\n") + 1,
                    "98 entries of the faces list cannot fit in the");
  // --- cut before the closing parenthesis
  write_file(dir / "faces", text.substr(0, text.rfind(')')));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", -1, "end of file");
}

TEST(PolyMeshReaderErrors, TruncatedGzip) {
  ScratchDir dir;
  for (const char* f : {"points.gz", "faces.gz", "owner.gz", "neighbour.gz", "boundary"})
    std::filesystem::copy_file(fixtures() / "polymesh/box_hex_gz" / f, dir / f);
  const std::string text = read_file(dir / "faces.gz");
  write_file(dir / "faces.gz", text.substr(0, text.size() / 2));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces.gz", 0, "gzip");
}

TEST(PolyMeshReaderErrors, ListCountDoesNotMatch) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "points");
  write_file(dir / "points", replace_once(text, "\n60\n(", "\n61\n("));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", line_of(text, "\n)\n") + 1, "ends after 60 of 61");

  copy_box_hex(dir);
  const std::string faces = read_file(fixtures() / "polymesh/box_hex/faces");
  write_file(dir / "faces", replace_once(faces, "\n98\n(", "\n97\n("));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", -1, "more than the 97");
}

TEST(PolyMeshReaderErrors, FaceListsWithWrongVertexCount) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "faces");
  write_file(dir / "faces", replace_once(text, "4(3 15 16 4)", "4(3 15 16)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line_of(text, "4(3 15 16 4)"), "ends after 3 of 4");
}

TEST(PolyMeshReaderErrors, VertexIndexOutOfRangeOrNegative) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "faces");
  const long line = line_of(text, "4(3 15 16 4)");
  write_file(dir / "faces", replace_once(text, "4(3 15 16 4)", "4(3 15 16 60)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line, "only 60 points");
  write_file(dir / "faces", replace_once(text, "4(3 15 16 4)", "4(3 15 16 -4)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line, "negative vertex");
}

TEST(PolyMeshReaderErrors, NegativeOwnerAndBadSizes) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string owner = read_file(dir / "owner");
  const std::string negative = replace_once(owner, "(\n0\n0\n0\n1", "(\n0\n0\n-1\n1");
  write_file(dir / "owner", negative);
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", line_of(owner, "(\n0\n0\n0\n1") + 3, "negative cell index");

  // --- one owner fewer than faces (count and list consistent)
  std::string shorter = replace_once(owner, "\n98\n(\n0\n", "\n97\n(\n");
  write_file(dir / "owner", shorter);
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", -1, "97 entries but faces has 98");

  // --- the header note disagrees with the lists
  write_file(dir / "owner", replace_once(owner, "nCells:24", "nCells:25"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", line_of(owner, "FoamFile"), "nCells 25");
}

TEST(PolyMeshReaderErrors, SameOwnerAndNeighbour) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string neighbour = read_file(dir / "neighbour");
  write_file(dir / "neighbour", replace_once(neighbour, "(\n1\n", "(\n0\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "neighbour", line_of(neighbour, "(\n1\n") + 1, "same owner and neighbour");
}

TEST(PolyMeshReaderErrors, PatchesNotContiguousOrIncomplete) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string boundary = read_file(dir / "boundary");
  write_file(dir / "boundary", replace_once(boundary, "startFace       58;", "startFace       59;"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "boundary", line_of(boundary, "outlet"), "startFace 59");
  write_file(dir / "boundary", replace_once(boundary, "nFaces          28;", "nFaces          27;"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "boundary", 0, "without a patch");
  write_file(dir / "boundary", replace_once(boundary, "nFaces          28;", "nFaces          29;"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "boundary", line_of(boundary, "walls"), "past the last face");
  write_file(dir / "boundary", replace_once(boundary, "        type            wall;\n", ""));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "boundary", line_of(boundary, "walls"), "has no type");
}

TEST(PolyMeshReaderErrors, CellNotClosed) {
  // --- move one corner of the last boundary face to another point: its cell no longer closes
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "faces");
  write_file(dir / "faces", replace_once(text, "4(55 56 59 58)", "4(55 56 59 0)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, dir.path().filename().string(), 0, "not closed");
}

TEST(PolyMeshReaderErrors, UnknownFormatAndWrongClass) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "points");
  write_file(dir / "points", replace_once(text, "format      ascii;", "format      hdf5;"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", line_of(text, "FoamFile"),
                    "format 'hdf5' is not supported (ascii or binary)");
  write_file(dir / "points", replace_once(text, "class       vectorField;", "class       labelList;"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", line_of(text, "FoamFile"), "labelList");
}

TEST(PolyMeshReaderErrors, GarbageNumbersAndTrailingTokens) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string text = read_file(dir / "points");
  write_file(dir / "points", replace_once(text, "(1 0 0)", "(1 zero 0)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", line_of(text, "(1 0 0)"), "zero");
  write_file(dir / "points", text + "\nextra\n");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", -1, "after the list");
}

// --- hostile counts: refused with the file, the line and the count before anything is sized by them

TEST(PolyMeshReaderHostile, ListSizePastTheFileOrTheLabelRange) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string points = read_file(dir / "points");
  const long count_line = line_of(points, "\n60\n") + 1;
  write_file(dir / "points", replace_once(points, "\n60\n(", "\n100000000\n("));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", count_line,
                    "100000000 entries of the points list cannot fit in the");
  write_file(dir / "points", replace_once(points, "\n60\n(", "\n1000000000000\n("));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", count_line,
                    "points list size 1000000000000 is past the 32-bit index range");
}

TEST(PolyMeshReaderHostile, UniformListsAgreeWithTheOtherFiles) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string owner = read_file(dir / "owner");
  const long owner_line = line_of(owner, "\n98\n") + 1;
  const std::string owner_list = owner.substr(owner.find("\n98\n") + 1);
  // --- a uniform owner list stands for as many faces as it says: it must match faces
  for (const std::string count : {"99", "2000000000"}) {
    write_file(dir / "owner", replace_once(owner, owner_list, count + "{0}\n"));
    expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", owner_line,
                      "the uniform owner list has " + count + " entries but faces has 98 faces");
  }
  write_file(dir / "owner", replace_once(owner, owner_list, "1000000000000{0}\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", owner_line,
                    "owner list size 1000000000000 is past the 32-bit index range");
  copy_box_hex(dir);
  const std::string neighbour = read_file(dir / "neighbour");
  write_file(dir / "neighbour", replace_once(neighbour, neighbour.substr(neighbour.find("\n46\n") + 1), "1000000{1}\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "neighbour", line_of(neighbour, "\n46\n") + 1,
                    "the uniform neighbour list has 1000000 entries but faces has 98 faces");
  // --- a uniform face repeats its vertex: refused before it is expanded
  const std::string faces = read_file(dir / "faces");
  write_file(dir / "faces", replace_once(faces, "4(3 15 16 4)", "2000000000{3}"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line_of(faces, "4(3 15 16 4)"),
                    "the uniform face list of 2000000000 equal entries cannot describe faces");
}

TEST(PolyMeshReaderHostile, UniformPointsOrFacesMustFitInMemory) {
  ScratchDir dir;
  copy_box_hex(dir);
  const ScopedEnv limit(memory_limit_variable, "1G");
  const std::string points = read_file(dir / "points");
  write_file(dir / "points", replace_once(points, points.substr(points.find("\n60\n") + 1), "2000000000{(0 0 0)}\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", line_of(points, "\n60\n") + 1,
                    "the uniform points list of 2000000000 entries: a mesh of 2000000000 points needs at least about "
                    "44.7 GiB for a run, more than the memory limit of 1.00 GiB (FVMMINI_MEMORY_LIMIT");
  copy_box_hex(dir);
  const std::string faces = read_file(dir / "faces");
  write_file(dir / "faces", replace_once(faces, faces.substr(faces.find("\n98\n") + 1), "500000000{4(0 1 2 3)}\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line_of(faces, "\n98\n") + 1,
                    "the uniform faces list of 500000000 entries: a mesh of 500000000 faces needs at least about");
}

TEST(PolyMeshReaderHostile, CellCountFromOneOwnerEntry) {
  // --- the highest cell index gives the cell count; 98 faces (46 internal) close at most 36 cells
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string owner = read_file(dir / "owner");
  const std::string no_note = replace_once(owner, "    note        \"nPoints:60  nCells:24  nFaces:98  nInternalFaces:46\";\n", "");
  const long line = line_of(no_note, "(\n0\n0\n0\n1") + 3;
  for (const std::string cell : {"2147483647", "2147483646", "2000000000"}) {
    write_file(dir / "owner", replace_once(no_note, "(\n0\n0\n0\n1", "(\n0\n0\n" + cell + "\n1"));
    expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", line,
                      "cell " + cell + " makes " + std::to_string(std::stoll(cell) + 1) +
                          " cells, but 98 faces (46 internal) can close at most 36");
  }
}

TEST(PolyMeshReaderHostile, HeaderNoteCountPastTheLabelRange) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string owner = read_file(dir / "owner");
  write_file(dir / "owner", replace_once(owner, "nCells:24", "nCells:99999999999999999999"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", line_of(owner, "FoamFile"),
                    "header note nCells:99999999999999999999 is past the 32-bit index range");
  write_file(dir / "owner", replace_once(owner, "nFaces:98", "nFaces:4294967394"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", line_of(owner, "FoamFile"),
                    "header note nFaces:4294967394 is past the 32-bit index range");
}

TEST(PolyMeshReaderHostile, MeshOrTextPastTheMemoryLimit) {
  {  // --- the box_hex mesh (24 cells) needs about 23 KiB: refused under 16 KiB, naming the folder
    const ScopedEnv limit(memory_limit_variable, "16K");
    expect_mesh_error([] { read_polymesh(fixtures() / "polymesh/box_hex"); }, "box_hex", 0,
                      "a mesh of 24 cells, 98 faces and 60 points needs at least about 22.5 KiB for a run, more than the "
                      "memory limit of 16.0 KiB (FVMMINI_MEMORY_LIMIT");
  }
  {  // --- under 8 KiB its 98 faces alone are too many: refused at the list's size, before it is read
    const ScopedEnv limit(memory_limit_variable, "8K");
    const std::string faces = read_file(fixtures() / "polymesh/box_hex/faces");
    expect_mesh_error([] { read_polymesh(fixtures() / "polymesh/box_hex"); }, "faces", line_of(faces, "\n98\n") + 1,
                      "the faces list of 98 entries: a mesh of 98 faces needs at least about "
                      "12.2 KiB for a run, more than "
                      "the memory limit of 8.00 KiB (FVMMINI_MEMORY_LIMIT");
  }
  // --- text over half the limit is not read: a plain file by its size, gzip as it decompresses
  const ScopedEnv limit(memory_limit_variable, "4K");
  expect_mesh_error([] { read_polymesh(fixtures() / "polymesh/box_hex"); }, "points", 0, "is too large to read: 2.13 KiB");
  expect_mesh_error([] { read_polymesh(fixtures() / "polymesh/box_hex_gz"); }, "points.gz", 0,
                    "is too large to read: more than 2.00 KiB once decompressed");
}

// --- round 3: lists checked against the other files and the memory limit before they are
// read, messages bounded and printable, duplicate patches, filesystem errors

TEST(PolyMeshReaderHostile, OwnerSizeAgainstTheFacesBeforeItIsRead) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string owner = read_file(dir / "owner");
  const long owner_line = line_of(owner, "\n98\n") + 1;
  const std::string list = owner.substr(owner.find("\n98\n") + 1);
  // --- a huge size with text to back it: refused at the size, not after a million entries
  std::string zeros;
  for (int i = 0; i < 1000000; ++i) zeros += "0 ";
  write_file(dir / "owner", replace_once(owner, list, "1000000\n(" + zeros + ")\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", owner_line,
                    "the owner list has 1000000 entries but faces has 98 faces");
  // --- and gzip-compressed (1000000 entries in a few KiB)
  std::filesystem::remove(dir / "owner");
  const std::string text = replace_once(owner, list, "1000000\n(" + zeros + ")\n");
  gzFile out = gzopen((dir / "owner.gz").c_str(), "wb9");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(out);
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner.gz", owner_line,
                    "the owner list has 1000000 entries but faces has 98 faces");
  std::filesystem::remove(dir / "owner.gz");
  // --- a list without a size stops at the faces' count as it grows
  std::string unsized = "(\n";
  for (int i = 0; i < 99; ++i) unsized += "0\n";
  write_file(dir / "owner", replace_once(owner, list, unsized + ")\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", owner_line + 99,
                    "the owner list has more than 98 entries, but faces has 98 faces");
  // --- neighbour: at most one per face
  copy_box_hex(dir);
  const std::string neighbour = read_file(dir / "neighbour");
  write_file(dir / "neighbour", replace_once(neighbour, "\n46\n(", "\n99\n("));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "neighbour", line_of(neighbour, "\n46\n") + 1,
                    "the neighbour list has 99 entries but faces has 98 faces");
}

TEST(PolyMeshReaderHostile, FaceAndCompactListsAgainstTheirCounts) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string faces = read_file(dir / "faces");
  // --- a face of more vertices than there are points
  write_file(dir / "faces", replace_once(faces, "4(3 15 16 4)", "61(3 15 16 4)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", line_of(faces, "4(3 15 16 4)"),
                    "the face list has 61 entries but there are only 60 points");
  // --- compact faces: the vertices must be as many as the last offset says, checked at their size
  write_file(dir / "faces", "FoamFile { format ascii; class faceCompactList; }\n3(0 4 8)\n9(0 1 2 3 4 5 6 7 8)\n");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "faces", 2,
                    "the last face offset does not match the 9 vertices");
}

TEST(PolyMeshReaderHostile, ListsRefusedPastTheMemoryLimitWithWhatIsHeld) {
  // --- 1500 points: 35 KiB as a mesh, under the 40 KiB limit, but with their 12 KiB of text not
  ScratchDir dir;
  copy_box_hex(dir);
  std::string points = "FoamFile { format ascii; class vectorField; }\n1500\n(\n";
  for (int i = 0; i < 1500; ++i) points += "(0 0 0)\n";
  write_file(dir / "points", points + ")\n");
  const ScopedEnv limit(memory_limit_variable, "40K");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", 2,
                    "the points list of 1500 entries, with the 11.8 KiB of text and lists read so far, "
                    "needs about 46.9 KiB, more than the memory limit of 40.0 KiB (FVMMINI_MEMORY_LIMIT)");
  // --- without a size: refused as the list grows
  write_file(dir / "points", replace_once(points, "1500\n(", "("));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", -1, "more than the memory limit of 40.0 KiB");
}

TEST(PolyMeshReaderHostile, MessagesQuoteTokensCutAndEscaped) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string points = read_file(dir / "points");
  // --- a 10 MB token is cut in the message
  write_file(dir / "points", replace_once(points, "(1 0 0)", "(1 " + std::string(10000000, '7') + "x 0)"));
  try {
    read_polymesh(dir.path());
    ADD_FAILURE() << "accepted a 10 MB token";
  } catch (const MeshError& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 400u) << what.substr(0, 400);
    EXPECT_NE(what.find("expected a finite number but found '7777"), std::string::npos) << what.substr(0, 400);
    EXPECT_NE(what.find("... (10000001 bytes in all)'"), std::string::npos) << what.substr(0, 400);
  }
  // --- terminal escape bytes are written as escapes, never raw
  write_file(dir / "points", replace_once(points, "(1 0 0)", "(1 \x1b" "c\x07 0)"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", line_of(points, "(1 0 0)"),
                    "expected a finite number but found '\\x1bc\\x07'");
  // --- a patch name too
  const std::string boundary = read_file(dir / "boundary");
  write_file(dir / "points", points);
  write_file(dir / "boundary", replace_once(boundary, "        type            wall;\n", "") );
  write_file(dir / "boundary", replace_once(read_file(dir / "boundary"), "walls", "wa\x1b" "c\x07lls"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "boundary", line_of(boundary, "walls"),
                    "patch 'wa\\x1bc\\x07lls' has no type");
}

TEST(PolyMeshReaderHostile, BinaryBytesShownEscapedWithTheArchHint) {
  const Mesh ascii = read_polymesh(fixtures() / "polymesh/box_hex");
  ScratchDir dir;
  write_binary_polymesh(dir, ascii, {});
  const std::string points = read_file(dir / "points");
  // --- a block longer than its size: the bytes after it are quoted whole, NUL bytes included
  write_file(dir / "points", replace_once(points, "\n60\n", "\n59\n"));
  try {
    read_polymesh(dir.path());
    ADD_FAILURE() << "accepted a block longer than its size";
  } catch (const MeshError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.size(), std::strlen(e.what())) << "a NUL byte in the message";
    EXPECT_NE(what.find("expected ')' but found '\\x00\\x00"), std::string::npos) << what;
    EXPECT_NE(what.find("(is the header's arch 'LSB;label=32;scalar=64' right for this file?)"), std::string::npos)
        << what;
  }
  // --- a label past 32 bits: most likely a 64-bit file that says 32
  write_binary_polymesh(dir, ascii, {.label_bytes = 8});
  const std::string owner = read_file(dir / "owner");
  write_file(dir / "owner", replace_once(owner, "label=64", "label=32"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", -1,
                    "(is the header's arch 'LSB;label=32;scalar=64' right for this file?)");
}

TEST(PolyMeshReaderErrors, DuplicatePatchNames) {
  ScratchDir dir;
  copy_box_hex(dir);
  const std::string boundary = read_file(dir / "boundary");
  write_file(dir / "boundary", replace_once(boundary, "    outlet\n", "    inlet\n"));
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "boundary", line_of(boundary, "    outlet\n"),
                    "patch 'inlet' is named twice (first on line " +
                        std::to_string(line_of(boundary, "    inlet\n")) + ")");
}

TEST(PolyMeshReaderErrors, SymbolicLinkLoops) {
  ScratchDir dir;
  std::filesystem::create_symlink(dir / "loop", dir / "loop");
  expect_mesh_error([&] { read_polymesh(dir / "loop"); }, "loop", 0, "too many levels of symbolic links");
  // --- one file of a polyMesh folder
  copy_box_hex(dir);
  std::filesystem::remove(dir / "owner");
  std::filesystem::create_symlink(dir / "owner", dir / "owner");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "owner", 0, "cannot open: too many levels of symbolic links");
  std::filesystem::remove(dir / "owner");
  std::filesystem::copy_file(fixtures() / "polymesh/box_hex/owner", dir / "owner");
  std::filesystem::remove(dir / "points");
  std::filesystem::create_symlink(dir / "points", dir / "points");
  expect_mesh_error([&] { read_polymesh(dir.path()); }, "points", 0, "cannot open: too many levels of symbolic links");
}

}  // namespace
}  // namespace fvmmini
