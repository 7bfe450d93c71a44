#pragma once
// The one driver every physics runs under. run_simulation owns what all runs share: the checked
// mesh, the set-up error mapping, the output folder, the time loop (startTime to endTime, maxCo,
// write times hit exactly), the log frame ("Time = ..." every logInterval steps), the progress
// line, the run summary and the failure -> exit-status mapping. A physics is a Simulation: it
// describes itself, advances one step, writes its fields and adds its results.

#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "app/phase_timer.hpp"
#include "app/resolved_case.hpp"
#include "app/run_context.hpp"
#include "app/run_summary.hpp"
#include "app/time_schedule.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

/// What one step (or the one solve of a steady problem) reports to the driver.
struct StepOutcome {
  std::string log;       ///< the step's log lines, each ending in '\n' (printed after "Time = ...")
  std::vector<SolverPerformance> solves;  ///< the step's linear solves, for the summary
  std::string progress;  ///< appended to the progress line after the time
  bool stop = false;     ///< end the run after this step (a steady state that asks to stop)
};

class Simulation {
 public:
  virtual ~Simulation() = default;

  /// The log lines between the mesh check and the first step (physics, solvers), each ending in '\n'.
  virtual std::string describe() const = 0;
  /// Whether the physics marches in time (time.* keys) or solves once.
  virtual bool transient() const = 0;
  /// The step to ask the clock for next, from the last one asked for (maxCo adjusts it).
  virtual double wanted_delta_t(double last_wanted, const TimeControls&) const { return last_wanted; }
  /// Advance to `time` by a step dt (steady: solve, time and dt 0).
  virtual StepOutcome advance(double time, double dt) = 0;
  /// Write the fields at `time` (dt: the step that led there, 0 at the start).
  virtual void write(double time, double dt) = 0;
  /// Add the physics' results to the summary (also after a failure) and return the log lines
  /// that come before "End:" (each ending in '\n'; empty after a failure).
  virtual std::string finish(RunSummary& summary, bool failed) = 0;
  /// What to add to a SolverError's message after the time and step ("", or a likely cause).
  virtual std::string failure_hint() const { return {}; }
};

/// Builds the physics on the checked mesh (on several ranks, this rank's part, global_cell the
/// numbers of its cells in the whole mesh; empty on one rank), timing its set-up phases on `timer`.
/// `cells`: the mesh's cell_face_lists as the mesh check made them (one rank), else null. The
/// physics may free the parts of `geometry` it never reads again (the flow: the face centres, 24
/// bytes a face, once its operators are made, where no step reads them), before its solvers'
/// set-up, the run's peak of memory.
/// @throws SolverSetupError for solver settings that do not fit a matrix (a case error at solvers.<field>)
using SimulationFactory =
    std::function<std::unique_ptr<Simulation>(const ResolvedCase&, const RunContext&, const Mesh&, MeshGeometry&,
                                              std::span<const label> global_cell, const CellFaceLists* cells,
                                              PhaseTimer&)>;

/// Run the case under `make`'s physics. @return 0 on success; throws CaseError (set-up that does
/// not fit the mesh), MeshError, SolverError (with the time and step where it happened) or
/// std::runtime_error, after writing a "failed" summary where the output folder exists
int run_simulation(const ResolvedCase& resolved, const RunContext& context, const SimulationFactory& make);

}  // namespace fvmmini
