// The incompressible time loop from a case file: what a completed run and a diverging run
// leave in the output folder; the driver's message when a step fails on its numbers or its device.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <typeinfo>

#include <nlohmann/json.hpp>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "app/run_case.hpp"
#include "app/simulation.hpp"
#include "tests/app/temp_folder.hpp"

namespace fvmmini {
namespace {

const char* cavity_case = R"(mesh:
  type: box
  cells: [16, 16, 1]
  max: [1, 1, 0.1]
  patches:
    movingWall: {sides: [ymax], type: wall}
    fixedWalls: {sides: [xmin, xmax, ymin], type: wall}
    frontAndBack: {sides: [zmin, zmax], type: empty}
physics: {type: incompressible, nu: 0.01}
boundaryField:
  movingWall: {type: wall, velocity: [1, 0, 0]}
  fixedWalls: {type: wall}
  frontAndBack: {type: empty}
time: {endTime: 60, deltaT: 0.01, maxCo: 0.5, writeInterval: 10, logInterval: 1000}
steadyState: {stop: true}
solvers:
  U: {preconditioner: jacobi, tolerance: 1e-8}
  p: {tolerance: 1e-6, maxIter: 2000}
output: {vtk: false}
)";

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

int run(const testing::TempFolder& folder, const std::vector<std::string>& overrides) {
  const auto file = folder.write("cavity.yaml", cavity_case);
  const ResolvedCase c = load_case(file, overrides);
  RunContext context;
  context.output_directory = folder.path() / "out";
  context.quiet = true;
  return run_case(c, context);
}

TEST(RunIncompressible, AFormatThatDeclinesTheMatrixIsACaseErrorNamingTheFieldAndWritesNothing) {
  // --- dia on the cavity renumbered by Cuthill-McKee: too many diagonals, said before the run
  const testing::TempFolder folder;
  for (const char* field : {"U", "p"}) {
    try {
      run(folder, {std::string("solvers.") + field + ".format=dia", std::string("solvers.") + field + ".ordering=cm"});
      ADD_FAILURE() << field << ": expected a case error";
    } catch (const CaseError& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find(std::string("solvers.") + field + ": dia needs a structured mesh in natural ordering"),
                std::string::npos)
          << text;
      EXPECT_NE(text.find("distinct diagonals, more than maxDiagonals = 27"), std::string::npos) << text;
    }
    EXPECT_FALSE(std::filesystem::exists(folder.path() / "out")) << field;
  }
  // --- in its natural order the box is diagonal-structured: dia solves the cavity
  EXPECT_EQ(run(folder, {"solvers.p.format=dia", "time.endTime=0.05"}), 0);
}

TEST(RunIncompressible, RunsToSteadyStateAndWritesSamplesAndSummary) {
  const testing::TempFolder folder;
  ASSERT_EQ(run(folder, {}), 0);
  const auto summary = read_json(folder.path() / "out" / "summary.json");
  EXPECT_EQ(summary["status"], "completed");
  const auto& results = summary["results"];
  EXPECT_TRUE(results["steady"].get<bool>());
  EXPECT_LT(results["finalTime"].get<double>(), 60.0);  // stopped at steady state
  EXPECT_LE(results["courantMax"].get<double>(), 0.5 + 1e-9);
  EXPECT_LT(results["continuity"]["sumLocal"].get<double>(), 1e-7);
  EXPECT_GT(summary["solves"]["p"]["solves"].get<long long>(), 100);
  std::vector<std::string> phases;
  for (const auto& phase : summary["phases"]) phases.push_back(phase["phase"]);
  for (const char* name :
       {"operators", "solver setup", "momentum", "pressure assembly", "pressure solve", "correction", "output"})
    EXPECT_NE(std::find(phases.begin(), phases.end(), name), phases.end()) << name;
  // --- the set-up's phases split into their parts, inside each phase's time
  for (const auto& phase : summary["phases"]) {
    const std::string name = phase["phase"];
    if (name != "geometry" && name != "operators" && name != "solver setup") continue;
    ASSERT_TRUE(phase.contains("parts")) << name;
    double parts = 0.0;
    for (const auto& part : phase["parts"]) parts += part["seconds"].get<double>();
    EXPECT_GT(parts, 0.0) << name;
    EXPECT_LE(parts, phase["seconds"].get<double>() + 1e-6) << name;
  }
  // on one rank the operators take the mesh check's cell face lists instead of making them again
  EXPECT_EQ(summary["phases"][1]["parts"][0]["part"], "cell face lists");
  EXPECT_EQ(summary["phases"][2]["phase"], "operators");
  EXPECT_EQ(summary["phases"][2]["parts"][0]["part"], "gather lists and Laplacian");
  // --- the process's peak resident memory (this test's own, at least its mesh's) and its share a cell
  const auto& memory = summary["memory"];
  const auto peak = memory["peakResidentBytes"].get<std::int64_t>();
  EXPECT_GT(peak, 1 << 20);
  EXPECT_EQ(memory["peakResidentBytesAllRanks"].get<std::int64_t>(), peak);  // one rank
  EXPECT_DOUBLE_EQ(memory["bytesPerCell"].get<double>(), static_cast<double>(peak) / 256.0);  // 16 x 16 cells

  // --- centrelines.csv: a header and 129 points on each of the two lines
  std::ifstream csv(folder.path() / "out" / "centrelines.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "line,coordinate,x,y,z,Ux,Uy,Uz,p");
  int vertical = 0, horizontal = 0;
  while (std::getline(csv, line)) {
    vertical += line.rfind("vertical,", 0) == 0;
    horizontal += line.rfind("horizontal,", 0) == 0;
  }
  EXPECT_EQ(vertical, 129);
  EXPECT_EQ(horizontal, 129);
}

TEST(RunIncompressible, ADivergingRunFailsAndSaysSoInTheSummary) {
  const testing::TempFolder folder;
  // --- a fixed step 100 times the Courant limit: the explicit convection blows up
  EXPECT_THROW(run(folder, {"time.maxCo=0", "time.deltaT=5", "time.endTime=1e6", "steadyState.stop=false"}),
               std::exception);
  const auto summary = read_json(folder.path() / "out" / "summary.json");
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_FALSE(summary["error"].get<std::string>().empty());
}

// A physics whose second step fails as `error` says: the driver adds where it happened, and
// the physics' likely cause only when the numbers failed, not the device.
class FailingSimulation final : public Simulation {
 public:
  explicit FailingSimulation(std::function<void()> error) : error_(std::move(error)) {}
  std::string describe() const override { return {}; }
  bool transient() const override { return true; }
  StepOutcome advance(double, double) override {
    if (++steps_ == 2) error_();
    return {};
  }
  void write(double, double) override {}
  std::string finish(RunSummary&, bool) override { return {}; }
  std::string failure_hint() const override { return "; the flow diverged"; }

 private:
  std::function<void()> error_;
  int steps_ = 0;
};

/// run_simulation of the cavity case under a FailingSimulation: the error it ends with.
template <class Error>
Error failed_run(const testing::TempFolder& folder, std::function<void()> error) {
  const ResolvedCase c = load_case(folder.write("cavity.yaml", cavity_case), {});
  RunContext context;
  context.output_directory = folder.path() / "out";
  context.quiet = true;
  try {
    run_simulation(c, context, [&](auto&&...) { return std::make_unique<FailingSimulation>(error); });
  } catch (const Error& e) {
    // (returned by value, a derived error sliced: its type is checked here, where it is whole)
    EXPECT_EQ(typeid(e), typeid(Error)) << "the run ended with another error type: " << typeid(e).name();
    return e;
  }
  ADD_FAILURE() << "the run did not fail as expected";
  return Error("none");
}

TEST(RunSimulation, AFailedDeviceIsNotBlamedOnTheFlowAndKeepsWhetherItsMemoryRanOut) {
  const testing::TempFolder folder;
  const DeviceError device = failed_run<DeviceError>(folder, [] { throw DeviceError("cudaMalloc failed", true); });
  EXPECT_TRUE(device.out_of_memory());
  EXPECT_NE(std::string(device.what()).find("cudaMalloc failed (at Time = 0.02, step 2"), std::string::npos)
      << device.what();
  EXPECT_EQ(std::string(device.what()).find("diverged"), std::string::npos) << device.what();
  EXPECT_EQ(read_json(folder.path() / "out" / "summary.json")["status"], "failed");
  // --- a breakdown of the numbers keeps the physics' likely cause
  const SolverError numbers = failed_run<SolverError>(folder, [] { throw SolverError("CG: p.Ap <= 0"); });
  EXPECT_NE(std::string(numbers.what()).find("step 2, deltaT = 0.01; the flow diverged)"), std::string::npos)
      << numbers.what();
}

}  // namespace
}  // namespace fvmmini
