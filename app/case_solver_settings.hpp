#pragma once
// The linear-solver settings of one field, as the case's solvers.<field> gives them.

#include <string>
#include <vector>

#include "app/resolved_case.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini {

/// SolverSettings from solvers.<field> (every key resolved, defaults included).
/// Throws std::out_of_range when the case has no solvers.<field> (the physics does not solve it).
SolverSettings solver_settings(const ResolvedCase& resolved, const std::string& field);

/// The settings of every solvers.<field> the case has (none: empty).
std::vector<SolverSettings> case_solver_settings(const ResolvedCase& resolved);

}  // namespace fvmmini
