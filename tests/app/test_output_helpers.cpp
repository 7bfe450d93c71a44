// Output helpers: atomic files, the phase timer, the JSON summary, the progress line.

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/atomic_file.hpp"
#include "app/case_loader.hpp"
#include "app/output_folder.hpp"
#include "app/phase_timer.hpp"
#include "app/progress.hpp"
#include "app/run_summary.hpp"
#include "mesh/box_generator.hpp"
#include "temp_folder.hpp"

namespace fvmmini {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count_entries(const std::filesystem::path& folder) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(folder), {}));
}

TEST(AtomicFile, WritesAndReplaces) {
  testing::TempFolder folder;
  const auto target = folder.path() / "a.txt";
  write_file_atomically(target, "first");
  write_file_atomically(target, "second, longer");
  EXPECT_EQ(read_text(target), "second, longer");
  EXPECT_EQ(count_entries(folder.path()), 1u);  // no temporary left behind
}

TEST(AtomicFile, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  testing::TempFolder folder;
  const auto target = folder.path() / "result.vtu";
  write_file_atomically(target, "complete old result");
  EXPECT_THROW(replace_file_atomically(target,
                                       [](const std::filesystem::path& temporary) {
                                         std::ofstream(temporary) << "half a fi";
                                         throw std::runtime_error("interrupted");
                                       }),
               std::runtime_error);
  EXPECT_EQ(read_text(target), "complete old result");
  EXPECT_EQ(count_entries(folder.path()), 1u);

  const auto fresh = folder.path() / "fresh.vtu";
  EXPECT_THROW(replace_file_atomically(fresh, [](const std::filesystem::path&) { throw std::runtime_error("x"); }),
               std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_THROW(replace_file_atomically(fresh, [](const std::filesystem::path&) {}), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_EQ(count_entries(folder.path()), 1u);
}

TEST(AtomicFile, UnwritableFolderIsAnErrorNamingTheFile) {
  testing::TempFolder folder;
  const auto target = folder.path() / "missing" / "a.json";
  try {
    write_file_atomically(target, "x");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(folder.path() / "missing"));
}

TEST(AtomicFile, ALinkPlantedUnderTheTemporarysNameIsRemovedNeverFollowed) {
  testing::TempFolder folder;
  const auto victim = folder.path() / "victim.txt";
  std::ofstream(victim) << "the user's own file";
  const auto target = folder.path() / "out" / "summary.json";
  std::filesystem::create_directories(target.parent_path());
  std::filesystem::create_symlink(victim, temporary_path_for(target));
  write_file_atomically(target, "the summary");
  EXPECT_EQ(read_text(victim), "the user's own file");
  EXPECT_EQ(read_text(target), "the summary");
  EXPECT_FALSE(std::filesystem::is_symlink(target));
  EXPECT_EQ(count_entries(target.parent_path()), 1u);
  // --- a link at the target itself is replaced by the file, its target untouched
  const auto linked = folder.path() / "out" / "fields.pvd";
  std::filesystem::create_symlink(victim, linked);
  replace_file_atomically(linked, [](const std::filesystem::path& temporary) { std::ofstream(temporary) << "pvd"; });
  EXPECT_EQ(read_text(victim), "the user's own file");
  EXPECT_FALSE(std::filesystem::is_symlink(linked));
  EXPECT_EQ(read_text(linked), "pvd");
}

TEST(AtomicFile, AStreamThatCannotBeWrittenSaysWhyAndLeavesNothing) {
  testing::TempFolder folder;
  const auto target = folder.path() / "centrelines.csv";
  write_stream_atomically(target, [](std::ostream& out) { out << "line,coordinate\n"; });
  EXPECT_EQ(read_text(target), "line,coordinate\n");
  // --- files may grow to 4 KiB only (SIGXFSZ ignored: the write fails with EFBIG)
  const auto previous_signal = std::signal(SIGXFSZ, SIG_IGN);
  rlimit previous{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &previous), 0);
  const rlimit small{4096, previous.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    write_stream_atomically(target, [](std::ostream& out) { out << std::string(1 << 20, 'x'); });
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &previous);
  std::signal(SIGXFSZ, previous_signal);
  EXPECT_EQ(message, "cannot write " + target.string() + ": File too large");
  EXPECT_EQ(read_text(target), "line,coordinate\n");
  EXPECT_EQ(count_entries(folder.path()), 1u);
}

TEST(OutputFolder, LinksUnderOutputNamesAreRemovedAndTheirTargetsLeft) {
  testing::TempFolder folder;
  const auto victim = folder.write("victim.txt", "the user's own file");
  const auto out = folder.path() / "out";
  std::filesystem::create_directories(out);
  for (const char* name : {"summary.json", "fields.pvd", "fields_000003.vtu", "centrelines.csv", ".a.part12"})
    std::filesystem::create_symlink(victim, out / name);
  std::filesystem::create_symlink(victim, out / "notes.txt");  // not an output's name: left alone
  {
    const OutputFolder output(out, "summary.json");
    EXPECT_EQ(output.removed(), 5u);
  }
  EXPECT_EQ(read_text(victim), "the user's own file");
  EXPECT_EQ(count_entries(out), 1u);
  EXPECT_TRUE(std::filesystem::is_symlink(out / "notes.txt"));
}

TEST(OutputFolder, AnInputUnderAnOutputsNameStopsTheRunUntouched) {
  testing::TempFolder folder;
  const auto case_file = folder.write("case.yaml", "the case");
  try {
    const OutputFolder output(folder.path(), "case.yaml", {case_file});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "the output folder " + folder.path().string() +
                                         " holds case.yaml, a file this run writes (output.summary), but it is the "
                                         "input " + case_file.string() +
                                         ": set output.directory to another folder or output.summary to another name");
  }
  EXPECT_EQ(read_text(case_file), "the case");
  EXPECT_FALSE(std::filesystem::exists(folder.path() / ".fvmmini.lock"));  // released
  // --- a mesh file is an input too: the output folder the polyMesh folder, the summary named owner
  const auto owner = folder.write("mesh/constant/polyMesh/owner", "the owner list");
  EXPECT_THROW(OutputFolder(owner.parent_path(), "owner", {case_file, owner}), std::runtime_error);
  EXPECT_EQ(read_text(owner), "the owner list");
}

TEST(OutputFolder, ASummaryNameIsAPlainNameNoOtherOutputHas) {
  EXPECT_EQ(summary_name_problem("summary.json"), "");
  EXPECT_EQ(summary_name_problem(""), "");  // none
  EXPECT_EQ(summary_name_problem("a/b.json"), "must be a file name, not a path");
  EXPECT_EQ(summary_name_problem(".."), "must name a file, not the folder '..'");
  EXPECT_EQ(summary_name_problem("."), "must name a file, not the folder '.'");
  EXPECT_EQ(summary_name_problem(".fvmmini.lock"),
            "must not start with '.' (the output folder's lock and temporaries do)");
  EXPECT_EQ(summary_name_problem("s\x1b[2J.json"), "must not hold control characters");
  EXPECT_EQ(summary_name_problem("fields.pvd"), "names a file the run writes itself (fields.pvd)");
  EXPECT_EQ(summary_name_problem("fields_000001.vtu"), "names a file the run writes itself (fields_000001.vtu)");
  EXPECT_EQ(summary_name_problem("centrelines.csv"), "names a file the run writes itself (centrelines.csv)");
}

TEST(PhaseTimer, AccumulatesPhasesInFirstUseOrder) {
  PhaseTimer timer;
  timer.add("mesh", 0.5);
  timer.add("solve", 1.0);
  timer.add("mesh", 0.25);
  {
    auto timing = timer.measure("output");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(timer.phases().size(), 3u);
  EXPECT_EQ(timer.phases()[0].first, "mesh");
  EXPECT_DOUBLE_EQ(timer.seconds("mesh"), 0.75);
  EXPECT_DOUBLE_EQ(timer.seconds("solve"), 1.0);
  EXPECT_GE(timer.seconds("output"), 0.015);
  EXPECT_EQ(timer.seconds("never"), 0.0);

  const std::string table = timer.format_table();
  for (const char* row : {"Phase", "mesh", "solve", "output", "other", "total"})
    EXPECT_NE(table.find(row), std::string::npos) << row << "\n" << table;
  EXPECT_NE(table.find("0.7500"), std::string::npos) << table;
}

TEST(PhaseTimer, RankPhasesTabulateMinMeanMaxAndTheSlowestRank) {
  PhaseTimer timer;
  timer.add("mesh", 0.5);
  timer.add("solve", 1.0);
  const RankPhases alone = gather_phases(timer, Communicator::serial());
  EXPECT_EQ(alone.names, (std::vector<std::string>{"mesh", "solve"}));
  EXPECT_EQ(alone.seconds, (std::vector<std::vector<double>>{{0.5}, {1.0}}));
  ASSERT_EQ(alone.wall.size(), 1u);
  // --- three ranks as gather_phases would give them
  RankPhases r;
  r.names = {"mesh", "solve"};
  r.seconds = {{0.5, 0.0, 0.0}, {1.0, 3.0, 2.0}};
  r.wall = {4.0, 4.5, 4.25};
  const std::string table = r.format_table();
  EXPECT_NE(table.find("Phase on 3 ranks"), std::string::npos) << table;
  // solve: min 1, mean 2, max 3 on rank 1; total: the wall times, slowest rank 1
  EXPECT_NE(table.find("1.0000      2.0000      3.0000       1"), std::string::npos) << table;
  EXPECT_NE(table.find("4.0000      4.2500      4.5000       1"), std::string::npos) << table;
}

TEST(PhaseTimer, PartsAreListedUnderTheirPhaseAndInsideItsTime) {
  PhaseTimer timer;
  timer.add("geometry", 1.0);
  timer.add("solve", 2.0);
  timer.add_part("geometry", "mesh check", 0.25);
  timer.add_part("geometry", "cell lists", 0.5);
  timer.add_part("geometry", "mesh check", 0.125);
  EXPECT_EQ(timer.parts("geometry"),
            (std::vector<std::pair<std::string, double>>{{"mesh check", 0.375}, {"cell lists", 0.5}}));
  EXPECT_TRUE(timer.parts("solve").empty());
  ASSERT_EQ(timer.phases().size(), 2u);  // parts are no phases of their own
  const std::string table = timer.format_table();
  const auto geometry = table.find("\ngeometry"), check = table.find("\n  mesh check"),
             lists = table.find("\n  cell lists"), solve = table.find("\nsolve");
  ASSERT_NE(check, std::string::npos) << table;
  EXPECT_LT(geometry, check) << table;
  EXPECT_LT(check, lists) << table;
  EXPECT_LT(lists, solve) << table;
  EXPECT_NE(table.find("0.3750"), std::string::npos) << table;
  // --- "other" is the wall time outside the phases: a part's time is not counted again
  PhaseTimer bare;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  bare.add("geometry", 0.0);
  bare.add_part("geometry", "cell lists", 10.0);
  const std::string bare_table = bare.format_table();
  const auto other = bare_table.find("other");
  ASSERT_NE(other, std::string::npos) << bare_table;
  EXPECT_GT(std::stod(bare_table.substr(other + 5)), 0.02) << bare_table;
}

TEST(PhaseTimer, ShareIsOfTheWallTime) {
  PhaseTimer timer;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  timer.add("solve", timer.wall_seconds());
  const std::string table = timer.format_table();
  // --- Nearly all of the wall time is in "solve": its share prints as 9x.x%.
  const auto row = table.find("solve");
  const auto percent = table.find('%', row);
  const double share = std::stod(table.substr(percent - 6, 6));
  EXPECT_GT(share, 90.0) << table;
  EXPECT_LE(share, 100.0) << table;
}

TEST(RunSummary, RecordsCaseMeshSolvesPhasesAndStatus) {
  testing::TempFolder folder;
  const auto case_file = folder.write(
      "c.yaml", "mesh: {type: box, cells: [2, 1, 1], patches: {all: {sides: [xmin, xmax, ymin, ymax, zmin, zmax]}}}\n"
                "physics: {type: poisson}\nboundaryField: {all: {type: fixedValue, value: 0}}\n");
  const ResolvedCase resolved = load_case(case_file, {});
  RunContext context;
  context.version = "9.9.9";
  context.command_line = "fvmmini c.yaml";
  RunSummary summary(resolved, context);
  BoxSpec spec;
  spec.cells = {2, 1, 1};
  summary.set_mesh(generate_box(spec));
  summary.add_solve({"CG[csr]", "T", 1.0, 1e-7, 12, true});
  summary.add_solve({"CG[csr]", "T", 0.5, 1e-5, 30, false});
  PhaseTimer timer;
  timer.add("solve", 0.25);
  timer.add("setup", 0.5);
  timer.add_part("setup", "format", 0.375);
  summary.set_phases(timer);
  summary.results()["l2Error"] = 0.125;
  summary.set_status("completed");
  const auto file = folder.path() / "summary.json";
  summary.write(file);

  const auto json = nlohmann::json::parse(read_text(file));
  EXPECT_EQ(json["fvmmini"]["version"], "9.9.9");
  EXPECT_EQ(json["status"], "completed");
  EXPECT_EQ(json["case"]["mesh"]["cells"], nlohmann::json::array({2, 1, 1}));
  EXPECT_EQ(json["case"]["solvers"]["T"]["format"], "csr");
  EXPECT_EQ(json["case"]["output"]["vtk"], true);
  EXPECT_EQ(json["mesh"]["cells"], 2);
  EXPECT_EQ(json["mesh"]["internalFaces"], 1);
  EXPECT_EQ(json["solves"]["T"]["solves"], 2);
  EXPECT_EQ(json["solves"]["T"]["iterations"], 42);
  EXPECT_EQ(json["solves"]["T"]["maxIterations"], 30);
  EXPECT_EQ(json["solves"]["T"]["allConverged"], false);
  EXPECT_DOUBLE_EQ(json["solves"]["T"]["lastFinalResidual"].get<double>(), 1e-5);
  EXPECT_EQ(json["phases"][0]["phase"], "solve");
  EXPECT_FALSE(json["phases"][0].contains("parts"));
  EXPECT_EQ(json["phases"][1]["parts"], nlohmann::json::parse(R"([{"part": "format", "seconds": 0.375}])"));
  EXPECT_DOUBLE_EQ(json["results"]["l2Error"].get<double>(), 0.125);
  EXPECT_FALSE(json.contains("error"));

  summary.set_status("failed", "CG diverged");
  summary.write(file);
  EXPECT_EQ(nlohmann::json::parse(read_text(file))["error"], "CG diverged");

  // --- a preconditioner, recorded before its field's first solve or after
  PreconditionerInfo dic;
  dic.name = "DIC";
  dic.setup_seconds = 0.5;
  dic.levels = 3;
  dic.level_sizes = {1, 4, 7};
  dic.spmv_equivalents = 1.25;
  dic.setup_parts = {{"pattern", 0.375}, {"analysis", 0.125}};
  summary.set_preconditioner("p", dic);
  summary.add_solve({"DICPCG[csr]", "p", 1.0, 1e-7, 9, true});
  PreconditionerInfo gamg;
  gamg.name = "GAMG";
  gamg.setup_seconds = 0.25;
  gamg.setup_parts = {{"agglomeration", 0.125}, {"levels", 0.0625}};
  gamg.refresh_seconds = 0.5;
  gamg.refresh_parts = {{"coefficients", 0.25}, {"coarsest", 0.125}};
  gamg.smoother = "jacobi";
  gamg.grid_levels = {{64, 288, "csr"}, {8, 32, "dense"}};
  summary.set_preconditioner("U", gamg);
  PreconditionerInfo none;
  none.name = "none";
  summary.set_preconditioner("T", none);
  const auto solves = summary.json()["solves"];
  EXPECT_EQ(solves["p"]["solves"], 1);
  EXPECT_EQ(solves["p"]["preconditioner"]["name"], "DIC");
  EXPECT_EQ(solves["p"]["preconditioner"]["levels"], 3);
  EXPECT_DOUBLE_EQ(solves["p"]["preconditioner"]["levelRows"]["mean"].get<double>(), 4.0);
  EXPECT_EQ(solves["p"]["preconditioner"]["levelRows"]["max"], 7);
  const nlohmann::json histogram = nlohmann::json::array({{{"levels", 1}, {"rowsFrom", 1}, {"rowsTo", 1}},
                                                          {{"levels", 2}, {"rowsFrom", 4}, {"rowsTo", 7}}});
  EXPECT_EQ(solves["p"]["preconditioner"]["levelSizeHistogram"], histogram);
  EXPECT_DOUBLE_EQ(solves["p"]["preconditioner"]["setupSeconds"].get<double>(), 0.5);
  EXPECT_EQ(solves["p"]["preconditioner"]["setupParts"], nlohmann::json({{"pattern", 0.375}, {"analysis", 0.125}}));
  EXPECT_DOUBLE_EQ(solves["p"]["preconditioner"]["spmvPerApplication"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(solves["U"]["preconditioner"]["setupSeconds"].get<double>(), 0.25);
  EXPECT_EQ(solves["U"]["preconditioner"]["setupParts"], nlohmann::json({{"agglomeration", 0.125}, {"levels", 0.0625}}));
  EXPECT_EQ(solves["U"]["preconditioner"]["refreshParts"],
            nlohmann::json({{"coefficients", 0.25}, {"coarsest", 0.125}}));
  EXPECT_EQ(solves["U"]["preconditioner"]["gridLevels"].size(), 2u);
  EXPECT_EQ(solves["T"]["preconditioner"], nlohmann::json({{"name", "none"}}));
  EXPECT_EQ(solves["T"]["solves"], 2);
}

std::string drawn(bool enabled, const std::function<void(ProgressLine&)>& draw) {
  std::FILE* stream = std::tmpfile();
  {
    ProgressLine line(enabled, stream);
    draw(line);
  }
  std::rewind(stream);
  std::string text;
  for (int c; (c = std::fgetc(stream)) != EOF;) text += static_cast<char>(c);
  std::fclose(stream);
  return text;
}

TEST(ProgressLine, DrawsOnlyWhenEnabled) {
  const auto draw = [](ProgressLine& line) {
    line.update(0.5, "t = 0.5");
    line.update(1.0, "t = 1");
  };
  EXPECT_EQ(drawn(false, draw), "");
  const std::string text = drawn(true, draw);
  EXPECT_EQ(text.front(), '\r');
  EXPECT_NE(text.find("[##########          ]  50%  t = 0.5"), std::string::npos) << text;
  EXPECT_NE(text.find("100%  t = 1"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");  // erased at the end
}

}  // namespace
}  // namespace fvmmini
