#include "app/case_solver_settings.hpp"

#include "registry/format_registry.hpp"

namespace fvmmini {

SolverSettings solver_settings(const ResolvedCase& resolved, const std::string& field) {
  const std::string base = "solvers." + field + ".";
  SolverSettings settings;
  settings.solver = parse_krylov_solver(resolved.get_string(base + "solver"));
  settings.preconditioner = parse_preconditioner(resolved.get_string(base + "preconditioner"));
  if (resolved.has(base + "sweeps")) settings.sweeps = static_cast<int>(resolved.get_int(base + "sweeps"));
  if (resolved.has(base + "triangularSolve"))
    settings.triangular_solve = parse_triangular_solve(resolved.get_string(base + "triangularSolve"));
  if (settings.preconditioner == Preconditioner::GAMG) {
    GamgSettings& g = settings.gamg;
    g.n_cells_in_coarsest_level = static_cast<label>(resolved.get_int(base + "nCellsInCoarsestLevel"));
    g.merge_levels = static_cast<int>(resolved.get_int(base + "mergeLevels"));
    g.smoother = parse_smoother(resolved.get_string(base + "smoother"));
    g.n_pre_sweeps = static_cast<int>(resolved.get_int(base + "nPreSweeps"));
    g.n_post_sweeps = static_cast<int>(resolved.get_int(base + "nPostSweeps"));
    g.n_vcycles = static_cast<int>(resolved.get_int(base + "nVcycles"));
    g.correction_scale = resolved.get_real(base + "correctionScale");
  }
  settings.tolerance = resolved.get_real(base + "tolerance");
  settings.rel_tol = resolved.get_real(base + "relTol");
  settings.max_iter = static_cast<int>(resolved.get_int(base + "maxIter"));
  settings.backend = parse_backend(resolved.get_string(base + "backend"));
  settings.format = resolved.get_string(base + "format");
  settings.ordering = resolved.get_string(base + "ordering");
  // --- every format's parameters (the schema declared and checked them from the same specs)
  for (const auto& unit : format_table())
    for (const auto& spec : unit.parameters)
      settings.format_parameters.set(spec.key, parse_parameter(spec, resolved.get_string(base + spec.key)));
  return settings;
}

}  // namespace fvmmini
