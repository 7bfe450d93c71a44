#include "app/case_solver_settings.hpp"

#include "app/settings_keys.hpp"
#include "registry/format_registry.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

SolverSettings solver_settings(const ResolvedCase& resolved, const std::string& field) {
  const std::string base = "solvers." + field + ".";
  auto settings = read_settings<SolverSettings>(resolved, "solvers." + field);
  settings.format = resolved.get_string(base + "format");
  settings.ordering = resolved.get_string(base + "ordering");
  settings.solver = resolved.get_string(base + "solver");
  settings.preconditioner = parse_preconditioner(resolved.get_string(base + "preconditioner"));  // jacobi: diagonal
  // --- the format keys the case gives (the schema declared and checked them from the same specs);
  //     the others take the format's defaults at set-up, which can so tell a default from a choice
  //     (precision mixed picks staircase's alpha where the case gives none)
  for (const auto& unit : format_table())
    for (const auto& spec : unit.parameters)
      if (resolved.given(base + spec.key))
        settings.format_parameters.set(spec.key, parse_parameter(spec, resolved.get_string(base + spec.key)));
  return settings;
}

std::vector<SolverSettings> case_solver_settings(const ResolvedCase& resolved) {
  std::vector<SolverSettings> all;
  if (resolved.has("solvers"))
    for (const auto& field : resolved.entry_names("solvers")) all.push_back(solver_settings(resolved, field));
  return all;
}

}  // namespace fvmmini
