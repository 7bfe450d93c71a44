#pragma once
// The scalar physics of the foundation: steady Poisson, -div(gamma grad T) = S, and
// transient diffusion, dT/dt = div(gamma grad T) + S, implicit Euler in time, each
// with the optional manufactured solution for verification.

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "discretisation/laplacian.hpp"
#include "discretisation/manufactured_solution.hpp"
#include "discretisation/processor_faces.hpp"
#include "discretisation/reference_cell_keys.hpp"
#include "solvers/make_linear_solver.hpp"

namespace fvmmini {

struct ScalarProblemSettings {
  bool transient = false;
  double diffusivity = 1.0;
  bool manufactured = false;  ///< use ManufacturedSolution for source, exact boundary values and errors
  double source = 0.0;        ///< uniform source when not manufactured
  double initial = 0.0;       ///< uniform initial value when not manufactured (transient)
  double delta_t = 0.0;       ///< transient: the time step
  double start_time = 0.0;
  int non_orthogonal_correctors = 50;       ///< the most correctors (re-solves) per solve
  double non_orthogonal_tolerance = 1e-6;  ///< stop once a corrector's initial residual is below this
  bool non_orthogonal_must_converge = false;  ///< the run (not ScalarProblem) fails on a loop ending above it
  label reference_cell = 0;   ///< used only when no patch fixes the value; on a rank's part, the
                              ///< cell's local number on the rank that has it and -1 on the others
  double reference_value = 0.0;
};

/// physics.* of poisson and diffusion (app/settings_keys.hpp).
template <class Keys>
void declare_physics_keys(Keys& keys, ScalarProblemSettings& s) {
  const std::vector<std::string> scalar{"poisson", "diffusion"};
  keys.add("diffusivity", s.diffusivity, "the diffusivity k").min(0, false).when("type", scalar);
  keys.boolean_word("manufactured", s.manufactured,
                    "sine: the built-in manufactured solution (source, exact boundary values, error report)", "none",
                    "sine")
      .when("type", scalar);
  keys.add("source", s.source, "a uniform source s").when("type", scalar).when("manufactured", {"none"});
  keys.add("initial", s.initial, "the uniform initial value of T")
      .when("type", {"diffusion"})
      .when("manufactured", {"none"});
}

/// discretisation.*, a map of every physics: incompressible reads only its reference cell keys.
template <class Keys>
void declare_discretisation_keys(Keys& keys, ScalarProblemSettings& s) {
  keys.add("nonOrthogonalCorrectors", s.non_orthogonal_correctors,
               "the most re-solves with the deferred non-orthogonal correction, per solve")
      .min(0)
      .max(std::numeric_limits<int>::max());
  keys.add("nonOrthogonalTolerance", s.non_orthogonal_tolerance,
            "re-solve until a re-solve's initial residual is below this")
      .min(0, false);
  keys.boolean_word("nonOrthogonalNotConverged", s.non_orthogonal_must_converge,
                    "a correction loop that ends above its tolerance: a warning, or an error (exit 1)", "warning",
                    "error");
  declare_reference_cell_keys(keys, s);
}

/// How the deferred non-orthogonal correction of one solve went.
struct NonOrthogonalCorrection {
  int correctors = 0;     ///< re-solves after the first solve
  double residual = 0.0;  ///< the last corrector's initial residual (0 on an orthogonal mesh)
  bool converged = true;  ///< residual below the tolerance within the allowed correctors (false when a
                          ///< non-orthogonal mesh was allowed none: the residual is unknown)
};

/// One advance: the linear solves in order and the correction loop's outcome.
struct ScalarStep {
  std::vector<SolverPerformance> solves;
  NonOrthogonalCorrection correction;
};

class ScalarProblem {
 public:
  /// @param[in] exact_patches per patch: true where a fixedValue patch takes the manufactured solution's
  ///            values (refreshed every step), which needs settings.manufactured
  /// On a rank's piece of a decomposed mesh (processor patches, their conditions processor), comm
  /// is the run's ranks: the matrix couples across the processor patches, the deferred
  /// non-orthogonal correction's fits reach into the other ranks' cells as on the whole mesh, and
  /// the error norms and checks are over all ranks. Every rank constructs and advances its
  /// problem together; global_cell, each cell's number in the whole mesh, lets GAMG number a level
  /// it gathers whole as one rank would (DistributedLdu::global_rows).
  ScalarProblem(const Mesh& mesh, const MeshGeometry& geometry, ScalarBoundary boundary,
                std::vector<bool> exact_patches, const ScalarProblemSettings& settings,
                const Communicator& comm = Communicator::serial(), std::span<const label> global_cell = {});

  /// The matrix the solver is built for; constant over the run (gamma, dt and the mesh are fixed).
  const LduMatrix& matrix() const { return system_.local; }
  /// The matrix with its processor interfaces (none on one rank), for make_distributed_linear_solver.
  const DistributedLdu& system() const { return system_; }

  /// Steady: solve once; transient: one implicit Euler step to new_time. On a non-orthogonal mesh
  /// the solve is repeated with the deferred correction from the latest field until a repeat's
  /// initial residual (how far the field is from the corrected system) is below
  /// non_orthogonal_tolerance, at most non_orthogonal_correctors times.
  ScalarStep advance(LinearSolver& solver, double new_time);

  /// The cells whose least-squares stencils were cut to the nearest stencil_cap_points points
  /// (LeastSquaresGradient::capped_cells; over every rank), 0 on an orthogonal mesh.
  label capped_stencils() const { return gradient_ ? gradient_->capped_cells() : 0; }

  const std::vector<double>& field() const { return field_; }
  /// The exact solution at cell centres at this time, when manufactured.
  std::optional<std::vector<double>> exact_field(double time) const;
  /// Error of the current field against the exact solution at this time, when manufactured.
  std::optional<ErrorNorms> error(double time) const;

 private:
  void refresh_exact_boundary(double time);
  /// A steady problem with no fixed value: the reference cell pins the level.
  bool pinned() const { return !settings_.transient && !boundary_.has_fixed_value(); }

  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  const Communicator& comm_;
  ProcessorFaces processor_;
  ScalarBoundary boundary_;
  std::vector<bool> exact_patches_;
  ScalarProblemSettings settings_;
  std::optional<ManufacturedSolution> exact_;
  Laplacian laplacian_;
  bool orthogonal_;  ///< on every rank
  /// The deferred correction's fit: non-orthogonal meshes only (about 0.5 kB a tetrahedron), so it
  /// lives here rather than in the Laplacian, which the flow solver and benchmarks build too
  std::optional<LeastSquaresGradient> gradient_;
  std::vector<Vec3> cell_gradient_;
  std::vector<Hessian> cell_hessian_;
  DistributedLdu system_;  ///< the matrix (local) and its processor interfaces
  std::vector<double> field_;
  std::vector<double> rhs_, rhs_corrected_;
  std::vector<double> cell_source_;  ///< S V per cell
};

}  // namespace fvmmini
