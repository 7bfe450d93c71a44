// The fvmmini executable as a user runs it: exit status 0 / 1 / 2, every error on stderr as
// "fvmmini: error: ...", and no output folder after a run that fails.

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "temp_folder.hpp"

namespace fvmmini {
namespace {

struct Outcome {
  int status = -1;
  std::string out, err;
};

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Run fvmmini with `arguments` (each single-quoted) in `folder`, with `environment` ("NAME=value ...")
/// added; stdout and stderr go to files outside it.
Outcome run_fvmmini(const std::filesystem::path& folder, const std::vector<std::string>& arguments,
                    const std::string& environment = "") {
  static const testing::TempFolder logs;
  std::string command = "cd '" + folder.string() + "' && " + environment + " '" FVMMINI_EXECUTABLE "'";
  for (const auto& argument : arguments) command += " '" + argument + "'";
  command += " > '" + (logs.path() / "out").string() + "' 2> '" + (logs.path() / "err").string() + "'";
  const int raw = std::system(command.c_str());
  Outcome outcome;
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  outcome.out = read_text(logs.path() / "out");
  outcome.err = read_text(logs.path() / "err");
  return outcome;
}

std::vector<std::string> folder_entries(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    names.push_back(std::filesystem::relative(entry.path(), folder).string());
  std::sort(names.begin(), names.end());
  return names;
}

const std::string good_case =
    "mesh:\n"
    "  type: box\n"
    "  cells: [4, 4, 1]\n"
    "  patches:\n"
    "    walls: {sides: [xmin, xmax, ymin, ymax], type: wall}\n"
    "    frontAndBack: {sides: [zmin, zmax], type: empty}\n"
    "physics:\n"
    "  type: poisson\n"
    "  source: 1\n"
    "boundaryField:\n"
    "  walls: {type: fixedValue, value: 0}\n"
    "  frontAndBack: {type: empty}\n"
    "output: {vtk: false}\n";  // so that builds without VTK accept it

TEST(Cli, HelpAndVersionSucceed) {
  testing::TempFolder folder;
  const Outcome help = run_fvmmini(folder.path(), {"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--dry-run"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--set"), std::string::npos) << help.out;
  const Outcome version = run_fvmmini(folder.path(), {"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("fvmmini ", 0), 0u) << version.out;
  // --- the formats with their backends, in --help and in full with --list-formats
  EXPECT_NE(help.out.find("symmetric      reference  "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("dia            reference, cuda"), std::string::npos) << help.out;
  const Outcome formats = run_fvmmini(folder.path(), {"--list-formats"});
  EXPECT_EQ(formats.status, 0) << formats.err;
  EXPECT_NE(formats.out.find("| `maxDiagonals` | `dia` | int | `27` |"), std::string::npos) << formats.out;
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{});
}

TEST(Cli, UsageErrorsExitTwo) {
  testing::TempFolder folder;
  for (const auto& arguments : std::vector<std::vector<std::string>>{{}, {"--bogus", "x.yaml"}, {"a.yaml", "b.yaml"}}) {
    const Outcome outcome = run_fvmmini(folder.path(), arguments);
    EXPECT_EQ(outcome.status, 2) << outcome.err;
    EXPECT_EQ(outcome.err.rfind("fvmmini: error: ", 0), 0u) << outcome.err;
  }
  const Outcome missing = run_fvmmini(folder.path(), {"nothing.yaml"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "fvmmini: error: nothing.yaml: cannot open the case file (does it exist?)\n");
  EXPECT_TRUE(folder_entries(folder.path()).empty());
}

TEST(Cli, BadCaseExitsTwoWithEveryProblemAndWritesNothing) {
  testing::TempFolder folder;
  folder.write("bad.yaml", good_case + "solvers:\n  T:\n    tolerence: 1e-8\n    maxIter: many\n");
  const Outcome outcome = run_fvmmini(folder.path(), {"bad.yaml"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_EQ(outcome.err,
            "fvmmini: error: bad.yaml:16:5: unknown key 'tolerence' in solvers.T (did you mean 'tolerance'?)\n"
            "fvmmini: error: bad.yaml:17:14: solvers.T.maxIter: expected an integer, got 'many'\n"
            "fvmmini: 2 problems; nothing was run\n");
  EXPECT_EQ(outcome.out, "");
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"bad.yaml"});
}

TEST(Cli, BadSetExitsTwoNamingTheArgument) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--set", "physics.diffusivity=0"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_EQ(outcome.err,
            "fvmmini: error: --set physics.diffusivity=0: physics.diffusivity = 0 is out of range (must be > 0)\n");
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
}

TEST(Cli, CaseThatDoesNotFitItsMeshExitsTwoAndWritesNothing) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  for (const bool dry : {true, false}) {
    std::vector<std::string> arguments{"case.yaml", "--set", "mesh.patches.walls.sides=[xmin, xmax, ymin]"};
    if (dry) arguments.push_back("--dry-run");
    const Outcome outcome = run_fvmmini(folder.path(), arguments);
    EXPECT_EQ(outcome.status, 2) << outcome.err;
    EXPECT_EQ(outcome.err,
              "fvmmini: error: case.yaml:10:1: boundaryField: no condition for mesh patch 'ymax' (type patch)\n");
    EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
  }
}

TEST(Cli, FormatParameterThatDoesNotFitTheMatrixExitsTwoAndWritesNothing) {
  // alpha must lie in [sliceHeight/rows, 1]: only the matrix size decides, after the mesh is built
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(
      folder.path(), {"case.yaml", "--set", "mesh.cells=[16, 16, 1]", "--set", "solvers.T.format=staircase", "--set",
                      "solvers.T.alpha=0.001"});
  EXPECT_EQ(outcome.status, 2) << outcome.err;
  EXPECT_EQ(outcome.err.rfind("fvmmini: error: ", 0), 0u) << outcome.err;
  EXPECT_NE(outcome.err.find("alpha must lie in [slice_height/rows, 1]"), std::string::npos) << outcome.err;
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
}

TEST(Cli, DiaOnAMatrixWithoutItsStructureExitsTwoSayingWhyAndWritesNothing) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(
      folder.path(), {"case.yaml", "--set", "mesh.cells=[16, 16, 1]", "--set", "solvers.T.format=dia", "--set",
                      "solvers.T.ordering=random"});
  EXPECT_EQ(outcome.status, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("solvers.T: dia needs a structured mesh in natural ordering (ordering: none): this "
                             "matrix has "),
            std::string::npos)
      << outcome.err;
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
  // --- the same box in its natural order runs
  EXPECT_EQ(run_fvmmini(folder.path(), {"case.yaml", "--quiet", "--set", "mesh.cells=[16, 16, 1]", "--set",
                                        "solvers.T.format=dia"})
                .status,
            0);
}

TEST(Cli, UnreadableMeshExitsOneAndWritesNothing) {
  testing::TempFolder folder;
  folder.write("broken.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n");
  folder.write("case.yaml",
               "mesh: {type: gmsh, file: broken.msh}\nphysics: {type: poisson}\nboundaryField: {}\noutput: {vtk: false}\n");
  for (const bool dry : {true, false}) {
    std::vector<std::string> arguments{"case.yaml"};
    if (dry) arguments.push_back("--dry-run");
    const Outcome outcome = run_fvmmini(folder.path(), arguments);
    EXPECT_EQ(outcome.status, 1) << outcome.err;
    EXPECT_EQ(outcome.err.rfind("fvmmini: error: mesh: ", 0), 0u) << outcome.err;
    EXPECT_NE(outcome.err.find("broken.msh"), std::string::npos) << outcome.err;
    EXPECT_EQ(folder_entries(folder.path()), (std::vector<std::string>{"broken.msh", "case.yaml"}));
  }
}

TEST(Cli, NonOrthogonalCorrectionReportsItsLoopAndFailsWhenAskedTo) {
  testing::TempFolder folder;
  folder.write("case.yaml", "mesh: {type: gmsh, file: '" + std::string(FVMMINI_FIXTURES_DIR) +
                                "/gmsh/cube_tet_h8.msh'}\n"
                                "physics: {type: poisson, manufactured: sine}\n"
                                "boundaryField: {walls: {type: fixedValue, value: exact}}\n"
                                "solvers: {T: {preconditioner: jacobi, tolerance: 1e-10, maxIter: 2000}}\n"
                                "output: {vtk: false}\n");
  const Outcome converged = run_fvmmini(folder.path(), {"case.yaml"});
  EXPECT_EQ(converged.status, 0) << converged.err;
  EXPECT_NE(converged.out.find("Non-orthogonal correction: 10 correctors, residual"), std::string::npos)
      << converged.out;
  EXPECT_EQ(converged.out.find("Warning"), std::string::npos) << converged.out;

  const Outcome warned = run_fvmmini(folder.path(), {"case.yaml", "--set", "discretisation.nonOrthogonalCorrectors=3"});
  EXPECT_EQ(warned.status, 0) << warned.err;
  EXPECT_NE(warned.out.find("Warning: the non-orthogonal correction did not converge"), std::string::npos)
      << warned.out;
  const std::string summary = read_text(folder.path() / "out" / "case" / "summary.json");
  EXPECT_NE(summary.find("\"solvesNotConverged\": 1"), std::string::npos) << summary;

  const Outcome failed = run_fvmmini(folder.path(), {"case.yaml", "--set", "discretisation.nonOrthogonalCorrectors=3",
                                                     "--set", "discretisation.nonOrthogonalNotConverged=error"});
  EXPECT_EQ(failed.status, 1);
  EXPECT_NE(failed.err.find("the non-orthogonal correction did not converge"), std::string::npos) << failed.err;
  EXPECT_NE(read_text(folder.path() / "out" / "case" / "summary.json").find("\"failed\""), std::string::npos);
}

TEST(Cli, DryRunChecksPrintsAndWritesNothing) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--dry-run", "--set", "solvers.T.format=sell"});
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_EQ(outcome.err, "");
  EXPECT_NE(outcome.out.find("# Mesh: box 4x4x1 (sized, not built: a generated box needs no check)\n"
                             "    points: 50\n    faces: 72\n    internal faces: 24\n    cells: 16\n"
                             "    patches: walls (wall, 16 faces) frontAndBack (empty, 32 faces)\n    memory: about "),
            std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("cells: [4, 4, 1]"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("format: sell"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("directory: out/case"), std::string::npos) << outcome.out;
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});

  const Outcome quiet = run_fvmmini(folder.path(), {"case.yaml", "--dry-run", "--quiet"});
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.out, "");
}

TEST(Cli, DryRunOfAFileMeshChecksItAndEstimatesItsMemory) {
  testing::TempFolder folder;
  folder.write("case.yaml", "mesh: {type: polyMesh, file: '" + std::string(FVMMINI_FIXTURES_DIR) + "/polymesh/box_hex'}\n"
                            "physics: {type: poisson}\n"
                            "boundaryField: {inlet: {type: fixedValue, value: 1}, outlet: {type: fixedValue, value: 0},"
                            " walls: {type: zeroGradient}}\noutput: {vtk: false}\n");
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--dry-run"}, "FVMMINI_MEMORY_LIMIT=2G");
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("Mesh OK."), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("    memory: about 22.5 KiB for the mesh and a run (limit 2.00 GiB: FVMMINI_MEMORY_LIMIT)\n"),
            std::string::npos)
      << outcome.out;
}

TEST(Cli, BoxPastIndicesOrMemoryExitsTwoBeforeAllocating) {
  testing::TempFolder folder;
  std::string text = good_case;
  text.replace(text.find("[4, 4, 1]"), 9, "[800, 800, 800]");
  folder.write("case.yaml", text);
  for (const bool dry : {true, false}) {
    std::vector<std::string> arguments{"case.yaml"};
    if (dry) arguments.push_back("--dry-run");
    const Outcome outcome = run_fvmmini(folder.path(), arguments);
    EXPECT_EQ(outcome.status, 2) << outcome.err;
    EXPECT_EQ(outcome.err, "fvmmini: error: case.yaml:3:3: mesh.cells: box 800x800x800: 6151680000 face-vertex entries "
                           "are past the 32-bit index range (at most 2147483647)\n");
    EXPECT_EQ(outcome.out, "");
    EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});

    arguments.insert(arguments.end(), {"--set", "mesh.cells=[400, 400, 400]"});
    const Outcome memory = run_fvmmini(folder.path(), arguments, "FVMMINI_MEMORY_LIMIT=1G");
    EXPECT_EQ(memory.status, 2) << memory.err;
    EXPECT_EQ(memory.err, "fvmmini: error: --set mesh.cells=[400, 400, 400]: mesh.cells: box 400x400x400: a mesh of "
                          "64000000 cells, 192480000 faces and 64481201 points needs at least about 48.9 GiB for a run, "
                          "more than the memory limit of 1.00 GiB (FVMMINI_MEMORY_LIMIT)\n");
    EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
  }
}

TEST(Cli, DryRunSizesABoxWithoutBuildingIt) {
  // --- 8e6 cells would take gigabytes to build: the dry run reports their sizes in a few megabytes
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--dry-run", "--set", "mesh.cells=[200, 200, 200]"},
                                      "FVMMINI_MEMORY_LIMIT=1T");
  rusage children{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("    points: 8120601\n    faces: 24120000\n    internal faces: 23880000\n    cells: 8000000\n"),
            std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("    memory: about 6.12 GiB for the mesh and a run (limit 1.00 TiB: FVMMINI_MEMORY_LIMIT)\n"),
            std::string::npos)
      << outcome.out;
  EXPECT_LT(children.ru_maxrss, 256 * 1024) << "peak resident memory of a child, KiB";
}

TEST(Cli, HostileMeshCountsExitOneNamingFileLineAndCount) {
  testing::TempFolder folder;
  // --- a Gmsh $Nodes count of 10^12 in a file of a few bytes
  folder.write("huge.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1000000000000 1 1000000000000\n"
                           "3 1 0 1\n1\n0 0 0\n$EndNodes\n");
  folder.write("gmsh.yaml", "mesh: {type: gmsh, file: huge.msh}\nphysics: {type: poisson}\nboundaryField: {}\n"
                            "output: {vtk: false}\n");
  const Outcome gmsh = run_fvmmini(folder.path(), {"gmsh.yaml", "--dry-run"});
  EXPECT_EQ(gmsh.status, 1) << gmsh.err;
  EXPECT_NE(gmsh.err.find("huge.msh:5: 1000000000000 nodes cannot fit in the "), std::string::npos) << gmsh.err;

  // --- a polyMesh whose owner names cell 2^31 - 1
  const std::filesystem::path poly = folder.path() / "poly";
  std::filesystem::create_directories(poly);
  for (const char* name : {"points", "faces", "neighbour", "boundary"})
    std::filesystem::copy_file(std::filesystem::path(FVMMINI_FIXTURES_DIR) / "polymesh/box_hex" / name, poly / name);
  std::string owner = read_text(std::filesystem::path(FVMMINI_FIXTURES_DIR) / "polymesh/box_hex/owner");
  owner.erase(owner.find("    note"), owner.find('\n', owner.find("    note")) + 1 - owner.find("    note"));
  owner.replace(owner.find("(\n0\n"), 4, "(\n2147483647\n");
  const long line = 1 + std::count(owner.begin(), owner.begin() + static_cast<long>(owner.find("2147483647")), '\n');
  folder.write("poly/owner", owner);
  folder.write("poly.yaml", "mesh: {type: polyMesh, file: poly}\nphysics: {type: poisson}\nboundaryField: {}\n"
                            "output: {vtk: false}\n");
  const Outcome polymesh = run_fvmmini(folder.path(), {"poly.yaml"});
  EXPECT_EQ(polymesh.status, 1) << polymesh.err;
  EXPECT_NE(polymesh.err.find("poly/owner:" + std::to_string(line) +
                              ": cell 2147483647 makes 2147483648 cells, but 98 faces (46 internal) can close at most 36"),
            std::string::npos)
      << polymesh.err;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "out"));
}

TEST(Cli, SuccessfulRunWritesCompleteOutputOnly) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  std::vector<std::string> arguments{"case.yaml", "--quiet"};
#ifdef FVMMINI_HAVE_VTK
  arguments.insert(arguments.end(), {"--set", "output.vtk=true"});
#endif
  const Outcome outcome = run_fvmmini(folder.path(), arguments);
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_EQ(outcome.out, "");  // --quiet
  const auto summary = read_text(folder.path() / "out" / "case" / "summary.json");
  EXPECT_NE(summary.find("\"status\": \"completed\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"preconditioner\""), std::string::npos) << summary;
  std::size_t vtu = 0, pvd = 0;
  for (const auto& name : folder_entries(folder.path() / "out" / "case")) {
    EXPECT_NE(name.front(), '.') << "temporary file left behind: " << name;
    vtu += name.ends_with(".vtu");
    pvd += name.ends_with(".pvd");
  }
#ifdef FVMMINI_HAVE_VTK
  EXPECT_EQ(vtu, 1u);
  EXPECT_EQ(pvd, 1u);
#else
  EXPECT_EQ(vtu + pvd, 0u);
#endif
}

#ifndef FVMMINI_HAVE_VTK
TEST(Cli, VtkOutputInABuildWithoutVtkExitsTwoBeforeSolving) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--set", "output.vtk=true"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_EQ(outcome.err.rfind("fvmmini: error: --set output.vtk=true: output.vtk is true, but this build of fvmmini has no VTK "
                              "output",
                              0),
            0u)
      << outcome.err;
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
  EXPECT_EQ(run_fvmmini(folder.path(), {"case.yaml", "--dry-run"}).status, 0);
}
#endif

}  // namespace
}  // namespace fvmmini
