// fvmmini --foam-case's mapping of an icoFoam case directory: the tutorial's entries land on
// their case keys, its blockMeshDict's block on a box where there is no polyMesh, and every entry
// it cannot map is an error naming its file, line and entry (all of them at once); nothing is
// dropped unseen.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "app/case_error.hpp"
#include "app/case_solver_settings.hpp"
#include "app/foam_case.hpp"
#include "tests/app/icofoam_case.hpp"
#include "tests/app/temp_folder.hpp"

namespace fvmmini {
namespace {

namespace fs = std::filesystem;

const testing::IcoFoamCase tutorial{20, 20, 1, true, "Gauss linear", 0.005, 100, 1e-5, 1e-6, 0.05};

class FoamCase : public ::testing::Test {
 protected:
  void SetUp() override { testing::write_icofoam_case(dir(), tutorial); }
  fs::path dir() const { return folder_.path() / "cavity"; }
  /// Replace `from` by `to` in the case's file `name` (the test edits the tutorial).
  void edit(const std::string& name, const std::string& from, const std::string& to) {
    std::ifstream in(dir() / name);
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    const auto at = s.find(from);
    ASSERT_NE(at, std::string::npos) << name << " has no '" << from << "'";
    std::ofstream(dir() / name) << s.replace(at, from.size(), to);
  }
  /// An (empty) constant/polyMesh: the mesh the case names, before its blockMeshDict.
  void add_poly_mesh() { fs::create_directories(dir() / "constant/polyMesh"); }
  /// The problems the mapping reports, one string each.
  std::vector<std::string> problems() {
    try {
      foam_case_yaml(dir());
    } catch (const CaseError& e) {
      std::vector<std::string> found;
      for (const auto& p : e.problems()) found.push_back(p.str());
      return found;
    }
    return {};
  }
  testing::TempFolder folder_;
};

TEST_F(FoamCase, TheTutorialMapsToItsCaseKeys) {
  add_poly_mesh();
  std::string yaml;
  const ResolvedCase c = load_foam_case(dir(), {}, &yaml);
  EXPECT_EQ(c.get_string("mesh.type"), "polyMesh");
  EXPECT_EQ(fs::path(c.get_string("mesh.file")), fs::absolute(dir()));
  EXPECT_EQ(c.get_string("physics.algorithm"), "PISO");
  EXPECT_EQ(c.get_string("physics.convection"), "linear");
  EXPECT_EQ(c.get_string("physics.snGrad"), "orthogonal");  // laplacianSchemes Gauss linear orthogonal
  EXPECT_DOUBLE_EQ(c.get_real("physics.nu"), 0.01);
  EXPECT_EQ(c.get_int("physics.nCorrectors"), 2);
  EXPECT_DOUBLE_EQ(c.get_real("time.endTime"), 0.5);
  EXPECT_DOUBLE_EQ(c.get_real("time.deltaT"), 0.005);
  EXPECT_DOUBLE_EQ(c.get_real("time.writeInterval"), 0.5);  // writeInterval 100 time steps
  EXPECT_EQ(c.get_string("boundaryField.movingWall.type"), "velocityInlet");
  EXPECT_EQ(c.get_string("boundaryField.fixedWalls.type"), "wall");
  EXPECT_EQ(c.get_string("boundaryField.frontAndBack.type"), "empty");
  EXPECT_EQ(c.get_int("discretisation.referenceCell"), 0);
  const SolverSettings u = solver_settings(c, "U");
  EXPECT_EQ(u.solver, "smoothSolver");
  EXPECT_EQ(u.smoother, Smoother::symmetric_gauss_seidel);
  EXPECT_DOUBLE_EQ(u.tolerance, 1e-5);
  const SolverSettings p = solver_settings(c, "p"), p_final = final_solver_settings(c, "pFinal", "p");
  EXPECT_EQ(p.solver, "CG");
  EXPECT_EQ(p.preconditioner, "DIC");
  EXPECT_DOUBLE_EQ(p.rel_tol, 0.05);
  EXPECT_EQ(p_final.preconditioner, "DIC");  // pFinal { $p; relTol 0; }
  EXPECT_DOUBLE_EQ(p_final.rel_tol, 0.0);
  // --- the output goes where a case file's would: out/<the directory's name>
  EXPECT_EQ(c.get_string("output.directory"), "out/cavity");
  // --- what is not mapped is said in the mapped case
  EXPECT_NE(yaml.find("# not mapped (OpenFOAM's own files; fvmmini writes VTK in double precision): writeFormat ascii"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("# movingWall: U fixedValue (1 0 0) is velocityInlet"), std::string::npos) << yaml;
}

TEST_F(FoamCase, SchemesAndSolversItMapsOthersItNames) {
  edit("system/fvSchemes", "div(phi,U) Gauss linear;", "div(phi,U) Gauss linearUpwind grad(U);");
  edit("system/fvSolution", "U { solver smoothSolver; smoother symGaussSeidel;",
       "\"(U|k)\" { solver PBiCGStab; preconditioner { preconditioner DILU; }");
  const ResolvedCase c = load_foam_case(dir(), {});
  EXPECT_EQ(c.get_string("physics.convection"), "linearUpwind");
  EXPECT_EQ(solver_settings(c, "U").solver, "PBiCGStab");       // by the pattern
  EXPECT_EQ(solver_settings(c, "U").preconditioner, "DILU");   // a preconditioner dictionary

  edit("system/fvSchemes", "div(phi,U) Gauss linearUpwind grad(U);", "div(phi,U) Gauss limitedLinearV 1;");
  edit("system/fvSolution", "solver PCG;", "solver PBiCG;");
  edit("0/U", "fixedWalls { type noSlip; }", "fixedWalls { type slip; }");
  edit("0/p", "internalField uniform 0;", "internalField nonuniform List<scalar> 2(1 2);");
  edit("system/controlDict", "application icoFoam;", "application icoFoam; functions { probes { type probes; } }");
  const auto found = problems();
  ASSERT_EQ(found.size(), 6u);  // pFinal's solver too ($p)
  const auto has = [&](const std::string& pattern) {
    const std::regex wanted(pattern);
    return std::any_of(found.begin(), found.end(), [&](const std::string& p) { return std::regex_search(p, wanted); });
  };
  EXPECT_TRUE(has(R"(cavity/system/controlDict:2: functions: fvmmini does not map functions here)"));
  EXPECT_TRUE(
      has(R"(cavity/system/fvSchemes:4: divSchemes\.div\(phi,U\) Gauss limitedLinearV 1: fvmmini maps Gauss linear)"));
  EXPECT_TRUE(
      has(R"(cavity/system/fvSolution:3: solvers\.p\.solver PBiCG: fvmmini maps PCG, PBiCGStab and smoothSolver)"));
  EXPECT_TRUE(has(R"(cavity/system/fvSolution:3: solvers\.pFinal\.solver PBiCG)"));
  EXPECT_TRUE(has(R"(cavity/0/U:\d+: boundaryField\.fixedWalls: U slip with p zeroGradient)"));
  EXPECT_TRUE(has(R"(cavity/0/p:3: internalField nonuniform List<scalar> 2 \( 1 2 \): expected uniform)"));
}

// A folder or patch name is text from the user's disk: in the mapped case's comments it is
// escaped, so that no name ends its line and becomes case text.
TEST_F(FoamCase, NamesInTheMappedCaseCannotBecomeCaseText) {
  const fs::path hostile = folder_.path() / "cavity\nmesh: {type: box, cells: [1, 1, 1]}\n#";
  add_poly_mesh();
  fs::rename(dir(), hostile);
  std::string yaml;
  const ResolvedCase c = load_foam_case(hostile, {}, &yaml);
  EXPECT_EQ(c.get_string("mesh.type"), "polyMesh");
  EXPECT_NE(yaml.find("cavity\\nmesh: {type: box"), std::string::npos) << yaml;  // written \n, not a newline
  EXPECT_EQ(yaml.find("\nmesh: {type: box"), std::string::npos) << yaml;
}

TEST_F(FoamCase, AMissingDictionaryOrEntryIsNamed) {
  fs::remove(dir() / "system/fvSolution");
  edit("constant/transportProperties", "nu [0 2 -1 0 0 0 0] 0.01;", "");
  const auto found = problems();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].find("cavity/system/fvSolution: missing: an icoFoam case has system/fvSolution"),
            std::string::npos) << found[0];
  EXPECT_NE(found[1].find("transportProperties: missing entry nu"), std::string::npos) << found[1];
}


// --- system/blockMeshDict where there is no constant/polyMesh: the block is fvmmini's box

/// The cavity's blockMeshDict, one entry a line from line 2: scale, vertices, blocks (the block on
/// line 6), boundary (movingWall on line 10, fixedWalls 11, frontAndBack 12).
const std::string cavity_block_mesh = R"(FoamFile { version 2.0; format ascii; class dictionary; object blockMeshDict; }
scale 0.1;
vertices ((0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 0.1) (1 0 0.1) (1 1 0.1) (0 1 0.1));
blocks
(
    hex (0 1 2 3 4 5 6 7) (20 20 1) simpleGrading (1 1 1)
);
boundary
(
    movingWall { type wall; faces ((3 7 6 2)); }
    fixedWalls { type wall; faces ((0 4 7 3) (2 6 5 1) (1 5 4 0)); }
    frontAndBack { type empty; faces ((0 3 2 1) (4 5 6 7)); }
);
edges ();
mergePatchPairs ();
)";

TEST_F(FoamCase, ABlockMeshDictWithoutPolyMeshIsTheBox) {
  testing::write_case_file(dir() / "system/blockMeshDict", cavity_block_mesh);
  std::string yaml;
  const ResolvedCase c = load_foam_case(dir(), {}, &yaml);
  EXPECT_EQ(yaml.rfind("# fvmmini --foam-case " + dir().string() +
                           ": the icoFoam case mapped, its mesh system/blockMeshDict's block (no constant/polyMesh)",
                       0),
            0u)
      << yaml;
  EXPECT_EQ(c.get_string("mesh.type"), "box");
  EXPECT_EQ(c.get_int3("mesh.cells"), (std::array<std::int64_t, 3>{20, 20, 1}));
  EXPECT_EQ(c.get_real3("mesh.min"), (Vec3{0, 0, 0}));
  EXPECT_EQ(c.get_real3("mesh.max"), (Vec3{0.1, 0.1, 0.1 * 0.1}));  // scale times the vertices, as blockMesh's points
  EXPECT_EQ(c.entry_names("mesh.patches"), (std::vector<std::string>{"movingWall", "fixedWalls", "frontAndBack"}));
  EXPECT_EQ(c.get_list("mesh.patches.movingWall.sides"), std::vector<std::string>{"ymax"});
  EXPECT_EQ(c.get_list("mesh.patches.fixedWalls.sides"), (std::vector<std::string>{"xmin", "xmax", "ymin"}));
  EXPECT_EQ(c.get_list("mesh.patches.frontAndBack.sides"), (std::vector<std::string>{"zmin", "zmax"}));
  EXPECT_EQ(c.get_string("mesh.patches.movingWall.type"), "wall");
  EXPECT_EQ(c.get_string("mesh.patches.frontAndBack.type"), "empty");
  EXPECT_EQ(c.get_string("boundaryField.frontAndBack.type"), "empty");  // 0/U and 0/p as before
  // --- where constant/polyMesh is there too, it is the mesh (as OpenFOAM reads it)
  add_poly_mesh();
  EXPECT_EQ(load_foam_case(dir(), {}).get_string("mesh.type"), "polyMesh");
}

TEST_F(FoamCase, ABlockMeshDictsScaleCountsFaceOrderAndDefaultPatch) {
  // convertToMeters (scale's old name), a box off the origin, lists with their counts, faces from
  // any vertex of the side, and three sides no patch names: blockMesh's defaultFaces, empty
  testing::write_case_file(dir() / "system/blockMeshDict",
                           "convertToMeters 0.5;\nvertices 8 ((-1 0 2) (3 0 2) (3 4 2) (-1 4 2) (-1 0 3) (3 0 3) "
                           "(3 4 3) (-1 4 3));\nblocks 1 (hex (0 1 2 3 4 5 6 7) (8 4 2) edgeGrading "
                           "(1 1 1 1 1 1 1 1 1 1 1 1));\nboundary 2 (lid { type wall; faces 1 ((2 3 7 6)); }\n"
                           "sides { type patch; faces ((5 1 2 6) (4 7 3 0)); });\n");
  std::string yaml;
  const ResolvedCase c = load_foam_case(dir(), {}, &yaml);
  EXPECT_EQ(c.get_int3("mesh.cells"), (std::array<std::int64_t, 3>{8, 4, 2}));
  EXPECT_EQ(c.get_real3("mesh.min"), (Vec3{-0.5, 0, 1}));
  EXPECT_EQ(c.get_real3("mesh.max"), (Vec3{1.5, 2, 1.5}));
  EXPECT_EQ(c.entry_names("mesh.patches"), (std::vector<std::string>{"lid", "sides", "defaultFaces"}));
  EXPECT_EQ(c.get_list("mesh.patches.lid.sides"), std::vector<std::string>{"ymax"});
  EXPECT_EQ(c.get_list("mesh.patches.sides.sides"), (std::vector<std::string>{"xmax", "xmin"}));
  EXPECT_EQ(c.get_string("mesh.patches.sides.type"), "patch");
  EXPECT_EQ(c.get_list("mesh.patches.defaultFaces.sides"), (std::vector<std::string>{"ymin", "zmin", "zmax"}));
  EXPECT_EQ(c.get_string("mesh.patches.defaultFaces.type"), "empty");
  EXPECT_NE(yaml.find("# defaultFaces: the sides no face of boundary names (ymin, zmin, zmax), blockMesh's "
                      "defaultPatch"),
            std::string::npos)
      << yaml;
  // --- defaultPatch names them; a patch of that name takes them
  edit("system/blockMeshDict", "boundary 2", "defaultPatch { name sides; type wall; }\nboundary 2");
  const ResolvedCase named = load_foam_case(dir(), {});
  EXPECT_EQ(named.entry_names("mesh.patches"), (std::vector<std::string>{"lid", "sides"}));
  EXPECT_EQ(named.get_list("mesh.patches.sides.sides"),
            (std::vector<std::string>{"xmax", "xmin", "ymin", "zmin", "zmax"}));
  EXPECT_EQ(named.get_string("mesh.patches.sides.type"), "patch");
}

TEST_F(FoamCase, ABlockMeshDictItCannotMapIsNamedByLine) {
  // each change to the cavity's blockMeshDict, and the problem it is (its file:line: entry: why)
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> refusals{
      {{"simpleGrading (1 1 1)\n",
        "simpleGrading (1 1 1)\n    hex (0 1 2 3 4 5 6 7) (20 20 1) simpleGrading (1 1 1)\n"},
       R"(blockMeshDict:7: blocks: a second block: fvmmini maps one block \(a box\))"},
      {{"simpleGrading (1 1 1)", "simpleGrading (1 2 1)"},
       R"(blockMeshDict:6: blocks: grading other than 1: fvmmini's box has uniform cells)"},
      {{"simpleGrading (1 1 1)", "simpleGrading ((0.5 0.5 2) 1 1)"},
       R"(blockMeshDict:6: blocks: grading other than 1)"},
      {{"(3 7 6 2)", "(0 1 6 7)"},
       R"(blockMeshDict:10: boundary\.movingWall\.faces: \( 0 1 6 7 \): not one side of the block)"},
      {{"(3 7 6 2)", "(2 6 7 3)"},
       R"(blockMeshDict:10: boundary\.movingWall\.faces: \( 2 6 7 3 \): points into the block )"
       R"(\(blockMesh refuses it\))"},
      {{"(3 7 6 2)", "(3 7 6 2) (7 6 2 3)"},
       R"(blockMeshDict:10: boundary\.movingWall\.faces: \( 7 6 2 3 \): side ymax is patch movingWall's already)"},
      {{"hex (0 1 2 3 4 5 6 7)", "hex (0 1 2 3 4 5 6 8)"},
       R"(blockMeshDict:6: blocks: vertex 8 is not one of the 8 vertices \(0 to 7\))"},
      {{"(1 1 0.1)", "(1 1.5 0.1)"}, R"(blockMeshDict:6: blocks: its vertices are not a box along the axes)"},
      {{"edges ();", "edges (arc 0 1 (0.5 -0.1 0));"},
       R"(blockMeshDict:14: edges \( arc 0 1 \( 0\.5 -0\.1 0 \) \): curved edges: fvmmini's box has straight edges)"},
      {{"mergePatchPairs ();", "mergePatchPairs ((a b));"}, R"(blockMeshDict:15: mergePatchPairs .*: merged patches)"},
      {{"type empty;", "type symmetryPlane;"},
       R"(blockMeshDict:12: boundary\.frontAndBack\.type symmetryPlane: fvmmini's box takes the patch types)"},
      {{"(20 20 1)", "lid (20 20 1)"}, R"(blockMeshDict:6: blocks: expected hex \(8 vertices\) \(nx ny nz\))"},
      {{" (0 1 0.1));", ");"}, R"(blockMeshDict:6: blocks: vertex 7 is not one of the 7 vertices \(0 to 6\))"},
      {{"scale 0.1;", "scale 0.1;\ngeometry { sphere { type sphere; } }"},
       R"(blockMeshDict:3: geometry: fvmmini does not map geometry here)"},
  };
  for (const auto& [change, wanted] : refusals) {
    testing::write_case_file(dir() / "system/blockMeshDict", cavity_block_mesh);
    edit("system/blockMeshDict", change.first, change.second);
    const auto found = problems();
    ASSERT_EQ(found.size(), 1u) << change.second << "\n" << (found.empty() ? "" : found[0]);
    EXPECT_TRUE(std::regex_search(found[0], std::regex("cavity/system/" + wanted))) << found[0];
  }
  // --- every problem at once, the blockMeshDict's with the other files'
  testing::write_case_file(dir() / "system/blockMeshDict", cavity_block_mesh);
  edit("system/blockMeshDict", "(3 7 6 2)", "(0 1 6 7)");
  edit("system/blockMeshDict", "edges ();", "edges (arc 0 1 (0.5 -0.1 0));");
  edit("system/fvSchemes", "default Euler;", "default CrankNicolson 0.9;");
  EXPECT_EQ(problems().size(), 3u);
}

// The OpenFOAM HPC Technical Committee's cavity3D cases as shipped (cases/hpc-cavity3D): each
// maps, the meshes sized only (mapping builds none).
TEST(FoamCaseShipped, TheHpcCommitteesCavity3dCasesMap) {
  const fs::path root = fs::path(FVMMINI_FIXTURES_DIR) / "../../cases/hpc-cavity3D";
  const std::map<std::string, std::pair<std::int64_t, double>> sizes{
      {"1M", {100, 0.001}}, {"8M", {200, 0.0005}}, {"64M", {400, 0.00025}}};
  const std::map<std::string, int> fixed_iterations{{"1M", 67}, {"8M", 116}, {"64M", 321}};
  for (const auto& [size, cells_and_step] : sizes)
    for (const std::string variant : {"fixedIter", "fixedTol"}) {
      SCOPED_TRACE(size + "/" + variant);
      std::string yaml;
      const ResolvedCase c = load_foam_case(root / size / variant, {}, &yaml);
      const auto n = cells_and_step.first;
      EXPECT_EQ(c.get_int3("mesh.cells"), (std::array<std::int64_t, 3>{n, n, n}));
      EXPECT_EQ(c.get_real3("mesh.max"), (Vec3{0.1, 0.1, 0.1}));
      EXPECT_EQ(c.get_list("mesh.patches.movingWall.sides"), std::vector<std::string>{"ymax"});
      EXPECT_DOUBLE_EQ(c.get_real("time.deltaT"), cells_and_step.second);
      EXPECT_DOUBLE_EQ(c.get_real("time.endTime"), 15 * cells_and_step.second);  // 15 steps at Co = 1
      EXPECT_FALSE(c.get_bool("physics.momentumPredictor"));
      EXPECT_FALSE(c.get_bool("output.vtk"));  // icoFoam writes no time there
      const SolverSettings p = solver_settings(c, "p"), u = solver_settings(c, "U");
      EXPECT_EQ(p.preconditioner, "DIC");
      EXPECT_EQ(u.max_iter, 1);  // maxIter 0: OpenFOAM iterates once
      if (variant == "fixedIter") {
        EXPECT_EQ(p.tolerance, 0.0);
        EXPECT_EQ(p.max_iter, fixed_iterations.at(size));
      } else {
        EXPECT_EQ(p.tolerance, 1e-5);
        EXPECT_EQ(p.rel_tol, 0.05);
        EXPECT_EQ(final_solver_settings(c, "pFinal", "p").rel_tol, 0.0);
      }
    }
}

}  // namespace
}  // namespace fvmmini
