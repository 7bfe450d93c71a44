#include "app/scalar_simulation.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "app/case_solver_settings.hpp"
#include "app/key_path.hpp"
#include "app/output_folder.hpp"
#include "app/settings_keys.hpp"
#include "app/vtk_writer.hpp"
#include "discretisation/scalar_problem.hpp"
#include "solvers/make_linear_solver.hpp"

namespace fvmmini {

namespace {

/// boundaryField as conditions of T, in the mesh's patch order; exact[p] marks value: exact.
ScalarBoundary scalar_boundary(const ResolvedCase& c, const Mesh& mesh, std::vector<bool>& exact) {
  ScalarBoundary boundary;
  exact.assign(mesh.patches.size(), false);
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    if (mesh.patches[p].neighbour_rank >= 0) {  // a processor patch of this rank's part: coupled
      boundary.patches.push_back({BoundaryType::processor, {}});
      continue;
    }
    const std::string key = key_path("boundaryField", mesh.patches[p].name);
    PatchCondition bc{parse_boundary_type(c.get_string(key + ".type")), {}};
    if (bc.type == BoundaryType::fixed_value) {
      if (c.is_number(key + ".value"))
        bc.values.assign(mesh.patches[p].size, c.get_real(key + ".value"));
      else
        exact[p] = true;  // filled from the manufactured solution by ScalarProblem
    }
    boundary.patches.push_back(std::move(bc));
  }
  return boundary;
}

ScalarProblemSettings scalar_problem_settings(const ResolvedCase& c) {
  ScalarProblemSettings s;
  CaseKeys physics(c, "physics"), discretisation(c, "discretisation");
  declare_physics_keys(physics, s);
  declare_discretisation_keys(discretisation, s);
  s.transient = c.get_string("physics.type") == "diffusion";
  if (s.transient) {
    s.delta_t = c.get_real("time.deltaT");
    s.start_time = c.get_real("time.startTime");
  }
  return s;
}

/// The non-orthogonal correction over a run: the log line of each solve and the summary's record.
struct NonOrthogonalLoopRecord {
  long long solves = 0;         ///< solves with a correction loop (non-orthogonal meshes)
  long long not_converged = 0;  ///< of those, ended above the tolerance
  int most_correctors = 0;
  NonOrthogonalCorrection last;

  /// Fold one solve in. @return its outcome for the log, empty on an orthogonal mesh (no loop)
  std::string add(const NonOrthogonalCorrection& c, const ScalarProblemSettings& s) {
    if (c.correctors == 0 && c.converged) return {};
    ++solves;
    last = c;
    most_correctors = std::max(most_correctors, c.correctors);
    if (c.converged)
      return fmt::format("Non-orthogonal correction: {} corrector{}, residual {:.3g} < {:g}", c.correctors,
                         c.correctors == 1 ? "" : "s", c.residual, s.non_orthogonal_tolerance);
    ++not_converged;
    if (c.correctors == 0)
      return "non-orthogonal mesh solved without the correction loop (nonOrthogonalCorrectors 0): the deferred "
             "correction is one solve behind and the answer loses its order";
    return fmt::format("the non-orthogonal correction did not converge: residual {:.3g} > {:g} after {} "
                       "correctors (raise discretisation.nonOrthogonalCorrectors)",
                       c.residual, s.non_orthogonal_tolerance, c.correctors);
  }

  nlohmann::json json(const ScalarProblemSettings& s) const {
    return {{"correctors", last.correctors},      {"mostCorrectors", most_correctors},
            {"residual", last.residual},          {"tolerance", s.non_orthogonal_tolerance},
            {"maxCorrectors", s.non_orthogonal_correctors}, {"converged", not_converged == 0},
            {"solvesNotConverged", not_converged}};
  }
};

class ScalarSimulation final : public Simulation {
 public:
  ScalarSimulation(const ResolvedCase& c, const RunContext& context, const Mesh& mesh, const MeshGeometry& geometry,
                   std::span<const label> global_cell, PhaseTimer& timer)
      : mesh_(mesh),
        timer_(timer),
        settings_(scalar_problem_settings(c)) {
    const Communicator& ranks = *context.ranks;
    if (ranks.distributed()) {  // the reference cell's number on the rank that has it, -1 elsewhere
      const auto at = std::lower_bound(global_cell.begin(), global_cell.end(), settings_.reference_cell);
      settings_.reference_cell =
          at != global_cell.end() && *at == settings_.reference_cell ? static_cast<label>(at - global_cell.begin()) : -1;
    }
    {
      auto timing = timer.measure("assembly");
      std::vector<bool> exact;
      ScalarBoundary boundary = scalar_boundary(c, mesh, exact);
      problem_.emplace(mesh, geometry, std::move(boundary), std::move(exact), settings_, ranks, global_cell);
    }
    {
      auto timing = timer.measure("solver setup");
      try {
        solver_ = ranks.distributed() ? make_distributed_linear_solver(problem_->system(), solver_settings(c, "T"), ranks)
                                      : make_linear_solver(problem_->matrix(), solver_settings(c, "T"));
      } catch (const SolverSetupError&) {
        throw;
      } catch (const std::invalid_argument& e) {
        throw SolverSetupError("T", e.what());  // Staircase alpha, a cuda-only format: a case error
      }
    }
    if (c.get_bool("output.vtk")) vtk_.emplace(mesh, context.output_directory, fields_basename, ranks,
                                               std::vector<label>(global_cell.begin(), global_cell.end()));
  }

  std::string describe() const override {
    std::string text = fmt::format("Physics: {}, diffusivity {:g}{}\nT solver: {}\n",
                                   settings_.transient ? "diffusion (implicit Euler)" : "poisson (steady)",
                                   settings_.diffusivity, settings_.manufactured ? ", manufactured solution sine" : "",
                                   solver_->describe());
    if (const label capped = problem_->capped_stencils(); capped > 0)
      text += fmt::format("Warning: the least-squares stencils of {} cell{} were cut to {} points (a "
                          "cell with that many neighbours or boundary faces nearby)\n",
                          capped, capped == 1 ? "" : "s", stencil_cap_points);
    return text;
  }

  bool transient() const override { return settings_.transient; }

  StepOutcome advance(double time, double) override {
    auto timing = timer_.measure("solve");  // the step's right-hand side, solves and correctors
    const ScalarStep result = problem_->advance(*solver_, time);
    timing.stop();
    StepOutcome outcome;
    outcome.solves = result.solves;
    for (const auto& perf : result.solves) outcome.log += format_solve_line(perf) + "\n";
    const std::string correction = correction_.add(result.correction, settings_);
    if (!result.correction.converged && settings_.non_orthogonal_must_converge)
      throw SolverError(correction + " (discretisation.nonOrthogonalNotConverged: error)");
    if (!correction.empty()) outcome.log += (result.correction.converged ? "" : "Warning: ") + correction + "\n";
    time_ = time;
    return outcome;
  }

  void write(double time, double) override {
    if (!vtk_) return;
    std::vector<ScalarCellField> fields{{"T", problem_->field()}};
    const auto exact = problem_->exact_field(time);
    std::vector<double> error;
    if (exact) {
      error.resize(mesh_.n_cells);
      for (label i = 0; i < mesh_.n_cells; ++i) error[i] = problem_->field()[i] - (*exact)[i];
      fields.push_back({"T_exact", *exact});
      fields.push_back({"T_error", error});
    }
    vtk_->write(time, fields);
  }

  std::string finish(RunSummary& summary, bool failed) override {
    summary.set_format("T", solver_->format_info());
    summary.set_preconditioner("T", solver_->preconditioner_info());
    auto& results = summary.results();
    if (correction_.solves > 0) results["nonOrthogonalCorrection"] = correction_.json(settings_);
    if (failed) return {};
    std::string lines;
    if (correction_.not_converged > 0)
      lines += fmt::format("Warning: the non-orthogonal correction ended above its tolerance in {} of {} solves\n\n",
                           correction_.not_converged, correction_.solves);
    if (const auto error = problem_->error(time_)) {
      lines += fmt::format("Error against the manufactured solution at Time = {:g}: L2 = {:.6g}, max = {:.6g}\n\n",
                           time_, error->l2, error->max);
      results["error"] = {{"l2", error->l2}, {"max", error->max}};
    }
    if (vtk_) results["vtk"] = vtk_->collection_path().filename().string();
    return lines;
  }

 private:
  const Mesh& mesh_;
  PhaseTimer& timer_;
  ScalarProblemSettings settings_;
  std::optional<ScalarProblem> problem_;
  std::unique_ptr<LinearSolver> solver_;
  NonOrthogonalLoopRecord correction_;
  double time_ = 0.0;
  std::optional<VtkSeriesWriter> vtk_;
};

}  // namespace

std::unique_ptr<Simulation> make_scalar_simulation(const ResolvedCase& resolved, const RunContext& context,
                                                   const Mesh& mesh, MeshGeometry& geometry,
                                                   std::span<const label> global_cell, const CellFaceLists*,
                                                   PhaseTimer& timer) {
  return std::make_unique<ScalarSimulation>(resolved, context, mesh, geometry, global_cell, timer);
}

}  // namespace fvmmini
