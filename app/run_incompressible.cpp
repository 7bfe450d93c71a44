#include "app/run_incompressible.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "app/atomic_file.hpp"
#include "app/case_solver_settings.hpp"
#include "app/phase_timer.hpp"
#include "app/progress.hpp"
#include "app/run_case.hpp"
#include "app/run_summary.hpp"
#include "app/time_schedule.hpp"
#include "discretisation/incompressible/centreline_sampler.hpp"
#include "discretisation/incompressible/flow_step_factory.hpp"
#include "solvers/linear_solver.hpp"
#include "mesh/geometry.hpp"
#if FVMMINI_HAVE_VTK
#include "app/vtk_writer.hpp"
#endif

namespace fvmmini {

namespace {

/// The flow conditions of boundaryField, in the mesh's patch order.
FlowBoundary flow_boundary(const ResolvedCase& c, const Mesh& mesh) {
  FlowBoundary boundary;
  for (const Patch& patch : mesh.patches) {
    const std::string key = "boundaryField." + patch.name;
    FlowPatchCondition bc;
    bc.type = parse_flow_patch_type(c.get_string(key + ".type"));
    if (c.has(key + ".velocity")) bc.velocity = c.get_real3(key + ".velocity");
    if (c.has(key + ".pressure")) bc.pressure = c.get_real(key + ".pressure");
    boundary.patches.push_back(bc);
  }
  return boundary;
}

/// The preconditioners of the velocity and the pressure systems, into the run summary.
void record_preconditioners(const FlowStep& step, RunSummary& summary) {
  for (const char* component : {"Ux", "Uy", "Uz"})
    if (summary.json().contains("solves") && summary.json()["solves"].contains(component))
      summary.set_preconditioner(component, step.velocity_preconditioner());
  summary.set_preconditioner("p", step.pressure_preconditioner());
}

/// Fields and samples at one time: VTK (U, p, Co, continuityError) and centrelines.csv.
class FlowOutput {
 public:
  FlowOutput(const ResolvedCase& c, const RunContext& context, const Mesh& mesh, const MeshGeometry& geometry)
      : directory_(context.output_directory), mesh_(mesh), geometry_(geometry) {
#if FVMMINI_HAVE_VTK
    if (c.get_bool("output.vtk")) vtk_.emplace(mesh, directory_, "fields");
#endif
    if (c.get_bool("sampling.centrelines"))
      sampler_.emplace(geometry, cavity_centrelines(mesh, static_cast<int>(c.get_int("sampling.points"))));
  }

  /// Write everything this case asks for at `time`; dt is the last step (for the cell diagnostics).
  void write(const FlowOperators& operators, const FlowState& state, double time, double dt) {
    const label n = mesh_.n_cells;
#if FVMMINI_HAVE_VTK
    if (vtk_) {
      std::vector<Vec3> velocity(n);
      for (label c = 0; c < n; ++c)
        velocity[c] = {state.velocity[0][c], state.velocity[1][c], state.velocity[2][c]};
      std::vector<double> courant(n), continuity(n);
      cell_courant_numbers(operators.cells, geometry_, state.flux, dt, courant);
      operators.cells.divergence(state.flux, continuity);
      // --- continuityError = dt div(phi) / V, as OpenFOAM's contErr times deltaT
      for (label c = 0; c < n; ++c) continuity[c] *= dt / geometry_.cell_volumes[c];
      last_vtk_ = vtk_->write(time, {{"p", state.pressure}, {"Co", courant}, {"continuityError", continuity}},
                              {{"U", velocity}});
    }
#endif
    if (sampler_) {
      std::array<std::vector<Vec3>, 3> gradients;
      operators.velocity_gradients(state, gradients);
      const auto samples = sampler_->sample({state.velocity[0], state.velocity[1], state.velocity[2]}, gradients,
                                            state.pressure, state.pressure_gradient);
      replace_file_atomically(centreline_file(),
                              [&](const std::filesystem::path& path) { sampler_->write_csv(path, samples); });
    }
  }

  std::filesystem::path centreline_file() const { return directory_ / "centrelines.csv"; }
  bool samples() const { return sampler_.has_value(); }
  bool vtk() const {
#if FVMMINI_HAVE_VTK
    return vtk_.has_value();
#else
    return false;
#endif
  }
#if FVMMINI_HAVE_VTK
  std::filesystem::path collection() const { return vtk_ ? vtk_->collection_path() : std::filesystem::path{}; }
#endif

 private:
  std::filesystem::path directory_;
  const Mesh& mesh_;
  const MeshGeometry& geometry_;
#if FVMMINI_HAVE_VTK
  std::optional<VtkSeriesWriter> vtk_;
  std::filesystem::path last_vtk_;
#endif
  std::optional<CentrelineSampler> sampler_;
};

}  // namespace

int run_incompressible_case(const ResolvedCase& c, const RunContext& context) {
  PhaseTimer timer;
  RunSummary summary(c, context);
  const bool verbose = !context.quiet;
  const auto say = [&](const std::string& text) {
    if (verbose) std::fputs(text.c_str(), stdout);
  };

  // --- mesh, geometry, the case against the mesh, the mesh check
  Mesh mesh;
  MeshGeometry geometry;
  build_checked_mesh(c, timer, verbose, mesh, geometry);
  summary.set_mesh(mesh);

  // --- the solver: operators, both linear solvers (built once), initial state
  IncompressibleSettings settings;
  settings.viscosity = c.get_real("physics.nu");
  settings.convection = parse_convection_scheme(c.get_string("physics.convection"));
  settings.initial_velocity = c.get_real3("physics.initialVelocity");
  settings.reference_cell = static_cast<label>(c.get_int("discretisation.referenceCell"));
  settings.reference_value = c.get_real("discretisation.referenceValue");
  std::optional<FlowOperators> operators;
  std::unique_ptr<FlowStep> solver;
  {
    auto timing = timer.measure("setup");
    try {
      operators.emplace(mesh, geometry, flow_boundary(c, mesh), settings);
      solver = make_flow_step(*operators, solver_settings(c, "U"), solver_settings(c, "p"));
    } catch (const SolverSetupError& e) {
      // settings that do not fit this mesh's matrix (dia on a renumbered mesh, Staircase alpha): a case error
      const std::string key = "solvers." + e.field();
      throw CaseError(c.where(key), key + ": " + e.what());
    }
  }
  TimeControls tc;
  tc.start = c.get_real("time.startTime");
  tc.end = c.get_real("time.endTime");
  tc.delta_t = c.get_real("time.deltaT");
  tc.max_co = c.get_real("time.maxCo");
  tc.max_delta_t = c.get_real("time.maxDeltaT");
  tc.write_interval = c.get_real("time.writeInterval");
  tc.log_interval = c.get_int("time.logInterval");
  SteadyStateSettings steady_settings;
  steady_settings.stop = c.get_bool("steadyState.stop");
  steady_settings.residual_tolerance = c.get_real("steadyState.residualTolerance");
  steady_settings.velocity_tolerance = c.get_real("steadyState.velocityTolerance");
  steady_settings.consecutive_steps = c.get_int("steadyState.consecutiveSteps");
  SteadyStateDetector steady(steady_settings);

  // --- the output folder exists only once setup has succeeded
  std::filesystem::create_directories(context.output_directory);
  const std::string summary_name = c.get_string("output.summary");
  const auto summary_path = summary_name.empty() ? std::filesystem::path{} : context.output_directory / summary_name;
  FlowOutput output(c, context, mesh, geometry);

  say(fmt::format("Mesh: {} ({} cells, {} faces)\n", mesh.description, mesh.n_cells, mesh.n_faces()));
  say(fmt::format("Physics: incompressible, nu = {:g} (Re = U L / nu = {:g} for U = L = 1), convection {}\n",
                  settings.viscosity, 1.0 / settings.viscosity, to_string(settings.convection)));
  say(solver->describe());
  if (operators->reference_cell >= 0)
    say(fmt::format("Pressure level: no patch fixes p; reference cell {} held at {:g}\n", operators->reference_cell,
                    settings.reference_value));
  say("\nStarting time loop\n\n");

  ProgressLine progress(context.tty && verbose);
  TimeSchedule clock(tc.start, tc.end, tc.write_interval);
  double dt = tc.delta_t;  // the step maxCo asks for; the clock shortens it to land on write times
  double step_dt = dt;     // the step taken
  double time = tc.start;
  long long step = 0;
  long long pressure_iterations = 0;
  double courant_max_seen = 0.0;
  std::optional<double> steady_time;
  StepReport report;
  try {
    while (!clock.finished()) {
      // --- the step: from maxCo over the current fluxes, then cut to land on the next write time
      if (tc.max_co > 0.0) {
        const double co = solver->courant_number(dt).max;
        if (co > 0.0) dt = adjust_delta_t(dt, co, tc);
      }
      step_dt = clock.advance(dt);
      time = clock.time();
      step = clock.step();
      const CourantNumber courant = solver->courant_number(step_dt);
      courant_max_seen = std::max(courant_max_seen, courant.max);

      report = solver->advance(step_dt);
      timer.add("momentum", report.times.momentum);
      timer.add("pressure assembly", report.times.pressure_assembly);
      timer.add("pressure solve", report.times.pressure_solve);
      timer.add("correction", report.times.correction);
      for (const auto& perf : report.solves) summary.add_solve(perf);
      pressure_iterations += report.solves.back().iterations;
      const bool is_steady = steady.update(report.momentum_residual, report.velocity_change);
      if (is_steady && !steady_time) steady_time = time;
      const bool stop_now = is_steady && steady_settings.stop;
      const bool last = stop_now || clock.finished();

      // --- the log, every logInterval steps (and the first and last)
      if (verbose && (step == 1 || last || step % tc.log_interval == 0)) {
        progress.clear();
        std::string lines = fmt::format("Time = {:g}\n", time);
        lines += fmt::format("Courant Number mean: {:.6g} max: {:.6g}\n", courant.mean, courant.max);
        for (const auto& perf : report.solves) lines += format_solve_line(perf) + "\n";
        lines += fmt::format("time step continuity errors : sum local = {:.6g}, global = {:.6g}, cumulative = {:.6g}\n",
                             report.continuity.sum_local, report.continuity.global, report.continuity.cumulative);
        lines += fmt::format("deltaT = {:.6g}  velocity change = {:.3g}\n\n", step_dt, report.velocity_change);
        std::fputs(lines.c_str(), stdout);
        std::fflush(stdout);  // a log piped to a file or tee shows each block as it happens
      }
      progress.update((time - tc.start) / (tc.end - tc.start),
                      fmt::format("t = {:.5g}  Co {:.3f}  p iters {}", time, courant.max, report.solves.back().iterations));

      // --- output at write times and at the end
      if (last || clock.at_write_time()) {
        auto timing = timer.measure("output");
        output.write(*operators, solver->state(), time, step_dt);
      }
      if (stop_now) break;
    }
  } catch (const std::exception& e) {
    progress.clear();
    // --- a solver failure mid-run is almost always divergence: say where, and what to change
    const bool solver_failure = dynamic_cast<const SolverError*>(&e) != nullptr;
    const std::string message =
        solver_failure ? fmt::format("{} (at Time = {:g}, step {}, deltaT = {:g}, Courant number max {:.3g} so far: "
                                     "the flow diverged; reduce deltaT or maxCo)",
                                     e.what(), time, step, step_dt, courant_max_seen)
                       : std::string(e.what());
    summary.results()["stoppedAt"] = {{"time", time}, {"step", step}};
    if (solver) record_preconditioners(*solver, summary);
    summary.finish(timer, "failed", message, summary_path);
    if (solver_failure) throw SolverError(message);
    throw;
  }
  progress.clear();

  // --- the end: steady state, timing table, summary
  if (steady_time)
    say(fmt::format(
        "Steady state reached at Time = {:g} (momentum residual < {:g}, velocity change < {:g} on {} steps in a "
        "row){}\n",
        *steady_time, steady_settings.residual_tolerance, steady_settings.velocity_tolerance,
        steady_settings.consecutive_steps, steady_settings.stop ? "; stopping" : ""));
  say(fmt::format("End: Time = {:g} after {} steps, {:.3f} s wall\n\n", time, step, timer.wall_seconds()));
  say(timer.format_table());

  auto& results = summary.results();
  results["finalTime"] = time;
  results["steps"] = step;
  results["lastDeltaT"] = step_dt;
  results["steady"] = steady_time.has_value();
  if (steady_time) results["steadyTime"] = *steady_time;
  results["courantMax"] = courant_max_seen;
  results["pressureIterationsMean"] = step > 0 ? static_cast<double>(pressure_iterations) / step : 0.0;
  results["continuity"] = {{"sumLocal", report.continuity.sum_local},
                           {"global", report.continuity.global},
                           {"cumulative", report.continuity.cumulative}};
  results["momentumResidual"] = report.momentum_residual;
  results["velocityChange"] = report.velocity_change;
  if (output.samples()) results["centrelines"] = output.centreline_file().filename().string();
#if FVMMINI_HAVE_VTK
  if (output.vtk()) results["vtk"] = output.collection().filename().string();
#endif
  record_preconditioners(*solver, summary);
  summary.finish(timer, "completed", {}, summary_path);
  return 0;
}

}  // namespace fvmmini
