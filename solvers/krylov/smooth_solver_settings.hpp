#pragma once
// The settings smoothSolver takes, checked alike by both backends' (units/smoothsolver.cpp, which
// defines the check, and its cuda twin).

#include "linalg/solver_settings.hpp"

namespace fvmmini {

/// @throws std::invalid_argument for a smoother that is GAMG's, or nSweeps below 1, naming the key
void check_smooth_solver_settings(const SolverSettings& settings);

}  // namespace fvmmini
