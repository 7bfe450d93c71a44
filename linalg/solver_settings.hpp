#pragma once
// What a case file says about one linear solve, and what the solve reports back.

#include <string>

#include "linalg/formats/format_parameters.hpp"

namespace fvmmini {

struct SolverSettings {
  std::string solver = "CG";            ///< only CG for now (the systems are symmetric)
  std::string preconditioner = "none";  ///< none | jacobi
  double tolerance = 1e-6;              ///< absolute, on the normalised residual
  double rel_tol = 0.0;                 ///< stop when residual < rel_tol * initial (0: off)
  int max_iter = 1000;
  std::string backend = "reference";    ///< reference | cuda | auto
  std::string format = "csr";            ///< a format name, or auto: staircase on cuda, csr on reference
  std::string ordering = "none";
  FormatParameters format_parameters;  ///< keys not set take the format's defaults
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
