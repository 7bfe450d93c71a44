// fvmmini --foam-case's mapping of an icoFoam case directory: the tutorial's entries land on
// their case keys, and every entry it cannot map is an error naming its file, line and entry
// (all of them at once); nothing is dropped unseen.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

}  // namespace
}  // namespace fvmmini
