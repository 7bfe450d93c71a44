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
      check_case_against_mesh(c, mesh.patches, mesh.n_cells);
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
