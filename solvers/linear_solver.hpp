#pragma once
// A linear solver bound to one matrix structure: built once (ordering, format,
// backend), refreshed with new coefficients each step, solved many times.

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "linalg/ldu_matrix.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

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

/// The settings with backend and format made concrete: backend cuda when asked (an error without a
/// device) or when auto finds one, else reference; format auto is staircase on cuda and csr on
/// reference. @param[out] note if not null, why auto chose reference (empty otherwise)
/// @throws std::invalid_argument for an unknown solver, backend or preconditioner; SolverError for
///         backend cuda without a device
SolverSettings resolve_solver_settings(const SolverSettings& requested, std::string* note = nullptr);

/// The backends that implement `format`, whatever this build has: reference when its unit has a
/// reference kernel, cuda when the CUDA library lists it (kernels/CMakeLists.txt).
/// @throws std::invalid_argument for an unknown format
std::vector<std::string> format_backends(const std::string& format);

/// Build the solver the settings ask for. Format "auto" is staircase on the cuda backend and csr
/// on the reference backend. Throws std::invalid_argument for an unknown
/// backend, format, ordering or preconditioner, or a format that does not apply.
std::unique_ptr<LinearSolver> make_linear_solver(const LduMatrix& matrix, const SolverSettings& settings);

}  // namespace fvmmini
