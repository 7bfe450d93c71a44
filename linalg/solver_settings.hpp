#pragma once
// What a case file says about one linear solve, and what the solve reports back.

#include <string>
#include <vector>

namespace fvmmini {

/// How the cuda backend launches the Staircase SELL kernel (the layout is the same for both).
enum class StaircaseLaunch {
  groups,       ///< one launch per row-length group, each on its own stream (the thesis)
  interleaved,  ///< one launch over every slice, visited by place in the mesh (a block's slices share x in L1)
};

/// The names of the launch modes, in enum order: "groups", "interleaved".
const std::vector<std::string>& staircase_launch_names();
/// The name of a launch mode.
std::string staircase_launch_name(StaircaseLaunch launch);
/// The launch mode called `name`. @throws std::invalid_argument listing the known names
StaircaseLaunch parse_staircase_launch(const std::string& name);

/// Parameters of the storage formats (each format reads the ones it uses).
struct FormatParameters {
  int slice_height = 32;   ///< Staircase SELL: rows per slice (multiple of 32, <= 1024)
  double alpha = 0.01;     ///< Staircase SELL: groups smaller than alpha * rows merge upward; <= 0: auto,
                           ///< max(0.01, slice_height / rows)
  int chunk_size = 32;     ///< SELL-C-sigma: C
  int sort_window = 1024;  ///< SELL-C-sigma: sigma (rows sorted by length within windows of sigma)
  StaircaseLaunch staircase_launch = StaircaseLaunch::interleaved;  ///< Staircase SELL on cuda: the launch mode
};

struct SolverSettings {
  std::string solver = "CG";            ///< only CG for now (the systems are symmetric)
  std::string preconditioner = "none";  ///< none | jacobi
  double tolerance = 1e-6;              ///< absolute, on the normalised residual
  double rel_tol = 0.0;                 ///< stop when residual < rel_tol * initial (0: off)
  int max_iter = 1000;
  std::string backend = "reference";    ///< reference | cuda | auto
  std::string format = "csr";            ///< a format name, or auto: staircase on cuda, csr on reference
  std::string ordering = "none";
  FormatParameters format_parameters;
};

struct SolverPerformance {
  std::string solver_name;  ///< as printed: "CG[csr]"
  std::string field;
  double initial_residual = 0.0;
  double final_residual = 0.0;
  int iterations = 0;
  bool converged = false;
};

/// The OpenFOAM-style line: "CG[csr]: Solving for p, Initial residual = 1, Final residual = 9.2e-07, No Iterations 41".
std::string format_solve_line(const SolverPerformance& performance);

}  // namespace fvmmini
