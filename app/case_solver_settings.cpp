#include "app/case_solver_settings.hpp"

namespace fvmmini {

SolverSettings solver_settings(const ResolvedCase& resolved, const std::string& field) {
  const std::string base = "solvers." + field + ".";
  SolverSettings settings;
  settings.solver = resolved.get_string(base + "solver");
  settings.preconditioner = resolved.get_string(base + "preconditioner");
  settings.tolerance = resolved.get_real(base + "tolerance");
  settings.rel_tol = resolved.get_real(base + "relTol");
  settings.max_iter = static_cast<int>(resolved.get_int(base + "maxIter"));
  settings.backend = resolved.get_string(base + "backend");
  settings.format = resolved.get_string(base + "format");
  settings.ordering = resolved.get_string(base + "ordering");
  settings.format_parameters.slice_height = static_cast<int>(resolved.get_int(base + "sliceHeight"));
  // alpha "auto" is resolved against the matrix size when the format is built (0 means auto)
  settings.format_parameters.alpha = resolved.is_number(base + "alpha") ? resolved.get_real(base + "alpha") : 0.0;
  settings.format_parameters.chunk_size = static_cast<int>(resolved.get_int(base + "chunkSize"));
  settings.format_parameters.sort_window = static_cast<int>(resolved.get_int(base + "sortWindow"));
  settings.format_parameters.staircase_launch = parse_staircase_launch(resolved.get_string(base + "launch"));
  return settings;
}

}  // namespace fvmmini
