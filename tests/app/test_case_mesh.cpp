// The mesh a case asks for (box, polyMesh, Gmsh, with patchTypes), and the checks of the
// case against it: every patch has a condition, empty matches empty, referenceCell exists.

#include <gtest/gtest.h>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "app/case_mesh.hpp"
#include "temp_folder.hpp"

namespace fvmmini {
namespace {

const std::filesystem::path fixtures{FVMMINI_FIXTURES_DIR};

class CaseMeshTest : public ::testing::Test {
 protected:
  ResolvedCase load(const std::string& text) {
    file_ = folder_.write("case.yaml", text);
    return load_case(file_, {});
  }
  /// The problems check_case_against_mesh finds ("" when none).
  std::vector<std::string> mismatches(const ResolvedCase& c, const Mesh& mesh) {
    try {
      check_case_against_mesh(c, mesh.patches, mesh_counts(mesh));
    } catch (const CaseError& e) {
      std::vector<std::string> messages;
      for (const auto& problem : e.problems()) messages.push_back(problem.str());
      return messages;
    }
    return {};
  }
  std::vector<std::string> mismatches_of_counts(const ResolvedCase& c, const std::vector<Patch>& patches,
                                                const MeshCounts& counts) {
    try {
      check_case_against_mesh(c, patches, counts);
    } catch (const CaseError& e) {
      std::vector<std::string> messages;
      for (const auto& problem : e.problems()) messages.push_back(problem.str());
      return messages;
    }
    return {};
  }
  std::string at(int line, int column) const {
    return file_.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  }

  testing::TempFolder folder_;
  std::filesystem::path file_;
};

/// A poisson case on a 2-cell box with `solvers` (YAML) and output.vtk off.
std::string two_cells(const std::string& more) {
  return "mesh: {type: box, cells: [2, 1, 1], patches: {all: {sides: [xmin, xmax, ymin, ymax, zmin, zmax]}}}\n"
         "physics: {type: poisson}\nboundaryField: {all: {type: fixedValue, value: 0}}\noutput: {vtk: false}\n" +
         more;
}

TEST_F(CaseMeshTest, KeysThatSizeMemoryAreCheckedBeforeAnythingIsAllocated) {
  // --- chunkSize 2147483647 pads 2 rows to a chunk of 2^31 - 1: about 48 GiB, refused naming the key
  const ResolvedCase huge = load(two_cells("solvers: {T: {format: sell, chunkSize: 2147483647}}\n"));
  const Mesh mesh = build_case_mesh(huge);
  const auto found = mismatches(huge, mesh);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind(at(5, 29) + "solvers.T.chunkSize = 2147483647: the run with the sell format's padding", 0), 0u)
      << found[0];
  EXPECT_NE(found[0].find("more than the memory limit"), std::string::npos) << found[0];
  // --- a costly value that fits runs, and its figure is what --dry-run adds to the estimate
  const ResolvedCase costly = load(two_cells("solvers: {T: {format: sell, chunkSize: 100000}}\n"));
  EXPECT_TRUE(mismatches(costly, build_case_mesh(costly)).empty());
  const auto memory = key_memory(costly, mesh_counts(mesh));
  ASSERT_EQ(memory.size(), 1u);
  EXPECT_EQ(memory[0].key, "solvers.T.chunkSize = 100000");
  EXPECT_GT(memory[0].bytes, 100000u * 2 * 12 - 100);  // 100000 rows of two entries, 12 bytes each
  EXPECT_LT(memory[0].bytes, 100000u * 2 * 12 * 2);
  EXPECT_NE(dry_run_mesh(costly).report.find("memory of keys: solvers.T.chunkSize = 100000: 2.29 MiB"), std::string::npos)
      << dry_run_mesh(costly).report;
  // --- a CSR-sized format costs nothing past the run's own estimate
  EXPECT_TRUE(key_memory(load(two_cells("")), mesh_counts(mesh)).empty());
}

TEST_F(CaseMeshTest, SamplingPointsAreCheckedAgainstMemory) {
  const std::string flow =
      "mesh: {type: box, cells: [2, 2, 1], patches: {lid: {sides: [ymax], type: wall}, walls: {sides: [xmin, xmax, "
      "ymin], type: wall}, frontAndBack: {sides: [zmin, zmax], type: empty}}}\n"
      "physics: {type: incompressible, nu: 0.01}\n"
      "boundaryField: {lid: {type: wall, velocity: [1, 0, 0]}, walls: {type: wall}, frontAndBack: {type: empty}}\n"
      "time: {endTime: 1, deltaT: 0.1, writeInterval: 1}\noutput: {vtk: false}\n";
  const ResolvedCase many = load(flow + "sampling: {points: 2147483647}\n");
  const auto found = mismatches(many, build_case_mesh(many));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind(at(6, 12) + "sampling.points = 2147483647: the run with 4294967294 centreline points", 0), 0u)
      << found[0];
  const ResolvedCase usual = load(flow);
  const auto memory = key_memory(usual, mesh_counts(build_case_mesh(usual)));
  ASSERT_EQ(memory.size(), 1u);
  EXPECT_EQ(memory[0].key, "sampling.points = 129");
  EXPECT_NE(memory[0].note.find("centrelines.csv about"), std::string::npos);
}

TEST_F(CaseMeshTest, AMeshWithNoCellsIsSaidSoNotBlamedOnReferenceCell) {
  const ResolvedCase c = load(two_cells(""));
  const auto found = mismatches_of_counts(c, {}, MeshCounts{});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("mesh.cells: the mesh has no cells"), std::string::npos) << found[0];
}

TEST_F(CaseMeshTest, BoxWithNamedAndUnnamedSides) {
  const ResolvedCase c = load(
      "mesh:\n  type: box\n  cells: [3, 2, 1]\n  min: [0, 0, 0]\n  max: [3, 2, 0.1]\n"
      "  patches:\n    hot: {sides: [xmin], type: wall}\n    frontAndBack: {sides: [zmin, zmax], type: empty}\n"
      "physics: {type: poisson}\n"
      "boundaryField:\n  hot: {type: fixedValue, value: 1}\n  frontAndBack: {type: empty}\n"
      "discretisation: {referenceCell: 6}\n");
  const Mesh mesh = build_case_mesh(c);
  EXPECT_EQ(mesh.n_cells, 6);
  ASSERT_NE(mesh.find_patch("hot"), nullptr);
  EXPECT_EQ(mesh.find_patch("hot")->type, "wall");
  EXPECT_EQ(mesh.find_patch("hot")->size, 2);
  EXPECT_EQ(mesh.find_patch("frontAndBack")->type, "empty");
  EXPECT_EQ(mesh.find_patch("frontAndBack")->size, 12);
  ASSERT_NE(mesh.find_patch("xmax"), nullptr);  // unnamed sides become their own patches

  const auto found = mismatches(c, mesh);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0], at(10, 1) + "boundaryField: no condition for mesh patch 'xmax' (type patch)");
  EXPECT_EQ(found[1], at(10, 1) + "boundaryField: no condition for mesh patch 'ymin' (type patch)");
  EXPECT_EQ(found[2], at(10, 1) + "boundaryField: no condition for mesh patch 'ymax' (type patch)");
  EXPECT_EQ(found[3], at(13, 18) + "discretisation.referenceCell = 6 is not a cell of the mesh (it has 6 cells)");
}

TEST_F(CaseMeshTest, ConditionsMustMatchPatchNamesAndEmptyTypes) {
  const ResolvedCase c = load(
      "mesh:\n  type: box\n  cells: [2, 2, 1]\n"
      "  patches:\n    walls: {sides: [xmin, xmax, ymin, ymax], type: wall}\n"
      "    frontAndBack: {sides: [zmin, zmax], type: empty}\n"
      "physics: {type: poisson}\n"
      "boundaryField:\n  walls: {type: empty}\n  frontAndBack: {type: zeroGradient}\n"
      "  inlet: {type: fixedValue, value: 0}\n");
  const auto found = mismatches(c, build_case_mesh(c));
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], at(9, 3) + "boundaryField.walls: type empty on a patch of type wall (only patches of type "
                                 "empty take it)");
  EXPECT_EQ(found[1], at(10, 3) + "boundaryField.frontAndBack: patch 'frontAndBack' is of type empty and needs "
                                  "type: empty");
  EXPECT_EQ(found[2], at(11, 3) + "boundaryField: the mesh has no patch 'inlet' (its patches: walls, "
                                  "frontAndBack)");
}

TEST_F(CaseMeshTest, MatchingCaseAndMeshPass) {
  const ResolvedCase c = load(
      "mesh: {type: box, cells: [2, 2, 2], patches: {all: {sides: [xmin, xmax, ymin, ymax, zmin, zmax]}}}\n"
      "physics: {type: poisson}\nboundaryField: {all: {type: fixedValue, value: 0}}\n");
  EXPECT_EQ(mismatches(c, build_case_mesh(c)), std::vector<std::string>{});
}

TEST_F(CaseMeshTest, PolyMeshWithPatchTypeOverride) {
  const ResolvedCase c = load("mesh:\n  type: polyMesh\n  file: " + (fixtures / "polymesh" / "box_hex").string() +
                              "\n  patchTypes: {outlet: wall}\n"
                              "physics: {type: poisson}\nboundaryField: {}\n");
  const Mesh mesh = build_case_mesh(c);
  ASSERT_EQ(mesh.patches.size(), 3u);
  EXPECT_EQ(mesh.find_patch("inlet")->type, "patch");
  EXPECT_EQ(mesh.find_patch("outlet")->type, "wall");
  EXPECT_EQ(mesh.find_patch("walls")->type, "wall");
  EXPECT_EQ(mismatches(c, mesh).size(), 3u);  // an empty boundaryField misses all three
}

TEST_F(CaseMeshTest, PatchTypesNamingAnUnknownPatchIsACaseError) {
  const ResolvedCase c = load("mesh:\n  type: polyMesh\n  file: " + (fixtures / "polymesh" / "box_hex").string() +
                              "\n  patchTypes:\n    outlet: wall\n    outflow: empty\n"
                              "physics: {type: poisson}\nboundaryField: {}\n");
  try {
    build_case_mesh(c);
    FAIL() << "expected a CaseError";
  } catch (const CaseError& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0].str(),
              at(6, 5) + "mesh.patchTypes: the mesh has no patch 'outflow' (its patches: inlet, outlet, walls)");
  }
}

TEST_F(CaseMeshTest, GmshFileRelativeToTheCaseFile) {
  std::filesystem::copy_file(fixtures / "gmsh" / "cube_hex.msh", folder_.path() / "cube.msh");
  const ResolvedCase c = load(
      "mesh: {type: gmsh, file: cube.msh}\nphysics: {type: poisson}\n"
      "boundaryField: {walls: {type: zeroGradient}, defaultFaces: {type: fixedValue, value: 1}}\n");
  const Mesh mesh = build_case_mesh(c);
  EXPECT_GT(mesh.n_cells, 0);
  ASSERT_NE(mesh.find_patch("walls"), nullptr);
  ASSERT_NE(mesh.find_patch("defaultFaces"), nullptr);  // faces in no physical group
  EXPECT_EQ(mismatches(c, mesh), std::vector<std::string>{});
}

}  // namespace
}  // namespace fvmmini
