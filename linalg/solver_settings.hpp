#pragma once
// What a case file says about one linear solve, what the solve reports back, and the interface
// every backend's solver implements (solvers/ builds them).

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "linalg/formats/format_parameters.hpp"
#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

/// The Krylov method (the systems are symmetric).
enum class KrylovSolver { cg };
enum class Preconditioner { none, jacobi };
/// Where a solve runs; automatic ("auto") is cuda when a device is present, else reference.
enum class Backend { reference, cuda, automatic };

// Each enum's one name table (in enum order, as case files and logs write them), its name and
// its parser. @throws std::invalid_argument on an unknown name, listing the known ones
const std::vector<std::string>& krylov_solver_names();    ///< CG
const std::vector<std::string>& preconditioner_names();   ///< none, jacobi
const std::vector<std::string>& backend_names();          ///< reference, cuda, auto
const std::string& name(KrylovSolver solver);
const std::string& name(Preconditioner preconditioner);
const std::string& name(Backend backend);
KrylovSolver parse_krylov_solver(const std::string& text);
Preconditioner parse_preconditioner(const std::string& text);
Backend parse_backend(const std::string& text);

struct SolverSettings {
  KrylovSolver solver = KrylovSolver::cg;
  Preconditioner preconditioner = Preconditioner::none;
  double tolerance = 1e-6;              ///< absolute, on the normalised residual
  double rel_tol = 0.0;                 ///< stop when residual < rel_tol * initial (0: off)
  int max_iter = 1000;
  Backend backend = Backend::reference;
  std::string format = "csr";            ///< a format name, or auto: staircase on cuda, csr on reference
  std::string ordering = "none";
  FormatParameters format_parameters;  ///< keys not set take the format's defaults
};

/// Breakdown (pAp <= 0, NaN), a singular system, or a device failure during a solve.
class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SolverPerformance {
  std::string solver_name;  ///< as printed: "CG[csr]"
  std::string field;
  double initial_residual = 0.0;
  double final_residual = 0.0;
  int iterations = 0;
  bool converged = false;
};

/// Settings that do not fit one field's matrix (a format that declines it, a parameter outside
/// its range for this matrix), naming the field: the app reports it as a case error on
/// solvers.<field>.
class SolverSetupError : public std::invalid_argument {
 public:
  SolverSetupError(std::string field, const std::string& what) : std::invalid_argument(what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;

  /// Solve A x = b; x holds the initial guess on entry. Vectors are in the mesh's cell order.
  /// @param[in] field the field name printed in the solve line
  virtual SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field) = 0;

  /// New coefficients on the same addressing: values are refreshed in place, no re-ordering.
  virtual void update_coefficients(const LduMatrix& matrix) = 0;

  /// One line for the log: backend, format, ordering and their parameters.
  virtual std::string describe() const = 0;
};

/// The OpenFOAM-style line: "CG[csr]: Solving for p, Initial residual = 1, Final residual = 9.2e-07, No Iterations 41".
std::string format_solve_line(const SolverPerformance& performance);

}  // namespace fvmmini
