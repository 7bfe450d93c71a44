// icoFoam parity: OpenFOAM v1912's icoFoam (Debian's `openfoam` package) and `fvmmini --foam-case`
// run the same case directory (blockMesh'd); their cell values of U and p agree after 20 steps.
// Where icoFoam is not installed the tests say so and skip (a build without VTK does not build
// them: they read fvmmini's fields back with VTK). The fields of two cases are kept as fixtures
// for the cuda backend's parity test (test_device_piso_step), checked here against icoFoam.

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

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "mesh/text_reader.hpp"
#include "tests/app/icofoam_case.hpp"
#include "tests/app/run_command.hpp"

namespace fvmmini {
namespace {

namespace fs = std::filesystem;

/// OpenFOAM's environment script where Debian's package puts it.
const fs::path openfoam_bashrc = "/usr/share/openfoam/etc/bashrc";

bool icofoam_installed() {
  return fs::exists(openfoam_bashrc) && std::system("command -v icoFoam > /dev/null 2>&1") == 0;
}

/// Runs blockMesh and icoFoam in `dir`; icoFoam's log is dir/log.icoFoam.
void run_icofoam(const fs::path& dir) {
  const std::string command = fmt::format("bash -c '. {} > /dev/null 2>&1; cd \"{}\" && blockMesh > log.blockMesh 2>&1 "
                                          "&& icoFoam > log.icoFoam 2>&1'",
                                          openfoam_bashrc.string(), dir.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << "icoFoam failed: see " << (dir / "log.icoFoam");
}

/// The internalField of an ASCII OpenFOAM field file, plain or gzip: `width` components a cell.
std::vector<double> read_internal_field(const fs::path& path, int width) {
  return testing::internal_field_values(read_text_file(path), width, path.string());
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

/// fvmmini --foam-case on dir, as a user runs it (from dir's parent: the fields go to
/// out/<dir's name>); the fields at its last write time and every pressure solve's iterations.
struct FvmminiRun {
  std::vector<double> u, p;  ///< per cell in polyMesh order (u: 3 a cell)
  std::vector<int> pressure_iterations;
};

void run_fvmmini(const fs::path& dir, FvmminiRun& run) {
  const fs::path folder = dir.parent_path();
  const testing::Outcome outcome =
      testing::run_command(fmt::format("cd '{}' && OMP_NUM_THREADS=2 {} --foam-case '{}'", folder.string(),
                                       FVMMINI_EXECUTABLE, dir.filename().string()));
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  const std::regex line(R"(Solving for p,.*No Iterations (\d+))");
  std::istringstream log(outcome.out);
  std::smatch m;
  for (std::string s; std::getline(log, s);)
    if (std::regex_search(s, m, line)) run.pressure_iterations.push_back(std::stoi(m[1]));
  const fs::path vtu = folder / "out" / dir.filename() / "fields_000001.vtu";  // the end time (one write)
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(vtu.c_str());
  reader->Update();
  vtkDataArray* u = reader->GetOutput()->GetCellData()->GetArray("U");
  vtkDataArray* p = reader->GetOutput()->GetCellData()->GetArray("p");
  ASSERT_TRUE(u && p) << vtu;
  for (vtkIdType c = 0; c < p->GetNumberOfTuples(); ++c) {
    for (int i = 0; i < 3; ++i) run.u.push_back(u->GetComponent(c, i));
    run.p.push_back(p->GetTuple1(c));
  }
}

/// max |U - U_icoFoam| (the lid's velocity is 1) and max |p - p_icoFoam| over the pressure range,
/// each p's mean removed, below `bound`.
void expect_same_fields(const fs::path& time_dir, const FvmminiRun& run, double bound) {
  const auto u = read_internal_field(time_dir / "U", 3), p = read_internal_field(time_dir / "p", 1);
  const std::size_t n = p.size();
  ASSERT_EQ(run.p.size(), n);
  double du = 0.0, mean = 0.0, mean_foam = 0.0, p_min = p[0], p_max = p[0];
  for (std::size_t c = 0; c < n; ++c) {
    for (int i = 0; i < 3; ++i) du = std::max(du, std::abs(run.u[3 * c + i] - u[3 * c + i]));
    mean += run.p[c] / n;
    mean_foam += p[c] / n;
    p_min = std::min(p_min, p[c]);
    p_max = std::max(p_max, p[c]);
  }
  double dp = 0.0;
  for (std::size_t c = 0; c < n; ++c) dp = std::max(dp, std::abs((run.p[c] - mean) - (p[c] - mean_foam)));
  std::printf("%s: max |U - U_icoFoam| = %.3g, max |p - p_icoFoam| / range = %.3g\n", time_dir.c_str(), du,
              dp / (p_max - p_min));
  EXPECT_LT(du, bound);
  EXPECT_LT(dp / (p_max - p_min), bound);
}

/// Both codes on case c in dir; their fields at time `time` within 1e-6 (the issue's bar).
void expect_parity(const fs::path& dir, const testing::IcoFoamCase& c, const std::string& time, FvmminiRun& run) {
  testing::write_icofoam_case(dir, c);
  run_icofoam(dir);
  run_fvmmini(dir, run);
  expect_same_fields(dir / time, run, 1e-6);
}

class IcoFoamParity : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!icofoam_installed())
      GTEST_SKIP() << "icoFoam is not installed (OpenFOAM v1912: apt-get install openfoam): parity not checked";
    root_ = fs::temp_directory_path() / fmt::format("fvmmini-icofoam-{}-{}", ::getpid(), counter_++);
    fs::remove_all(root_);
  }
  void TearDown() override {
    if (!root_.empty() && !HasFailure()) fs::remove_all(root_);
  }
  fs::path root_;  ///< the cases' folders, and out/ beside them
  static inline int counter_ = 0;
};

// The tutorial (20 x 20 x 1, Gauss linear), every tolerance 1e-10: the fields within 1e-6.
TEST_F(IcoFoamParity, TheCavityTutorialWithTightTolerances) {
  FvmminiRun run;
  expect_parity(root_ / "cavity", {20, 20, 1, true, "Gauss linear", 0.005, 20, 1e-10, 1e-10, 0.0}, "0.1", run);
}

// The tutorial's own tolerances: the pressure iterations solve by solve within 10 % (the issue's
// bar; measured: equal), and the fields as close.
TEST_F(IcoFoamParity, TheCavityTutorialAsItIs) {
  FvmminiRun run;
  expect_parity(root_ / "cavity", {20, 20, 1, true, "Gauss linear", 0.005, 20, 1e-5, 1e-6, 0.05}, "0.1", run);
  const std::vector<int> foam = icofoam_pressure_iterations(root_ / "cavity" / "log.icoFoam");
  ASSERT_EQ(foam.size(), run.pressure_iterations.size());
  for (std::size_t k = 0; k < foam.size(); ++k)
    EXPECT_NEAR(run.pressure_iterations[k], foam[k], 0.1 * foam[k]) << "pressure solve " << k;
}

// A 3-D cavity of 30^3 cells with linearUpwind (Gauss linear gradients), and the 2-D one with
// upwind: the fields within 1e-6 at tolerances 1e-10.
TEST_F(IcoFoamParity, ThreeDimensionalLinearUpwindAndTwoDimensionalUpwind) {
  FvmminiRun three_d, upwind;
  expect_parity(root_ / "cavity3d", {30, 30, 30, false, "Gauss linearUpwind grad(U)", 0.002, 20, 1e-10, 1e-10, 0.0},
                "0.04", three_d);
  expect_parity(root_ / "upwind", {20, 20, 1, true, "Gauss upwind", 0.005, 20, 1e-10, 1e-10, 0.0}, "0.1", upwind);
}

// A skewed cavity (the lid's vertices moved by 0.3 of its width: every cell a parallelogram), with
// Gauss linear corrected and one non-orthogonal corrector, and (moved by 0.1) Gauss linear orthogonal.
TEST_F(IcoFoamParity, ANonOrthogonalCavityCorrectedAndOrthogonal) {
  testing::IcoFoamCase c{20, 20, 1, true, "Gauss linear", 0.005, 20, 1e-10, 1e-10, 0.0};
  c.skew = 0.3;
  c.sn_grad = "corrected";
  c.n_non_orthogonal_correctors = 1;
  FvmminiRun corrected, orthogonal;
  expect_parity(root_ / "corrected", c, "0.1", corrected);
  c.skew = 0.1;  // (at 0.3 the orthogonal scheme diverges, in icoFoam as here)
  c.sn_grad = "orthogonal";
  c.n_non_orthogonal_correctors = 0;
  expect_parity(root_ / "orthogonal", c, "0.1", orthogonal);
}

// The fields tests/fixtures/icofoam keeps for the tests without icoFoam (the cuda backend's) are
// icoFoam's: each stored case run again here, its fields within 1e-12 of the stored ones (other
// CPUs may round differently) and fvmmini's within 1e-6 of both. FVMMINI_WRITE_ICOFOAM_FIXTURES=1
// writes them afresh instead (gzip -9 -n, into the source tree).
TEST_F(IcoFoamParity, TheStoredFieldsAreIcoFoams) {
  const fs::path fixtures = fs::path(FVMMINI_FIXTURES_DIR) / "icofoam";
  const char* write = std::getenv("FVMMINI_WRITE_ICOFOAM_FIXTURES");
  for (const testing::StoredIcoFoamCase& stored : testing::stored_icofoam_cases()) {
    SCOPED_TRACE(stored.name);
    FvmminiRun run;
    expect_parity(root_ / stored.name, stored.c, stored.end_time, run);
    for (const auto& [field, width] : {std::pair<std::string, int>{"U", 3}, {"p", 1}}) {
      const fs::path live = root_ / stored.name / stored.end_time / field;
      const fs::path kept = fixtures / stored.name / stored.end_time / (field + ".gz");
      if (write && std::string(write) == "1") {
        fs::create_directories(kept.parent_path());
        ASSERT_EQ(std::system(fmt::format("gzip -9 -n -c '{}' > '{}'", live.string(), kept.string()).c_str()), 0);
      }
      const std::vector<double> a = read_internal_field(live, width), b = read_internal_field(kept, width);
      ASSERT_EQ(a.size(), b.size()) << kept;
      double range = 0.0, difference = 0.0;
      for (std::size_t k = 0; k < a.size(); ++k) {
        range = std::max(range, std::abs(a[k]));
        difference = std::max(difference, std::abs(a[k] - b[k]));
      }
      EXPECT_LE(difference, 1e-12 * range) << kept << " is not what icoFoam writes now: "
                                           << "FVMMINI_WRITE_ICOFOAM_FIXTURES=1 writes it afresh";
    }
  }
}

}  // namespace
}  // namespace fvmmini
