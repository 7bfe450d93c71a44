// The Gmsh reader on meshes made by gmsh 4.8 (MSH 4.1 and 2.2) and on hand-made and
// broken files.

#include <gtest/gtest.h>
#include <zlib.h>

#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh_assembly.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_size.hpp"
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

MeshCheckReport check(const Mesh& mesh) { return check_mesh(mesh, compute_geometry(mesh)); }

/// Expect every face of the patch to lie on the plane x[axis] = value with outward normal sign.
void expect_patch_on_plane(const Mesh& mesh, const MeshGeometry& g, const std::string& name, int axis, double value, double sign) {
  const Patch* p = mesh.find_patch(name);
  ASSERT_NE(p, nullptr) << name;
  for (label f = p->start; f < p->start + p->size; ++f) {
    EXPECT_NEAR(g.face_centres[f][axis], value, 1e-12) << name << " face " << f;
    EXPECT_NEAR(g.face_areas[f][axis] / mag(g.face_areas[f]), sign, 1e-12) << name << " face " << f;
  }
}

/// A minimal MSH 2.2 file: the unit tetrahedron (element 1) and its mirror below z = 0
/// (element 2), sharing the face z = 0; the bottom triangle is in physical group 7 "base".
std::string two_tets(const std::string& first_element = "1 4 2 1 1 1 2 3 4") {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
         "$PhysicalNames\n1\n2 7 \"base\"\n$EndPhysicalNames\n"
         "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0 0 -1\n$EndNodes\n"
         "$Elements\n3\n" +
         first_element + "\n2 4 2 1 1 1 3 2 5\n3 2 2 7 1 1 2 3\n$EndElements\n";
}

TEST(GmshReader, TetCubeMsh41WithThreePatches) {
  const Mesh mesh = read_gmsh(fixtures() / "gmsh/cube_tet.msh");
  const MeshGeometry g = compute_geometry(mesh);
  const MeshCheckReport r = check_mesh(mesh, g);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_EQ(r.n_cells, 101);
  EXPECT_EQ(r.cell_types.tetrahedra, 101);
  EXPECT_NEAR(r.total_volume, 1.0, 1e-12);
  ASSERT_EQ(mesh.patches.size(), 3u);
  EXPECT_EQ(mesh.patches[0].name, "sides");
  EXPECT_EQ(mesh.patches[1].name, "bottom");
  EXPECT_EQ(mesh.patches[2].name, "top");
  EXPECT_EQ(mesh.patches[0].type, "patch");
  expect_patch_on_plane(mesh, g, "bottom", 2, 0.0, -1.0);
  expect_patch_on_plane(mesh, g, "top", 2, 1.0, 1.0);
  EXPECT_TRUE(is_upper_triangular(mesh));
}

TEST(GmshReader, HexCubeUngroupedFacesGoToDefaultFaces) {
  const Mesh mesh = read_gmsh(fixtures() / "gmsh/cube_hex.msh");
  const MeshGeometry g = compute_geometry(mesh);
  const MeshCheckReport r = check_mesh(mesh, g);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_EQ(r.cell_types.hexahedra, 27);
  EXPECT_EQ(r.n_points, 64);
  EXPECT_EQ(r.n_internal_faces, 3 * 2 * 9);
  ASSERT_EQ(mesh.patches.size(), 2u);
  EXPECT_EQ(mesh.patches[0].name, "walls");
  EXPECT_EQ(mesh.patches[0].size, 45);
  EXPECT_EQ(mesh.patches[1].name, "defaultFaces");
  EXPECT_EQ(mesh.patches[1].type, "patch");
  expect_patch_on_plane(mesh, g, "defaultFaces", 2, 1.0, 1.0);
  for (double v : g.cell_volumes) EXPECT_NEAR(v, 1.0 / 27.0, 1e-14);
  EXPECT_LT(r.max_non_orthogonality, 1e-6);
}

TEST(GmshReader, MixedCellsMsh22MatchOpenFoamCheckMesh) {
  const Mesh mesh = read_gmsh(fixtures() / "gmsh/mix_prism_pyr.msh");
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_EQ(r.n_cells, 399);
  EXPECT_EQ(r.cell_types.hexahedra, 18);
  EXPECT_EQ(r.cell_types.prisms, 42);
  EXPECT_EQ(r.cell_types.pyramids, 9);
  EXPECT_EQ(r.cell_types.tetrahedra, 330);
  EXPECT_EQ(r.cell_types.polyhedra, 0);
  // Reference values from OpenFOAM v1912: gmshToFoam mix_prism_pyr.msh; checkMesh.
  EXPECT_NEAR(r.max_non_orthogonality, 60.798045310525339, 1e-9);
  EXPECT_NEAR(r.avg_non_orthogonality, 21.209207175709224, 1e-9);
  EXPECT_NEAR(r.max_skewness, 0.73445946061985556, 1e-9);
  EXPECT_NEAR(r.max_aspect_ratio, 16.828367445796474, 1e-9);
  EXPECT_NEAR(r.min_volume, 0.00033011520683365526, 1e-15);
  EXPECT_NEAR(r.max_volume, 0.013888888888925534, 1e-15);
  EXPECT_NEAR(r.total_volume, 1.0, 1e-12);
  ASSERT_NE(mesh.find_patch("sides"), nullptr);
  EXPECT_EQ(mesh.find_patch("sides")->size, 139);
  EXPECT_EQ(mesh.find_patch("bottom")->size, 30);
  EXPECT_EQ(mesh.find_patch("top")->size, 44);
  EXPECT_EQ(mesh.find_patch("defaultFaces"), nullptr);
}

TEST(GmshReader, UnitCubeTetSequence) {
  const std::pair<const char*, label> levels[] = {{"gmsh/cube_tet_h4.msh", 390}, {"gmsh/cube_tet_h8.msh", 2762}, {"gmsh/cube_tet_h16.msh.gz", 19519}};
  for (const auto& [file, cells] : levels) {
    SCOPED_TRACE(file);
    const Mesh mesh = read_gmsh(fixtures() / file);
    EXPECT_EQ(mesh.n_cells, cells);
    ASSERT_EQ(mesh.patches.size(), 1u);
    EXPECT_EQ(mesh.patches[0].name, "walls");
    const MeshCheckReport r = check(mesh);
    EXPECT_TRUE(r.ok()) << format_mesh_check(r);
    EXPECT_EQ(r.cell_types.tetrahedra, cells);
    EXPECT_NEAR(r.total_volume, 1.0, 1e-12);
  }
  // Reference values from OpenFOAM v1912: gmshToFoam cube_tet_h8.msh; checkMesh.
  const MeshCheckReport r = check(read_gmsh(fixtures() / "gmsh/cube_tet_h8.msh"));
  EXPECT_NEAR(r.max_non_orthogonality, 62.320478813989858, 1e-9);
  EXPECT_NEAR(r.avg_non_orthogonality, 22.003748262521722, 1e-9);
  EXPECT_NEAR(r.max_skewness, 0.73225410958505655, 1e-9);
  EXPECT_NEAR(r.min_volume, 8.148792516187723e-05, 1e-15);
}

TEST(GmshReader, CavityExtrudedPrisms) {
  const std::filesystem::path cavity = std::filesystem::path(FVMMINI_FIXTURES_DIR) / "../../cases/meshes/cavity_tri.msh";
  const Mesh mesh = read_gmsh(cavity);
  const MeshGeometry g = compute_geometry(mesh);
  const MeshCheckReport r = check_mesh(mesh, g);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_EQ(r.cell_types.prisms, mesh.n_cells);
  EXPECT_GE(mesh.n_cells, 3000);
  EXPECT_LE(mesh.n_cells, 6000);
  ASSERT_EQ(mesh.patches.size(), 3u);
  expect_patch_on_plane(mesh, g, "movingWall", 1, 1.0, 1.0);
  const Patch* front_and_back = mesh.find_patch("frontAndBack");
  ASSERT_NE(front_and_back, nullptr);
  EXPECT_EQ(front_and_back->type, "empty");
  EXPECT_EQ(front_and_back->size, 2 * mesh.n_cells);
  const Patch* fixed = mesh.find_patch("fixedWalls");
  ASSERT_NE(fixed, nullptr);
  for (label f = fixed->start; f < fixed->start + fixed->size; ++f) {
    const Vec3& c = g.face_centres[f];
    EXPECT_TRUE(std::abs(c.x) < 1e-12 || std::abs(c.x - 1.0) < 1e-12 || std::abs(c.y) < 1e-12) << f;
  }
  EXPECT_NEAR(r.total_volume, 0.025, 1e-12);
}

TEST(GmshReader, GzipEqualsPlain) {
  ScratchDir dir;
  const std::string text = read_file(fixtures() / "gmsh/cube_tet.msh");
  gzFile out = gzopen((dir / "cube_tet.msh.gz").c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(out);
  const Mesh plain = read_gmsh(fixtures() / "gmsh/cube_tet.msh");
  const Mesh gz = read_gmsh(dir / "cube_tet.msh.gz");
  EXPECT_EQ(plain.face_vertices, gz.face_vertices);
  EXPECT_EQ(plain.owner, gz.owner);
  EXPECT_EQ(plain.neighbour, gz.neighbour);
  ASSERT_EQ(plain.points.size(), gz.points.size());
  for (size_t i = 0; i < plain.points.size(); ++i) EXPECT_EQ(plain.points[i], gz.points[i]);
}

TEST(GmshReader, HandMadeTwoTetsAndMirroredElement) {
  ScratchDir dir;
  // --- positively numbered first element
  write_file(dir / "two.msh", two_tets());
  const Mesh mesh = read_gmsh(dir / "two.msh");
  EXPECT_EQ(mesh.n_cells, 2);
  ASSERT_EQ(mesh.n_internal_faces(), 1);
  EXPECT_EQ(mesh.owner[0], 0);
  EXPECT_EQ(mesh.neighbour[0], 1);
  const MeshGeometry g = compute_geometry(mesh);
  EXPECT_NEAR(g.face_areas[0].z, -0.5, 1e-15);  // from the upper tet (cell 0) down into the lower one
  ASSERT_EQ(mesh.patches.size(), 1u);  // "base" matches only the internal face; the rest is default
  EXPECT_EQ(mesh.patches[0].name, "defaultFaces");
  EXPECT_EQ(mesh.find_patch("base"), nullptr);
  const MeshCheckReport r = check_mesh(mesh, g);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_NEAR(r.total_volume, 1.0 / 3.0, 1e-15);

  // --- the first element with mirrored node order still gets outward faces
  write_file(dir / "mirrored.msh", two_tets("1 4 2 1 1 1 3 2 4"));
  const MeshCheckReport mirrored = check(read_gmsh(dir / "mirrored.msh"));
  EXPECT_TRUE(mirrored.ok()) << format_mesh_check(mirrored);
  EXPECT_NEAR(mirrored.min_volume, 1.0 / 6.0, 1e-15);
}

TEST(GmshReader, PhysicalNamesOnBoundaryFace) {
  // --- the bottom of a single tetrahedron in group 7 "base", the rest default
  ScratchDir dir;
  write_file(dir / "one.msh",
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n2 7 \"base\"\n$EndPhysicalNames\n"
             "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
             "$Elements\n2\n1 2 2 7 1 1 2 3\n2 4 2 1 1 1 2 3 4\n$EndElements\n");
  const Mesh mesh = read_gmsh(dir / "one.msh");
  ASSERT_EQ(mesh.patches.size(), 2u);
  EXPECT_EQ(mesh.patches[0].name, "base");
  EXPECT_EQ(mesh.patches[0].size, 1);
  EXPECT_EQ(mesh.patches[1].name, "defaultFaces");
  EXPECT_EQ(mesh.patches[1].size, 3);
}

TEST(GmshReader, CaseMeshesReadAndPass) {
  const std::filesystem::path cases = std::filesystem::path(FVMMINI_FIXTURES_DIR) / "../../cases/meshes";
  const Mesh mesh = read_gmsh(cases / "cube_tet_h8.msh");
  const MeshCheckReport r = check(mesh);
  EXPECT_TRUE(r.ok()) << format_mesh_check(r);
  EXPECT_NEAR(r.total_volume, 1.0, 1e-12);
  ASSERT_EQ(mesh.patches.size(), 1u);
  EXPECT_EQ(mesh.patches[0].name, "walls");
}

// --- bad input

TEST(GmshReaderErrors, MissingFile) {
  expect_mesh_error([] { read_gmsh("/nonexistent/mesh.msh"); }, "/nonexistent/mesh.msh", 0, "no such file");
  expect_mesh_error([] { read_gmsh(fixtures() / "gmsh"); }, "gmsh", 0, "not a regular file");
}

TEST(GmshReaderErrors, TruncatedFile) {
  ScratchDir dir;
  const std::string text = read_file(fixtures() / "gmsh/cube_tet.msh");
  write_file(dir / "cut.msh", text.substr(0, text.size() / 2));
  expect_mesh_error([&] { read_gmsh(dir / "cut.msh"); }, "cut.msh", -1);
  write_file(dir / "nodes_only.msh", text.substr(0, text.find("$Elements")));
  expect_mesh_error([&] { read_gmsh(dir / "nodes_only.msh"); }, "nodes_only.msh", -1, "no $Elements");
}

TEST(GmshReaderErrors, UnknownAndSecondOrderElementTypes) {
  ScratchDir dir;
  const std::string text = two_tets();
  write_file(dir / "unknown.msh", replace_once(text, "2 4 2 1 1 1 3 2 5", "2 99 2 1 1 1 3 2 5"));
  expect_mesh_error([&] { read_gmsh(dir / "unknown.msh"); }, "unknown.msh", line_of(text, "2 4 2 1 1 1 3 2 5"), "unknown or unsupported element type 99");
  write_file(dir / "second.msh", replace_once(text, "2 4 2 1 1 1 3 2 5", "2 11 2 1 1 1 3 2 5 1 1 1 1 1 1"));
  expect_mesh_error([&] { read_gmsh(dir / "second.msh"); }, "second.msh", line_of(text, "2 4 2 1 1 1 3 2 5"), "second order");
  // --- MSH 4.1: the block header line carries the type
  const std::string msh41 = read_file(fixtures() / "gmsh/cube_hex.msh");
  const auto block = msh41.find("\n3 1 5 27\n");
  ASSERT_NE(block, std::string::npos);
  std::string bad = msh41;
  bad.replace(block, 9, "\n3 1 42 27\n");
  write_file(dir / "unknown41.msh", bad);
  expect_mesh_error([&] { read_gmsh(dir / "unknown41.msh"); }, "unknown41.msh", line_of(msh41, "\n3 1 5 27\n") + 1, "element type 42");
}

TEST(GmshReaderErrors, WrongCountsAndIndices) {
  ScratchDir dir;
  const std::string text = two_tets();
  write_file(dir / "nodes.msh", replace_once(text, "$Nodes\n5\n", "$Nodes\n6\n"));
  expect_mesh_error([&] { read_gmsh(dir / "nodes.msh"); }, "nodes.msh", line_of(text, "$EndNodes"), "ends after 5 of 6 nodes");
  write_file(dir / "elements.msh", replace_once(text, "$Elements\n3\n", "$Elements\n2\n"));
  expect_mesh_error([&] { read_gmsh(dir / "elements.msh"); }, "elements.msh", line_of(text, "3 2 2 7"), "wrong element count");
  write_file(dir / "undefined.msh", replace_once(text, "1 3 2 5", "1 3 2 9"));
  expect_mesh_error([&] { read_gmsh(dir / "undefined.msh"); }, "undefined.msh", line_of(text, "2 4 2 1 1 1 3 2 5"), "undefined node 9");
  write_file(dir / "negative.msh", replace_once(text, "1 3 2 5", "1 3 2 -5"));
  expect_mesh_error([&] { read_gmsh(dir / "negative.msh"); }, "negative.msh", line_of(text, "2 4 2 1 1 1 3 2 5"), "undefined node -5");
  write_file(dir / "short.msh", replace_once(text, "1 3 2 5", "1 3 2"));
  expect_mesh_error([&] { read_gmsh(dir / "short.msh"); }, "short.msh", line_of(text, "2 4 2 1 1 1 3 2 5"), "fewer than 4 nodes");
}

TEST(GmshReaderErrors, FormatProblems) {
  ScratchDir dir;
  const std::string text = two_tets();
  write_file(dir / "binary.msh", replace_once(text, "2.2 0 8", "2.2 1 8"));
  expect_mesh_error([&] { read_gmsh(dir / "binary.msh"); }, "binary.msh", 2, "binary");
  write_file(dir / "v3.msh", replace_once(text, "2.2 0 8", "3.0 0 8"));
  expect_mesh_error([&] { read_gmsh(dir / "v3.msh"); }, "v3.msh", 2, "version 3.0");
  write_file(dir / "notmsh.msh", "hello world\n");
  expect_mesh_error([&] { read_gmsh(dir / "notmsh.msh"); }, "notmsh.msh", 1);
  write_file(dir / "flat.msh", replace_once(text, "1 4 2 1 1 1 2 3 4\n2 4 2 1 1 1 3 2 5\n", "1 2 2 1 1 1 2 3\n2 2 2 1 1 1 3 2\n"));
  expect_mesh_error([&] { read_gmsh(dir / "flat.msh"); }, "flat.msh", 0, "no 3-D elements");
}

TEST(GmshReaderErrors, SurfaceElementOffTheVolumeAndNonManifoldFaces) {
  ScratchDir dir;
  const std::string text = two_tets();
  write_file(dir / "stray.msh", replace_once(text, "3 2 2 7 1 1 2 3", "3 2 2 7 1 2 4 5"));
  expect_mesh_error([&] { read_gmsh(dir / "stray.msh"); }, "stray.msh", line_of(text, "3 2 2 7"), "matches no face");
  // --- a third tetrahedron on the shared face
  std::string third = replace_once(text, "$Elements\n3\n", "$Elements\n4\n");
  third = replace_once(third, "$EndElements", "4 4 2 1 1 1 2 3 5\n$EndElements");
  write_file(dir / "third.msh", third);
  expect_mesh_error([&] { read_gmsh(dir / "third.msh"); }, "third.msh", line_of(third, "4 4 2 1 1 1 2 3 5"), "non-manifold");
}

// --- hostile counts and mismatched versions: refused with the file, the line and the count

TEST(GmshReaderHostile, CountsPastTheFileAreRefusedBeforeReserving) {
  ScratchDir dir;
  const std::string msh41 = read_file(fixtures() / "gmsh/cube_tet.msh");
  const long nodes_line = line_of(msh41, "$Nodes") + 1;
  write_file(dir / "nodes.msh", replace_once(msh41, "$Nodes\n27 45 1 45\n", "$Nodes\n27 1000000000000 1 1000000000000\n"));
  expect_mesh_error([&] { read_gmsh(dir / "nodes.msh"); }, "nodes.msh", nodes_line, "1000000000000 nodes cannot fit in the");
  const long elements_line = line_of(msh41, "$Elements") + 1;
  write_file(dir / "elements.msh", replace_once(msh41, "$Elements\n7 185 1 185\n", "$Elements\n7 1000000000000 1 185\n"));
  expect_mesh_error([&] { read_gmsh(dir / "elements.msh"); }, "elements.msh", elements_line,
                    "1000000000000 elements cannot fit in the");
  const std::string msh22 = two_tets();
  write_file(dir / "names.msh", replace_once(msh22, "$PhysicalNames\n1\n", "$PhysicalNames\n1000000000000\n"));
  expect_mesh_error([&] { read_gmsh(dir / "names.msh"); }, "names.msh", line_of(msh22, "$PhysicalNames") + 1,
                    "1000000000000 physical names cannot fit in the");
  write_file(dir / "nodes22.msh", replace_once(msh22, "$Nodes\n5\n", "$Nodes\n1000000000000\n"));
  expect_mesh_error([&] { read_gmsh(dir / "nodes22.msh"); }, "nodes22.msh", line_of(msh22, "$Nodes") + 1,
                    "1000000000000 nodes cannot fit in the");
}

TEST(GmshReaderHostile, VersionThatDoesNotMatchTheBody) {
  ScratchDir dir;
  // --- a 4.1 body under a 2.2 header
  const std::string msh41 = read_file(fixtures() / "gmsh/cube_tet.msh");
  write_file(dir / "body41.msh", replace_once(msh41, "4.1 0 8", "2.2 0 8"));
  expect_mesh_error([&] { read_gmsh(dir / "body41.msh"); }, "body41.msh", line_of(msh41, "$Nodes") + 1,
                    "$Nodes starts with several numbers, as in MSH 4.1, but $MeshFormat on line 2 says version 2.2: "
                    "the version does not match the body");
  // --- and a 2.2 body under a 4.1 header
  const std::string msh22 = two_tets();
  write_file(dir / "body22.msh", replace_once(msh22, "2.2 0 8", "4.1 0 8"));
  expect_mesh_error([&] { read_gmsh(dir / "body22.msh"); }, "body22.msh", line_of(msh22, "$Nodes") + 1,
                    "$Nodes starts with one number, as in MSH 2.2, but $MeshFormat on line 2 says version 4.1: "
                    "the version does not match the body");
}

TEST(GmshReaderHostile, MeshPastTheMemoryLimit) {
  // --- 185 elements (101 tetrahedra) need more than 32 KiB; the 6 KiB file itself is read
  const ScopedEnv limit(memory_limit_variable, "32K");
  expect_mesh_error([] { read_gmsh(fixtures() / "gmsh/cube_tet.msh"); }, "cube_tet.msh", -1,
                    "needs at least about");
  expect_mesh_error([] { read_gmsh(fixtures() / "gmsh/cube_tet.msh"); }, "cube_tet.msh", -1,
                    "more than the memory limit of 32.0 KiB (FVMMINI_MEMORY_LIMIT");
}

TEST(GmshReaderErrors, DuplicatePhysicalNames) {
  ScratchDir dir;
  const std::string text = two_tets();
  // --- two surface groups named alike would be two patches of one name
  const std::string twice = replace_once(text, "$PhysicalNames\n1\n2 7 \"base\"\n",
                                         "$PhysicalNames\n2\n2 7 \"base\"\n2 8 \"base\"\n");
  write_file(dir / "twice.msh", twice);
  expect_mesh_error([&] { read_gmsh(dir / "twice.msh"); }, "twice.msh", line_of(twice, "2 8 \"base\""),
                    "physical surface name 'base' is given twice (first on line " +
                        std::to_string(line_of(twice, "2 7 \"base\"")) + "): two patches cannot share a name");
  // --- one group named twice
  const std::string renamed = replace_once(text, "$PhysicalNames\n1\n2 7 \"base\"\n",
                                           "$PhysicalNames\n2\n2 7 \"base\"\n2 7 \"floor\"\n");
  write_file(dir / "renamed.msh", renamed);
  expect_mesh_error([&] { read_gmsh(dir / "renamed.msh"); }, "renamed.msh", line_of(renamed, "2 7 \"floor\""),
                    "physical group 7 of dimension 2 is named twice ('floor', and 'base' on line");
  // --- a volume may share a surface's name (only surfaces make patches)
  write_file(dir / "volume.msh", replace_once(text, "$PhysicalNames\n1\n2 7 \"base\"\n",
                                              "$PhysicalNames\n2\n2 7 \"base\"\n3 1 \"base\"\n"));
  EXPECT_EQ(read_gmsh(dir / "volume.msh").n_cells, 2);
}

TEST(GmshReaderHostile, MessagesQuoteTokensCutAndEscaped) {
  ScratchDir dir;
  const std::string text = two_tets();
  write_file(dir / "escape.msh", replace_once(text, "$Nodes\n", "\x1b" "c\x07 $Nodes\n"));
  expect_mesh_error([&] { read_gmsh(dir / "escape.msh"); }, "escape.msh", line_of(text, "$Nodes"),
                    "expected a $Section but found '\\x1bc\\x07'");
  write_file(dir / "long.msh", replace_once(text, "2.2 0 8", std::string(10000000, '9') + " 0 8"));
  try {
    read_gmsh(dir / "long.msh");
    ADD_FAILURE() << "accepted a 10 MB version";
  } catch (const MeshError& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 400u) << what.substr(0, 400);
    EXPECT_NE(what.find("MSH version 9999"), std::string::npos) << what.substr(0, 400);
    EXPECT_NE(what.find("... (10000000 bytes in all) is not supported"), std::string::npos) << what.substr(0, 400);
  }
}

TEST(GmshReaderErrors, SymbolicLinkLoop) {
  ScratchDir dir;
  std::filesystem::create_symlink(dir / "loop.msh", dir / "loop.msh");
  expect_mesh_error([&] { read_gmsh(dir / "loop.msh"); }, "loop.msh", 0,
                    "cannot open: too many levels of symbolic links");
}

TEST(GmshReaderHostile, ElementsCheckedAtTheReadersOwnCostPerElement) {
  // --- 200000 copies of one tetrahedron with 12 tags each: 42 MiB as a run (220 bytes a cell)
  // fits in 43 MiB, but the reader holds 192 bytes an element as it reads them (36.6 MiB) beside
  // the 8 MiB of text: refused at the count, before an element is stored
  ScratchDir dir;
  std::string text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
                     "$Elements\n200000\n";
  for (int i = 0; i < 200000; ++i) text += "1 4 12 1 1 1 1 1 1 1 1 1 1 1 1 1 2 3 4\n";
  write_file(dir / "many.msh", text + "$EndElements\n");
  const ScopedEnv limit(memory_limit_variable, "43M");
  expect_mesh_error([&] { read_gmsh(dir / "many.msh"); }, "many.msh", line_of(text, "200000"),
                    "reading 200000 elements (192 bytes each in the reader, with the file's text and nodes) needs "
                    "about 44.");
}

}  // namespace
}  // namespace fvmmini
