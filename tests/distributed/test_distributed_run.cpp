// fvmmini under mpiexec -n N against the same case on one rank: the manufactured Poisson and
// diffusion problems and the lid-driven cavity give the serial answer (on the reference backend, and on the cuda one where
// a GPU is present), the .pvtu's pieces put together give the serial field, what cannot run
// across ranks ends every rank with one clear message, and a rank that dies ends the run.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#if FVMMINI_HAVE_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#include <vtkXMLUnstructuredGridReader.h>
#endif

#include "tests/app/run_command.hpp"
#include "tests/require_gpu.hpp"

namespace fvmmini {
namespace {

/// output.vtk as this build can write it (a build without VTK refuses true)
#if FVMMINI_HAVE_VTK
constexpr const char* vtk = "true";
#else
constexpr const char* vtk = "false";
#endif

using testing::Outcome;
using testing::read_text;

/// fvmmini on `ranks` ranks (0: without mpiexec) in `folder`; killed after two minutes.
Outcome run(const std::filesystem::path& folder, int ranks, const std::vector<std::string>& arguments) {
  std::string command = "cd '" + folder.string() + "' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                        "OMP_NUM_THREADS=1 ";
  // under mpiexec without LeakSanitizer (sanitized builds): see tests/distributed/CMakeLists.txt
  if (ranks > 0) command += "ASAN_OPTIONS=detect_leaks=0 ";
  command += "timeout -s KILL 120 ";
  if (ranks > 0) command += "'" FVMMINI_MPIEXEC "' -n " + std::to_string(ranks) + " --oversubscribe ";
  command += "'" FVMMINI_EXECUTABLE "'";
  for (const auto& argument : arguments) command += " '" + argument + "'";
  return testing::run_command(command);
}

void write_case(const std::filesystem::path& file, const std::string& physics, const std::string& extra = "") {
  std::ofstream(file) << "mesh:\n  type: box\n  cells: [10, 9, 8]\n"
                         "  patches:\n    walls: {sides: [xmin, xmax, ymin, ymax, zmin, zmax], type: wall}\n"
                         "physics:\n  type: " << physics << "\n  manufactured: sine\n"
                      << "boundaryField:\n  walls: {type: fixedValue, value: exact}\n"
                         "solvers:\n  T: {preconditioner: diagonal, tolerance: 1e-12, maxIter: 2000}\n"
                      << (physics == "diffusion" ? "time: {deltaT: 0.01, endTime: 0.05, writeInterval: 0.05}\n" : "")
                      << "output: {vtk: " << vtk << "}\n" << extra;
}

nlohmann::json summary(const std::filesystem::path& folder) {
  return nlohmann::json::parse(read_text(folder / "summary.json"));
}

#if FVMMINI_HAVE_VTK
/// A cell field (T) by whole-mesh cell: from the serial .vtu (cell order) or the .pvtu's pieces (globalCell).
std::map<long, double> field_by_cell(const std::filesystem::path& file, const char* field = "T") {
  vtkUnstructuredGrid* grid = nullptr;
  vtkNew<vtkXMLUnstructuredGridReader> serial;
  vtkNew<vtkXMLPUnstructuredGridReader> parallel;
  if (file.extension() == ".pvtu") {
    parallel->SetFileName(file.c_str());
    parallel->Update();
    grid = parallel->GetOutput();
  } else {
    serial->SetFileName(file.c_str());
    serial->Update();
    grid = serial->GetOutput();
  }
  std::map<long, double> t;
  vtkDataArray* values = grid->GetCellData()->GetArray(field);
  vtkDataArray* cells = grid->GetCellData()->GetArray("globalCell");
  if (!values) return t;
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c)
    t[cells ? static_cast<long>(cells->GetTuple1(c)) : static_cast<long>(c)] = values->GetTuple1(c);
  return t;
}
#endif

TEST(DistributedRun, ManufacturedPoissonOnSeveralRanksLikeOneRank) {
  testing::TempFolder folder;
  write_case(folder.path() / "case.yaml", "poisson");
  const Outcome alone = run(folder.path(), 0, {"case.yaml", "--set", "output.directory=one"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const auto one = summary(folder.path() / "one");
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string out = "ranks" + std::to_string(ranks);
    // three ranks balance matrix entries rather than cells (the same answer)
    const std::string weights = ranks == 3 ? "rowEntries" : "none";
    const Outcome outcome = run(folder.path(), ranks,
                                {"case.yaml", "--set", "output.directory=" + out, "--set", "decomposition.weights=" + weights});
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.err, "");
    // --- the log once (rank 0), with the partition
    EXPECT_EQ(outcome.out.find("Solving for T"), outcome.out.rfind("Solving for T")) << outcome.out;
    if (ranks > 1) {
      EXPECT_NE(outcome.out.find("Decomposition: metis into " + std::to_string(ranks)), std::string::npos);
    }
    const auto s = summary(folder.path() / out);
    EXPECT_NEAR(s["results"]["error"]["l2"].get<double>(), one["results"]["error"]["l2"].get<double>(), 1e-10);
    EXPECT_NEAR(s["results"]["error"]["max"].get<double>(), one["results"]["error"]["max"].get<double>(), 1e-10);
    if (ranks > 1) {
      EXPECT_EQ(s["results"]["decomposition"]["ranks"].get<int>(), ranks);
      long cells = 0;
      for (const auto& c : s["results"]["decomposition"]["cells"]) cells += c.get<long>();
      EXPECT_EQ(cells, 720);
      // the rows' entries: the cells and both sides of the 1918 internal faces
      long long entries = 0;
      for (const auto& e : s["results"]["decomposition"]["entries"]) entries += e.get<long long>();
      EXPECT_EQ(entries, 720 + 2 * 1918);
      EXPECT_NE(outcome.out.find("% in matrix entries)"), std::string::npos) << outcome.out;
      // every rank's phases: a time per rank for each, the root's phases among them
      EXPECT_NE(outcome.out.find("Phase on " + std::to_string(ranks) + " ranks"), std::string::npos) << outcome.out;
      EXPECT_EQ(s["wallSecondsByRank"].size(), static_cast<std::size_t>(ranks));
      bool solve_timed = false;
      for (const auto& phase : s["phasesByRank"]) {
        EXPECT_EQ(phase["seconds"].size(), static_cast<std::size_t>(ranks)) << phase;
        solve_timed = solve_timed || phase["phase"] == "solve";
      }
      EXPECT_TRUE(solve_timed) << s["phasesByRank"];
    }
#if FVMMINI_HAVE_VTK
    // --- the pieces put together: the serial field, cell by cell
    const auto serial = field_by_cell(folder.path() / "one" / "fields_000000.vtu");
    const auto joined =
        field_by_cell(folder.path() / out / (ranks > 1 ? "fields_000000.pvtu" : "fields_000000.vtu"));
    ASSERT_EQ(joined.size(), serial.size());
    for (const auto& [cell, value] : serial) ASSERT_NEAR(joined.at(cell), value, 1e-9) << "cell " << cell;
#endif
  }
}

TEST(DistributedRun, PoissonOnTetrahedraLikeOneRank) {
  // --- a non-orthogonal mesh: the deferred correction's fits reach across the ranks
  testing::TempFolder folder;
  std::ofstream(folder.path() / "tets.yaml")
      << "mesh: {type: gmsh, file: '" FVMMINI_FIXTURES_DIR "/gmsh/cube_tet_h4.msh'}\n"
         "physics: {type: poisson, manufactured: sine}\n"
         "boundaryField: {walls: {type: fixedValue, value: exact}}\n"
         "solvers: {T: {preconditioner: diagonal, tolerance: 1e-13, maxIter: 5000}}\n"
         "discretisation: {nonOrthogonalTolerance: 1e-11, nonOrthogonalCorrectors: 200}\n"
      << "output: {vtk: " << vtk << "}\n";
  const Outcome alone = run(folder.path(), 0, {"tets.yaml", "--set", "output.directory=one"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const Outcome three = run(folder.path(), 3, {"tets.yaml", "--set", "output.directory=three"});
  ASSERT_EQ(three.status, 0) << three.err;
  EXPECT_NE(three.out.find("Non-orthogonal correction: "), std::string::npos) << three.out;
  const auto one = summary(folder.path() / "one"), s = summary(folder.path() / "three");
  const double l2 = one["results"]["error"]["l2"].get<double>(), max = one["results"]["error"]["max"].get<double>();
  EXPECT_NEAR(s["results"]["error"]["l2"].get<double>(), l2, 1e-9 * l2);
  EXPECT_NEAR(s["results"]["error"]["max"].get<double>(), max, 1e-9 * max);
  EXPECT_TRUE(s["results"]["nonOrthogonalCorrection"]["converged"].get<bool>());
}

// backend cuda across ranks (skipped without a GPU unless FVMMINI_REQUIRE_GPU=1): every rank on
// a GPU of the host, over each transport, gives the one-rank answer
TEST(DistributedRun, OnTheGpuLikeOneRank) {
  testing::TempFolder folder;
  write_case(folder.path() / "case.yaml", "poisson");
  const Outcome alone =
      run(folder.path(), 0, {"case.yaml", "--set", "solvers.T.backend=cuda", "--set", "output.directory=one"});
  if (alone.status != 0 && alone.err.find("no CUDA") != std::string::npos) {
    if (test::gpu_required()) FAIL() << "FVMMINI_REQUIRE_GPU=1 but: " << alone.err;
    GTEST_SKIP() << "no CUDA device or backend: " << alone.err;
  }
  ASSERT_EQ(alone.status, 0) << alone.err;
  const auto one = summary(folder.path() / "one");
  for (const std::string transport : {"mpi", "auto"}) {
    SCOPED_TRACE(transport);
    const std::string out = "two-" + transport;
    const Outcome two = run(folder.path(), 2, {"case.yaml", "--set", "solvers.T.backend=cuda", "--set",
                                               "solvers.T.transport=" + transport, "--set", "output.directory=" + out});
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_NE(two.out.find("backend cuda"), std::string::npos) << two.out;
    EXPECT_NE(two.out.find("2 ranks over "), std::string::npos) << two.out;
    const auto s = summary(folder.path() / out);
    EXPECT_NEAR(s["results"]["error"]["l2"].get<double>(), one["results"]["error"]["l2"].get<double>(), 1e-10);
    EXPECT_NEAR(s["results"]["error"]["max"].get<double>(), one["results"]["error"]["max"].get<double>(), 1e-10);
  }
}

TEST(DistributedRun, DiffusionAndTheSimpleSplitLikeOneRank) {
  testing::TempFolder folder;
  write_case(folder.path() / "case.yaml", "diffusion", "decomposition: {method: simple, n: [2, 1, 2]}\n");
  const Outcome alone = run(folder.path(), 0, {"case.yaml", "--set", "output.directory=one"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const Outcome four = run(folder.path(), 4, {"case.yaml", "--set", "output.directory=four"});
  ASSERT_EQ(four.status, 0) << four.err;
  EXPECT_NE(four.out.find("Decomposition: simple into 4 ranks: 180 to 180 cells"), std::string::npos) << four.out;
  const auto one = summary(folder.path() / "one"), s = summary(folder.path() / "four");
  EXPECT_NEAR(s["results"]["error"]["l2"].get<double>(), one["results"]["error"]["l2"].get<double>(), 1e-10);
  EXPECT_EQ(s["results"]["steps"], one["results"]["steps"]);
  // --- a split that is not the number of ranks: a case error on every rank, said once
  const Outcome three = run(folder.path(), 3, {"case.yaml", "--set", "output.directory=three"});
  EXPECT_EQ(three.status, 2);
  EXPECT_NE(three.err.find("simple split (2 1 2) is not 3 parts"), std::string::npos) << three.err;
  EXPECT_EQ(three.err.find("fvmmini: error"), three.err.rfind("fvmmini: error")) << three.err;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "three"));
}

TEST(DistributedRun, APinnedReferenceCellLikeOneRank) {
  testing::TempFolder folder;
  std::ofstream(folder.path() / "case.yaml") << "mesh: {type: box, cells: [8, 7, 6], patches: {walls: {sides: [xmin, "
                                                "xmax, ymin, ymax, zmin, zmax], type: wall}}}\n"
                                                "physics: {type: poisson, source: 1}\n"
                                                "boundaryField: {walls: {type: zeroGradient}}\n"
                                                "discretisation: {referenceCell: 123, referenceValue: 2}\n"
                                                "solvers: {T: {preconditioner: diagonal, tolerance: 1e-12}}\n"
                                             << "output: {vtk: " << vtk << "}\n";
  const Outcome alone = run(folder.path(), 0, {"case.yaml", "--set", "output.directory=one"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const Outcome three = run(folder.path(), 3, {"case.yaml", "--set", "output.directory=three"});
  ASSERT_EQ(three.status, 0) << three.err;
#if FVMMINI_HAVE_VTK
  const auto serial = field_by_cell(folder.path() / "one" / "fields_000000.vtu");
  const auto joined = field_by_cell(folder.path() / "three" / "fields_000000.pvtu");
  ASSERT_EQ(joined.size(), serial.size());
  EXPECT_NEAR(joined.at(123), serial.at(123), 1e-9);
  for (const auto& [cell, value] : serial) ASSERT_NEAR(joined.at(cell), value, 1e-7) << "cell " << cell;
#endif
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

/// centrelines.csv as its rows of numbers (the line name left out).
std::vector<std::vector<double>> centreline_rows(const std::filesystem::path& file) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(read_text(file));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream cells(line.substr(line.find(',') + 1));
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

TEST(DistributedRun, CavityOnSeveralRanksLikeOneRank) {
  testing::TempFolder folder;
  std::ofstream(folder.path() / "cavity.yaml")
      << "mesh: {type: box, cells: [32, 32, 1], max: [1, 1, 0.1], patches: {movingWall: {sides: [ymax], type: wall}, "
         "fixedWalls: {sides: [xmin, xmax, ymin], type: wall}, frontAndBack: {sides: [zmin, zmax], type: empty}}}\n"
         "physics: {type: incompressible, nu: 0.01, convection: linearUpwind}\n"
         "boundaryField:\n  movingWall: {type: wall, velocity: [1, 0, 0]}\n  fixedWalls: {type: wall}\n"
         "  frontAndBack: {type: empty}\n"
         "time: {endTime: 0.2, deltaT: 0.01, writeInterval: 0.2}\n"
         "solvers:\n  U: {preconditioner: diagonal, tolerance: 1e-11}\n"
         "  p: {preconditioner: diagonal, tolerance: 1e-11, maxIter: 5000}\n"
         "discretisation: {referenceCell: 300, referenceValue: 1}\n"
      << "output: {vtk: " << vtk << "}\n";
  const Outcome alone = run(folder.path(), 0, {"cavity.yaml", "--set", "output.directory=one"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const auto one = summary(folder.path() / "one");
  const auto one_lines = centreline_rows(folder.path() / "one" / "centrelines.csv");
  ASSERT_EQ(one_lines.size(), 2u * 129u);
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string out = "ranks" + std::to_string(ranks);
    const Outcome outcome = run(folder.path(), ranks, {"cavity.yaml", "--set", "output.directory=" + out});
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.err, "");
    // --- the log once (as many solve lines as one rank's), with the global reference cell
    EXPECT_EQ(occurrences(outcome.out, "Solving for p"), occurrences(alone.out, "Solving for p")) << outcome.out;
    EXPECT_NE(outcome.out.find("reference cell 300 held at 1"), std::string::npos) << outcome.out;
    EXPECT_NE(outcome.out.find("time step continuity errors"), std::string::npos) << outcome.out;
    const auto s = summary(folder.path() / out);
    EXPECT_EQ(s["results"]["steps"], one["results"]["steps"]);
    EXPECT_NEAR(s["results"]["courantMax"].get<double>(), one["results"]["courantMax"].get<double>(), 1e-9);
    EXPECT_NEAR(s["results"]["velocityChange"].get<double>(), one["results"]["velocityChange"].get<double>(),
                1e-7 * one["results"]["velocityChange"].get<double>());
    EXPECT_LT(s["results"]["continuity"]["sumLocal"].get<double>(), 1e-10);
    // --- the samples along both centrelines: the serial ones to the solvers' tolerance
    const auto lines = centreline_rows(folder.path() / out / "centrelines.csv");
    ASSERT_EQ(lines.size(), one_lines.size());
    for (std::size_t k = 0; k < lines.size(); ++k)
      for (std::size_t j = 0; j < lines[k].size(); ++j)
        ASSERT_NEAR(lines[k][j], one_lines[k][j], 1e-7) << "row " << k << " column " << j;
#if FVMMINI_HAVE_VTK
    const auto serial = field_by_cell(folder.path() / "one" / "fields_000001.vtu", "p");
    const auto joined =
        field_by_cell(folder.path() / out / (ranks > 1 ? "fields_000001.pvtu" : "fields_000001.vtu"), "p");
    ASSERT_EQ(joined.size(), serial.size());
    EXPECT_NEAR(joined.at(300), 1.0, 1e-12);
    for (const auto& [cell, value] : serial) ASSERT_NEAR(joined.at(cell), value, 1e-7) << "cell " << cell;
#endif
  }
  // --- a fixed number of ranks gives the same bits every run (sums in rank order)
  const Outcome again = run(folder.path(), 3, {"cavity.yaml", "--set", "output.directory=ranks3-again"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(read_text(folder.path() / "ranks3-again" / "centrelines.csv"),
            read_text(folder.path() / "ranks3" / "centrelines.csv"));
  EXPECT_EQ(summary(folder.path() / "ranks3-again")["results"], summary(folder.path() / "ranks3")["results"]);
}

TEST(DistributedRun, ARankThatDiesEndsEveryRank) {
  testing::TempFolder folder;
  // --- a diffusion run of a million steps; rank 1 is killed (SIGKILL) two seconds in
  write_case(folder.path() / "long.yaml", "diffusion");
  const std::string command =
      "cd '" + folder.path().string() + "' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 timeout -s KILL 120 '" FVMMINI_MPIEXEC "' -n 2 --oversubscribe "
      "sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then (sleep 2; kill -KILL $$) & fi; "
      "exec \"$0\" long.yaml --set time.endTime=10000' '" FVMMINI_EXECUTABLE "'";
  const auto start = std::chrono::steady_clock::now();
  const Outcome outcome = testing::run_command(command);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // --- every rank ended, soon (no rank left waiting for the dead one), not successfully, the
  //     launcher naming the rank and the signal; no summary that would present the run as done
  EXPECT_LT(seconds, 60.0) << outcome.err;
  EXPECT_NE(outcome.status, 0);
  EXPECT_NE(outcome.err.find("rank 1"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("signal 9"), std::string::npos) << outcome.err;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "out" / "long" / "summary.json"));
}

TEST(DistributedRun, WhatCannotRunAcrossRanksEndsEveryRankWithOneMessage) {
  testing::TempFolder folder;
  // --- more ranks than cells
  std::ofstream(folder.path() / "tiny.yaml") << "mesh: {type: box, cells: [2, 1, 1]}\n"
                                                "physics: {type: poisson, source: 1}\n"
                                                "boundaryField:\n"
                                                "  xmin: {type: fixedValue, value: 0}\n"
                                                "  xmax: {type: fixedValue, value: 0}\n"
                                                "  ymin: {type: zeroGradient}\n  ymax: {type: zeroGradient}\n"
                                                "  zmin: {type: zeroGradient}\n  zmax: {type: zeroGradient}\n"
                                             << "output: {directory: tiny, vtk: " << vtk << "}\n";
  const Outcome tiny = run(folder.path(), 3, {"tiny.yaml"});
  EXPECT_EQ(tiny.status, 2) << tiny.err;
  EXPECT_NE(tiny.err.find("3 parts for a mesh of 2 cells"), std::string::npos) << tiny.err;
  EXPECT_EQ(tiny.err.find("fvmmini: error"), tiny.err.rfind("fvmmini: error")) << tiny.err;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "tiny"));
  // --- a case error (a mistyped key) read by every rank: said once
  const Outcome typo = run(folder.path(), 2, {"tiny.yaml", "--set", "decomposition.methd=metis"});
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.err.find("did you mean 'method'"), std::string::npos) << typo.err;
  EXPECT_EQ(typo.err.find("unknown key"), typo.err.rfind("unknown key")) << typo.err;
  // --- a reference cell beyond the whole mesh: refused on every rank, said once
  std::ofstream(folder.path() / "flow.yaml") << "mesh: {type: box, cells: [4, 4, 1], patches: {lid: {sides: [ymax], "
                                                "type: wall}, walls: {sides: [xmin, xmax, ymin], type: wall}, "
                                                "frontAndBack: {sides: [zmin, zmax], type: empty}}}\n"
                                                "physics: {type: incompressible, nu: 0.01}\n"
                                                "boundaryField:\n  lid: {type: wall, velocity: [1, 0, 0]}\n"
                                                "  walls: {type: wall}\n  frontAndBack: {type: empty}\n"
                                                "time: {endTime: 0.1, deltaT: 0.01, writeInterval: 0.1}\n"
                                                "discretisation: {referenceCell: 16}\n"
                                             << "output: {directory: flow, vtk: " << vtk << "}\n";
  const Outcome reference = run(folder.path(), 2, {"flow.yaml"});
  EXPECT_EQ(reference.status, 2) << reference.err;
  EXPECT_NE(reference.err.find("flow.yaml:8:18: discretisation.referenceCell = 16 is not a cell of the mesh (it has 16 cells)"), std::string::npos) << reference.err;
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "flow" / "summary.json"));
  EXPECT_EQ(reference.err.find("fvmmini: error"), reference.err.rfind("fvmmini: error")) << reference.err;
}

}  // namespace
}  // namespace fvmmini
