// The case schema: every kind of problem is reported with file:line:column and key path,
// all problems at once; defaults are filled in; --set overrides are validated like file values.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/case_error.hpp"
#include "app/case_keys.hpp"
#include "app/case_loader.hpp"
#include "app/case_solver_settings.hpp"
#include "app/format_reference.hpp"
#include "app/key_path.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "temp_folder.hpp"

namespace fvmmini {
namespace {

// Lines 1-9; tests append sections from line 10 on.
const std::string base_case =
    "mesh:\n"
    "  type: box\n"
    "  cells: [4, 3, 2]\n"
    "  patches:\n"
    "    walls: {sides: [xmin, xmax, ymin, ymax, zmin, zmax], type: wall}\n"
    "physics:\n"
    "  type: poisson\n"
    "boundaryField:\n"
    "  walls: {type: fixedValue, value: 0}\n";

class CaseSchemaTest : public ::testing::Test {
 protected:
  /// Load `text` as case.yaml; the problems it has, one string each ("" entries none).
  std::vector<std::string> problems(const std::string& text, const std::vector<std::string>& overrides = {}) {
    file_ = folder_.write("case.yaml", text);
    try {
      load_case(file_, overrides);
    } catch (const CaseError& e) {
      std::vector<std::string> messages;
      for (const auto& problem : e.problems()) messages.push_back(problem.str());
      return messages;
    }
    return {};
  }
  ResolvedCase load(const std::string& text, const std::vector<std::string>& overrides = {}) {
    file_ = folder_.write("case.yaml", text);
    return load_case(file_, overrides);
  }
  /// "<file>:<line>:<column>: "
  std::string at(int line, int column) const {
    return file_.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  }

  testing::TempFolder folder_;
  std::filesystem::path file_;
};

TEST_F(CaseSchemaTest, ValidCaseResolvesWithDefaults) {
  const ResolvedCase c = load(base_case);
  EXPECT_EQ(c.get_string("mesh.type"), "box");
  EXPECT_EQ(c.get_int3("mesh.cells"), (std::array<std::int64_t, 3>{4, 3, 2}));
  EXPECT_EQ(c.get_real3("mesh.max"), (Vec3{1, 1, 1}));
  EXPECT_EQ(c.get_list("mesh.patches.walls.sides").size(), 6u);
  EXPECT_EQ(c.get_string("mesh.patches.walls.type"), "wall");
  EXPECT_DOUBLE_EQ(c.get_real("physics.diffusivity"), 1.0);
  EXPECT_EQ(c.get_string("physics.manufactured"), "none");
  EXPECT_TRUE(c.has("physics.source"));
  EXPECT_FALSE(c.has("physics.initial"));  // diffusion only
  EXPECT_FALSE(c.has("time"));             // diffusion only
  EXPECT_EQ(c.entry_names("boundaryField"), std::vector<std::string>{"walls"});
  EXPECT_TRUE(c.is_number("boundaryField.walls.value"));
  EXPECT_DOUBLE_EQ(c.get_real("solvers.T.tolerance"), 1e-6);
  EXPECT_EQ(c.get_string("solvers.T.format"), "csr");
  EXPECT_EQ(c.get_int("discretisation.nonOrthogonalCorrectors"), 50);
  EXPECT_EQ(c.get_real("discretisation.nonOrthogonalTolerance"), 1e-6);
  EXPECT_EQ(c.get_string("discretisation.nonOrthogonalNotConverged"), "warning");
  EXPECT_TRUE(c.get_bool("output.vtk"));
  EXPECT_EQ(c.get_string("output.directory"), "out/case");
  EXPECT_EQ(c.get_string("output.summary"), "summary.json");
  EXPECT_EQ(output_directory(c), std::filesystem::current_path() / "out" / "case");
  EXPECT_THROW(c.get_real("solvers.T.nonsense"), std::out_of_range);
}

TEST_F(CaseSchemaTest, UnknownKeyNamesLineColumnAndSuggests) {
  const auto found = problems(base_case + "solvers:\n  T:\n    tolerence: 1e-8\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], at(12, 5) + "unknown key 'tolerence' in solvers.T (did you mean 'tolerance'?)");
}

TEST_F(CaseSchemaTest, UnknownTopLevelSectionWithoutCloseMatchHasNoSuggestion) {
  const auto found = problems(base_case + "plotting: true\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], at(10, 1) + "unknown key 'plotting' in the top level");
}

TEST_F(CaseSchemaTest, MissingRequiredKeyNamesItsSection) {
  const auto found = problems("mesh:\n  type: box\nphysics:\n  type: poisson\nboundaryField: {}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], at(1, 1) + "missing required key 'cells' in mesh (needed when mesh.type is box)");
}

TEST_F(CaseSchemaTest, MissingSectionAtTopLevelNamesTheFile) {
  const auto found = problems("mesh: {type: box, cells: [1, 1, 1]}\nboundaryField: {}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], file_.string() + ": missing required key 'physics' in the top level");
}

TEST_F(CaseSchemaTest, WrongTypeNamesValueAndKey) {
  const auto found = problems(base_case + "solvers:\n  T:\n    maxIter: 1.5\n    tolerance: small\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], at(12, 14) + "solvers.T.maxIter: expected an integer, got '1.5'");
  EXPECT_EQ(found[1], at(13, 16) + "solvers.T.tolerance: expected a number, got 'small'");
}

TEST_F(CaseSchemaTest, WrongShapeIsReported) {
  const auto found = problems(base_case + "discretisation: [1, 2]\noutput:\n  vtk: maybe\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], at(10, 17) + "discretisation: expected a map of keys, got a list");
  EXPECT_EQ(found[1], at(12, 8) + "output.vtk: expected true or false, got 'maybe'");
}

TEST_F(CaseSchemaTest, OutOfRangeNamesTheBound) {
  const auto found = problems(base_case + "solvers:\n  T:\n    relTol: 1\n    sliceHeight: 48\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], at(12, 13) + "solvers.T.relTol = 1 is out of range (must be >= 0 and < 1)");
  EXPECT_EQ(found[1], at(13, 18) + "solvers.T.sliceHeight: must be a multiple of 32");
}

TEST_F(CaseSchemaTest, ListComponentsAreCheckedOneByOne) {
  const auto found = problems(
      "mesh:\n  type: box\n  cells: [4, 0, x]\n  min: [0, 0]\nphysics: {type: poisson}\nboundaryField: {}\n");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], at(3, 14) + "mesh.cells[1] = 0 is out of range (must be >= 1)");
  EXPECT_EQ(found[1], at(3, 17) + "mesh.cells[2]: expected an integer, got 'x'");
  EXPECT_EQ(found[2], at(4, 8) + "mesh.min: expected a list of 3 numbers, got a list of 2");
}

TEST_F(CaseSchemaTest, UnknownEnumValueListsAllowedOnes) {
  const auto found = problems(base_case + "solvers:\n  T: {format: cssr}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], at(11, 15) + fmt::format("unknown value 'cssr' for solvers.T.format (allowed: {}, auto) "
                                               "(did you mean 'csr'?)",
                                               fmt::join(format_names(), ", ")));
  const auto launch = problems(base_case + "solvers:\n  T: {launch: interleave}\n");
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0], at(11, 15) + "unknown value 'interleave' for solvers.T.launch (allowed: interleaved, groups) "
                                    "(did you mean 'interleaved'?)");
}

TEST_F(CaseSchemaTest, YamlSyntaxErrorHasLineAndColumn) {
  const auto found = problems("mesh:\n  type: box\n  cells: [4, 3, 2\nphysics:\n  type: poisson\n");
  ASSERT_EQ(found.size(), 1u);
  // --- yaml-cpp notices the unclosed list at the next key.
  EXPECT_EQ(found[0], at(4, 8) + "YAML syntax error: end of sequence flow not found");
  const auto tab = problems("mesh:\n  type: box\n\tcells: [1, 1, 1]\n");
  EXPECT_EQ(tab, std::vector<std::string>{at(3, 1) + "YAML syntax error: illegal tab when looking for indentation"});
  const auto list = problems("- mesh\n- physics\n");
  EXPECT_EQ(list, std::vector<std::string>{at(1, 1) + "the case file must be a map of sections (mesh:, physics:, ...)"});
}

TEST_F(CaseSchemaTest, EmptyAndMissingFilesAreCaseErrors) {
  const auto found = problems("");
  EXPECT_EQ(found, std::vector<std::string>{file_.string() + ": the case file is empty"});
  EXPECT_THROW(load_case(folder_.path() / "nothing.yaml", {}), CaseError);
}

TEST_F(CaseSchemaTest, AllProblemsAreReportedTogetherInFileOrder) {
  const auto found = problems(
      "mesh:\n"
      "  type: box\n"
      "  cels: [4, 3, 2]\n"
      "physics:\n"
      "  type: poisson\n"
      "  diffusivity: -2\n"
      "boundaryField:\n"
      "  walls: {type: fixedValu, value: 0}\n"
      "solvers: {T: {maxIter: 0}}\n");
  ASSERT_EQ(found.size(), 5u);
  EXPECT_EQ(found[0], at(1, 1) + "missing required key 'cells' in mesh (needed when mesh.type is box)");
  EXPECT_EQ(found[1], at(3, 3) + "unknown key 'cels' in mesh (did you mean 'cells'?)");
  EXPECT_EQ(found[2], at(6, 16) + "physics.diffusivity = -2 is out of range (must be > 0)");
  EXPECT_EQ(found[3], at(8, 17) +
                          "unknown value 'fixedValu' for boundaryField.walls.type (allowed: fixedValue, "
                          "zeroGradient, empty) (did you mean 'fixedValue'?)");
  EXPECT_EQ(found[4], at(9, 24) + "solvers.T.maxIter = 0 is out of range (must be >= 1 and <= 2147483647)");
}

TEST_F(CaseSchemaTest, BadDiscriminatorValueSuggestsAndDefersItsSections) {
  // Keys that depend on physics.type are checked once it names a physics.
  const auto found = problems("mesh: {type: box, cells: [1, 1, 1]}\nphysics: {type: poison, diffusivity: -1}\n");
  ASSERT_EQ(found.size(), 1u);
  // --- Other physics modules may add their names to the allowed list.
  EXPECT_EQ(found[0].rfind(at(2, 17) + "unknown value 'poison' for physics.type (allowed: poisson, diffusion", 0), 0u)
      << found[0];
  EXPECT_TRUE(found[0].ends_with(") (did you mean 'poisson'?)")) << found[0];
}

TEST_F(CaseSchemaTest, HostileNumbersAreRefusedNamingTheKey) {
  const std::string box =
      "mesh: {type: box, cells: [2, 1, 1], patches: {all: {sides: [xmin, xmax, ymin, ymax, zmin, zmax]}}}\n"
      "boundaryField: {all: {type: fixedValue, value: 0}}\n";
  // --- a split whose int product wraps (5 x 858993460 = 2^32 + 4) must not pass for 4 ranks
  const auto wrapped = problems(box + "physics: {type: poisson}\n"
                                      "decomposition: {method: simple, n: [5, 858993460, 1]}\n");
  ASSERT_EQ(wrapped.size(), 1u);
  EXPECT_NE(wrapped[0].find("decomposition.n: the product of the parts: 5 x 858993460 is past the range of a 32-bit"),
            std::string::npos)
      << wrapped[0];
  // --- finite, but its products in the run would overflow: said of the key, not as a time step problem
  const auto huge = problems(box + "physics: {type: poisson, diffusivity: 1e300}\n");
  ASSERT_EQ(huge.size(), 1u);
  EXPECT_NE(huge[0].find("physics.diffusivity = 1e+300 is too large to compute with"), std::string::npos) << huge[0];
}

TEST_F(CaseSchemaTest, AKeyThatFailsIsNotBlamedAgainByARuleOverSeveralKeys) {
  // deltaT fails its range; the diffusion rule (steps of deltaT land on the write times) would judge
  // the default deltaT in its place and name it again
  const auto found = problems(
      "mesh: {type: box, cells: [2, 1, 1], patches: {all: {sides: [xmin, xmax, ymin, ymax, zmin, zmax]}}}\n"
      "boundaryField: {all: {type: zeroGradient}}\nphysics: {type: diffusion}\n"
      "time: {endTime: 2, deltaT: -0.3, writeInterval: 0.6}\n");
  EXPECT_EQ(found, std::vector<std::string>{at(4, 28) + "time.deltaT = -0.3 is out of range (must be > 0)"});
}

TEST_F(CaseSchemaTest, KeysOfAnotherVariantAreRejected) {
  const auto found = problems(
      "mesh:\n  type: gmsh\n  file: m.msh\n  cells: [1, 1, 1]\n"
      "physics: {type: poisson}\nboundaryField: {}\ntime: {endTime: 1, deltaT: 0.1, writeInterval: 1}\n");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], at(3, 3) + "mesh.file: no file " + (folder_.path() / "m.msh").string());
  EXPECT_EQ(found[1], at(4, 3) +
                          "key 'cells' in mesh is not used when mesh.type is gmsh (it is used when mesh.type is box)");
  EXPECT_EQ(found[2].rfind(at(7, 1) +
                               "key 'time' in the top level is not used when physics.type is poisson (it is used "
                               "when physics.type is diffusion",
                           0),
            0u)
      << found[2];
}

TEST_F(CaseSchemaTest, DiffusionNeedsTimeAndChecksIt) {
  const std::string diffusion =
      "mesh: {type: box, cells: [2, 2, 2], patches: {all: {sides: [xmin, xmax, ymin, ymax, zmin, zmax]}}}\n"
      "physics: {type: diffusion, initial: 3}\n"
      "boundaryField: {all: {type: zeroGradient}}\n";
  const auto missing = problems(diffusion);
  EXPECT_EQ(missing, std::vector<std::string>{file_.string() +
                                              ": missing required key 'time' in the top level (needed when "
                                              "physics.type is diffusion)"});
  const auto found = problems(diffusion + "time: {startTime: 1, endTime: 0.5, deltaT: 0, writeInterval: 0.1}\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], at(4, 22) + "time.endTime must be greater than time.startTime");
  EXPECT_EQ(found[1], at(4, 44) + "time.deltaT = 0 is out of range (must be > 0)");

  // implicit Euler keeps one matrix: steps of deltaT must land on every write time and on endTime
  const auto uneven = problems(diffusion + "time: {endTime: 2, deltaT: 0.3, writeInterval: 0.6}\n");
  EXPECT_EQ(uneven, std::vector<std::string>{at(4, 33) + "time.writeInterval (0.6) and endTime - startTime (2) must "
                                                         "be whole multiples of time.deltaT (0.3): the diffusion "
                                                         "matrix is built for one deltaT"});
  EXPECT_TRUE(problems(diffusion + "time: {startTime: 0.1, endTime: 0.7, deltaT: 0.1, writeInterval: 0.3}\n").empty());

  const ResolvedCase c = load(diffusion + "time: {endTime: 2, deltaT: 0.5, writeInterval: 1}\n");
  EXPECT_DOUBLE_EQ(c.get_real("physics.initial"), 3.0);
  EXPECT_DOUBLE_EQ(c.get_real("time.startTime"), 0.0);
  EXPECT_DOUBLE_EQ(c.get_real("time.endTime"), 2.0);
}

TEST_F(CaseSchemaTest, CrossKeyRules) {
  const auto found = problems(
      "mesh:\n  type: box\n  cells: [2, 2, 2]\n  max: [1, 0, 1]\n"
      "  patches:\n    a: {sides: [xmin, ymin]}\n    b: {sides: [ymin]}\n"
      "physics: {type: poisson}\n"
      "boundaryField:\n  a: {type: fixedValue, value: exact}\n");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], at(4, 3) +
                          "mesh.max must exceed mesh.min in every component (component 1: 0 >= 0)");
  EXPECT_EQ(found[1], at(7, 5) + "mesh.patches: side 'ymin' is in both 'a' and 'b'");
  EXPECT_EQ(found[2], at(10, 25) +
                          "boundaryField.a.value: 'exact' needs a manufactured solution (physics.manufactured: sine)");
}

TEST_F(CaseSchemaTest, DiscriminatedBoundaryConditionKeys) {
  const auto found = problems(
      "mesh: {type: box, cells: [1, 1, 1]}\nphysics: {type: poisson, manufactured: sine, source: 1}\n"
      "boundaryField:\n  xmin: {type: zeroGradient, value: 1}\n  xmax: {type: fixedValue}\n"
      "  ymin: {type: fixedValue, value: [1]}\n");
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0], at(2, 46) +
                          "key 'source' in physics is not used when physics.manufactured is sine (it is used when "
                          "physics.type is poisson or diffusion and physics.manufactured is none)");
  EXPECT_EQ(found[1], at(4, 30) +
                          "key 'value' in boundaryField.xmin is not used when boundaryField.xmin.type is zeroGradient "
                          "(it is used when boundaryField.xmin.type is fixedValue)");
  EXPECT_EQ(found[2], at(5, 3) +
                          "missing required key 'value' in boundaryField.xmax (needed when boundaryField.xmax.type is "
                          "fixedValue)");
  EXPECT_EQ(found[3], at(6, 35) + "boundaryField.ymin.value: expected a number or a word, got a list");
}

TEST_F(CaseSchemaTest, DuplicateKeysAreReported) {
  const auto found = problems(base_case + "output:\n  vtk: false\n  vtk: true\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], at(12, 3) + "duplicate key 'vtk' in output");
}

TEST_F(CaseSchemaTest, SetOverridesFileValues) {
  const ResolvedCase c = load(base_case, {"solvers.T.tolerance=1e-10", "mesh.cells=[8, 8, 1]",
                                          "boundaryField.walls.value=2.5", "output.directory=results/x"});
  EXPECT_DOUBLE_EQ(c.get_real("solvers.T.tolerance"), 1e-10);
  EXPECT_EQ(c.get_int3("mesh.cells"), (std::array<std::int64_t, 3>{8, 8, 1}));
  EXPECT_DOUBLE_EQ(c.get_real("boundaryField.walls.value"), 2.5);
  EXPECT_EQ(c.get_string("output.directory"), "results/x");
  EXPECT_EQ(c.where("solvers.T.tolerance").str(), "--set solvers.T.tolerance=1e-10");
}

TEST_F(CaseSchemaTest, SetValuesAreValidatedAndNameTheArgument) {
  const auto found = problems(base_case, {"solvers.T.tolerance=abc", "solvers.T.tolerence=1", "novalue", "mesh..x=1",
                                          "mesh.cells.x=1"});
  ASSERT_EQ(found.size(), 3u);  // the malformed ones stop validation
  EXPECT_EQ(found[0], "--set novalue: expected key.path=value (for example --set solvers.T.tolerance=1e-8)");
  EXPECT_EQ(found[1], "--set mesh..x=1: empty component in key path 'mesh..x'");
  EXPECT_EQ(found[2], "--set mesh.cells.x=1: cannot set 'mesh.cells.x': 'mesh.cells' is not a map");

  // --- Within a section, unknown keys are reported before bad values.
  const auto values = problems(base_case, {"solvers.T.tolerance=abc", "solvers.T.tolerence=1"});
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0],
            "--set solvers.T.tolerence=1: unknown key 'tolerence' in solvers.T (did you mean 'tolerance'?)");
  EXPECT_EQ(values[1], "--set solvers.T.tolerance=abc: solvers.T.tolerance: expected a number, got 'abc'");
}

TEST_F(CaseSchemaTest, SolverSettingsComeFromTheResolvedCase) {
  const ResolvedCase c = load(base_case +
                              "solvers:\n  T: {preconditioner: jacobi, relTol: 0.01, maxIter: 77, backend: auto,\n"
                              "      format: staircase, ordering: rcm, sliceHeight: 64, alpha: 0.05, launch: groups}\n");
  const SolverSettings s = solver_settings(c, "T");
  EXPECT_EQ(s.solver, "CG");
  EXPECT_EQ(s.preconditioner, "diagonal");
  EXPECT_DOUBLE_EQ(s.tolerance, 1e-6);
  EXPECT_DOUBLE_EQ(s.rel_tol, 0.01);
  EXPECT_EQ(s.max_iter, 77);
  EXPECT_EQ(s.backend, Backend::automatic);
  EXPECT_EQ(s.format, "staircase");
  EXPECT_EQ(s.ordering, "rcm");
  EXPECT_EQ(s.format_parameters.integer("sliceHeight"), 64);
  EXPECT_DOUBLE_EQ(s.format_parameters.real("alpha"), 0.05);
  EXPECT_EQ(s.format_parameters.word("launch"), "groups");
  // --- keys the case leaves out stay out (set-up takes the format's defaults)
  EXPECT_FALSE(s.format_parameters.has("chunkSize"));
  EXPECT_FALSE(s.format_parameters.has("sortWindow"));
  EXPECT_THROW(solver_settings(c, "U"), std::out_of_range);
  const FormatParameters defaults = solver_settings(load(base_case), "T").format_parameters;
  EXPECT_TRUE(defaults.values().empty());
  const FormatParameters resolved = resolve_format_parameters("staircase", defaults, 1000);
  EXPECT_EQ(resolved.word("launch"), "interleaved");
  EXPECT_DOUBLE_EQ(resolved.real("alpha"), 0.032);  // 0.01 raised to sliceHeight / rows
  // --- a --set writes its key as the file does
  EXPECT_DOUBLE_EQ(solver_settings(load(base_case, {"solvers.T.alpha=0.2"}), "T").format_parameters.real("alpha"), 0.2);
  // --- auto on the keys set-up tunes, integer or real; no other word
  const SolverSettings tuned =
      solver_settings(load(base_case + "solvers:\n  T: {format: sell, chunkSize: auto, sortWindow: auto}\n"), "T");
  EXPECT_EQ(tuned.format_parameters.word("chunkSize"), "auto");
  EXPECT_EQ(tuned.format_parameters.word("sortWindow"), "auto");
  EXPECT_EQ(solver_settings(load(base_case + "solvers:\n  T: {sliceHeight: auto, alpha: auto}\n"), "T")
                .format_parameters.word("sliceHeight"),
            "auto");
  const auto found = problems(base_case + "solvers:\n  T: {sliceHeight: 48, threshold: fast}\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].find("solvers.T.sliceHeight: must be a multiple of 32"), std::string::npos) << found[0];
  EXPECT_NE(found[1].find("solvers.T.threshold: expected an integer or auto, got 'fast'"), std::string::npos)
      << found[1];
}

TEST_F(CaseSchemaTest, GamgKeysAreReadAndItsVcycleMustBeSymmetric) {
  const ResolvedCase c = load(base_case +
                              "solvers:\n  T: {preconditioner: GAMG, nCellsInCoarsestLevel: 50, mergeLevels: 3,\n"
                              "      smoother: mcsgs, nPreSweeps: 2, nPostSweeps: 2, nVcycles: 3, correctionScale: 1.5}\n");
  const GamgSettings g = solver_settings(c, "T").gamg;
  EXPECT_EQ(g.n_cells_in_coarsest_level, 50);
  EXPECT_EQ(g.merge_levels, 3);
  EXPECT_EQ(g.smoother, Smoother::mcsgs);
  EXPECT_EQ(g.n_pre_sweeps, 2);
  EXPECT_EQ(g.n_post_sweeps, 2);
  EXPECT_EQ(g.n_vcycles, 3);
  EXPECT_DOUBLE_EQ(g.correction_scale, 1.5);
  const auto found = problems(base_case + "solvers:\n  T:\n    preconditioner: GAMG\n    nPostSweeps: 2\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("solvers.T.nPostSweeps: 2 differs from nPreSweeps 1"), std::string::npos) << found[0];
  // GAMG's keys belong to GAMG
  EXPECT_FALSE(problems(base_case + "solvers:\n  T: {preconditioner: DIC, mergeLevels: 2}\n").empty());
}

/// The default of solvers.T.<key> as the schema writes it ("" where it has none).
std::string solver_key_default(const std::string& key) {
  for (const KeySpec* solvers : case_schema().root().children_named("solvers"))
    for (const KeySpec* field : solvers->children_named("T"))
      for (const KeySpec* spec : field->children_named(key))
        if (spec->default_text()) return *spec->default_text();
  return "";
}

// The preconditioner key and the keys its units read come from the unit table: every name and
// alias is accepted, and each unit's key applies under that unit alone (a reader) and nowhere else.
TEST_F(CaseSchemaTest, ThePreconditionerKeysComeFromItsUnits) {
  for (const PreconditionerUnit& unit : preconditioner_table()) {
    std::vector<std::string> words{unit.name};
    words.insert(words.end(), unit.aliases.begin(), unit.aliases.end());
    for (const std::string& word : words) {
      const ResolvedCase c = load(base_case + "solvers:\n  T: {preconditioner: " + word + "}\n");
      EXPECT_EQ(solver_settings(c, "T").preconditioner, unit.name) << word;
    }
  }
  for (const auto& [key, readers] : preconditioner_keys())
    for (const std::string& name : preconditioner_names()) {
      const bool reads = std::find(readers.begin(), readers.end(), name) != readers.end();
      // the key's default, written out: valid wherever the key applies
      const std::string value = solver_key_default(key);
      ASSERT_FALSE(value.empty()) << key;
      const auto found = problems(base_case + "solvers:\n  T: {preconditioner: " + name + ", " + key + ": " + value +
                                  "}\n");
      EXPECT_EQ(found.empty(), reads) << key << " under " << name << (found.empty() ? "" : ": " + found[0]);
    }
  const auto found = problems(base_case + "solvers:\n  T: {preconditioner: ilu}\n");
  ASSERT_EQ(found.size(), 1u);
  for (const std::string& name : preconditioner_names()) EXPECT_NE(found[0].find(name), std::string::npos) << found[0];
}

// The solver key is the Krylov units' names.
TEST_F(CaseSchemaTest, TheSolverKeyIsTheKrylovUnits) {
  for (const std::string& name : krylov_names())
    EXPECT_EQ(solver_settings(load(base_case + "solvers:\n  T: {solver: " + name + "}\n"), "T").solver, name);
  const auto found = problems(base_case + "solvers:\n  T: {solver: GMRES}\n");
  ASSERT_EQ(found.size(), 1u);
  for (const std::string& name : krylov_names()) EXPECT_NE(found[0].find(name), std::string::npos) << found[0];
}

// smoother is GAMG's key and smoothSolver's: each reads its own words, nSweeps is smoothSolver's.
TEST_F(CaseSchemaTest, SmoothSolverReadsItsSmootherAndSweeps) {
  const SolverSettings plain = solver_settings(load(base_case + "solvers:\n  T: {solver: smoothSolver}\n"), "T");
  EXPECT_EQ(plain.smoother, Smoother::symmetric_gauss_seidel);
  EXPECT_EQ(plain.n_sweeps, 1);
  const SolverSettings set = solver_settings(
      load(base_case + "solvers:\n  T: {solver: smoothSolver, smoother: GaussSeidel, nSweeps: 3}\n"), "T");
  EXPECT_EQ(set.smoother, Smoother::gauss_seidel);
  EXPECT_EQ(set.n_sweeps, 3);
  auto found = problems(base_case + "solvers:\n  T: {solver: smoothSolver, smoother: jacobi}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("GaussSeidel, symGaussSeidel"), std::string::npos) << found[0];
  found = problems(base_case + "solvers:\n  T: {preconditioner: GAMG, smoother: symGaussSeidel}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("jacobi, mcsgs"), std::string::npos) << found[0];
  found = problems(base_case + "solvers:\n  T: {solver: CG, nSweeps: 2}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("key 'nSweeps' in solvers.T is not used when solvers.T.solver is CG"), std::string::npos)
      << found[0];
}

// PISO's keys apply under it; upwind is PISO's; pFinal takes p's keys, relTol 0, and its own.
TEST_F(CaseSchemaTest, PisoKeysAndTheFinalPressureSolver) {
  const std::string flow =
      "mesh: {type: box, cells: [4, 4, 1], patches: {lid: {sides: [ymax]}, walls: {sides: [xmin, xmax, ymin]}, "
      "sides: {sides: [zmin, zmax], type: empty}}}\n"
      "boundaryField: {lid: {type: wall, velocity: [1, 0, 0]}, walls: {type: wall}, sides: {type: empty}}\n"
      "time: {endTime: 1, deltaT: 0.1, writeInterval: 1}\n";
  const std::string piso = "physics: {type: incompressible, nu: 0.01, algorithm: PISO, convection: upwind, "
                           "nCorrectors: 3}\n";
  const ResolvedCase c = load(flow + piso + "solvers:\n  p: {preconditioner: DIC, tolerance: 1e-7, relTol: 0.05}\n"
                                            "  pFinal: {tolerance: 1e-9}\n");
  EXPECT_EQ(c.get_int("physics.nCorrectors"), 3);
  const SolverSettings p_final = final_solver_settings(c, "pFinal", "p");
  EXPECT_EQ(p_final.preconditioner, "DIC");  // p's
  EXPECT_DOUBLE_EQ(p_final.rel_tol, 0.0);    // relTol 0 unless given
  EXPECT_DOUBLE_EQ(p_final.tolerance, 1e-9); // its own
  auto found = problems(flow + "physics: {type: incompressible, nu: 0.01, convection: upwind}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("upwind is PISO's"), std::string::npos) << found[0];
  found = problems(flow + "physics: {type: incompressible, nu: 0.01, nCorrectors: 2}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("is not used when physics.algorithm is projection"), std::string::npos) << found[0];
  found = problems(flow + "physics: {type: incompressible, nu: 0.01}\nsolvers:\n  pFinal: {relTol: 0}\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("pFinal"), std::string::npos) << found[0];
}

TEST_F(CaseSchemaTest, PrintedResolvedCaseReadsBackToItself) {
  const ResolvedCase first = load(base_case + "solvers: {T: {tolerance: 0.1}}\n");
  const std::string printed = first.to_yaml();
  for (const char* section : {"mesh:", "physics:", "boundaryField:", "solvers:", "discretisation:", "output:"})
    EXPECT_NE(printed.find(section), std::string::npos) << section;
  EXPECT_NE(printed.find("cells: [4, 3, 2]"), std::string::npos) << printed;
  const ResolvedCase second = load(printed);
  EXPECT_EQ(second.to_yaml(), printed);
}

/// Every key of the schema, as "section.key" paths (entries of named maps as <name>).
void collect_keys(const KeySpec& spec, const std::string& path, std::vector<std::string>& keys) {
  for (const auto& child : spec.children()) {
    const std::string child_path = path.empty() ? child->name() : path + "." + child->name();
    keys.push_back(child_path);
    collect_keys(*child, child_path, keys);
    if (child->entry_spec() != nullptr) collect_keys(*child->entry_spec(), child_path + ".<name>", keys);
  }
}

TEST(CaseReference, EveryKeyIsDocumented) {
  std::ifstream in(std::filesystem::path(FVMMINI_FIXTURES_DIR) / ".." / ".." / "docs" / "cases.md");
  ASSERT_TRUE(in) << "docs/cases.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> keys;
  collect_keys(case_schema().root(), "", keys);
  ASSERT_GT(keys.size(), 30u);
  for (const auto& key : keys) {
    const std::string name = key.substr(key.rfind('.') + 1);
    EXPECT_NE(text.str().find("`" + name + "`"), std::string::npos) << key << " is not in docs/cases.md";
  }
}

TEST(CaseReference, TheFormatSectionIsTheFormatUnits) {
  std::ifstream in(std::filesystem::path(FVMMINI_FIXTURES_DIR) / ".." / ".." / "docs" / "cases.md");
  ASSERT_TRUE(in) << "docs/cases.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string begin = "<!-- begin: fvmmini --list-formats -->\n", end = "<!-- end: fvmmini --list-formats -->";
  const auto first = text.str().find(begin), last = text.str().find(end);
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(text.str().substr(first + begin.size(), last - first - begin.size()), format_reference_markdown())
      << "docs/cases.md: replace the section with the output of fvmmini --list-formats";
}

TEST(ShippedCases, EveryCaseInCasesFolderIsValid) {
  const auto folder = std::filesystem::path(FVMMINI_FIXTURES_DIR) / ".." / ".." / "cases";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(load_case(entry.path(), {})) << entry.path();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(ClosestMatch, SuggestsOnlyCloseWords) {
  EXPECT_EQ(closest_match("tolerence", {"tolerance", "relTol"}), "tolerance");
  EXPECT_EQ(closest_match("reltol", {"tolerance", "relTol"}), "relTol");
  EXPECT_EQ(closest_match("p", {"T"}), "");
  EXPECT_EQ(closest_match("plotting", {"mesh", "physics", "output"}), "");
}

TEST(KeyPath, ANameWithADotIsOneQuotedComponent) {
  EXPECT_EQ(key_path("boundaryField", "inlet"), "boundaryField.inlet");
  EXPECT_EQ(key_path("boundaryField", "inlet.left"), "boundaryField.\"inlet.left\"");
  EXPECT_EQ(key_path("", "a.b"), "\"a.b\"");
  EXPECT_EQ(split_key_path("boundaryField.\"inlet.left\".type"),
            (std::vector<std::string>{"boundaryField", "inlet.left", "type"}));
  EXPECT_EQ(split_key_path("solvers.T.tolerance"), (std::vector<std::string>{"solvers", "T", "tolerance"}));
  EXPECT_EQ(split_key_path("mesh"), std::vector<std::string>{"mesh"});
  EXPECT_EQ(parent_key_path("boundaryField.\"inlet.left\".type"), "boundaryField.\"inlet.left\"");
  EXPECT_EQ(parent_key_path("boundaryField.\"inlet.left\""), "boundaryField");
  EXPECT_EQ(parent_key_path("boundaryField"), "");
  for (const char* name : {"inlet", "inlet.left", "a.b.c", ".x", "y."})
    EXPECT_EQ(split_key_path(key_path("boundaryField", name)), (std::vector<std::string>{"boundaryField", name}));
}

}  // namespace
}  // namespace fvmmini
