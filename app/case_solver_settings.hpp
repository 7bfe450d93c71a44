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

/// The settings of a final solve, solvers.<field> (PISO's pFinal): the keys it gives over those of
/// solvers.<base>, relTol 0 unless it gives one (OpenFOAM's tutorials: pFinal { $p; relTol 0; }).
SolverSettings final_solver_settings(const ResolvedCase& resolved, const std::string& field, const std::string& base);

/// The settings of every solvers.<field> the case has (none: empty).
std::vector<SolverSettings> case_solver_settings(const ResolvedCase& resolved);

}  // namespace fvmmini
