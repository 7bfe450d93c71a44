#pragma once
// The interface every backend's solver implements: one matrix's solves (make_linear_solver,
// solvers/make_linear_solver.hpp, returns one), its value refreshes and its reports.

#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;

  /// Solve A x = b; x holds the initial guess on entry. Vectors are in the mesh's cell order.
  /// @param[in] field the field name printed in the solve line
  virtual SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field) = 0;

  /// A x_j = b_j for several right-hand sides of the one matrix (the velocity components): x[j]
  /// and b[j] in the mesh's cell order, fields[j] the name each solve line prints. A backend and
  /// format that can solve them together, one SpMV of all of them per iteration, do (each record
  /// then as solve() would give it); the default solves them one after another.
  virtual std::vector<SolverPerformance> solve_block(std::span<const std::span<double>> x,
                                                     std::span<const std::span<const double>> b,
                                                     std::span<const std::string> fields);
  /// Whether solve_block solves k systems together (one SpMV of all of them an iteration).
  virtual bool solves_together(int /*k*/) const { return false; }

  /// New coefficients on the same addressing: values are refreshed in place, no re-ordering.
  virtual void update_coefficients(const LduMatrix& matrix) = 0;
  /// A solver of a rank's piece of a decomposed matrix (make_distributed_linear_solver): new
  /// coefficients of the local block and of its processor interfaces, on the same faces.
  /// @throws std::logic_error for a solver that is not distributed
  virtual void update_distributed(const DistributedLdu& system);
  /// A solver across ranks times its iteration's parts, `repeats` runs of each (collective).
  /// @throws std::logic_error for a solver that is not distributed
  virtual IterationParts time_iteration_parts(int repeats);
  /// `solves` solves of b from a zero guess (every rank of comm calls it: each solve starts after a
  /// barrier), timed where the backend keeps its vectors: the cuda backend solves device vectors,
  /// as the flow step does, so neither the host copies nor the host's reordering of b and x are
  /// timed. The default solves host vectors.
  virtual SolveTiming time_solves(std::span<const double> b, int solves, const Communicator& comm);

  /// One line for the log: backend, format, ordering and their parameters.
  virtual std::string describe() const = 0;

  /// The preconditioner's set-up and application cost.
  virtual PreconditionerInfo preconditioner_info() const = 0;

  /// The format, its resolved keys and its set-up (with what tuning timed, when keys were auto).
  virtual FormatInfo format_info() const = 0;
};

}  // namespace fvmmini
