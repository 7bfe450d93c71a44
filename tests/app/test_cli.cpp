// The fvmmini executable as a user runs it: exit status 0 / 1 / 2, every error on stderr as
// "fvmmini: error: ...", and no output folder after a run that fails.

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "app/vtk_writer.hpp"
#include "icofoam_case.hpp"
#include "run_command.hpp"
#include "temp_folder.hpp"

namespace fvmmini {
namespace {

using testing::Outcome;
using testing::read_text;

/// Run fvmmini with `arguments` (each single-quoted) in `folder`, `environment` (shell text: "NAME=value ...",
/// or limits such as "ulimit -f 1;") put before it; stdout and stderr go to files outside it. A run past `seconds` is killed (status 137), so that
/// a hang fails the test instead of hanging it.
Outcome run_fvmmini(const std::filesystem::path& folder, const std::vector<std::string>& arguments,
                    int seconds = 600, const std::string& environment = "") {
  std::string command = "cd '" + folder.string() + "' && " + environment + " timeout -s KILL " +
                        std::to_string(seconds) + " '" FVMMINI_EXECUTABLE "'";
  for (const auto& argument : arguments) command += " '" + argument + "'";
  return testing::run_command(command);
}

std::vector<std::string> folder_entries(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    names.push_back(std::filesystem::relative(entry.path(), folder).string());
  std::sort(names.begin(), names.end());
  return names;
}

/// A 4x4x1 box case with walls held at 0: `physics` (a section) between the mesh and boundaryField.
std::string box_case(const std::string& physics) {
  return "mesh:\n"
         "  type: box\n"
         "  cells: [4, 4, 1]\n"
         "  patches:\n"
         "    walls: {sides: [xmin, xmax, ymin, ymax], type: wall}\n"
         "    frontAndBack: {sides: [zmin, zmax], type: empty}\n" +
         physics +
         "boundaryField:\n"
         "  walls: {type: fixedValue, value: 0}\n"
         "  frontAndBack: {type: empty}\n";
}

const std::string good_case = box_case("physics:\n"
                                       "  type: poisson\n"
                                       "  source: 1\n") +
                              "output: {vtk: false}\n";  // so that builds without VTK accept it

TEST(Cli, HelpAndVersionSucceed) {
  testing::TempFolder folder;
  const Outcome help = run_fvmmini(folder.path(), {"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--dry-run"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--set"), std::string::npos) << help.out;
  // --- the environment variables it reads
  for (const char* variable : {"OMP_NUM_THREADS", "FVMMINI_MEMORY_LIMIT", "FVMMINI_DEVICE_LOOP"})
    EXPECT_NE(help.out.find(std::string("\n  ") + variable + "  "), std::string::npos) << variable << "\n" << help.out;
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

TEST(Cli, FormatKeysSetToAutoAreTimedAtSetUpAndTheGridIsLogged) {
  // 256 rows: alpha is raised to sliceHeight/rows, so each slice height is one setting
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(
      folder.path(), {"case.yaml", "--set", "mesh.cells=[16, 16, 1]", "--set", "solvers.T.format=staircase", "--set",
                      "solvers.T.backend=reference", "--set", "solvers.T.sliceHeight=auto", "--set",
                      "solvers.T.alpha=auto"});
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("tuning "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find(" over 6 settings)"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("staircase tuned: sliceHeight, alpha auto, each setting timed by the reference SpMV"),
            std::string::npos)
      << outcome.out;
  for (const char* setting : {"sliceHeight 32, alpha 0.125 ", "sliceHeight 1024, alpha 1 "})
    EXPECT_NE(outcome.out.find(setting), std::string::npos) << setting << "\n" << outcome.out;
  const auto chosen = outcome.out.find("  chosen");
  EXPECT_NE(chosen, std::string::npos) << outcome.out;
  EXPECT_EQ(chosen, outcome.out.rfind("  chosen")) << outcome.out;
  // --- the summary: the format as resolved, and each setting timed
  const std::string summary = read_text(folder.path() / "out" / "case" / "summary.json");
  EXPECT_NE(summary.find("\"ordering\": \"none\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"chosen\": \"sliceHeight "), std::string::npos) << summary;
  std::size_t trials = 0;
  for (auto at = summary.find("\"spmvMs\""); at != std::string::npos; at = summary.find("\"spmvMs\"", at + 1)) ++trials;
  EXPECT_EQ(trials, 6u) << summary;
}

TEST(Cli, AFormatKeyWordThatIsNotAutoExitsTwoNamingTheKey) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--set", "solvers.T.format=staircase", "--set",
                                                      "solvers.T.sliceHeight=fast"});
  EXPECT_EQ(outcome.status, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("solvers.T.sliceHeight: expected an integer or auto, got 'fast'"), std::string::npos)
      << outcome.err;
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
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--dry-run"}, 60, "FVMMINI_MEMORY_LIMIT=2G");
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
    const Outcome memory = run_fvmmini(folder.path(), arguments, 60, "FVMMINI_MEMORY_LIMIT=1G");
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
                                      60, "FVMMINI_MEMORY_LIMIT=1T");
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
  if (vtk_output_available()) arguments.insert(arguments.end(), {"--set", "output.vtk=true"});
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
  EXPECT_EQ(vtu, vtk_output_available() ? 1u : 0u);
  EXPECT_EQ(pvd, vtk_output_available() ? 1u : 0u);
}

// --- Hostile and careless input (issue 13): no hang, no unbounded memory, no mixed output.

/// The whole of stderr must be this one error.
void expect_error(const Outcome& outcome, int status, const std::string& message) {
  EXPECT_EQ(outcome.status, status) << outcome.err;
  EXPECT_EQ(outcome.err, "fvmmini: error: " + message + "\n");
}

TEST(CliHostile, ACaseFileThatIsNotARegularFileIsRefusedUnread) {
  testing::TempFolder folder;
  const auto fifo = folder.path() / "case.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_directory(folder.path() / "folder.yaml");
  expect_error(run_fvmmini(folder.path(), {"/dev/zero"}, 20), 2,
               "/dev/zero: the case file is a character device, not a regular file");
  expect_error(run_fvmmini(folder.path(), {"case.fifo"}, 20), 2,  // opened, it would block for a writer
               "case.fifo: the case file is a FIFO (named pipe), not a regular file");
  expect_error(run_fvmmini(folder.path(), {"folder.yaml"}, 20), 2,
               "folder.yaml: the case file is a directory, not a regular file");
  folder.write("big.yaml", good_case + "#" + std::string(std::size_t{1} << 20, 'x') + "\n");
  expect_error(run_fvmmini(folder.path(), {"big.yaml"}, 20), 2,
               "big.yaml: the case file is 1048877 bytes: a case file is at most 1048576 bytes (1 MiB)");
  // --- a mesh file of the wrong type is named at its key, before it is opened
  std::string gmsh_case = good_case;
  gmsh_case.replace(gmsh_case.find("type: box"), 9, "type: gmsh\n  file: case.fifo");
  gmsh_case.erase(gmsh_case.find("  cells:"), gmsh_case.find("physics:") - gmsh_case.find("  cells:"));
  folder.write("gmsh.yaml", gmsh_case);
  expect_error(run_fvmmini(folder.path(), {"gmsh.yaml"}, 20), 2,
               "gmsh.yaml:3:3: mesh.file: " + fifo.string() + " is not a regular file");
  expect_error(run_fvmmini(folder.path(), {"gmsh.yaml", "--set", "mesh.file=/dev/zero"}, 20), 2,
               "--set mesh.file=/dev/zero: mesh.file: /dev/zero is not a regular file");
  EXPECT_EQ(folder_entries(folder.path()),
            (std::vector<std::string>{"big.yaml", "case.fifo", "folder.yaml", "gmsh.yaml"}));
}

TEST(CliHostile, ACaseIsOneYamlDocumentAndItsFaultsHaveALine) {
  testing::TempFolder folder;
  folder.write("comma.yaml", ",\n");  // yaml-cpp 0.7.0's LoadAll loops forever on it
  expect_error(run_fvmmini(folder.path(), {"comma.yaml"}, 20), 2, "comma.yaml:1:1: YAML syntax error: unexpected ','");
  folder.write("two.yaml", good_case + "---\nmesh: {type: box}\n");
  expect_error(run_fvmmini(folder.path(), {"two.yaml"}, 20), 2,
               "two.yaml:14:1: a second YAML document starts here: a case is one document");
  folder.write("deep.yaml", good_case + "extra: " + std::string(100, '[') + std::string(100, ']') + "\n");
  expect_error(run_fvmmini(folder.path(), {"deep.yaml"}, 20), 2,
               "deep.yaml:14:71: lists and maps nested more than 64 deep: a case nests at most 64 levels");
  folder.write("nul.yaml", good_case + "output: {directory: \"a" + std::string(1, '\0') + "b\"}\n");
  expect_error(run_fvmmini(folder.path(), {"nul.yaml"}, 20), 2,
               "nul.yaml:14:23: control character 0x00 (a NUL byte) in the case file: YAML is text (is this a binary "
               "file?)");
}

/// Ten aliases of ten aliases ... `levels` deep: 10^(levels + 1) nodes once expanded, from a few
/// lines (`flow`: on one line, as a --set value).
std::string alias_bomb(int levels, bool flow) {
  std::string text = flow ? "{" : "";
  for (int i = 0; i <= levels; ++i) {
    const std::string item = i == 0 ? "x" : "*a" + std::to_string(i - 1);
    text += (i > 0 && flow ? ", " : "") + ("a" + std::to_string(i) + ": &a" + std::to_string(i) + " [");
    for (int k = 0; k < 10; ++k) text += (k ? ", " : "") + item;
    text += flow ? "]" : "]\n";
  }
  return text + (flow ? "}" : "");
}

TEST(CliHostile, AliasExpansionIsBoundedInTheFileUnderAnUnknownKeyAndInSet) {
  testing::TempFolder folder;
  // 10^10 nodes: gigabytes, were they expanded
  folder.write("bomb.yaml", good_case + "laughs:\n  " + std::regex_replace(alias_bomb(9, false), std::regex("\n(.)"), "\n  $1"));
  const Outcome in_file = run_fvmmini(folder.path(), {"bomb.yaml"}, 60);
  EXPECT_EQ(in_file.status, 2) << in_file.err;
  EXPECT_EQ(in_file.err.rfind("fvmmini: error: bomb.yaml:", 0), 0u) << in_file.err;
  const std::string too_many = ": more than 100000 YAML nodes in the case file and its --set values (lists, maps and "
                               "values, each alias counted as what it stands for): a case holds at most 100000\n";
  EXPECT_NE(in_file.err.find(too_many),
            std::string::npos)
      << in_file.err;

  folder.write("case.yaml", good_case);
  const Outcome in_set = run_fvmmini(folder.path(), {"case.yaml", "--set", "laughs=" + alias_bomb(9, true)}, 60);
  EXPECT_EQ(in_set.status, 2) << in_set.err;
  EXPECT_NE(in_set.err.find(too_many), std::string::npos) << in_set.err;  // the file's nodes and the value's together
  EXPECT_EQ(in_set.err.rfind("fvmmini: error: --set laughs=", 0), 0u) << in_set.err;
  EXPECT_EQ(folder_entries(folder.path()), (std::vector<std::string>{"bomb.yaml", "case.yaml"}));
}

const std::string diffusion_case =
    box_case("physics: {type: diffusion, initial: 1}\n") + "time: {endTime: 0.3, deltaT: 0.05, writeInterval: 0.1}\n";

const std::string flow_case =
    "mesh:\n"
    "  type: box\n"
    "  cells: [4, 4, 1]\n"
    "  max: [1, 1, 0.25]\n"
    "  patches:\n"
    "    lid: {sides: [ymax], type: wall}\n"
    "    walls: {sides: [xmin, xmax, ymin], type: wall}\n"
    "    frontAndBack: {sides: [zmin, zmax], type: empty}\n"
    "physics: {type: incompressible, nu: 0.1}\n"
    "boundaryField:\n"
    "  lid: {type: wall, velocity: [1, 0, 0]}\n"
    "  walls: {type: wall}\n"
    "  frontAndBack: {type: empty}\n"
    "time: {endTime: 1, deltaT: 0.01, writeInterval: 0.5}\n"
    "sampling: {centrelines: false}\n"
    "output: {vtk: false}\n";

// The driver frees the mesh's points and face lists once the set-up has read them: every later
// write still holds the whole mesh (the VTK writer keeps its own grid), for the flow and the
// scalar problems alike.
TEST(Cli, FieldsWrittenAfterTheFirstStepHoldTheWholeMesh) {
  if (!vtk_output_available()) GTEST_SKIP() << "this build has no VTK output";
  for (const std::string& text : {flow_case, diffusion_case}) {
    testing::TempFolder folder;
    folder.write("case.yaml", text);
    const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--quiet", "--set", "output.vtk=true"});
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    std::size_t files = 0;
    for (const auto& name : folder_entries(folder.path() / "out" / "case")) {
      if (!name.ends_with(".vtu")) continue;
      ++files;
      const std::string vtu = read_text(folder.path() / "out" / "case" / name);
      EXPECT_NE(vtu.find("NumberOfPoints=\"50\""), std::string::npos) << name;  // 5 x 5 x 2
      EXPECT_NE(vtu.find("NumberOfCells=\"16\""), std::string::npos) << name;
      // --- the points themselves: the largest point's distance from the origin is the box's diagonal
      const std::size_t points = vtu.find("Name=\"Points\"");
      ASSERT_NE(points, std::string::npos) << name;
      const std::size_t range = vtu.find("RangeMax=\"", points);
      ASSERT_NE(range, std::string::npos) << name;
      EXPECT_GT(std::stod(vtu.substr(range + 10, 24)), 1.0) << name;
    }
    EXPECT_GE(files, 3u);
  }
}

TEST(CliHostile, AWriteIntervalThatCannotAdvanceTimeIsACaseError) {
  testing::TempFolder folder;
  folder.write("diffusion.yaml", diffusion_case + "output: {vtk: false}\n");
  folder.write("flow.yaml", flow_case);
  for (const char* name : {"diffusion.yaml", "flow.yaml"}) {
    const Outcome outcome = run_fvmmini(folder.path(), {name, "--set", "time.writeInterval=1e-300"}, 60);
    EXPECT_EQ(outcome.status, 2) << name << ": " << outcome.err;
    EXPECT_NE(outcome.err.find("--set time.writeInterval=1e-300: time.writeInterval = 1e-300 cannot advance time: it "
                               "makes "),
              std::string::npos)
        << outcome.err;
  }
  const Outcome steps = run_fvmmini(folder.path(), {"diffusion.yaml", "--set", "time.deltaT=1e-300"}, 60);
  EXPECT_EQ(steps.status, 2) << steps.err;
  EXPECT_NE(steps.err.find("time.deltaT = 1e-300 cannot advance time: it makes 3e+299 steps"), std::string::npos)
      << steps.err;
  EXPECT_EQ(folder_entries(folder.path()), (std::vector<std::string>{"diffusion.yaml", "flow.yaml"}));
}

TEST(CliHostile, AStartTimeOf1e17RunsEveryStepOfItsSpan) {
  // at 1e17 doubles are 16 apart: time + deltaT == time, yet the 160 steps must all be taken
  testing::TempFolder folder;
  folder.write("diffusion.yaml", diffusion_case + "output: {vtk: false}\n");
  folder.write("flow.yaml", flow_case);
  const std::vector<std::string> late{"--set", "time.startTime=1e17", "--set", "time.endTime=100000000000000160",
                                      "--set", "time.deltaT=1", "--set", "time.writeInterval=40"};
  for (const char* name : {"diffusion.yaml", "flow.yaml"}) {
    std::vector<std::string> arguments{name};
    arguments.insert(arguments.end(), late.begin(), late.end());
    const Outcome outcome = run_fvmmini(folder.path(), arguments, 120);
    EXPECT_EQ(outcome.status, 0) << name << ": " << outcome.err;
    EXPECT_NE(outcome.out.find("End: Time = 1e+17 after 160 steps"), std::string::npos) << name;
  }
}

TEST(CliHostile, ANonUtf8OutputDirectoryIsACaseErrorNamingTheKey) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--set", "output.directory=out\xff"});
  expect_error(outcome, 2,
               "--set output.directory=out\\xff: output.directory: not valid UTF-8 (byte 0xff at offset 3): case text "
               "must be UTF-8");
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
}

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

TEST(CliHostile, OneRunPerOutputFolder) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  // --- held by a live process (this test): exit 1 naming it, the holder's folder untouched
  const std::string holder = std::to_string(::getpid()) + " " + host_name() + "\n";
  folder.write("out/case/.fvmmini.lock", holder);
  const Outcome held = run_fvmmini(folder.path(), {"case.yaml", "--quiet"});
  expect_error(held, 1,
               "the output folder " + (folder.path() / "out" / "case").string() +
                   " is in use by another fvmmini run (process " + std::to_string(::getpid()) + " on host " +
                   host_name() + "; lock file " + (folder.path() / "out" / "case" / ".fvmmini.lock").string() +
                   "): wait for it to end, or set output.directory to another folder; if no fvmmini run uses "
                   "this folder, remove the lock file");
  EXPECT_EQ(folder_entries(folder.path() / "out" / "case"), std::vector<std::string>{".fvmmini.lock"});
  EXPECT_EQ(read_text(folder.path() / "out" / "case" / ".fvmmini.lock"), holder);

  // --- left by a process that has ended: taken over with a warning, released at exit
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  folder.write("out/case/.fvmmini.lock", std::to_string(child) + " " + host_name() + "\n");
  const Outcome stale = run_fvmmini(folder.path(), {"case.yaml", "--quiet"});
  EXPECT_EQ(stale.status, 0) << stale.err;
  EXPECT_EQ(stale.err, "fvmmini: warning: taking over the lock of the output folder " +
                           (folder.path() / "out" / "case").string() + " from process " + std::to_string(child) +
                           " on " + host_name() + ", which no longer runs\n");
  EXPECT_EQ(folder_entries(folder.path() / "out" / "case"), std::vector<std::string>{"summary.json"});
}

TEST(CliHostile, ALockWhosePidNowBelongsToAnotherProcessIsTakenOver) {
  // --- this test's pid, but a start time that is not this process's: the run that wrote it ended
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  folder.write("out/case/.fvmmini.lock", std::to_string(::getpid()) + " " + host_name() + " 1\n");
  const Outcome reused = run_fvmmini(folder.path(), {"case.yaml", "--quiet"});
  EXPECT_EQ(reused.status, 0) << reused.err;
  EXPECT_EQ(reused.err, "fvmmini: warning: taking over the lock of the output folder " +
                            (folder.path() / "out" / "case").string() + " from process " +
                            std::to_string(::getpid()) + " on " + host_name() +
                            ", which no longer runs (its pid now belongs to another process)\n");
  // --- a lock that is a link is no lock fvmmini wrote: refused, the link and its target left
  const auto target = folder.write("target.txt", "mine");
  std::filesystem::create_symlink(target, folder.path() / "out" / "case" / ".fvmmini.lock");
  const Outcome linked = run_fvmmini(folder.path(), {"case.yaml", "--quiet"});
  expect_error(linked, 1,
               "cannot lock the output folder " + (folder.path() / "out" / "case").string() + ": " +
                   (folder.path() / "out" / "case" / ".fvmmini.lock").string() +
                   " is not a lock file fvmmini wrote (it is a symbolic link); remove it, or set output.directory "
                   "to another folder");
  EXPECT_EQ(read_text(target), "mine");
}

TEST(CliHostile, OutputNeverNamesAnInputTheLockOrAnotherOutput) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  for (const std::string& name : {"..", ".", ".fvmmini.lock", "fields.pvd", "centrelines.csv"}) {
    const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--set", "output.summary=" + name});
    EXPECT_EQ(outcome.status, 2) << name << ": " << outcome.err;
    EXPECT_NE(outcome.err.find("output.summary"), std::string::npos) << outcome.err;
  }
  // --- the summary named like the case file in the case's own folder: refused, the case untouched
  const Outcome itself =
      run_fvmmini(folder.path(), {"case.yaml", "--set", "output.directory=.", "--set", "output.summary=case.yaml"});
  expect_error(itself, 1,
               "the output folder " + folder.path().string() +
                   " holds case.yaml, a file this run writes (output.summary), but it is the input " +
                   (folder.path() / "case.yaml").string() +
                   ": set output.directory to another folder or output.summary to another name");
  EXPECT_EQ(read_text(folder.path() / "case.yaml"), good_case);
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"case.yaml"});
}

TEST(CliHostile, ACaseFileStemThatNamesNoFolderIsACaseError) {
  // --- "...yaml" has the stem "..": out/.. would be the current folder and its summary.json the user's
  testing::TempFolder folder;
  folder.write("...yaml", good_case);
  folder.write("summary.json", "the user's");
  const Outcome outcome = run_fvmmini(folder.path(), {"...yaml"});
  EXPECT_EQ(outcome.status, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("output.directory: the case file's name '...yaml' gives no folder for the default "
                             "out/<case file stem>; set output.directory"),
            std::string::npos)
      << outcome.err;
  EXPECT_EQ(read_text(folder.path() / "summary.json"), "the user's");
  EXPECT_EQ(folder_entries(folder.path()), (std::vector<std::string>{"...yaml", "summary.json"}));
}

TEST(CliHostile, AMeshPathInALinkLoopIsACaseErrorWithTheSystemsReason) {
  testing::TempFolder folder;
  folder.write("case.yaml", "mesh: {type: polyMesh, file: loop}\nphysics: {type: poisson}\n");
  std::filesystem::create_symlink("loop", folder.path() / "loop");
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_NE(outcome.err.find("mesh.file: cannot reach " + (folder.path() / "loop").string() +
                             ": Too many levels of symbolic links\n"),
            std::string::npos)
      << outcome.err;
}

TEST(CliHostile, MessagesShowInputBytesEscapedAndBounded) {
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--set", "output.vtk=\x1b]0;owned\x07\x1b[2J"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_EQ(outcome.err.find('\x1b'), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("\\x1b]0;owned\\x07\\x1b[2J"), std::string::npos) << outcome.err;
}

TEST(CliHostile, ARerunRemovesWhatTheEarlierRunWroteAndLeavesOtherFiles) {
  if (!vtk_output_available()) GTEST_SKIP() << "this build has no VTK output";
  testing::TempFolder folder;
  folder.write("case.yaml", diffusion_case);
  ASSERT_EQ(run_fvmmini(folder.path(), {"case.yaml", "--quiet"}).status, 0);
  const auto out = folder.path() / "out" / "case";
  EXPECT_EQ(folder_entries(out), (std::vector<std::string>{"fields.pvd", "fields_000000.vtu", "fields_000001.vtu",
                                                           "fields_000002.vtu", "fields_000003.vtu", "summary.json"}));
  // a SIGKILLed run's temporary, and a file of the user's
  folder.write("out/case/.fields_000004.vtu.part99999", "half a file");
  folder.write("out/case/notes.txt", "mine");
  const Outcome rerun = run_fvmmini(folder.path(), {"case.yaml", "--set", "time.writeInterval=0.3"});
  EXPECT_EQ(rerun.status, 0) << rerun.err;
  EXPECT_NE(rerun.out.find("Output folder " + out.string() + ": removed 7 file(s) of an earlier run\n"),
            std::string::npos)
      << rerun.out;
  EXPECT_EQ(folder_entries(out), (std::vector<std::string>{"fields.pvd", "fields_000000.vtu", "fields_000001.vtu",
                                                           "notes.txt", "summary.json"}));
  const std::string pvd = read_text(out / "fields.pvd");
  EXPECT_NE(pvd.find("file=\"fields_000001.vtu\""), std::string::npos) << pvd;
  EXPECT_EQ(pvd.find("fields_000002"), std::string::npos) << pvd;
}

TEST(CliHostile, TemporariesAndTheLockGoWithASigtermOrASighup) {
  if (!vtk_output_available()) GTEST_SKIP() << "this build has no VTK output";
  // a run that spends most of its time writing large .vtu files, stopped at several moments
  testing::TempFolder folder;
  folder.write("case.yaml", diffusion_case);
  const std::string cells = "mesh.cells=[48, 48, 48]";
  for (const int milliseconds : {0, 150, 300, 450, 600}) {
    std::filesystem::remove_all(folder.path() / "out");
    const pid_t child = ::fork();
    if (child == 0) {
      if (::chdir(folder.path().c_str()) != 0) ::_exit(127);
      std::freopen("/dev/null", "w", stdout);
      ::execl(FVMMINI_EXECUTABLE, FVMMINI_EXECUTABLE, "case.yaml", "--quiet", "--set", cells.c_str(), "--set",
              "time.endTime=100", "--set", "time.writeInterval=0.05", "--set", "solvers.T.maxIter=2", nullptr);
      ::_exit(127);
    }
    // from the second write on, the run is writing most of the time
    const auto second = folder.path() / "out" / "case" / "fields_000001.vtu";
    for (int wait = 0; wait < 6000 && !std::filesystem::exists(second); ++wait) ::usleep(10'000);
    ::usleep(static_cast<useconds_t>(milliseconds) * 1000);
    const int signal = milliseconds == 300 ? SIGHUP : SIGTERM;  // a closed terminal, or a kill
    ::kill(child, signal);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the signal: make it longer";
    EXPECT_EQ(WTERMSIG(status), signal);
    for (const auto& name : folder_entries(folder.path() / "out" / "case"))
      EXPECT_NE(name.front(), '.') << "left behind after " << milliseconds << " ms: " << name;
  }
}

TEST(CliHostile, AFailedWriteKeepsTheFirstErrorAndSaysWhy) {
  if (!vtk_output_available()) GTEST_SKIP() << "this build has no VTK output";
  // the first .vtu and the summary cannot take their names: folders have them
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  folder.write("out/case/fields_000000.vtu/x", "");
  folder.write("out/case/summary.json/x", "");
  const Outcome outcome = run_fvmmini(folder.path(), {"case.yaml", "--quiet", "--set", "output.vtk=true"});
  const auto out = folder.path() / "out" / "case";
  EXPECT_EQ(outcome.status, 1);
  EXPECT_EQ(outcome.err, "fvmmini: warning: cannot write " + (out / "summary.json").string() + ": Is a directory\n" +
                             "fvmmini: error: cannot write " + (out / "fields_000000.vtu").string() +
                             ": Is a directory\n");
}

TEST(CliHostile, AWriteCutShortInsideVtkSaysWhyOnceAndKeepsTheFirstError) {
  if (!vtk_output_available()) GTEST_SKIP() << "this build has no VTK output";
  // files may grow to one block only (SIGXFSZ ignored: write fails with EFBIG), so VTK's writer
  // fails part-way; its own error log stays quiet and fvmmini's message gives the reason
  testing::TempFolder folder;
  folder.write("case.yaml", good_case);
  const Outcome outcome =
      run_fvmmini(folder.path(), {"case.yaml", "--quiet", "--set", "output.vtk=true"}, 60, "trap '' XFSZ; ulimit -f 1;");
  const auto out = folder.path() / "out" / "case";
  EXPECT_EQ(outcome.status, 1);
  EXPECT_EQ(outcome.err, "fvmmini: warning: cannot write " + (out / "summary.json").string() + ": File too large\n" +
                             "fvmmini: error: cannot write " + (out / "fields_000000.vtu").string() +
                             ": File too large\n");
  EXPECT_EQ(folder_entries(out), std::vector<std::string>{});
}

TEST(Cli, VtkOutputInABuildWithoutVtkExitsTwoBeforeSolving) {
  if (vtk_output_available()) GTEST_SKIP() << "this build has VTK output";
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

}  // namespace
}  // namespace fvmmini

namespace fvmmini {
namespace {

/// An icoFoam channel on the box_hex fixture: U fixed at the inlet, p fixed at the outlet.
void write_foam_channel(testing::TempFolder& folder) {
  const std::filesystem::path poly = folder.path() / "channel/constant/polyMesh";
  std::filesystem::create_directories(poly);
  for (const char* name : {"points", "faces", "owner", "neighbour", "boundary"})
    std::filesystem::copy_file(std::filesystem::path(FVMMINI_FIXTURES_DIR) / "polymesh/box_hex" / name, poly / name);
  const std::string dict = "FoamFile { version 2.0; format ascii; class dictionary; }\n";
  folder.write("channel/system/controlDict", dict + "application icoFoam;\nstartFrom startTime;\nstartTime 0;\n"
                                                    "stopAt endTime;\nendTime 0.02;\ndeltaT 0.01;\n"
                                                    "writeControl runTime;\nwriteInterval 0.02;\n");
  folder.write("channel/system/fvSchemes", dict + "ddtSchemes { default Euler; }\n"
                                                  "gradSchemes { default Gauss linear; }\n"
                                                  "divSchemes { div(phi,U) Gauss upwind; }\n"
                                                  "laplacianSchemes { default Gauss linear corrected; }\n"
                                                  "interpolationSchemes { default linear; }\n"
                                                  "snGradSchemes { default corrected; }\n");
  folder.write("channel/system/fvSolution",
               dict + "solvers { p { solver PCG; preconditioner DIC; tolerance 1e-8; relTol 0; }\n"
                      "pFinal { $p; }\nU { solver PBiCGStab; preconditioner DILU; tolerance 1e-8; } }\n"
                      "PISO { nCorrectors 2; }\n");
  folder.write("channel/constant/transportProperties", dict + "nu 0.01;\n");
  folder.write("channel/0/U", dict + "internalField uniform (0 0 0);\nboundaryField {\n"
                                     "inlet { type fixedValue; value uniform (1 0 0); }\n"
                                     "outlet { type zeroGradient; }\n"
                                     "walls { type noSlip; }\n}\n");
  folder.write("channel/0/p", dict + "internalField uniform 0;\nboundaryField {\ninlet { type zeroGradient; }\n"
                                     "outlet { type fixedValue; value uniform 0; }\nwalls { type zeroGradient; }\n}\n");
}

TEST(Cli, AnOpenFoamCaseRunsAsItIs) {
  testing::TempFolder folder;
  write_foam_channel(folder);
  // --- --dry-run prints the case it maps to, then checks it as a case file's dry run does
  const Outcome dry = run_fvmmini(folder.path(), {"--foam-case", "channel", "--dry-run"});
  EXPECT_EQ(dry.status, 0) << dry.err;
  EXPECT_EQ(dry.out.rfind("# fvmmini --foam-case channel: the icoFoam case mapped", 0), 0u) << dry.out;
  for (const char* mapped : {"inlet: {type: velocityInlet, velocity: [1, 0, 0]}",
                             "outlet: {type: pressureOutlet, pressure: 0}",
                             "walls: {type: wall}", "U: {solver: PBiCGStab, preconditioner: DILU, tolerance: 1e-8",
                             "convection: upwind", "# Dry run: nothing was solved or written."})
    EXPECT_NE(dry.out.find(mapped), std::string::npos) << mapped << "\n" << dry.out;
  // a build without VTK maps to a case it can run, saying why no fields are written
  EXPECT_EQ(dry.out.find("output: {vtk: false}") != std::string::npos, !vtk_output_available()) << dry.out;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "out"));
  // --- the run writes where a case file named channel.yaml would: out/channel
  const Outcome run = run_fvmmini(folder.path(), {"--foam-case", "channel", "--set", "output.vtk=false"});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("PBiCGStab"), std::string::npos);
  // (each solver mapped to backend auto: the step runs on the GPU where there is one)
  EXPECT_TRUE(run.out.find("Step: PISO on the host") != std::string::npos ||
              run.out.find("Step: PISO on the GPU") != std::string::npos)
      << run.out;
  // (the inlet's velocity and the box_hex fixture's length along it)
  EXPECT_NE(run.out.find("Physics: incompressible, nu = 0.01, Re = U L / nu = 100 (the fastest boundary velocity "
                         "U = 1, the mesh's extent along it L = 1), PISO"),
            std::string::npos)
      << run.out;
  EXPECT_TRUE(std::filesystem::exists(folder.path() / "out/channel/summary.json"));
  // --- a case file and a case directory together is a usage error; so is an entry it cannot map
  EXPECT_EQ(run_fvmmini(folder.path(), {"a.yaml", "--foam-case", "channel"}).status, 2);
  folder.write("channel/system/fvSchemes", "ddtSchemes { default CrankNicolson 0.9; }\n");
  const Outcome bad = run_fvmmini(folder.path(), {"--foam-case", "channel"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("fvmmini: error: channel/system/fvSchemes:1: ddtSchemes.default CrankNicolson 0.9: fvmmini's "
                         "PISO is Euler"),
            std::string::npos)
      << bad.err;
}

// The icoFoam cavity tutorial as blockMesh reads it, with no constant/polyMesh: its blockMeshDict's
// block is the mesh (a box), run end to end; a block the box cannot be is refused by file and line.
TEST(Cli, AnOpenFoamCaseWithOnlyABlockMeshDictRunsAsItIs) {
  testing::TempFolder folder;
  testing::write_icofoam_case(folder.path() / "cavity", {8, 8, 1, true, "Gauss linear", 0.005, 2, 1e-5, 1e-6, 0.05});
  const Outcome dry = run_fvmmini(folder.path(), {"--foam-case", "cavity", "--dry-run"});
  EXPECT_EQ(dry.status, 0) << dry.err;
  EXPECT_EQ(dry.out.rfind("# fvmmini --foam-case cavity: the icoFoam case mapped, its mesh system/blockMeshDict's "
                          "block (no constant/polyMesh)",
                          0),
            0u)
      << dry.out;
  // (z: 0.1 times 0.1, as blockMesh's points)
  const char* box = "  type: box\n  cells: [8, 8, 1]\n  min: [0, 0, 0]\n  max: [0.1, 0.1, 0.010000000000000002]\n";
  for (const char* mapped : {box, "    movingWall: {sides: [ymax], type: wall}",
                             "    fixedWalls: {sides: [xmin, xmax, ymin], type: wall}",
                             "    frontAndBack: {sides: [zmin, zmax], type: empty}"})
    EXPECT_NE(dry.out.find(mapped), std::string::npos) << mapped << "\n" << dry.out;
  const Outcome run = run_fvmmini(folder.path(), {"--foam-case", "cavity", "--set", "output.vtk=false"});
  EXPECT_EQ(run.status, 0) << run.err;
  for (const char* printed : {"Mesh: box 8x8x1 (64 cells", "Step: PISO on the ", "Solving for p",
                              "Physics: incompressible, nu = 0.01, Re = U L / nu = 10 (the fastest boundary "
                              "velocity U = 1, the mesh's extent along it L = 0.1), PISO",
                              "End: Time = 0.01 after 2 steps"})
    EXPECT_NE(run.out.find(printed), std::string::npos) << printed << "\n" << run.out;
  EXPECT_TRUE(std::filesystem::exists(folder.path() / "out/cavity/summary.json"));
  // --- grading other than 1 (the block on line 4)
  const std::string dict = read_text(folder.path() / "cavity/system/blockMeshDict");
  const auto at = dict.find("simpleGrading (1 1 1)");
  ASSERT_NE(at, std::string::npos) << dict;
  folder.write("cavity/system/blockMeshDict", std::string(dict).replace(at, 21, "simpleGrading (2 1 1)"));
  const Outcome bad = run_fvmmini(folder.path(), {"--foam-case", "cavity", "--dry-run"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "fvmmini: error: cavity/system/blockMeshDict:4: blocks: grading other than 1: fvmmini's box has "
                     "uniform cells\n")
      << bad.err;
}

// The OpenFOAM HPC Technical Committee's cavity3D cases as shipped (cases/hpc-cavity3D/*/*): each
// dry run maps and checks (a box is sized, not built; the memory limit raised for the 64 M cells).
TEST(Cli, TheShippedHpcCavityCasesDryRun) {
  testing::TempFolder folder;
  for (const char* size : {"1M", "8M", "64M"})
    for (const char* variant : {"fixedIter", "fixedTol"}) {
      const std::string dir = std::string(FVMMINI_FIXTURES_DIR "/../../cases/hpc-cavity3D/") + size + "/" + variant;
      const Outcome dry = run_fvmmini(folder.path(), {"--foam-case", dir, "--dry-run"}, 600, "FVMMINI_MEMORY_LIMIT=1T");
      EXPECT_EQ(dry.status, 0) << dir << "\n" << dry.err;
      EXPECT_NE(dry.out.find("# Dry run: nothing was solved or written."), std::string::npos) << dry.out;
    }
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace fvmmini
