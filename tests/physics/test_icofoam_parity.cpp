// icoFoam parity: OpenFOAM v1912's icoFoam (Debian's `openfoam` package) and fvmmini's PISO step
// run the same case from the same blockMesh'd polyMesh; their cell values of U and p agree after
// 20 steps. Where icoFoam is not installed the tests say so and skip.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "flow_cases.hpp"
#include "discretisation/incompressible/piso_step.hpp"
#include "mesh/polymesh_reader.hpp"

namespace fvmmini {
namespace {

namespace fs = std::filesystem;

/// OpenFOAM's environment script where Debian's package puts it.
const fs::path openfoam_bashrc = "/usr/share/openfoam/etc/bashrc";

bool icofoam_installed() {
  return fs::exists(openfoam_bashrc) && std::system("command -v icoFoam > /dev/null 2>&1") == 0;
}

/// One case as both codes read it.
struct ParityCase {
  label nx, ny, nz;
  bool two_dimensional;    ///< front and back empty (else walls)
  std::string divergence;  ///< fvSchemes' div(phi,U): "Gauss linear", "Gauss linearUpwind grad(U)", "Gauss upwind"
  double delta_t;
  int steps = 20;
  double u_tolerance, p_tolerance, p_rel_tol;
};

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// The icoFoam cavity tutorial's dictionaries with the case's sizes, schemes and tolerances.
void write_case(const fs::path& dir, const ParityCase& c) {
  const auto dict = [](const std::string& name) {
    return "FoamFile { version 2.0; format ascii; class dictionary; object " + name + "; }\n";
  };
  const double depth = c.two_dimensional ? 0.1 : 1.0;
  write_file(dir / "system/blockMeshDict",
             dict("blockMeshDict") +
                 fmt::format("convertToMeters 0.1;\nvertices ((0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 {0}) (1 0 {0}) "
                             "(1 1 {0}) (0 1 {0}));\nblocks (hex (0 1 2 3 4 5 6 7) ({1} {2} {3}) simpleGrading "
                             "(1 1 1));\nedges ();\nboundary (\n movingWall {{ type wall; faces ((3 7 6 2)); }}\n"
                             " fixedWalls {{ type wall; faces ((0 4 7 3) (2 6 5 1) (1 5 4 0){4}); }}\n{5});\n",
                             depth, c.nx, c.ny, c.nz, c.two_dimensional ? "" : " (0 3 2 1) (4 5 6 7)",
                             c.two_dimensional ? " frontAndBack { type empty; faces ((0 3 2 1) (4 5 6 7)); }\n" : ""));
  write_file(dir / "system/controlDict",
             dict("controlDict") + fmt::format("application icoFoam; startFrom startTime; startTime 0; stopAt "
                                               "endTime; endTime {0:.6g}; deltaT {1}; writeControl timeStep; "
                                               "writeInterval {2}; writeFormat ascii; writePrecision 17; "
                                               "timeFormat general; timePrecision 6;\n",
                                               c.delta_t * c.steps, c.delta_t, c.steps));
  write_file(dir / "system/fvSchemes",
             dict("fvSchemes") + "ddtSchemes { default Euler; }\ngradSchemes { default Gauss linear; }\n"
                                 "divSchemes { default none; div(phi,U) " + c.divergence + "; }\n"
                                 "laplacianSchemes { default Gauss linear orthogonal; }\n"
                                 "interpolationSchemes { default linear; }\nsnGradSchemes { default orthogonal; }\n");
  write_file(dir / "system/fvSolution",
             dict("fvSolution") +
                 fmt::format("solvers {{\n p {{ solver PCG; preconditioner DIC; tolerance {0}; relTol {1}; }}\n"
                             " pFinal {{ $p; relTol 0; }}\n U {{ solver smoothSolver; smoother symGaussSeidel; "
                             "tolerance {2}; relTol 0; }}\n}}\nPISO {{ nCorrectors 2; nNonOrthogonalCorrectors 0; "
                             "pRefCell 0; pRefValue 0; }}\n",
                             c.p_tolerance, c.p_rel_tol, c.u_tolerance));
  write_file(dir / "constant/transportProperties", dict("transportProperties") + "nu [0 2 -1 0 0 0 0] 0.01;\n");
  const std::string front_and_back = c.two_dimensional ? " frontAndBack { type empty; }\n" : "";
  write_file(dir / "0/U", "FoamFile { version 2.0; format ascii; class volVectorField; object U; }\n"
                          "dimensions [0 1 -1 0 0 0 0];\ninternalField uniform (0 0 0);\nboundaryField {\n"
                          " movingWall { type fixedValue; value uniform (1 0 0); }\n fixedWalls { type noSlip; }\n" +
                              front_and_back + "}\n");
  write_file(dir / "0/p", "FoamFile { version 2.0; format ascii; class volScalarField; object p; }\n"
                          "dimensions [0 2 -2 0 0 0 0];\ninternalField uniform 0;\nboundaryField {\n"
                          " movingWall { type zeroGradient; }\n fixedWalls { type zeroGradient; }\n" +
                              front_and_back + "}\n");
}

/// Runs blockMesh and icoFoam in `dir`; icoFoam's log is dir/log.icoFoam.
void run_icofoam(const fs::path& dir) {
  const std::string command = fmt::format("bash -c '. {} > /dev/null 2>&1; cd \"{}\" && blockMesh > log.blockMesh 2>&1 "
                                          "&& icoFoam > log.icoFoam 2>&1'",
                                          openfoam_bashrc.string(), dir.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << "icoFoam failed: see " << (dir / "log.icoFoam");
}

/// The internalField of an ASCII OpenFOAM field: n values of `width` components each.
std::vector<double> read_internal_field(const fs::path& path, int width) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::size_t at = s.find("internalField");
  EXPECT_NE(at, std::string::npos) << path;
  std::istringstream body(s.substr(s.find('>', at) + 1));
  std::size_t n = 0;
  body >> n;
  std::vector<double> values;
  std::string token;
  while (values.size() < n * width && body >> token) {
    token.erase(std::remove(token.begin(), token.end(), '('), token.end());
    token.erase(std::remove(token.begin(), token.end(), ')'), token.end());
    if (!token.empty()) values.push_back(std::stod(token));
  }
  EXPECT_EQ(values.size(), n * width) << path;
  return values;
}

/// "No Iterations N" of every pressure solve in icoFoam's log, in order.
std::vector<int> icofoam_pressure_iterations(const fs::path& log) {
  std::ifstream in(log);
  std::vector<int> iterations;
  const std::regex line(R"(Solving for p,.*No Iterations (\d+))");
  std::smatch m;
  for (std::string s; std::getline(in, s);)
    if (std::regex_search(s, m, line)) iterations.push_back(std::stoi(m[1]));
  return iterations;
}

/// fvmmini's PISO on the polyMesh of dir, the same settings; returns the step after c.steps steps.
struct FvmminiRun {
  Mesh mesh;
  MeshGeometry geometry;
  std::unique_ptr<FlowOperators> operators;
  std::unique_ptr<PisoStep> step;
  std::vector<int> pressure_iterations;
};

void run_fvmmini(const fs::path& dir, const ParityCase& c, FvmminiRun& run) {
  run.mesh = read_polymesh(dir);
  run.geometry = compute_geometry(run.mesh);
  FlowBoundary boundary;
  for (const Patch& patch : run.mesh.patches)
    boundary.patches.push_back({patch.type == "empty" ? FlowPatchType::empty : FlowPatchType::wall,
                                patch.name == "movingWall" ? Vec3{1.0, 0.0, 0.0} : Vec3{}, 0.0});
  IncompressibleSettings settings;
  settings.viscosity = 0.01;
  settings.algorithm = FlowAlgorithm::piso;
  settings.convection = c.divergence == "Gauss linear"  ? ConvectionScheme::linear
                        : c.divergence == "Gauss upwind" ? ConvectionScheme::upwind
                                                         : ConvectionScheme::linear_upwind;
  run.operators = std::make_unique<FlowOperators>(run.mesh, run.geometry, boundary, settings);
  SolverSettings u, p;
  u.solver = "smoothSolver";
  u.smoother = Smoother::symmetric_gauss_seidel;
  u.tolerance = c.u_tolerance;
  p.preconditioner = "DIC";
  p.tolerance = c.p_tolerance;
  p.rel_tol = c.p_rel_tol;
  SolverSettings p_final = p;
  p_final.rel_tol = 0.0;
  run.step = std::make_unique<PisoStep>(*run.operators, u, p, p_final);
  for (int k = 0; k < c.steps; ++k)
    for (const SolverPerformance& perf : run.step->advance(c.delta_t).solves)
      if (perf.field == "p") run.pressure_iterations.push_back(perf.iterations);
}

/// max |U - U_icoFoam| (the lid's velocity is 1) and max |p - p_icoFoam| over the pressure range,
/// each p's mean removed.
void expect_same_fields(const fs::path& time_dir, FvmminiRun& run, double bound) {
  const auto u = read_internal_field(time_dir / "U", 3), p = read_internal_field(time_dir / "p", 1);
  const FlowState& state = run.step->state();
  const label n = run.mesh.n_cells;
  ASSERT_EQ(p.size(), static_cast<std::size_t>(n));
  double du = 0.0, mean = 0.0, mean_foam = 0.0, p_min = p[0], p_max = p[0];
  for (label c = 0; c < n; ++c) {
    for (int i = 0; i < 3; ++i) du = std::max(du, std::abs(state.velocity[i][c] - u[3 * c + i]));
    mean += state.pressure[c] / n;
    mean_foam += p[c] / n;
    p_min = std::min(p_min, p[c]);
    p_max = std::max(p_max, p[c]);
  }
  double dp = 0.0;
  for (label c = 0; c < n; ++c) dp = std::max(dp, std::abs((state.pressure[c] - mean) - (p[c] - mean_foam)));
  std::printf("%s: max |U - U_icoFoam| = %.3g, max |p - p_icoFoam| / range = %.3g\n", time_dir.c_str(), du,
              dp / (p_max - p_min));
  EXPECT_LT(du, bound);
  EXPECT_LT(dp / (p_max - p_min), bound);
}

/// Both codes on case c in dir; their fields at time `time` within 1e-6 (the issue's bar).
void expect_parity(const fs::path& dir, const ParityCase& c, const std::string& time, FvmminiRun& run) {
  write_case(dir, c);
  run_icofoam(dir);
  run_fvmmini(dir, c, run);
  expect_same_fields(dir / time, run, 1e-6);
}

class IcoFoamParity : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!icofoam_installed())
      GTEST_SKIP() << "icoFoam is not installed (OpenFOAM v1912: apt-get install openfoam): parity not checked";
    dir_ = fs::temp_directory_path() / fmt::format("fvmmini-icofoam-{}-{}", ::getpid(), counter_++);
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
  static inline int counter_ = 0;
};

// The tutorial (20 x 20 x 1, Gauss linear), every tolerance 1e-10: the fields within 1e-6.
TEST_F(IcoFoamParity, TheCavityTutorialWithTightTolerances) {
  FvmminiRun run;
  expect_parity(dir_, {20, 20, 1, true, "Gauss linear", 0.005, 20, 1e-10, 1e-10, 0.0}, "0.1", run);
}

// The tutorial's own tolerances: the pressure iterations solve by solve within 10 % (the issue's
// bar; measured: equal), and the fields as close.
TEST_F(IcoFoamParity, TheCavityTutorialAsItIs) {
  FvmminiRun run;
  expect_parity(dir_, {20, 20, 1, true, "Gauss linear", 0.005, 20, 1e-5, 1e-6, 0.05}, "0.1", run);
  const std::vector<int> foam = icofoam_pressure_iterations(dir_ / "log.icoFoam");
  ASSERT_EQ(foam.size(), run.pressure_iterations.size());
  for (std::size_t k = 0; k < foam.size(); ++k)
    EXPECT_NEAR(run.pressure_iterations[k], foam[k], 0.1 * foam[k]) << "pressure solve " << k;
}

// A 3-D cavity of 24^3 cells with linearUpwind (Gauss linear gradients), and the 2-D one with
// upwind: the fields within 1e-6 at tolerances 1e-10.
TEST_F(IcoFoamParity, ThreeDimensionalLinearUpwindAndTwoDimensionalUpwind) {
  FvmminiRun three_d, upwind;
  expect_parity(dir_, {24, 24, 24, false, "Gauss linearUpwind grad(U)", 0.002, 20, 1e-10, 1e-10, 0.0}, "0.04",
                three_d);
  expect_parity(dir_ / "upwind", {20, 20, 1, true, "Gauss upwind", 0.005, 20, 1e-10, 1e-10, 0.0}, "0.1", upwind);
}

}  // namespace
}  // namespace fvmmini
