#pragma once
// What each time step reports about the flow, as OpenFOAM's icoFoam does:
// the Courant number (CourantNo.H), the continuity errors (continuityErrs.H), and
// the steady-state test.

#include <limits>
#include <span>

#include "discretisation/incompressible/cell_faces.hpp"

namespace fvmmini {

struct CourantNumber {
  double mean = 0.0;  ///< 0.5 dt sum_cells(sum_f |phi_f|) / sum_cells(V)
  double max = 0.0;   ///< max over cells of 0.5 dt sum_f |phi_f| / V
};

/// What the Courant number is made of, on a set of cells (a rank's: summed over the ranks).
struct CourantSums {
  double absolute_flux = 0.0;        ///< sum_c sum_f |phi_f|
  double max_flux_per_volume = 0.0;  ///< max_c sum_f |phi_f| / V_c
  double volume = 0.0;               ///< sum_c V_c
};
CourantSums courant_sums(const CellFaces& cells, const MeshGeometry& geometry, std::span<const double> phi);

/// The Courant number of face fluxes phi (all faces, m^3/s) over a step dt.
CourantNumber courant_number(const CellFaces& cells, const MeshGeometry& geometry, std::span<const double> phi,
                             double dt);

/// The Courant number from its sums: sum_c sum_f |phi_f|, max_c sum_f |phi_f| / V_c, sum_c V_c.
CourantNumber courant_from_sums(double absolute_flux_sum, double max_flux_per_volume, double total_volume, double dt);

/// The Courant number of each cell, 0.5 dt sum_f |phi_f| / V (for output).
void cell_courant_numbers(const CellFaces& cells, const MeshGeometry& geometry, std::span<const double> phi,
                          double dt, std::span<double> courant);

struct ContinuityErrors {
  double sum_local = 0.0;   ///< dt * volume average of |div phi| / V
  double global = 0.0;      ///< dt * volume average of div phi / V
  double cumulative = 0.0;  ///< the sum of global over the steps so far
};

/// The errors from their sums: sum_c |div_c|, sum_c div_c and sum_c V_c.
/// @param[in] cumulative the previous steps' cumulative error
ContinuityErrors continuity_from_sums(double absolute_sum, double sum, double total_volume, double dt,
                                      double cumulative);

/// What the continuity errors are made of: sum_c |div_c|, sum_c div_c and sum_c V_c.
struct ContinuitySums {
  double absolute = 0.0, net = 0.0, volume = 0.0;
};
/// sum |x| over the values (OpenMP, the rank's own).
double absolute_sum(std::span<const double> values);

ContinuitySums continuity_sums(std::span<const double> div, std::span<const double> volumes);

/// The errors of net outflows div (one per cell, m^3/s) over a step dt.
/// @param[in] cumulative the previous steps' cumulative error
ContinuityErrors continuity_errors(std::span<const double> div, std::span<const double> volumes, double dt,
                                   double cumulative);

struct SteadyStateSettings {
  bool stop = false;                ///< end the run when the state is steady
  double residual_tolerance = 1e-6;  ///< every momentum solve's initial residual below this
  double velocity_tolerance = 1e-5;  ///< max|U_new - U_old| / (dt max|U_new|) below this (1/s)
  int min_steps = 10;               ///< never steady before this many steps
  int consecutive_steps = 10;       ///< both tolerances met on this many steps in a row
};

/// steadyState.* (app/settings_keys.hpp); min_steps is no key.
template <class Keys>
void declare_keys(Keys& keys, SteadyStateSettings& s) {
  keys.add("stop", s.stop, "end the run (and write) once the flow is steady");
  keys.add("residualTolerance", s.residual_tolerance, "every momentum solve's initial residual below this")
      .min(0, false);
  keys.add("velocityTolerance", s.velocity_tolerance, "max|U_new - U_old| / (deltaT max|U|) below this (1/s)")
      .min(0, false);
  keys.add("consecutiveSteps", s.consecutive_steps, "both tolerances met on this many steps in a row")
      .min(1)
      .max(std::numeric_limits<int>::max());
}

/// Decides, step by step, whether the flow has stopped changing.
class SteadyStateDetector {
 public:
  explicit SteadyStateDetector(SteadyStateSettings settings) : settings_(settings) {}

  /// Record one step. @return true when this step ends a run of `consecutive_steps` steps that
  /// each met both tolerances (and at least `min_steps` steps have been taken).
  /// @param[in] momentum_residual the largest initial residual of the step's momentum solves
  /// @param[in] velocity_change max|U_new - U_old| / (dt max|U_new|)
  bool update(double momentum_residual, double velocity_change);
  bool is_steady() const { return steady_; }
  const SteadyStateSettings& settings() const { return settings_; }

 private:
  SteadyStateSettings settings_;
  int steps_ = 0;
  int steps_within_tolerance_ = 0;  ///< the current run of steps that met both tolerances
  bool steady_ = false;
};

}  // namespace fvmmini
