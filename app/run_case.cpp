#include "app/run_case.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "app/case_mesh.hpp"
#include "app/case_solver_settings.hpp"
#include "app/phase_timer.hpp"
#include "app/progress.hpp"
#include "app/run_incompressible.hpp"
#include "app/run_summary.hpp"
#include "app/time_schedule.hpp"
#include "discretisation/scalar_problem.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_error.hpp"
#if FVMMINI_HAVE_VTK
#include "app/vtk_writer.hpp"
#endif

namespace fvmmini {

namespace {

/// boundaryField as conditions of T, in the mesh's patch order; exact[p] marks value: exact.
ScalarBoundary scalar_boundary(const ResolvedCase& c, const Mesh& mesh, std::vector<bool>& exact) {
  ScalarBoundary boundary;
  exact.assign(mesh.patches.size(), false);
  for (size_t p = 0; p < mesh.patches.size(); ++p) {
    const std::string key = "boundaryField." + mesh.patches[p].name;
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
      return fmt::format("Non-orthogonal correction: {} correctors, residual {:.3g} < {:g}", c.correctors, c.residual,
                         s.non_orthogonal_tolerance);
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

}  // namespace

void build_checked_mesh(const ResolvedCase& c, PhaseTimer& timer, bool verbose, Mesh& mesh, MeshGeometry& geometry) {
  {
    auto timing = timer.measure("mesh");
    mesh = build_case_mesh(c);
    check_case_against_mesh(c, mesh);
  }
  auto timing = timer.measure("geometry");
  geometry = compute_geometry(mesh);
  const MeshCheckReport check = check_mesh(mesh, geometry);
  if (verbose) std::fputs((format_mesh_check(check) + "\n").c_str(), stdout);
  if (!check.ok())
    throw MeshError(c.case_file().string(), 0,
                    "the mesh failed " + std::to_string(check.failures.size()) + " check(s): " + check.failures.front());
}

int run_case(const ResolvedCase& c, const RunContext& context) {
  const std::string physics = c.get_string("physics.type");
  if (physics == "incompressible") return run_incompressible_case(c, context);
  return run_scalar_case(c, context);
}

int run_scalar_case(const ResolvedCase& c, const RunContext& context) {
  PhaseTimer timer;
  RunSummary summary(c, context);
  const bool verbose = !context.quiet;
  const auto say = [&](const std::string& text) {
    if (verbose) {
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
  };

  // --- mesh and geometry
  Mesh mesh;
  MeshGeometry geometry;
  build_checked_mesh(c, timer, verbose, mesh, geometry);
  summary.set_mesh(mesh);

  // --- the problem and its solver (ordering and format built once)
  const bool transient = c.get_string("physics.type") == "diffusion";
  ScalarProblemSettings s;
  s.transient = transient;
  s.diffusivity = c.get_real("physics.diffusivity");
  s.manufactured = c.get_string("physics.manufactured") == "sine";
  if (!s.manufactured) s.source = c.get_real("physics.source");
  if (transient && !s.manufactured) s.initial = c.get_real("physics.initial");
  if (transient) {
    s.delta_t = c.get_real("time.deltaT");
    s.start_time = c.get_real("time.startTime");
  }
  s.non_orthogonal_correctors = static_cast<int>(c.get_int("discretisation.nonOrthogonalCorrectors"));
  s.non_orthogonal_tolerance = c.get_real("discretisation.nonOrthogonalTolerance");
  const bool correction_must_converge = c.get_string("discretisation.nonOrthogonalNotConverged") == "error";
  s.reference_cell = static_cast<label>(c.get_int("discretisation.referenceCell"));
  s.reference_value = c.get_real("discretisation.referenceValue");
  std::optional<ScalarProblem> problem;
  std::unique_ptr<LinearSolver> solver;
  {
    auto timing = timer.measure("assembly");
    std::vector<bool> exact;
    ScalarBoundary boundary = scalar_boundary(c, mesh, exact);
    problem.emplace(mesh, geometry, std::move(boundary), std::move(exact), s);
  }
  {
    auto timing = timer.measure("solver setup");
    try {
      solver = make_linear_solver(problem->matrix(), solver_settings(c, "T"));
    } catch (const std::invalid_argument& e) {
      // a parameter that does not fit this matrix (Staircase alpha, a cuda-only format): a case error
      throw CaseError(c.where("solvers.T"), std::string("solvers.T: ") + e.what());
    }
  }

  // --- the output folder exists only once setup has succeeded
  std::filesystem::create_directories(context.output_directory);
  const std::string summary_name = c.get_string("output.summary");
  const auto summary_path = summary_name.empty() ? std::filesystem::path{} : context.output_directory / summary_name;
#if FVMMINI_HAVE_VTK
  std::optional<VtkSeriesWriter> vtk;
  if (c.get_bool("output.vtk")) vtk.emplace(mesh, context.output_directory, "fields");
#endif
  auto write_fields = [&]([[maybe_unused]] double time) {
    auto timing = timer.measure("output");
#if FVMMINI_HAVE_VTK
    if (!vtk) return;
    std::vector<ScalarCellField> fields{{"T", problem->field()}};
    const auto exact = problem->exact_field(time);
    std::vector<double> error;
    if (exact) {
      error.resize(mesh.n_cells);
      for (label i = 0; i < mesh.n_cells; ++i) error[i] = problem->field()[i] - (*exact)[i];
      fields.push_back({"T_exact", *exact});
      fields.push_back({"T_error", error});
    }
    vtk->write(time, fields);
#endif
  };

  say(fmt::format("Mesh: {} ({} cells, {} faces)\n", mesh.description, mesh.n_cells, mesh.n_faces()));
  say(fmt::format("Physics: {}, diffusivity {:g}{}\n", transient ? "diffusion (implicit Euler)" : "poisson (steady)",
                  s.diffusivity, s.manufactured ? ", manufactured solution sine" : ""));
  say(fmt::format("T solver: {}\n\n", solver->describe()));

  // --- solve: once (poisson) or step by step (diffusion)
  double time = transient ? s.start_time : 0.0;
  long long step = 0;
  NonOrthogonalLoopRecord correction;
  try {
    auto solve_to = [&](double new_time) {
      ScalarStep result;
      {
        auto timing = timer.measure("solve");
        result = problem->advance(*solver, new_time);
      }
      std::string lines;
      for (const auto& perf : result.solves) {
        summary.add_solve(perf);
        lines += format_solve_line(perf) + "\n";
      }
      const std::string outcome = correction.add(result.correction, s);
      if (!result.correction.converged && correction_must_converge)
        throw SolverError(outcome + " (discretisation.nonOrthogonalNotConverged: error)");
      if (!outcome.empty()) lines += (result.correction.converged ? "" : "Warning: ") + outcome + "\n";
      return lines;
    };
    if (!transient) {
      say(solve_to(0.0) + "\n");
      write_fields(0.0);
    } else {
      // the schema checked that steps of deltaT land on every write time and on endTime
      const double end = c.get_real("time.endTime");
      TimeSchedule clock(s.start_time, end, c.get_real("time.writeInterval"));
      ProgressLine progress(context.tty && verbose);
      write_fields(time);
      while (!clock.finished()) {
        clock.advance(s.delta_t);
        time = clock.time();
        step = clock.step();
        const std::string lines = solve_to(time);
        progress.clear();
        say(fmt::format("Time = {:g}\n{}\n", time, lines));
        if (clock.at_write_time()) write_fields(time);
        progress.update((time - s.start_time) / (end - s.start_time), fmt::format("t = {:.5g}", time));
      }
      progress.clear();
    }
  } catch (const std::exception& e) {
    summary.results()["stoppedAt"] = {{"time", time}, {"step", step}};
    if (correction.solves > 0) summary.results()["nonOrthogonalCorrection"] = correction.json(s);
    summary.set_preconditioner("T", solver->preconditioner_info());
    summary.finish(timer, "failed", e.what(), summary_path);
    throw;
  }

  // --- errors against the manufactured solution, timing table, summary
  auto& results = summary.results();
  results["finalTime"] = time;
  results["steps"] = step;
  if (correction.solves > 0) results["nonOrthogonalCorrection"] = correction.json(s);
  if (correction.not_converged > 0)
    say(fmt::format("Warning: the non-orthogonal correction ended above its tolerance in {} of {} solves\n\n",
                    correction.not_converged, correction.solves));
  if (const auto error = problem->error(time)) {
    say(fmt::format("Error against the manufactured solution at Time = {:g}: L2 = {:.6g}, max = {:.6g}\n\n", time,
                    error->l2, error->max));
    results["error"] = {{"l2", error->l2}, {"max", error->max}};
  }
  say(fmt::format("End: {:.3f} s wall\n\n", timer.wall_seconds()));
  say(timer.format_table());
#if FVMMINI_HAVE_VTK
  if (vtk) results["vtk"] = vtk->collection_path().filename().string();
#endif
  summary.set_preconditioner("T", solver->preconditioner_info());
  summary.finish(timer, "completed", {}, summary_path);
  return 0;
}

}  // namespace fvmmini
