#pragma once
// A solver method as one unit: its name, the matrices it is for, and its reference (host)
// implementation: the Krylov methods, and OpenFOAM's smoothSolver beside them. One file per
// method in solvers/krylov/units/ defines one, and the list in solvers/CMakeLists.txt is the
// table (krylov_table.hpp reads it). The cuda backend adds its own
// implementation by name (units/cuda/, its own list: cuda/device_krylov.hpp). docs/architecture.md,
// "Adding a Krylov method", walks through one.

#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"
#include "solvers/krylov/work_store.hpp"
#include "solvers/preconditioners/preconditioner.hpp"

namespace fvmmini {

/// A Krylov method on the reference backend, its work vectors (from its WorkStore) kept from one
/// solve to the next.
class KrylovMethod {
 public:
  virtual ~KrylovMethod() = default;
  /// Solve A x = b in the operator's numbering (x: the guess in, the solution out), preconditioned
  /// as `preconditioner`'s unit says (its cg_step), following solvers/krylov/cg_rules.hpp's
  /// stopping tests and errors.
  virtual SolverPerformance solve(const HostOperator& a, std::span<double> x, std::span<const double> b,
                                  const SolverSettings& settings, HostPreconditioner& preconditioner) = 0;
  /// A method that reads the matrix itself (smoothSolver's sweeps) sets up from it here, once per
  /// mesh, in the operator's numbering `op` (sequence: the solve's ordering before a format's
  /// grouping), and checks the settings it reads; a Krylov method needs nothing.
  /// @param decomposed the matrix is a rank's block of one decomposed over ranks
  /// @throws std::invalid_argument for settings it cannot take, naming the key
  virtual void set_up(const LduMatrix& /*matrix*/, const Permutation& /*op*/, std::span<const label> /*sequence*/,
                      const SolverSettings& /*settings*/, bool /*decomposed*/) {}
  /// New values on the addressing of set_up.
  virtual void refresh(const LduMatrix& /*matrix*/) {}
  /// Whether solve_block solves k systems of one operator together (one multi-vector SpMV an
  /// iteration, the preconditioner applied to all k); false: the caller solves them one by one.
  virtual bool solves_together(const HostOperator&, const SolverSettings&, const HostPreconditioner&,
                               int /*k*/) const {
    return false;
  }
  /// k systems at once, x and b holding the k vectors interleaved by row (linalg/block_vectors.hpp).
  /// @pre solves_together(a, settings, preconditioner, k)
  virtual std::vector<SolverPerformance> solve_block(const HostOperator&, int, std::span<double>,
                                                     std::span<const double>, const SolverSettings&,
                                                     HostPreconditioner&) {
    throw std::logic_error("this Krylov method solves one system at a time");
  }
};

struct KrylovUnit {
  std::string name{};     ///< as in case files (solver) and in the solve line: "CG", "DICPCG"
  std::string summary{};  ///< one line for --help and the docs: what it is, the matrices it is for
  /// Solves symmetric matrices only (CG): set-up refuses an asymmetric matrix.
  bool symmetric_only = false;
  /// Takes a preconditioner (the key preconditioner); smoothSolver has its smoother instead.
  bool preconditioned = true;
  /// Its reference implementation, its work vectors taken from `store` (a store of its own, or
  /// one shared with methods that never solve at the same time).
  std::function<std::unique_ptr<KrylovMethod>(std::shared_ptr<WorkStore> store)> make{};
};

}  // namespace fvmmini
