#include "app/flow_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "app/atomic_file.hpp"
#include "app/case_solver_settings.hpp"
#include "app/key_path.hpp"
#include "app/output_folder.hpp"
#include "app/settings_keys.hpp"
#include "app/vtk_writer.hpp"
#include "discretisation/incompressible/centreline_sampler.hpp"
#include "discretisation/incompressible/flow_step_factory.hpp"
#include "linalg/timing.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/geometry.hpp"
#include "solvers/make_linear_solver.hpp"

namespace fvmmini {

namespace {

/// The flow conditions of boundaryField, in the mesh's patch order (processor on a rank's
/// processor patches).
FlowBoundary flow_boundary(const ResolvedCase& c, const Mesh& mesh) {
  FlowBoundary boundary;
  for (const Patch& patch : mesh.patches) {
    if (patch.neighbour_rank >= 0) {
      boundary.patches.push_back({FlowPatchType::processor, {}, 0.0});
      continue;
    }
    const std::string key = key_path("boundaryField", patch.name);
    FlowPatchCondition bc;
    bc.type = parse_flow_patch_type(c.get_string(key + ".type"));
    if (c.has(key + ".velocity")) bc.velocity = c.get_real3(key + ".velocity");
    if (c.has(key + ".pressure")) bc.pressure = c.get_real(key + ".pressure");
    boundary.patches.push_back(bc);
  }
  return boundary;
}

/// The formats and preconditioners of the velocity and the pressure systems, into the run summary.
void record_solvers(const FlowStep& step, RunSummary& summary) {
  for (const char* component : {"Ux", "Uy", "Uz"})
    if (summary.json().contains("solves") && summary.json()["solves"].contains(component)) {
      summary.set_format(component, step.velocity_format());
      summary.set_preconditioner(component, step.velocity_preconditioner());
    }
  summary.set_format("p", step.pressure_format());
  summary.set_preconditioner("p", step.pressure_preconditioner());
}

/// Fields and samples at one time: VTK (U, p, Co, continuityError) and centrelines.csv. On several
/// ranks every write is collective: each rank its VTK piece, the root the samples of all.
class FlowOutput {
 public:
  FlowOutput(const ResolvedCase& c, const RunContext& context, const Mesh& mesh, const MeshGeometry& geometry,
             std::span<const label> global_cell)
      : directory_(context.output_directory), ranks_(*context.ranks), mesh_(mesh), geometry_(geometry) {
    if (c.get_bool("output.vtk"))
      vtk_.emplace(mesh, directory_, fields_basename, ranks_,
                   std::vector<label>(global_cell.begin(), global_cell.end()));
    if (c.get_bool("sampling.centrelines"))
      sampler_.emplace(geometry, cavity_centrelines(mesh, static_cast<int>(c.get_int("sampling.points")), ranks_),
                       ranks_, global_cell);
  }

  /// Write everything this case asks for at `time`; dt is the last step (for the cell diagnostics).
  void write(const FlowOperators& operators, const FlowState& state, double time, double dt) {
    if (vtk_) {
      const label n = mesh_.n_cells;
      std::vector<Vec3> velocity(n);
      for (label c = 0; c < n; ++c)
        velocity[c] = {state.velocity[0][c], state.velocity[1][c], state.velocity[2][c]};
      std::vector<double> courant(n), continuity(n);
      cell_courant_numbers(operators.cells, geometry_, state.flux, dt, courant);
      operators.cells.divergence(state.flux, continuity);
      // --- continuityError = dt div(phi) / V, as OpenFOAM's contErr times deltaT
      for (label c = 0; c < n; ++c) continuity[c] *= dt / geometry_.cell_volumes[c];
      const std::span<const double> pressure = std::span<const double>(state.pressure).first(n);  // not the ghosts
      vtk_->write(time, {{"p", pressure}, {"Co", courant}, {"continuityError", continuity}}, {{"U", velocity}});
    }
    if (sampler_) {
      const auto gradient = [&](int i, label c) { return operators.velocity_gradient(state, i, c); };
      const auto samples = sampler_->sample({state.velocity[0], state.velocity[1], state.velocity[2]}, gradient,
                                            state.pressure, state.pressure_gradient);
      if (ranks_.is_root())
        write_stream_atomically(centreline_file(), [&](std::ostream& out) { sampler_->write_csv(out, samples); });
    }
  }

  std::filesystem::path centreline_file() const { return directory_ / centrelines_name; }
  bool samples() const { return sampler_.has_value(); }
  bool vtk() const { return vtk_.has_value(); }
  std::filesystem::path collection() const { return vtk_ ? vtk_->collection_path() : std::filesystem::path{}; }

 private:
  std::filesystem::path directory_;
  const Communicator& ranks_;
  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  std::optional<VtkSeriesWriter> vtk_;
  std::optional<CentrelineSampler> sampler_;
};

/// ", Re = U L / nu = 10 (the fastest boundary velocity U = 1, the mesh's extent along it L = 0.1)"
/// (a moving wall or an inlet: the first of equals), or "" where none is set. Collective on several
/// ranks (every part has every physical patch).
std::string reynolds_number(const FlowBoundary& boundary, const Mesh& mesh, double nu, const Communicator& ranks) {
  Vec3 fastest;
  for (const FlowPatchCondition& bc : boundary.patches)
    if ((bc.type == FlowPatchType::wall || bc.type == FlowPatchType::velocity_inlet) && mag(bc.velocity) > mag(fastest))
      fastest = bc.velocity;
  const double speed = mag(fastest);
  if (!(speed > 0.0)) return {};
  double low = std::numeric_limits<double>::max(), high = std::numeric_limits<double>::lowest();
  for (const Vec3& x : mesh.points) {
    low = std::min(low, dot(x, fastest) / speed);
    high = std::max(high, dot(x, fastest) / speed);
  }
  const double length = ranks.max(high) + ranks.max(-low);
  if (!(length > 0.0) || !std::isfinite(length)) return {};
  return fmt::format(", Re = U L / nu = {:g} (the fastest boundary velocity U = {:g}, the mesh's extent along it "
                     "L = {:g})",
                     speed * length / nu, speed, length);
}

IncompressibleSettings incompressible_settings(const ResolvedCase& c) {
  auto settings = read_settings<IncompressibleSettings>(c, "physics");
  CaseKeys discretisation(c, "discretisation");
  declare_reference_cell_keys(discretisation, settings);
  return settings;
}

class FlowSimulation final : public Simulation {
 public:
  FlowSimulation(const ResolvedCase& c, const RunContext& context, const Mesh& mesh, MeshGeometry& geometry,
                 std::span<const label> global_cell, const CellFaceLists* cells, PhaseTimer& timer)
      : timer_(timer),
        settings_(incompressible_settings(c)),
        steady_(read_settings<SteadyStateSettings>(c, "steadyState")),
        output_(c, context, mesh, geometry, global_cell) {
    auto operators_timing = timer.measure("operators");
    const Communicator& ranks = *context.ranks;
    IncompressibleSettings local = settings_;
    if (ranks.distributed()) {  // the reference cell's number on the rank that has it, -1 elsewhere
      const auto at = std::lower_bound(global_cell.begin(), global_cell.end(), settings_.reference_cell);
      local.reference_cell =
          at != global_cell.end() && *at == settings_.reference_cell ? static_cast<label>(at - global_cell.begin()) : -1;
    }
    std::optional<CellFaceLists> made;  // where the driver has none (a rank's part)
    if (!cells) {
      const auto lists_start = std::chrono::steady_clock::now();
      made = cell_face_lists(mesh);
      timer.add_part("operators", "cell face lists", seconds_since(lists_start));
    }
    operators_.emplace(mesh, geometry, flow_boundary(c, mesh), local, ranks, global_cell, cells ? *cells : *made);
    reynolds_ = reynolds_number(operators_->boundary, mesh, settings_.viscosity, ranks);
    operators_timing.stop();
    for (const auto& [part, seconds] : operators_->setup.parts()) timer.add_part("operators", part, seconds);
    if (!operators_->reads_face_centres())  // off the solvers' peak
      decltype(geometry.face_centres)().swap(geometry.face_centres);
    auto timing = timer.measure("solver setup");
    const SolverSettings final_pressure = final_solver_settings(c, "pFinal", "p");
    step_ = make_flow_step(*operators_, solver_settings(c, "U"), solver_settings(c, "p"), &final_pressure);
    timing.stop();
    for (const auto& [part, seconds] : step_->setup_parts()) timer.add_part("solver setup", part, seconds);
  }

  std::string describe() const override {
    std::string text =
        fmt::format("Physics: incompressible, nu = {:g}{}, {}, convection {}\n", settings_.viscosity, reynolds_,
                    name(settings_.algorithm), name(settings_.convection));
    text += step_->describe();
    if (!operators_->boundary.fixes_pressure())
      text += fmt::format("Pressure level: no patch fixes p; reference cell {} held at {:g}\n",
                          settings_.reference_cell, settings_.reference_value);
    return text;
  }

  bool transient() const override { return true; }

  double wanted_delta_t(double last_wanted, const TimeControls& tc) const override {
    if (!(tc.max_co > 0.0)) return last_wanted;
    const double co = step_->courant_number(last_wanted).max;
    return co > 0.0 ? adjust_delta_t(last_wanted, co, tc) : last_wanted;
  }

  StepOutcome advance(double time, double dt) override {
    const CourantNumber courant = step_->courant_number(dt);
    courant_max_seen_ = std::max(courant_max_seen_, courant.max);
    report_ = step_->advance(dt);
    timer_.add("momentum", report_.times.momentum);
    timer_.add("pressure assembly", report_.times.pressure_assembly);
    timer_.add("pressure solve", report_.times.pressure_solve);
    timer_.add("correction", report_.times.correction);
    for (const SolverPerformance& perf : report_.solves)
      (perf.field == "p" ? pressure_iterations_ : momentum_iterations_) += perf.iterations;
    ++steps_;
    last_delta_t_ = dt;
    const bool is_steady = steady_.update(report_.momentum_residual, report_.velocity_change);
    if (is_steady && !steady_time_) steady_time_ = time;

    StepOutcome outcome;
    outcome.solves = report_.solves;
    outcome.stop = is_steady && steady_.settings().stop;
    outcome.log = fmt::format("Courant Number mean: {:.6g} max: {:.6g}\n", courant.mean, courant.max);
    // --- OpenFOAM's lines: the solves in order, each pressure correction's continuity errors after it
    const auto continuity_line = [](const ContinuityErrors& e) {
      return fmt::format("time step continuity errors : sum local = {:.6g}, global = {:.6g}, cumulative = {:.6g}\n",
                         e.sum_local, e.global, e.cumulative);
    };
    auto correction = report_.corrections.begin();
    for (std::size_t j = 0; j < report_.solves.size(); ++j) {
      outcome.log += format_solve_line(report_.solves[j]) + "\n";
      for (; correction != report_.corrections.end() && correction->after_solve == j; ++correction)
        outcome.log += continuity_line(correction->continuity);
    }
    if (report_.corrections.empty()) outcome.log += continuity_line(report_.continuity);
    outcome.log += fmt::format("deltaT = {:.6g}  velocity change = {:.3g}\n", dt, report_.velocity_change);
    outcome.progress = fmt::format("  Co {:.3f}  p iters {}", courant.max, report_.solves.back().iterations);
    return outcome;
  }

  void write(double time, double dt) override { output_.write(*operators_, step_->state(), time, dt); }

  std::string failure_hint() const override {
    return fmt::format(", Courant number max {:.3g} so far: the flow diverged; reduce deltaT or maxCo", courant_max_seen_);
  }

  std::string finish(RunSummary& summary, bool failed) override {
    record_solvers(*step_, summary);
    if (failed) return {};
    auto& results = summary.results();
    results["lastDeltaT"] = last_delta_t_;
    results["steady"] = steady_time_.has_value();
    if (steady_time_) results["steadyTime"] = *steady_time_;
    results["courantMax"] = courant_max_seen_;
    results["pressureIterationsMean"] = steps_ > 0 ? static_cast<double>(pressure_iterations_) / steps_ : 0.0;
    // the velocity components' iterations summed, a step
    results["momentumIterationsMean"] = steps_ > 0 ? static_cast<double>(momentum_iterations_) / steps_ : 0.0;
    results["continuity"] = {{"sumLocal", report_.continuity.sum_local},
                             {"global", report_.continuity.global},
                             {"cumulative", report_.continuity.cumulative}};
    results["momentumResidual"] = report_.momentum_residual;
    results["velocityChange"] = report_.velocity_change;
    if (output_.samples()) results["centrelines"] = output_.centreline_file().filename().string();
    if (output_.vtk()) results["vtk"] = output_.collection().filename().string();
    if (!steady_time_) return {};
    const SteadyStateSettings& s = steady_.settings();
    return fmt::format(
        "Steady state reached at Time = {:g} (momentum residual < {:g}, velocity change < {:g} on {} steps in a "
        "row){}\n",
        *steady_time_, s.residual_tolerance, s.velocity_tolerance, s.consecutive_steps, s.stop ? "; stopping" : "");
  }

 private:
  PhaseTimer& timer_;
  IncompressibleSettings settings_;
  std::string reynolds_;  ///< ", Re = ..." of the log's Physics line, or ""
  SteadyStateDetector steady_;
  FlowOutput output_;
  std::optional<FlowOperators> operators_;
  std::unique_ptr<FlowStep> step_;
  StepReport report_;
  double courant_max_seen_ = 0.0;
  double last_delta_t_ = 0.0;
  long long steps_ = 0;
  long long pressure_iterations_ = 0;
  long long momentum_iterations_ = 0;
  std::optional<double> steady_time_;
};

}  // namespace

std::unique_ptr<Simulation> make_flow_simulation(const ResolvedCase& resolved, const RunContext& context,
                                                 const Mesh& mesh, MeshGeometry& geometry,
                                                 std::span<const label> global_cell, const CellFaceLists* cells,
                                                 PhaseTimer& timer) {
  return std::make_unique<FlowSimulation>(resolved, context, mesh, geometry, global_cell, cells, timer);
}

}  // namespace fvmmini
