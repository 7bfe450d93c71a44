// The mesh a case asks for (box, polyMesh, Gmsh, with patchTypes), and the checks of the
// case against it: every patch has a condition, empty matches empty, referenceCell exists, a
// steady equation's level is fixed in every region; patches whose names hold a '.'.

#include <gtest/gtest.h>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "app/case_mesh.hpp"
#include "app/key_path.hpp"
#include "app/run_case.hpp"
#include "mesh/polymesh_reader.hpp"
#include "mesh/mesh_size.hpp"
#include "temp_folder.hpp"
#include "tests/mesh/mesh_test_support.hpp"
#include "tests/mesh/two_boxes.hpp"
#include "tests/scoped_env.hpp"

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
  //     under a limit below that whatever the machine's memory (a GPU host has 128 GiB)
  const test::ScopedEnv limit(memory_limit_variable, "16G");
  const ResolvedCase huge = load(two_cells("solvers: {T: {format: sell, chunkSize: 2147483647}}\n"));
  const Mesh mesh = build_case_mesh(huge);
  const auto found = mismatches(huge, mesh);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind(at(5, 29) + "solvers.T.chunkSize = 2147483647: the run with the sell format's padding",
                           0),
            0u)
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
  EXPECT_NE(dry_run_mesh(costly).report.find("memory of keys: solvers.T.chunkSize = 100000: 2.29 MiB"),
            std::string::npos)
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
  EXPECT_EQ(found[0].rfind(at(6, 12) + "sampling.points = 2147483647: the run with 4294967294 centreline points",
                           0),
            0u)
      << found[0];
  const ResolvedCase usual = load(flow);
  const auto memory = key_memory(usual, mesh_counts(build_case_mesh(usual)));
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory[1].key, "sampling.points = 129");
  EXPECT_NE(memory[1].note.find("centrelines.csv about"), std::string::npos);
}

TEST_F(CaseMeshTest, TheFlowsMemoryIsItsOwnNotAScalarRuns) {
  // --- a limit between a scalar run's estimate and the flow's: the flow is refused, naming physics.type
  const std::string mesh = "mesh: {type: box, cells: [40, 40, 40], patches: {lid: {sides: [ymax], type: wall}, "
                           "walls: {sides: [xmin, xmax, ymin, zmin, zmax], type: wall}}}\n";
  const ResolvedCase flow = load(mesh + "physics: {type: incompressible, nu: 0.01}\n"
                                        "boundaryField: {lid: {type: wall, velocity: [1, 0, 0]}, walls: {type: wall}}\n"
                                        "time: {endTime: 1, deltaT: 0.1, writeInterval: 1}\noutput: {vtk: false}\n");
  const Mesh built = build_case_mesh(flow);
  const MeshCounts counts = mesh_counts(built);
  const auto memory = key_memory(flow, counts);
  ASSERT_FALSE(memory.empty());
  EXPECT_EQ(memory[0].key, "physics.type = incompressible");
  EXPECT_NEAR(static_cast<double>(memory[0].bytes), 1.4 * static_cast<double>(estimated_run_bytes(counts)), 1.0);
  const test::ScopedEnv limit(memory_limit_variable, std::to_string(estimated_run_bytes(counts) + memory[0].bytes / 2));
  const auto found = mismatches_of_counts(flow, built.patches, counts);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("physics.type = incompressible: the run with the flow's fields"), std::string::npos)
      << found[0];
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

/// The problem check_case_regions finds ("" when none).
std::string region_problem(const ResolvedCase& c, const Mesh& mesh) {
  try {
    check_case_regions(c, mesh, mesh_regions(mesh));
  } catch (const CaseError& e) {
    EXPECT_EQ(e.problems().size(), 1u);
    return e.problems().front().str();
  }
  return "";
}

/// Run a case quietly into `folder`/out: the exit status.
int run_quietly(const ResolvedCase& c, const testing::TempFolder& folder) {
  RunContext context;
  context.output_directory = folder.path() / "out";
  context.quiet = true;
  return run_case(c, context);
}

TEST_F(CaseMeshTest, ASteadyEquationNeedsItsLevelFixedInEveryRegion) {
  // --- two boxes apart: cells 0..7 with patch left, cells 8..10 with patch right
  test::write_polymesh(test::two_boxes({2, 2, 2}, {3, 1, 1}, "left", "right"), folder_.path() / "two");
  const std::string mesh = "mesh: {type: polyMesh, file: two}\n";
  const ResolvedCase one_fixed = load(mesh +
                                      "physics: {type: poisson}\n"
                                      "boundaryField:\n  left: {type: fixedValue, value: 0}\n"
                                      "  right: {type: zeroGradient}\n"
                                      "output: {vtk: false}\n");
  const Mesh two = build_case_mesh(one_fixed);
  EXPECT_EQ(region_problem(one_fixed, two),
            at(3, 1) + "boundaryField: the mesh has 2 regions (cells that no internal face connects) and 1 of them has "
                       "no face on a fixedValue patch, so the steady equation of T is singular there: the region of 3 "
                       "cells whose lowest cell is 8. Make a patch of that region fixedValue, or use a mesh of one "
                       "region");
  // --- refused before anything is solved, by the run and by --dry-run
  EXPECT_THROW(run_quietly(one_fixed, folder_), CaseError);
  EXPECT_FALSE(std::filesystem::exists(folder_.path() / "out"));
  EXPECT_THROW(dry_run_mesh(one_fixed), CaseError);

  // --- no patch fixes the level: referenceCell holds its own region only
  const ResolvedCase none_fixed = load(mesh +
                                       "physics: {type: poisson}\n"
                                       "boundaryField: {left: {type: zeroGradient}, right: {type: zeroGradient}}\n"
                                       "discretisation: {referenceCell: 9}\n");
  const std::string pinned = region_problem(none_fixed, two);
  EXPECT_NE(pinned.find("(no patch is fixedValue: discretisation.referenceCell 9 holds the level of its own region "
                        "only)"),
            std::string::npos)
      << pinned;
  EXPECT_NE(pinned.find("the region of 8 cells whose lowest cell is 0"), std::string::npos) << pinned;

  // --- the pressure of incompressible: a pressureOutlet in each region
  const std::string flow = mesh + "physics: {type: incompressible, nu: 0.01}\n"
                                  "time: {endTime: 0.1, deltaT: 0.1, writeInterval: 0.1}\noutput: {vtk: false}\n"
                                  "sampling: {centrelines: false}\n";
  const ResolvedCase one_outlet =
      load(flow + "boundaryField: {left: {type: pressureOutlet}, right: {type: wall}}\n");
  EXPECT_NE(region_problem(one_outlet, two).find("no face on a pressureOutlet patch, so the pressure equation is "
                                                 "singular there: the region of 3 cells whose lowest cell is 8"),
            std::string::npos)
      << region_problem(one_outlet, two);
  EXPECT_EQ(region_problem(load(flow + "boundaryField: {left: {type: pressureOutlet}, "
                                       "right: {type: pressureOutlet}}\n"),
                           two),
            "");

  // --- a transient diffusion is never singular (its time term), and runs
  const ResolvedCase diffusion = load(mesh +
                                      "physics: {type: diffusion, initial: 1}\n"
                                      "boundaryField: {left: {type: fixedValue, value: 0}, "
                                      "right: {type: zeroGradient}}\n"
                                      "time: {endTime: 0.1, deltaT: 0.05, writeInterval: 0.1}\noutput: {vtk: false}\n");
  EXPECT_EQ(region_problem(diffusion, two), "");
  EXPECT_EQ(run_quietly(diffusion, folder_), 0);

  // --- a fixed value in each region: it solves, and --dry-run says how many regions there are
  const ResolvedCase both_fixed = load(mesh +
                                       "physics: {type: poisson}\n"
                                       "boundaryField: {left: {type: fixedValue, value: 0}, right: {type: fixedValue, "
                                       "value: 1}}\noutput: {vtk: false}\n");
  EXPECT_EQ(region_problem(both_fixed, two), "");
  EXPECT_NE(dry_run_mesh(both_fixed).report.find("*Number of regions: 2"), std::string::npos)
      << dry_run_mesh(both_fixed).report;
  EXPECT_EQ(run_quietly(both_fixed, folder_), 0);
}

TEST_F(CaseMeshTest, AFixedValuePatchWithoutFacesFixesNothing) {
  // --- box_hex with a fourth patch of no faces (valid in OpenFOAM): its fixedValue holds no level
  const auto mesh_folder = folder_.path() / "ghost";
  std::filesystem::copy(fixtures / "polymesh" / "box_hex", mesh_folder);
  std::string boundary = test::read_file(mesh_folder / "boundary");
  boundary.replace(boundary.find("3\n("), 3, "4\n(\n    ghost\n    {\n        type patch;\n        nFaces 0;\n"
                                           "        startFace 46;\n    }");
  std::filesystem::remove(mesh_folder / "boundary");
  test::write_file(mesh_folder / "boundary", boundary);
  const ResolvedCase c = load("mesh: {type: polyMesh, file: ghost}\nphysics: {type: poisson}\n"
                              "boundaryField: {ghost: {type: fixedValue, value: 1}, inlet: {type: zeroGradient}, "
                              "outlet: {type: zeroGradient}, walls: {type: zeroGradient}}\n");
  const Mesh mesh = build_case_mesh(c);
  ASSERT_EQ(mesh.patches.size(), 4u);
  EXPECT_EQ(region_problem(c, mesh), at(3, 1) + "boundaryField: no face of the mesh is on a fixedValue patch (those "
                                                "named have no faces), so the steady equation of T is singular: make "
                                                "a patch with faces fixedValue");
}

/// box_hex copied into `folder` with its patch inlet renamed `name`.
std::filesystem::path box_hex_with_inlet(const std::filesystem::path& folder, const std::string& name) {
  std::filesystem::copy(fixtures / "polymesh" / "box_hex", folder);
  std::string boundary = test::read_file(folder / "boundary");
  boundary.replace(boundary.find("    inlet\n"), 10, "    " + name + "\n");
  std::filesystem::remove(folder / "boundary");
  test::write_file(folder / "boundary", boundary);
  return folder;
}

TEST_F(CaseMeshTest, APatchNamedWithADotTakesAConditionInTheFileAndThroughSet) {
  box_hex_with_inlet(folder_.path() / "dotted", "inlet.left");
  ASSERT_NE(read_polymesh(folder_.path() / "dotted").find_patch("inlet.left"), nullptr);
  const std::string mesh = "mesh: {type: polyMesh, file: dotted, patchTypes: {inlet.left: wall}}\n"
                           "physics: {type: poisson}\noutput: {vtk: false}\n";
  const std::string key = key_path("boundaryField", "inlet.left");
  EXPECT_EQ(key, "boundaryField.\"inlet.left\"");

  // --- in the file: a named-map entry (boundaryField, mesh.patchTypes) whose name holds a '.'
  const ResolvedCase c = load(mesh +
                              "boundaryField:\n  inlet.left: {type: fixedValue, value: 1}\n"
                              "  outlet: {type: fixedValue, value: 0}\n  walls: {type: zeroGradient}\n");
  EXPECT_EQ(c.get_string(key + ".type"), "fixedValue");
  EXPECT_EQ(c.get_real(key + ".value"), 1.0);
  EXPECT_EQ(c.where(key + ".value").line, 5);
  EXPECT_EQ(c.entry_names("boundaryField"), (std::vector<std::string>{"inlet.left", "outlet", "walls"}));
  const Mesh built = build_case_mesh(c);
  EXPECT_EQ(built.find_patch("inlet.left")->type, "wall");
  EXPECT_EQ(mismatches(c, built), std::vector<std::string>{});
  EXPECT_EQ(run_quietly(c, folder_), 0);

  // --- through --set: the quoted component, over the file's entry and as a new one
  const std::string zero_gradient = mesh +
                                    "boundaryField:\n  inlet.left: {type: zeroGradient}\n"
                                    "  outlet: {type: fixedValue, value: 0}\n  walls: {type: zeroGradient}\n";
  file_ = folder_.write("case.yaml", zero_gradient);
  const ResolvedCase set = load_case(file_, {"boundaryField.\"inlet.left\".type=fixedValue",
                                             "boundaryField.\"inlet.left\".value=2"});
  EXPECT_EQ(set.get_string(key + ".type"), "fixedValue");
  EXPECT_EQ(set.get_real(key + ".value"), 2.0);
  EXPECT_EQ(set.where(key + ".value").origin, "--set boundaryField.\"inlet.left\".value=2");
  EXPECT_EQ(set.entry_names("boundaryField"), (std::vector<std::string>{"inlet.left", "outlet", "walls"}));
  EXPECT_EQ(mismatches(set, build_case_mesh(set)), std::vector<std::string>{});
  file_ = folder_.write("case.yaml", mesh + "boundaryField: {outlet: {type: fixedValue, value: 0}, walls: {type: "
                                            "zeroGradient}}\n");
  const ResolvedCase added = load_case(file_, {"boundaryField.\"inlet.left\"={type: fixedValue, value: 3}"});
  EXPECT_EQ(added.get_real(key + ".value"), 3.0);
  EXPECT_EQ(mismatches(added, build_case_mesh(added)), std::vector<std::string>{});
  const ResolvedCase type_set = load_case(file_, {"mesh.patchTypes.\"inlet.left\"=empty",
                                                  "boundaryField.\"inlet.left\"={type: empty}"});
  EXPECT_EQ(build_case_mesh(type_set).find_patch("inlet.left")->type, "empty");

  // --- a value that fails names the quoted path; an unclosed quote is refused with the syntax
  try {
    load_case(file_, {"boundaryField.\"inlet.left\".type=fixedValu"});
    FAIL() << "expected a CaseError";
  } catch (const CaseError& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_NE(e.problems()[0].message.find("unknown value 'fixedValu' for boundaryField.\"inlet.left\".type"),
              std::string::npos)
        << e.problems()[0].message;
  }
  try {
    load_case(file_, {"boundaryField.\"inlet.left.type=fixedValue"});
    FAIL() << "expected a CaseError";
  } catch (const CaseError& e) {
    EXPECT_NE(e.problems()[0].message.find("a name with a '.' is one quoted component of a --set path: "
                                           "boundaryField.\"inlet.left\".type"),
              std::string::npos)
        << e.problems()[0].message;
  }
}

TEST_F(CaseMeshTest, ATypoInADottedPatchNameGetsDidYouMean) {
  box_hex_with_inlet(folder_.path() / "dotted", "inlet.left");
  const std::string mesh = "mesh: {type: polyMesh, file: dotted}\nphysics: {type: poisson}\n";
  const ResolvedCase c = load(mesh +
                              "boundaryField:\n  inlet.lfet: {type: fixedValue, value: 1}\n"
                              "  outlet: {type: fixedValue, value: 0}\n  walls: {type: zeroGradient}\n");
  const auto found = mismatches(c, build_case_mesh(c));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], at(3, 1) + "boundaryField: no condition for mesh patch 'inlet.left' (type patch)");
  EXPECT_EQ(found[1], at(4, 3) + "boundaryField: the mesh has no patch 'inlet.lfet' (its patches: inlet.left, outlet, "
                                 "walls) (did you mean 'inlet.left'?)");
  // --- through --set, and in mesh.patchTypes
  file_ = folder_.write("case.yaml",
                        mesh + "boundaryField: {outlet: {type: zeroGradient}, walls: {type: zeroGradient}}\n");
  const ResolvedCase set = load_case(file_, {"boundaryField.\"inlet.lfet\".type=zeroGradient"});
  const auto set_found = mismatches(set, build_case_mesh(set));
  ASSERT_EQ(set_found.size(), 2u);
  EXPECT_EQ(set_found[1], "--set boundaryField.\"inlet.lfet\".type=zeroGradient: boundaryField: the mesh has no patch "
                          "'inlet.lfet' (its patches: inlet.left, outlet, walls) (did you mean 'inlet.left'?)");
  const ResolvedCase types = load(
      "mesh: {type: polyMesh, file: dotted, patchTypes: {inlet.lfet: wall}}\nphysics: {type: poisson}\n"
      "boundaryField: {}\n");
  try {
    build_case_mesh(types);
    FAIL() << "expected a CaseError";
  } catch (const CaseError& e) {
    EXPECT_EQ(e.problems()[0].message, "mesh.patchTypes: the mesh has no patch 'inlet.lfet' (its patches: inlet.left, "
                                       "outlet, walls) (did you mean 'inlet.left'?)");
  }
}

}  // namespace
}  // namespace fvmmini
