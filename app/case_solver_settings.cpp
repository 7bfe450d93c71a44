#include "app/case_solver_settings.hpp"

#include <stdexcept>

#include "app/settings_keys.hpp"
#include "registry/format_registry.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace {

/// The keys of solvers.<field> into `settings`: every key the case holds, or (given_only) those
/// it gives; the format keys always only where given (the others take the format's defaults at
/// set-up, which can so tell a default from a choice: precision mixed picks staircase's alpha
/// where the case gives none).
void read_solver_keys(const ResolvedCase& resolved, const std::string& field, bool given_only,
                      SolverSettings& settings) {
  const std::string base = "solvers." + field + ".";
  CaseKeys keys(resolved, "solvers." + field, given_only);
  declare_keys(keys, settings);
  const auto read = [&](const char* key) { return given_only ? resolved.given(base + key) : resolved.has(base + key); };
  if (read("format")) settings.format = resolved.get_string(base + "format");
  if (read("ordering")) settings.ordering = resolved.get_string(base + "ordering");
  if (read("solver")) settings.solver = resolved.get_string(base + "solver");
  if (read("preconditioner"))  // jacobi: diagonal
    settings.preconditioner = parse_preconditioner(resolved.get_string(base + "preconditioner"));
  for (const auto& unit : format_table())
    for (const auto& spec : unit.parameters)
      if (resolved.given(base + spec.key))
        settings.format_parameters.set(spec.key, parse_parameter(spec, resolved.get_string(base + spec.key)));
}

}  // namespace

SolverSettings solver_settings(const ResolvedCase& resolved, const std::string& field) {
  if (!resolved.has("solvers." + field)) throw std::out_of_range("the case has no solvers." + field);
  SolverSettings settings;
  read_solver_keys(resolved, field, false, settings);
  return settings;
}

SolverSettings final_solver_settings(const ResolvedCase& resolved, const std::string& field, const std::string& base) {
  SolverSettings settings = solver_settings(resolved, base);
  settings.rel_tol = 0.0;
  if (resolved.has("solvers." + field)) read_solver_keys(resolved, field, true, settings);
  return settings;
}

std::vector<SolverSettings> case_solver_settings(const ResolvedCase& resolved) {
  std::vector<SolverSettings> all;
  if (resolved.has("solvers"))
    for (const auto& field : resolved.entry_names("solvers")) all.push_back(solver_settings(resolved, field));
  return all;
}

}  // namespace fvmmini
