#pragma once
// The scalar physics of the foundation: steady Poisson, -div(gamma grad T) = S, and
// transient diffusion, dT/dt = div(gamma grad T) + S, implicit Euler in time, each
// with the optional manufactured solution for verification.

#include <optional>
#include <vector>

#include "discretisation/laplacian.hpp"
#include "discretisation/manufactured_solution.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini {

struct ScalarProblemSettings {
  bool transient = false;
  double diffusivity = 1.0;
  bool manufactured = false;  ///< use ManufacturedSolution for source, exact boundary values and errors
  double source = 0.0;        ///< uniform source when not manufactured
  double initial = 0.0;       ///< uniform initial value when not manufactured (transient)
  double delta_t = 0.0;       ///< transient: the time step
  double start_time = 0.0;
  int non_orthogonal_correctors = 0;
  label reference_cell = 0;   ///< used only when no patch fixes the value
  double reference_value = 0.0;
};

class ScalarProblem {
 public:
  /// @param[in] exact_patches per patch: true where a fixedValue patch takes the manufactured solution's
  ///            values (refreshed every step), which needs settings.manufactured
  ScalarProblem(const Mesh& mesh, const MeshGeometry& geometry, ScalarBoundary boundary,
                std::vector<bool> exact_patches, const ScalarProblemSettings& settings);

  /// The matrix the solver is built for; constant over the run (gamma, dt and the mesh are fixed).
  const LduMatrix& matrix() const { return matrix_; }

  /// Steady: solve once (with the non-orthogonal correctors). Transient: one implicit Euler
  /// step to new_time. @return one performance per linear solve, in order.
  std::vector<SolverPerformance> advance(LinearSolver& solver, double new_time);

  const std::vector<double>& field() const { return field_; }
  /// The exact solution at cell centres at this time, when manufactured.
  std::optional<std::vector<double>> exact_field(double time) const;
  /// Error of the current field against the exact solution at this time, when manufactured.
  std::optional<ErrorNorms> error(double time) const;

 private:
  void refresh_exact_boundary(double time);

  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  ScalarBoundary boundary_;
  std::vector<bool> exact_patches_;
  ScalarProblemSettings settings_;
  std::optional<ManufacturedSolution> exact_;
  Laplacian laplacian_;
  LduMatrix matrix_;
  std::vector<double> field_;
  std::vector<double> rhs_, rhs_corrected_;
  std::vector<double> cell_source_;  ///< S V per cell
};

}  // namespace fvmmini
