#include "app/simulation.hpp"

#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "app/case_error.hpp"
#include "app/case_mesh.hpp"
#include "app/output_folder.hpp"
#include "app/progress.hpp"
#include "app/settings_keys.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_error.hpp"

namespace fvmmini {

namespace {

/// The case's mesh, checked against the case and by the mesh check (printed unless quiet).
void build_checked_mesh(const ResolvedCase& c, PhaseTimer& timer, bool verbose, Mesh& mesh, MeshGeometry& geometry) {
  {
    auto timing = timer.measure("mesh");
    mesh = build_case_mesh(c);
    check_case_against_mesh(c, mesh.patches, mesh.n_cells);
  }
  auto timing = timer.measure("geometry");
  geometry = compute_geometry(mesh);
  const MeshCheckReport check = check_mesh(mesh, geometry);
  if (verbose) std::fputs((format_mesh_check(check) + "\n").c_str(), stdout);
  if (!check.ok())
    throw MeshError(c.case_file().string(), 0,
                    "the mesh failed " + std::to_string(check.failures.size()) + " check(s): " + check.failures.front());
}

TimeControls time_controls(const ResolvedCase& c) {
  // a fixed step's case has no maxCo or maxDeltaT: they keep their defaults (0: off)
  return read_settings<TimeControls>(c, "time", TimeStep::adjustable);
}

/// The driver's state over one run.
class Run {
 public:
  Run(const ResolvedCase& c, const RunContext& context) : c_(c), context_(context), summary_(c, context) {}

  int operator()(const SimulationFactory& make) {
    Mesh mesh;
    MeshGeometry geometry;
    build_checked_mesh(c_, timer_, verbose(), mesh, geometry);
    summary_.set_mesh(mesh);
    set_up(make, mesh, geometry);
    say(fmt::format("Mesh: {} ({} cells, {} faces)\n", mesh.description, mesh.n_cells, mesh.n_faces()));
    say(simulation_->describe());
    try {
      if (simulation_->transient())
        march();
      else
        solve_once();
    } catch (const std::exception& e) {
      fail(e);
    }
    finish();
    return 0;
  }

 private:
  bool verbose() const { return !context_.quiet; }
  void say(const std::string& text) const {
    if (!verbose()) return;
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);  // a log piped to a file or tee shows each block as it happens
  }

  /// The physics, then the output folder: a set-up that fails leaves nothing behind.
  void set_up(const SimulationFactory& make, const Mesh& mesh, const MeshGeometry& geometry) {
    try {
      simulation_ = make(c_, context_, mesh, geometry, timer_);
    } catch (const SolverSetupError& e) {
      // settings that do not fit this mesh's matrix (dia on a renumbered mesh, Staircase alpha): a case error
      const std::string key = "solvers." + e.field();
      throw CaseError(c_.where(key), key + ": " + e.what());
    }
    const std::string name = c_.get_string("output.summary");
    output_.emplace(context_.output_directory, name);
    if (output_->removed() > 0)
      say(fmt::format("Output folder {}: removed {} file(s) of an earlier run\n", output_->path().string(),
                      output_->removed()));
    if (!name.empty()) summary_path_ = context_.output_directory / name;
  }

  void write(double time, double dt) {
    auto timing = timer_.measure("output");
    simulation_->write(time, dt);
  }

  void solve_once() {
    say("\n");
    const StepOutcome outcome = simulation_->advance(0.0, 0.0);
    for (const auto& perf : outcome.solves) summary_.add_solve(perf);
    say(outcome.log + "\n");
    write(0.0, 0.0);
  }

  /// startTime to endTime: the step from maxCo, cut by the clock to land on write times.
  void march() {
    const TimeControls tc = time_controls(c_);
    say("\nStarting time loop\n\n");
    TimeSchedule clock(tc.start, tc.end, tc.write_interval);
    ProgressLine progress(context_.tty && verbose());
    time_ = tc.start;
    write(time_, 0.0);
    double wanted = tc.delta_t;
    while (!clock.finished()) {
      wanted = simulation_->wanted_delta_t(wanted, tc);
      dt_ = clock.advance(wanted);
      time_ = clock.time();
      step_ = clock.step();
      const StepOutcome outcome = simulation_->advance(time_, dt_);
      for (const auto& perf : outcome.solves) summary_.add_solve(perf);
      const bool last = outcome.stop || clock.finished();
      if (verbose() && (step_ == 1 || last || step_ % tc.log_interval == 0)) {
        progress.clear();
        say(fmt::format("Time = {:g}\n{}\n", time_, outcome.log));
      }
      progress.update((time_ - tc.start) / (tc.end - tc.start), fmt::format("t = {:.5g}{}", time_, outcome.progress));
      if (last || clock.at_write_time()) write(time_, dt_);
      if (outcome.stop) break;
    }
    progress.clear();
  }

  /// A failure mid-run: the summary says where, then the error goes on to main. A solver failure
  /// gains the time and step (and the physics' likely cause).
  [[noreturn]] void fail(const std::exception& e) {
    const bool solver_failure = dynamic_cast<const SolverError*>(&e) != nullptr;
    std::string message = e.what();
    if (solver_failure && simulation_->transient())
      message += fmt::format(" (at Time = {:g}, step {}, deltaT = {:g}{})", time_, step_, dt_,
                             simulation_->failure_hint());
    summary_.results()["stoppedAt"] = {{"time", time_}, {"step", step_}};
    simulation_->finish(summary_, true);
    try {
      summary_.finish(timer_, "failed", message, summary_path_);
    } catch (const std::exception& also) {
      // the first error is the one to report; this one follows from it (an unwritable folder)
      std::fputs(fmt::format("fvmmini: warning: {}\n", also.what()).c_str(), stderr);
    }
    if (solver_failure) throw SolverError(message);
    throw;
  }

  void finish() {
    summary_.results()["finalTime"] = time_;
    summary_.results()["steps"] = step_;
    say(simulation_->finish(summary_, false));
    if (simulation_->transient())
      say(fmt::format("End: Time = {:g} after {} steps, {:.3f} s wall\n\n", time_, step_, timer_.wall_seconds()));
    else
      say(fmt::format("End: {:.3f} s wall\n\n", timer_.wall_seconds()));
    say(timer_.format_table());
    summary_.finish(timer_, "completed", {}, summary_path_);
  }

  const ResolvedCase& c_;
  const RunContext& context_;
  PhaseTimer timer_;
  RunSummary summary_;
  std::filesystem::path summary_path_;
  std::unique_ptr<Simulation> simulation_;
  std::optional<OutputFolder> output_;  ///< held (locked) from set-up to the end of the run
  double time_ = 0.0;
  double dt_ = 0.0;
  long long step_ = 0;
};

}  // namespace

int run_simulation(const ResolvedCase& resolved, const RunContext& context, const SimulationFactory& make) {
  return Run(resolved, context)(make);
}

}  // namespace fvmmini
